"""Moving in the Review page's queue: the reviewer's work order and their place in it, the line with Previous and
Next, the queue's end, and what the last action did (the verdict just given with its Undo, or an error)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard import actor, render, resources, session
from dashboard.review_desk import Desk, Filters
from graphrag.errors import GraphRAGError
from graphrag.language.sentences import counted
from graphrag.verify import (
    UNDO_SECONDS,
    QueueItem,
    WorkQueue,
    undo_verdict,
    undoable,
    visible_answer,
    work_queue,
)

END = session.REVIEW_END
KEYS = "Keys: S yes · P partly · U no · N next · B previous · Z undo a verdict just given"


@dataclass(frozen=True)
class Place:
    """The reviewer's work order under the filters shown, and the claim they are at (END past the last one)."""

    work: WorkQueue
    current: tuple[int, int] | str

    @property
    def keys(self) -> list[tuple[int, int]]:
        """(answer id, claim index) of every claim in the work order."""
        return self.work.keys

    @property
    def pos(self) -> int:
        """The current claim's place in the work order (not at the end)."""
        return next(i for i, k in enumerate(self.keys) if k == self.current)

    @property
    def item(self) -> QueueItem:
        """The current claim's queue item (not at the end)."""
        return self.work.items[self.pos]


def place(desk: Desk, filters: Filters, items: list[QueueItem]) -> Place:
    """The reviewer's work order (graphrag.verify.worklist): what they judged, then what is left for them, then the
    rest; past the last claim, the queue's end. The order shown stays while the reviewer works with these filters: a
    claim keeps its number after its verdict."""
    shown_for = (filters.answer_id, filters.flagged, filters.mine, filters.disputes, filters.sample, desk.who.reviewer)
    kept = st.session_state.get(session.REVIEW_ORDER)
    work = work_queue(items, desk.who.onlooker, disputes=filters.disputes,
                      order=kept[1] if kept and kept[0] == shown_for else ())
    keys = work.keys
    st.session_state[session.REVIEW_ORDER] = (shown_for, keys)
    current = st.session_state.get(session.REVIEW_CURRENT)
    if current == END and work.left and not st.session_state.get(session.REVIEW_AT_END):
        current = work.left[0]  # claims came in (or a verdict was undone) since the end was reached
    if current != END and current not in keys:
        current = work.left[0] if work.left else keys[0] if (filters.mine or filters.disputes) else END
    st.session_state[session.REVIEW_CURRENT] = current
    st.session_state.pop(session.REVIEW_AT_END, None)
    return Place(work, current)


def go(step: int) -> None:
    """Move in the work order shown (the session's): past the last claim is the queue's end, and past the end the
    first claim."""
    keys = st.session_state[session.REVIEW_ORDER][1]
    here = st.session_state.get(session.REVIEW_CURRENT)
    ring = [*keys, END]
    i = ring.index(here) if here in ring else len(keys)
    st.session_state[session.REVIEW_CURRENT] = ring[(i + step) % len(ring)]
    st.session_state[session.REVIEW_AT_END] = ring[(i + step) % len(ring)] == END  # stay at the end the user asked for


def nav_line(where: str) -> None:
    """The line above the claim (or the queue's end): where the reviewer is, then Previous and Next."""
    nav = st.columns([4, 1.4, 1.1], vertical_alignment="center")  # labels whole at 1280 px
    nav[0].markdown(where)
    nav[1].button("Previous", on_click=go, args=(-1,), width="stretch", key="rv_prev", icon=":material/arrow_back:",
                  shortcut="B")
    nav[2].button("Next", on_click=go, args=(1,), width="stretch", key="rv_next", icon=":material/arrow_forward:",
                  shortcut="N")


def claim_line(spot: Place) -> None:
    """The line above a claim: one numbering, the queue's (the claim's place in its answer heads the claim column)."""
    item = spot.item
    nav_line(f"**Claim {spot.pos + 1} of {len(spot.keys)}** in the queue · {len(spot.work.left)} left for you · "
             f"from answer #{item.answer_id}" + (" · in the estimate sample" if item.sample else "")
             + (" · **its cited sentence changed since the answer was verified**: judge it again"
                if item.changed else ""))


def queue_end(desk: Desk, spot: Place) -> None:
    """Past the last claim: the queue's end, with the way back."""
    nav_line(f"**End of the queue** · {counted(len(spot.keys), 'claim')} in the queue")
    feedback(desk)
    st.success(f"Nothing left for you; {spot.work.judged_today} judged today."
               + (" Previous goes back to the claims you judged." if spot.keys else ""), icon=":material/done_all:")
    st.caption(KEYS)


def undo_last() -> None:
    """Undo the verdict just given (a correction appended to the record, by the verify use case) and go back to
    its claim."""
    vid, aid, ci, _text, _at = st.session_state.pop(session.REVIEW_UNDO)
    store, config = resources.store(), resources.config()
    now = actor.acting()  # who acts when the button is pressed
    try:
        undo_verdict(store, now.principal, config, visible_answer(store, aid, now.principal), vid, now.reviewer)
    except GraphRAGError as exc:
        st.session_state[session.REVIEW_ERROR] = str(exc)
        return
    st.session_state[session.REVIEW_CURRENT] = (aid, ci)
    st.session_state[session.REVIEW_TOAST] = (f"Verdict on claim {ci + 1} of answer #{aid} undone: recorded as a "
                                              "correction, the claim is back in your queue.")


def feedback(desk: Desk) -> None:
    """What the last action did: the verdict just given with its Undo (while it can be undone), or an error."""
    if msg := st.session_state.pop(session.REVIEW_TOAST, None):
        st.toast(msg, icon=":material/check:")
    if err := st.session_state.pop(session.REVIEW_ERROR, None):
        st.error(render.plain(err))
    undo = st.session_state.get(session.REVIEW_UNDO)
    # Offered only while the store would honour it: the verdict is still this reviewer's latest on its claim, and
    # young enough (a margin for the click's way to the server). The offer lives in the session, which a restarted
    # dashboard does not have: after a restart there is none.
    if undo and not undoable(desk.store, undo[1], undo[2], undo[0], desk.who.reviewer, by=desk.who.principal,
                             margin_s=2):
        st.session_state.pop(session.REVIEW_UNDO)
        undo = None
    if undo:
        bar = st.columns([5, 1], vertical_alignment="center")
        bar[0].success(render.plain(undo[3]), icon=":material/check:")
        bar[1].button("Undo", on_click=undo_last, key="rv_undo", icon=":material/undo:", shortcut="Z",
                      width="stretch", help=f"Take this verdict back (within {UNDO_SECONDS} seconds of giving it): "
                                            "recorded as a correction, the record keeps both rows")
