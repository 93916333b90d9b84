"""The review policy: how many independent verdicts a claim needs, blind review, disputes.

With the default (one verdict), a claim is verified by its first verdict, as before. With two or
more, review is blind (a reviewer sees nobody else's verdict on a claim until they have given
their own), a claim is verified when the required number of reviewers agree, and a
disagreement makes it *disputed* until an adjudicator's verdict (stored as such, append-only
like any other) settles it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from graphrag.errors import InputError
from graphrag.model import Verdict, VerdictLabel

ADJUDICATOR = "adjudicator"
REVIEWER = "reviewer"
MAX_REQUIRED = 5


@dataclass(frozen=True)
class ReviewPolicy:
    """How many independent verdicts a claim needs before it counts as verified."""

    required: int = 1  # independent verdicts a claim needs before it can be verified

    def __post_init__(self) -> None:
        if not 1 <= self.required <= MAX_REQUIRED:
            raise InputError(f"a claim needs from 1 to {MAX_REQUIRED} independent verdicts, got {self.required}")

    @property
    def blind(self) -> bool:
        """Whether reviewers judge blind, without seeing each other's verdicts (two or more required)."""
        return self.required >= 2


class ClaimStatus(str, Enum):
    """Where a claim stands in review."""

    UNREVIEWED = "unreviewed"
    IN_REVIEW = "in review"  # some verdicts, fewer than required
    VERIFIED = "verified"  # required verdicts agree, or an adjudicator settled it
    DISPUTED = "disputed"  # reviewers disagree and no adjudicator has settled it
    STALE = "stale"  # every verdict judged a version that has since been superseded


@dataclass(frozen=True)
class ClaimState:
    """A claim's review status with the figures behind it."""

    status: ClaimStatus
    verdict: VerdictLabel | None  # the settled verdict when verified
    reviews: int  # current reviewer verdicts (the latest per reviewer; adjudications apart)
    required: int
    adjudicated: bool = False


def split(verdicts: Sequence[Verdict]) -> tuple[list[Verdict], Verdict | None]:
    """(current reviewer verdicts, the latest adjudication) of one claim's current verdicts."""
    reviews = [v for v in verdicts if v.role != ADJUDICATOR]
    adjudications = sorted((v for v in verdicts if v.role == ADJUDICATOR), key=lambda v: (v.created_at or "", v.id or 0))
    return reviews, (adjudications[-1] if adjudications else None)


def claim_state(verdicts: Sequence[Verdict], policy: ReviewPolicy) -> ClaimState:
    """The state of one claim from its current verdicts (the latest per reviewer and role)."""
    reviews, adjudication = split(verdicts)
    live = [v for v in reviews if not v.stale]
    if adjudication is not None and not adjudication.stale:
        return ClaimState(ClaimStatus.VERIFIED, adjudication.verdict, len(reviews), policy.required, True)
    if verdicts and not live and (adjudication is None or adjudication.stale):
        return ClaimState(ClaimStatus.STALE, None, len(reviews), policy.required)
    if not live:
        return ClaimState(ClaimStatus.UNREVIEWED, None, 0, policy.required)
    labels = {v.verdict for v in live}
    if len(labels) > 1:
        return ClaimState(ClaimStatus.DISPUTED, None, len(live), policy.required)
    if len(live) < policy.required:
        return ClaimState(ClaimStatus.IN_REVIEW, None, len(live), policy.required)
    return ClaimState(ClaimStatus.VERIFIED, next(iter(labels)), len(live), policy.required)


def shown_verdicts(verdicts: Sequence[Verdict], policy: ReviewPolicy, viewer: str | None,
                   adjudicating: bool = False) -> tuple[Verdict, ...]:
    """The verdicts of one claim a viewer may see: under blind review, only their own until they
    have given one (an adjudicator sees all of a claim they settle; a settled claim shows all)."""
    if not policy.blind or adjudicating:
        return tuple(verdicts)
    state = claim_state(verdicts, policy)
    if state.status == ClaimStatus.VERIFIED and (state.adjudicated or state.reviews >= policy.required):
        return tuple(verdicts)
    if viewer is not None and any(v.reviewer == viewer and v.role != ADJUDICATOR for v in verdicts):
        return tuple(verdicts)
    return tuple(v for v in verdicts if v.reviewer == viewer)
