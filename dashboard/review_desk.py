"""What one run of the Review page works with: the desk (the store, who acts, the board), the filters the reviewer
set, the queue they select and the claim on screen. The page's parts (review_frame, review_nav, review_verdict,
review_claim) take these instead of reading module globals, and a button's callback gets the claim it was drawn for
as its argument."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard import actor, render, resources, session
from dashboard.actor import Actor
from graphrag.config import Config
from graphrag.model import Answer, Citation, Claim, VerdictKind
from graphrag.present import ClaimReview, ReviewBoard, review_board, review_items
from graphrag.store import Store
from graphrag.verify import QueueItem


@dataclass(frozen=True)
class Desk:
    """The store, the configuration (read on the script's run: the downloads' callables run outside it), who acts on
    this run and their board (what they may filter, see and do here)."""

    store: Store
    config: Config
    who: Actor
    board: ReviewBoard


def open_desk() -> Desk:
    """The page's desk for this run; stops the run for someone who may not read the review queue."""
    store = resources.store()
    # who acts, once for this run: the principal, their reviewer name, their blind-review stance (whose verdicts this
    # run may show, graphrag.verify.policy); a callback builds its own, with who is signed in when it runs
    who = actor.require_actor("viewer", "read the review queue")
    config = resources.config()
    return Desk(store, config, who, review_board(store, who.principal, config, who.onlooker))


@dataclass(frozen=True)
class Filters:
    """The answer and the four switches that select the queue, as the session holds them."""

    answer_id: int | None
    flagged: bool
    mine: bool
    disputes: bool
    sample: bool

    @classmethod
    def from_session(cls) -> Filters:
        """The filters as set now (a callback reads them too, before the page's run draws the widgets)."""
        get = st.session_state.get
        return cls(get(session.REVIEW_ANSWER), get(session.REVIEW_FLAGGED, False), get(session.REVIEW_MINE, False),
                   get(session.REVIEW_DISPUTES, False), get(session.REVIEW_SAMPLE, False))


def read_queue(desk: Desk, filters: Filters) -> list[QueueItem]:
    """The board's claims under these filters, in the order the reviewer should take them (read fresh)."""
    who = desk.who
    return review_items(desk.store, who.principal, desk.config, desk.board, who.onlooker, answer_id=filters.answer_id,
                        flagged_only=filters.flagged, mine_only=filters.mine, disputed_only=filters.disputes,
                        sample_only=filters.sample)


@dataclass(frozen=True)
class OnScreen:
    """The claim on screen, read whole for this viewer: its queue item, its review (answer, valid citations, display
    numbers, history) and whether the reviewer works in the dispute queue (their verdict adjudicates)."""

    desk: Desk
    item: QueueItem
    review: ClaimReview
    disputes: bool

    @property
    def answer(self) -> Answer:
        """The claim's answer."""
        return self.review.answer

    @property
    def claim(self) -> Claim:
        """The claim judged."""
        return self.review.claim

    @property
    def kind(self) -> VerdictKind:
        """The judgement asked: whether a quote answers, or whether the source backs a claim."""
        return self.item.kind

    def chosen(self) -> Citation | None:
        """The citation the reviewer chose (the first valid one until they choose): the one a verdict judges and the
        route and source columns show."""
        valid = self.review.citations
        i = st.session_state.get(session.review_citation_key(self.answer.id, self.claim.index))
        return valid[i] if valid and isinstance(i, int) and i < len(valid) else (valid[0] if valid else None)

    def shown_marker(self, c: Citation) -> str:
        """A citation's marker in reading order, as the Ask page shows it: the answer, the citation choice, the route
        and the source all write one citation with one number (the store keeps retrieval's)."""
        numbers = self.review.numbers
        return f"[{numbers[c.item.n]}]" if c.item is not None and c.item.n in numbers else render.marker_label(c.marker)
