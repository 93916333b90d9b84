"""Held until verified: a team setting under which a reader sees an answer only once reviewers verified it.

The setting sits beside the review policy (``status.held_until_verified``: the latest ``review-policy`` audit row,
set by an admin through ``actions.set_review_policy``). It holds answers back only from someone signed in to a team
dashboard whose role is below *reviewer*: reviewers, adjudicators and admins see every answer as before, and in local
mode nobody signs in and everyone may do everything, so nothing is ever held there.

An answer is shown to such a reader when it is *verified* (``policy.answer_status``: every claim reviewed as the
policy asks and judged supported) and its cited sentences still read the same in their documents' current versions
(``standing.source_changes``: else it waits for review again). An answer with no claim (the documents do not answer) makes no claim to verify
and is shown; a withdrawn one shows only that it was withdrawn. Until then the reader gets ``Held``: the question,
why it waits and, while claims wait for a verdict, where the answer stands in the review queue. What is held is the
answer's words, its claims, its cited sentences and its routes: ``withheld`` keeps only the question and the ids.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from graphrag.access.identity import REVIEWER, Viewer
from graphrag.model import Answer, AnswerStatus, Verdict, VerdictLabel, asked_kind
from graphrag.store import Store
from graphrag.verify.policy import ClaimStatus, ReviewViewer, claim_state
from graphrag.verify.standing import source_changes
from graphrag.verify.status import current_verdicts, held_until_verified, review_policy

OVERSEER = ReviewViewer(oversees=True)  # the queue as the team works it: every verdict counted


class HeldReason(str, Enum):
    """Why a held answer is not shown yet."""

    WAITING = "waiting for review"  # claims still need verdicts
    DISPUTED = "reviewers disagree"  # waiting for an adjudicator
    NOT_VERIFIED = "not verified"  # reviewed, and a claim was not judged supported: it stays held
    # a cited sentence changed in a newer version since its claims were verified (or every verdict on a claim judged
    # a superseded version)
    SOURCES_CHANGED = "sources changed since review"


@dataclass(frozen=True)
class Held:
    """An answer held back from a reader: its id and question, why, and where it stands in the review queue."""

    answer_id: int
    question: str
    reason: HeldReason
    position: int | None = None  # 1-based: the answer's first waiting claim among all claims waiting for a verdict
    waiting: int = 0  # claims waiting for a verdict that the reader's labels show, this answer's included

    @property
    def badge(self) -> str:
        """The state in a few words: "held · waiting for review", "held · not verified"..."""
        return f"held · {self.reason.value}"

    @property
    def words(self) -> str:
        """What the reader is told, the same on every surface."""
        head = (f"Answer #{self.answer_id} is held until reviewers verify it (your team's policy): ")
        if self.reason == HeldReason.WAITING:
            place = (f"it is number {self.position} of {self.waiting} claims waiting for review"
                     if self.position is not None else "its claims wait for review")
            return head + place + ". It shows here once every claim is verified."
        if self.reason == HeldReason.DISPUTED:
            return head + "reviewers disagree on a claim, and an adjudicator has yet to settle it."
        if self.reason == HeldReason.SOURCES_CHANGED:
            return head + "a document it cites changed since its claims were reviewed; it waits for review again."
        return head + "reviewers did not judge every claim supported, so it will not be shown. Ask again, or ask " \
                      "a reviewer."

    def to_json(self) -> dict[str, object]:
        """The held state as ``--json`` and the facade's callers read it."""
        return {"answer_id": self.answer_id, "question": self.question, "held": True, "reason": self.reason.value,
                "queue_position": self.position, "claims_waiting": self.waiting, "words": self.words}


def holds_for(viewer: Viewer) -> bool:
    """Whether the setting can hold anything back from ``viewer``: signed in to a team dashboard, below reviewer."""
    return viewer.team and not viewer.may(REVIEWER)


