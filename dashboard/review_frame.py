"""The Review page's frame: what other pages hand it, the answer and filter widgets with the review policy, the
exports of the record, what the page says when the queue is empty or a question made no claim, and the queue's
table."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboard import render, session
from dashboard.review_desk import Desk, Filters
from graphrag.language.sentences import counted
from graphrag.present import ReviewBoard
from graphrag.verify import QueueItem, export_record


def take_hand_offs(board: ReviewBoard) -> None:
    """"Review this answer" on the ask page leaves the answer here; the filter widget takes it once. "Review the
    sample" on the Record page likewise turns the estimate sample's filter on. An answer choice that is gone (the
    viewer cannot see it, or it was withdrawn with a removed document: nothing to judge) is reset."""
    if session.PENDING_REVIEW_ANSWER in st.session_state:
        st.session_state[session.REVIEW_ANSWER] = st.session_state.pop(session.PENDING_REVIEW_ANSWER)
    if st.session_state.pop(session.PENDING_REVIEW_SAMPLE, False):
        st.session_state[session.REVIEW_SAMPLE] = True
    # Only a choice that is gone is reset: a widget's value set by the script on every run is pushed to the browser
    # on every run too, where it overrode the first pick made in the dropdown after a verdict's rerun.
    if st.session_state.get(session.REVIEW_ANSWER) is not None and \
            st.session_state[session.REVIEW_ANSWER] not in board.answers:
        st.session_state[session.REVIEW_ANSWER] = None


def filter_bar(desk: Desk) -> Filters:
    """Two rows, so every label is whole on a 1280-pixel screen: the answer and the exports, then the filters; under
    them the review policy in force. Returns the filters as set."""
    board = desk.board
    answers = board.answers  # never what the viewer cannot see, nor answers withdrawn with a removed document
    top = st.columns([4.0, 0.8, 0.8], vertical_alignment="bottom")
    top[0].selectbox("Answer", [None, *answers], key=session.REVIEW_ANSWER,
                     format_func=lambda a: "All answers" if a is None else f"#{a}: {answers[a][:70]}")
    filters = st.columns(4)
    filters[0].toggle("Flagged only", key=session.REVIEW_FLAGGED, help="Claims the checker flagged")
    filters[1].toggle("Reviewed by me", key=session.REVIEW_MINE, help="Claims you have judged")
    filters[2].toggle("Disputes", key=session.REVIEW_DISPUTES,
                      help="Claims whose required reviewers disagree: your verdict settles one you took no part "
                           "in, as its adjudicator" + (" (needs the adjudicator role)" if board.team else ""))
    filters[3].toggle("Estimate sample", key=session.REVIEW_SAMPLE,
                      help="The random sample of unreviewed claims the Record page's estimate of what nobody "
                           "reviewed waits for (its claims come first in the queue anyway)")
    policy = board.policy
    st.caption(f"Review policy: {counted(policy.required, 'independent verdict')} per claim"
               + (" · blind: other reviewers' verdicts on a claim show once you have given yours" if policy.blind
                  else ""))
    if board.may_export:
        export_buttons(desk, top[1], top[2])
    return Filters.from_session()


def export_text(desk: Desk, fmt: str) -> str:
    """The verification record for download, built when the button is clicked (outside the script run): the role
    is checked by the use case against the policy as it is now, and the export is audited."""
    return export_record(desk.store, desk.who.refreshed().principal, desk.config, fmt, me=desk.who.reviewer).text


def export_buttons(desk: Desk, csv_place: Any, json_place: Any) -> None:
    """Deferred downloads: the record is built when the button is clicked, not on every rerun. No rerun on the click
    (on_click="ignore"): each run registers the generator under a new id and drops the old one, so a click's rerun
    raced its own download request and lost it now and then."""
    board = desk.board
    # the store's total only where it says nothing blind review hides
    n_rows = f"; {board.total_verdicts} in all" if board.total_verdicts is not None else ""
    csv_place.download_button("CSV", lambda: export_text(desk, "csv"), "verification.csv", "text/csv",
                              icon=":material/download:", key="export_csv", on_click="ignore",
                              help=f"Export the verification record (the verdicts on answers you can see{n_rows})")
    json_place.download_button("JSON", lambda: export_text(desk, "json"), "verification.json",
                               "application/json", icon=":material/download:", key="export_json", on_click="ignore")


def unanswered_note(board: ReviewBoard) -> None:
    """Questions the documents did not answer make no claim: nothing of them is queued, and the page says so, each
    question once, the newest few, folded (under the claim, so the verdict buttons stay on the first screen)."""
    if not (unanswered := board.unanswered):
        return
    more = board.unanswered_more
    with st.expander(f"Not in the queue: {counted(len(unanswered) + more, 'question')} the documents did not answer",
                     icon=":material/block:"):
        st.caption("No claim was made for them: their closest passages are passages, not claims.")
        st.markdown("\n".join(f"- #{a.id} “{render.plain(a.question)}”: {render.plain(a.text)}" for a in unanswered)
                    + (f"\n\n…and {counted(more, 'earlier question')}." if more else ""))


def nothing_to_review(board: ReviewBoard, filters: Filters) -> None:
    """The queue under these filters is empty: say why, and what to do."""
    unanswered_note(board)
    if not board.any_answers:
        st.info("Nothing to review yet: ask a question on the Ask page; its claims will appear here.")
    else:
        st.info("No disputed claims: every disagreement is settled." if filters.disputes else
                "No claim of the estimate sample is left to show: draw a sample on the Record page, or switch "
                "“Estimate sample” off." if filters.sample else
                "No claims match these filters (or the answers use documents outside your access labels).")


def queue_table(items: list[QueueItem]) -> None:
    """The whole queue under the filters, folded under the claim."""
    with st.expander(f"Queue ({counted(len(items), 'claim')})"):
        render.table(pd.DataFrame([{
            "answer": q.answer_id, "claim": q.claim_index + 1, "text": q.text,
            "score": q.score, "flags": ", ".join(render.FLAG_TEXT.get(f, f.value) for f in q.flags),
            "verdicts": ", ".join(f"{x.reviewer}: {x.words}" + (" (stale)" if x.stale else "")
                                  + (f" ({x.tampered})" if x.tampered else "") for x in q.verdicts),
        } for q in items]), hide_index=True, width="stretch")
