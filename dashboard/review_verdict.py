"""The verdict on the claim on screen: three buttons in the words of the claim's kind, the note, why they may be
disabled, and the callback that records the verdict through the verify use case ``mark_verdict`` (the one
``graphrag review mark`` calls) and moves on."""

from __future__ import annotations

import time

import streamlit as st

from dashboard import actor, render, session
from dashboard.review_desk import Filters, OnScreen, read_queue
from graphrag.errors import GraphRAGError
from graphrag.model import VERDICT_WORDS, VerdictKind, VerdictLabel
from graphrag.verify import mark_verdict, work_queue


def pressed_in_callback() -> bool:
    """Whether a verdict button's callback ran before this run (taken once). A button that reports a press its
    callback never saw was pressed on a page drawn by an earlier session (the dashboard restarted): that press
    recorded nothing, and the page says so."""
    return bool(st.session_state.pop(session.REVIEW_JUDGED, False))


def keys_text(kind: VerdictKind) -> str:
    """The keyboard keys, the verdict keys in the words of the claim's kind."""
    words = VERDICT_WORDS[kind]
    return (f"Keys: S {words[VerdictLabel.SUPPORTED]} · P {words[VerdictLabel.PARTIAL]} · "
            f"U {words[VerdictLabel.UNSUPPORTED]} · N next · B previous · Z undo a verdict just given")


def judge(label: VerdictLabel, on: OnScreen) -> None:
    """Append the verdict on the claim ``on`` the screen the button was drawn on, then move on to the next claim
    nobody has judged yet."""
    st.session_state[session.REVIEW_JUDGED] = True
    # the note as typed: its widget's value is current before any callback runs (its own commit may run after)
    note = str(st.session_state.get(f"_w_{session.REVIEW_NOTE}", st.session_state.get(session.REVIEW_NOTE, "")))
    # The role is checked by the use case, with who is signed in now (not when the button was drawn): the one the
    # command line's `graphrag review mark` calls, so both check alike and leave the same audit row.
    now = actor.acting()
    cit, claim = on.chosen(), on.claim
    try:
        v = mark_verdict(on.desk.store, now.principal, on.desk.config, on.item.answer_id, claim.index, label,
                         now.reviewer, note=note, citation=cit.marker if cit is not None else None,
                         adjudicate=on.disputes, kind=on.kind)
    except GraphRAGError as exc:
        st.session_state[session.REVIEW_ERROR] = str(exc)
        return
    st.session_state[session.REVIEW_NOTE] = st.session_state[f"_w_{session.REVIEW_NOTE}"] = ""
    answer_id = on.answer.id
    st.session_state[session.REVIEW_UNDO] = (
        v.id, answer_id, claim.index, f"Recorded “{v.words}” for claim {claim.index + 1} of answer #{answer_id}.",
        time.time())
    keys = st.session_state[session.REVIEW_ORDER][1]  # the work order shown
    try:
        fresh = work_queue(read_queue(on.desk, Filters.from_session()), now.onlooker, disputes=on.disputes,
                           order=keys)
    except GraphRAGError:
        return  # the verdict is stored; the page's own run reads the queue again, or says why it cannot
    st.session_state[session.REVIEW_CURRENT] = fresh.next_left(on.item.key) or session.REVIEW_END
    st.session_state[session.REVIEW_AT_END] = st.session_state[session.REVIEW_CURRENT] == session.REVIEW_END


def verdict_controls(on: OnScreen, judged_now: bool) -> None:
    """The three verdict buttons (in the words of the claim's kind), the note, and why the buttons may be disabled.
    ``judged_now``: a verdict button's callback ran before this run (``pressed_in_callback``)."""
    board, me = on.desk.board, on.desk.who.reviewer
    disputes = on.disputes
    # An adjudicator holds the role for it (team mode) and gave no verdict on the claim (a party cannot settle it).
    party = disputes and on.review.party
    may_settle = not disputes or (board.may_adjudicate and not party)
    disabled = not me or not board.may_judge or not may_settle
    kind_words = VERDICT_WORDS[on.kind]
    # No verdict is styled as the default: a highlighted "Supported" invites a click before reading the source.
    # The buttons' keys are written here: tests press them by key, and the audit scan names them so.
    if board.may_judge:
        pressed = [
            st.button(kind_words[VerdictLabel.SUPPORTED].capitalize(), on_click=judge,
                      args=(VerdictLabel.SUPPORTED, on), disabled=disabled, width="stretch",
                      icon=":material/check_circle:", key="rv_supported", shortcut="S"),
            st.button(kind_words[VerdictLabel.PARTIAL].capitalize(), on_click=judge, args=(VerdictLabel.PARTIAL, on),
                      disabled=disabled, width="stretch", icon=":material/contrast:", key="rv_partial", shortcut="P"),
            st.button(kind_words[VerdictLabel.UNSUPPORTED].capitalize(), on_click=judge,
                      args=(VerdictLabel.UNSUPPORTED, on), disabled=disabled, width="stretch",
                      icon=":material/cancel:", key="rv_unsupported", shortcut="U")]
        if any(pressed) and not judged_now:
            st.warning("That verdict was not recorded: the dashboard had restarted and drew this page again. "
                       "Judge this claim now.", icon=":material/restart_alt:")
        st.caption(keys_text(on.kind))
        # under the buttons, so they stay on a laptop's first screen; typed before the verdict it goes with
        st.text_input("Note (optional)", placeholder=f"Verdict by {me or '(set your name)'}",
                      help="Kept while you move in the queue or visit another page; saved with your next verdict",
                      **session.persist(session.REVIEW_NOTE))
    if not board.may_judge:
        st.caption(render.plain(f"Your role ({board.role}) reads the record; recording verdicts needs the "
                                "reviewer role in the access policy."))
    elif disputes and not board.may_adjudicate:
        st.caption(render.plain(f"Settling a dispute needs the adjudicator role (yours: {board.role})."))
    elif party:
        st.caption("You gave a verdict on this claim: its dispute is settled by an adjudicator who took no part.")
    elif disabled:
        st.caption("Enter your name in the sidebar to record verdicts.")
    elif disputes:
        st.caption("You are adjudicating: your verdict settles this disputed claim and is recorded as such.")
