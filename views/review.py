"""Review: one claim at a time, its route and its source side by side, a verdict, then the next.

A shell: the page calls its parts top-down, each a helper in dashboard/ (review_desk: who acts, the board, the
filters, the claim on screen; review_frame: the filters, the exports, an empty queue; review_nav: the work order,
Previous and Next, Undo; review_claim, review_verdict and review_source: the claim, its verdict, its route and
source). A verdict goes through the verify use case ``mark_verdict``, as ``graphrag review mark`` does."""

from __future__ import annotations

import streamlit as st

from dashboard import review_claim, review_desk, review_frame, review_nav, review_source, review_verdict

desk = review_desk.open_desk()  # once per run: the store, who acts, what they may filter, see and do here
review_frame.take_hand_offs(desk.board)
filters = review_frame.filter_bar(desk)
items = review_desk.read_queue(desk, filters)
judged_now = review_verdict.pressed_in_callback()

if not items:
    review_frame.nothing_to_review(desk.board, filters)
    st.stop()

spot = review_nav.place(desk, filters, items)
if spot.current == review_nav.END:
    review_nav.queue_end(desk, spot)
    st.stop()

on = review_claim.open_claim(desk, filters, spot.item)
if on is None:
    st.stop()
review_nav.claim_line(spot)
review_nav.feedback(desk)
review_claim.claim_columns(on, judged_now)
review_source.verdict_history(on)
review_frame.unanswered_note(desk.board)
review_frame.queue_table(items)
