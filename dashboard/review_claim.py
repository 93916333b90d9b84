"""The claim on the Review page: read whole for this viewer, then drawn in three columns: the claim with its verdict
controls and its answer, the route to the chosen citation, and the cited source."""

from __future__ import annotations

import streamlit as st

from dashboard import render, review_source
from dashboard.review_desk import Desk, Filters, OnScreen
from dashboard.review_verdict import verdict_controls
from graphrag.model import ClaimFlag, Disagreement
from graphrag.present import cited_source, claim_review, renumbered
from graphrag.verify import QueueItem


def open_claim(desk: Desk, filters: Filters, item: QueueItem) -> OnScreen | None:
    """The claim ``item`` as this viewer sees it (only the claim on screen is read whole); None, said on the page,
    when its answer can no longer be read."""
    who = desk.who
    review = claim_review(desk.store, who.principal, desk.config, item, who.onlooker, desk.board.policy, who.reviewer)
    if review is None:
        st.error(f"Answer #{item.answer_id} could not be read from the store; reload the page.")
        return None
    return OnScreen(desk, item, review, filters.disputes)


def claim_columns(on: OnScreen, judged_now: bool) -> None:
    """The three columns; the source is the widest: its page picture is read there, at a legible size on a
    1280-pixel screen. ``judged_now``: a verdict button's callback ran before this run."""
    col_claim, col_route, col_source = st.columns([1.0, 0.85, 1.35], gap="medium")
    with col_claim:
        disagreements = claim_column(on, judged_now)
    cit = on.chosen()  # the citation the route and the source columns show; its source read once, for this viewer
    desk = on.desk
    source = cited_source(desk.store, desk.who.principal, desk.config, cit, around=render.CONTEXT_AROUND,
                          look_for_conflicts=not disagreements) if cit is not None else None
    with col_route:
        review_source.route_column(on, source)
    with col_source:
        review_source.source_column(on, source)


def claim_column(on: OnScreen, judged_now: bool) -> list[Disagreement]:
    """The claim and the verdict first, so the buttons are on screen whatever the answer's length; then the whole
    answer, the claim's badges, its automatic check and the disagreements it cites a side of (returned)."""
    answer, claim, item, numbers = on.answer, on.claim, on.item, on.review.numbers
    st.markdown(f"**Claim {claim.index + 1} in its answer** · Q: {render.plain(answer.question)}")
    st.html(f'<blockquote style="margin:0 0 .4rem 0">{render.esc(renumbered(claim.text, numbers))}</blockquote>')
    st.markdown(f"**{on.kind.question}**", help="A verbatim quote backs itself: what a person judges is whether it "
                                                "answers the question. A claim in other words is judged on whether "
                                                "its source backs it.")
    verdict_controls(on, judged_now)
    render.box(render.answer_html(answer.text, claim, lambda t: renumbered(t, numbers)),
               meta=f"The whole answer · Q: {render.esc(answer.question)}")
    render.badges(claim, item.verdicts, item.state)
    s = claim.support
    if ClaimFlag.VERBATIM_QUOTE in claim.flags:
        st.caption(render.plain(render.VERBATIM_NOTE))
    else:
        st.caption("Automatic check: " + render.plain(render.support_text(s))
                   + (f" — {render.plain(s.reason)}" if s else ""))
    # A disagreement the answer found among its cited sources, beside each claim that cites one of its sides.
    disagreements = on.review.disagreements
    for d in disagreements:
        render.disagreement_box(d, numbers=numbers)
    return disagreements