def held_answer(store: Store, viewer: Viewer, answer: Answer) -> Held | None:
    """``Held`` when ``answer`` must not be shown to ``viewer`` yet; None when it may be (not held for them, the
    setting off, no claims, withdrawn, or verified)."""
    if not holds_for(viewer) or answer.id is None or not answer.claims or answer.status == AnswerStatus.WITHDRAWN:
        return None
    if not held_until_verified(store):
        return None
    policy = review_policy(store)
    current = current_verdicts(store, answer.id)
    states = [claim_state([v for v in current if v.claim_index == c.index], policy, asked_kind(c.flags))
              for c in answer.claims]
    if all(s.status == ClaimStatus.REVIEWED for s in states):
        if not all(s.verdict == VerdictLabel.SUPPORTED for s in states):
            return Held(answer.id, answer.question, HeldReason.NOT_VERIFIED)
        # verified, on words a newer version of a cited document changed or dropped: no longer shown as verified
        return Held(answer.id, answer.question, HeldReason.SOURCES_CHANGED) if source_changes(store, answer.claims) \
            else None
    if any(s.status == ClaimStatus.REVIEWED and s.verdict != VerdictLabel.SUPPORTED for s in states):
        return Held(answer.id, answer.question, HeldReason.NOT_VERIFIED)
    if any(s.status == ClaimStatus.DISPUTED for s in states):
        return Held(answer.id, answer.question, HeldReason.DISPUTED)
    if not any(s.status in (ClaimStatus.UNREVIEWED, ClaimStatus.IN_REVIEW) for s in states):
        return Held(answer.id, answer.question, HeldReason.SOURCES_CHANGED)
    position, waiting = queue_place(store, viewer, answer.id)
    return Held(answer.id, answer.question, HeldReason.WAITING, position, waiting)


def queue_place(store: Store, viewer: Viewer, answer_id: int) -> tuple[int | None, int]:
    """(the position of the answer's first claim still waiting for a verdict, counted from 1, among every claim
    waiting in the review queue's order; how many wait), over the answers ``viewer``'s labels show: a reviewer
    holding more labels may have more before it."""
    from graphrag.verify.review import review_queue

    waiting = [q for q in review_queue(store, viewer, viewer=OVERSEER) if not q.reviewed]
    position = next((i for i, q in enumerate(waiting, 1) if q.answer_id == answer_id), None)
    return position, len(waiting)


def readable_claims(store: Store, viewer: Viewer, claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Of claim summaries (``review.claims_seen``), those of answers ``viewer`` may read now: all of them, unless the
    team holds answers back from them; then only those of verified answers (the Review page's queue and its answer
    list are built from these, so a held answer's claims never reach a reader there either). The verdicts are read
    once for every answer (``held_answer`` per answer would read them again each time), the citations of the verified
    ones in one read, and only a verified answer citing a superseded version is read whole, for its sources."""
    if not holds_for(viewer) or not held_until_verified(store):
        return claims
    policy = review_policy(store)
    by_claim: dict[tuple[int, int], list[Verdict]] = {}
    for v in current_verdicts(store):
        by_claim.setdefault((v.answer_id, v.claim_index), []).append(v)
    settled: dict[int, bool] = {}
    for c in claims:
        state = claim_state(by_claim.get((c["answer_id"], c["index"]), []), policy, asked_kind(c["flags"]))
        ok = state.status == ClaimStatus.REVIEWED and state.verdict == VerdictLabel.SUPPORTED
        settled[c["answer_id"]] = settled.get(c["answer_id"], True) and ok
    verified = [a for a, ok in settled.items() if ok]
    # verified: shown unless a cited sentence changed since, which only a citation of a superseded version can show
    on_old = {r["answer_id"] for r in store.claim_citations(verified) if r["superseded"]}
    readable = set(verified) - on_old
    for aid in on_old:
        answer = store.answer(aid)
        if answer is not None and answer.status != AnswerStatus.WITHDRAWN and not source_changes(store, answer.claims):
            readable.add(aid)
    return [c for c in claims if c["answer_id"] in readable]


def withheld(answer: Answer) -> Answer:
    """``answer`` with nothing of what it says: no text, claims, context, routes, seeds or disagreements; the
    question, its settings, id, time and status stay (what a held reader may know)."""
    return replace(answer, text="", seeds=(), reached=(), context=(), claims=(), disagreements=(), answerable=None)
