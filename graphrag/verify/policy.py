"""The review policy: how many independent verdicts a claim needs, blind review, disputes.

With the default (one verdict), a claim is *reviewed* (settled) by its first verdict, as before. With two or
more, review is blind, a claim is reviewed when the required number of reviewers agree, and a
disagreement among them makes it *disputed* until an adjudicator's verdict (stored as such,
append-only like any other) settles it. An adjudicator is never one of the claim's reviewers: an
adjudication by one of them is refused when given and ignored if found in the record.

Blind review has one rule, ``visible_verdicts``, which every surface that shows verdicts or
anything computed from them (queues, badges, history, statistics, exports) applies first: a viewer
sees nobody else's verdict on a claim (nor its count, state, notes or dispute) until they have
given their own, with three exceptions: a *reviewed* claim (its required reviewers agree, or an
adjudicator settled it) is the team's outcome and shows to all; a *disputed* claim shows to who
may adjudicate it; and a viewer who oversees the record (a team's admin, who exports it) sees
every verdict.

A verdict answers one of two questions, its kind (``graphrag.model.VerdictKind``): does the source back the
claim, or does the quote answer the question. The policy applies to each kind on its own: a claim's verdicts
of one kind are counted, agreed, disputed and shown blind apart from those of the other, and a claim's state is
that of the kind it is asked (``asked_kind``: *answers* for a verbatim quote, *backs* otherwise).

*Reviewed* says the review is done, whatever it found; *verified* is said only of what reviewers found supported
(backed, or answering): an answer is verified when every claim is reviewed and settled so (``answer_status``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from graphrag.errors import InputError
from graphrag.language.names import reviewer_key, same_reviewer
from graphrag.model import Answer, AnswerStatus, Verdict, VerdictKind, VerdictLabel, asked_kind

ADJUDICATOR = "adjudicator"
REVIEWER = "reviewer"
# A row that takes back its reviewer's own verdict on a claim (an undo with nothing earlier to restore): appended
# like any verdict, it leaves that reviewer with no current verdict on the claim; its label is the one taken back.
RETRACTION = "retraction"
MAX_REQUIRED = 5


@dataclass(frozen=True)
class ReviewPolicy:
    """How many independent verdicts a claim needs before it counts as reviewed."""

    required: int = 1  # independent verdicts a claim needs before it is reviewed (settled)

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
    REVIEWED = "reviewed"  # required verdicts agree, or an adjudicator settled it: whatever they found
    VERIFIED = "reviewed"  # the name before issue 60 (an alias of REVIEWED): a reviewed claim may be unsupported
    DISPUTED = "disputed"  # reviewers disagree and no adjudicator has settled it
    STALE = "stale"  # every verdict judged a version that has since been superseded


@dataclass(frozen=True)
class ClaimState:
    """A claim's review status with the figures behind it."""

    status: ClaimStatus
    verdict: VerdictLabel | None  # the settled verdict when reviewed
    reviews: int  # current reviewer verdicts (the latest per reviewer; adjudications apart)
    required: int
    adjudicated: bool = False


def latest(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """The current verdicts among rows given oldest first: the latest per (claim, reviewer, role, kind).
    A changed mind is a new row; an adjudicator's verdict stands beside (not over) the same
    person's own review, and a verdict of one kind beside one of the other. A retraction row ends its
    reviewer's current verdict of its kind on the claim."""
    out: dict[tuple[int, int, str, str, VerdictKind], Verdict] = {}
    for v in verdicts:
        if v.role == RETRACTION:
            out.pop((v.answer_id, v.claim_index, _person(v), REVIEWER, v.kind), None)
        else:
            out[(v.answer_id, v.claim_index, _person(v), v.role, v.kind)] = v
    return list(out.values())


def person(v: Verdict) -> str:
    """Who gave ``v``, as one key: the signed-in identity in team mode, else the typed name's ``reviewer_key``."""
    return _person(v)


def _person(v: Verdict) -> str:
    """Who gave ``v``: the signed-in identity in team mode, else the typed name's ``reviewer_key``."""
    return f"subject:{v.subject}" if v.subject else f"name:{reviewer_key(v.reviewer)}"


def split(verdicts: Sequence[Verdict]) -> tuple[list[Verdict], Verdict | None]:
    """(current reviewer verdicts, the latest adjudication that counts) of one claim's current
    verdicts. An adjudication by one of the claim's own reviewers does not count: a party to a
    dispute cannot settle it (``record_verdict`` refuses one; this ignores any in the record)."""
    reviews = [v for v in verdicts if v.role != ADJUDICATOR]
    party = parties(reviews)
    adjudications = sorted((v for v in verdicts if v.role == ADJUDICATOR and reviewer_key(v.reviewer) not in party
                            and not (v.subject and v.subject in party)),
                           key=lambda v: (v.created_at or "", v.id or 0))
    return reviews, (adjudications[-1] if adjudications else None)


def claim_state(verdicts: Sequence[Verdict], policy: ReviewPolicy, kind: VerdictKind | None = None) -> ClaimState:
    """The state of one claim from its current verdicts (the latest per reviewer and role), of ``kind`` only
    when given (the policy applies to each kind apart; pass the claim's ``asked_kind``).

    Disputed needs the required number of current verdicts: under blind review a claim that still
    waits for one stays *in review* however the first verdicts differ, so no reviewer still to
    judge it is shown a disagreement (or sent to the dispute queue) first."""
    if kind is not None:
        verdicts = [v for v in verdicts if v.kind == kind]
    reviews, adjudication = split(verdicts)
    # a tampered verdict (the claim's words changed after it) counts no more than a stale one
    live = [v for v in reviews if not v.stale and not v.tampered]
    if adjudication is not None and not adjudication.stale and not adjudication.tampered:
        return ClaimState(ClaimStatus.REVIEWED, adjudication.verdict, len(reviews), policy.required, True)
    if verdicts and not live and (adjudication is None or adjudication.stale or adjudication.tampered):
        return ClaimState(ClaimStatus.STALE, None, len(reviews), policy.required)
    if not live:
        return ClaimState(ClaimStatus.UNREVIEWED, None, 0, policy.required)
    if len(live) < policy.required:
        return ClaimState(ClaimStatus.IN_REVIEW, None, len(live), policy.required)
    labels = {v.verdict for v in live}
    if len(labels) > 1:
        return ClaimState(ClaimStatus.DISPUTED, None, len(live), policy.required)
    return ClaimState(ClaimStatus.REVIEWED, next(iter(labels)), len(live), policy.required)


def answer_status(answer: Answer, current: Sequence[Verdict], policy: ReviewPolicy) -> AnswerStatus:
    """An answer's status given its current verdicts, when it has claims and was not withdrawn: *verified* when
    every claim is reviewed under ``policy`` and settled as supported (backed, or answering the question);
    *reviewed* when every claim is reviewed and one was judged otherwise; else the status it was stored with."""
    if not answer.claims or answer.status == AnswerStatus.WITHDRAWN:
        return answer.status
    by_claim: dict[int, list[Verdict]] = {}
    for v in current:
        by_claim.setdefault(v.claim_index, []).append(v)
    states = [claim_state(by_claim.get(c.index, []), policy, asked_kind(c.flags)) for c in answer.claims]
    if all(s.status == ClaimStatus.REVIEWED for s in states):
        supported = all(s.verdict == VerdictLabel.SUPPORTED for s in states)
        return AnswerStatus.VERIFIED if supported else AnswerStatus.REVIEWED
    return answer.status


def parties(verdicts: Iterable[Verdict]) -> set[str]:
    """The names (as ``reviewer_key``s) and identity subjects of everyone who gave a reviewer's verdict among
    ``verdicts``."""
    reviews = [v for v in verdicts if v.role != ADJUDICATOR]
    return {reviewer_key(v.reviewer) for v in reviews} | {v.subject for v in reviews if v.subject}


@dataclass(frozen=True)
class ReviewViewer:
    """Who a surface shows verdicts to, for blind review.

    ``name``: the reviewer name their verdicts are stored under (the signed-in identity in team
    mode, the typed name locally); None for someone unnamed, who has judged nothing. ``subject``:
    the identity's stable id in team mode. ``adjudicates``: may settle disputes (the adjudicator
    role in team mode; any named reviewer locally), so sees disputed claims' verdicts.
    ``oversees``: sees every verdict (a team's admin, who exports the whole record anyway)."""

    name: str | None = None
    subject: str | None = None
    adjudicates: bool = False
    oversees: bool = False

    def judged(self, verdicts: Iterable[Verdict]) -> bool:
        """Whether this viewer gave a reviewer's verdict among ``verdicts``."""
        return any(v.role != ADJUDICATOR and self.owns(v) for v in verdicts)

    def owns(self, v: Verdict) -> bool:
        """Whether ``v`` is this viewer's own verdict: by identity where both have one (two signed-in people whose
        names look alike stay two), else by the name's ``reviewer_key``."""
        if self.subject is not None and v.subject:
            return v.subject == self.subject
        return same_reviewer(v.reviewer, self.name)


ANYONE = ReviewViewer()  # unnamed: under blind review, sees only claims that left it


def shows_claim(current: Sequence[Verdict], policy: ReviewPolicy, viewer: ReviewViewer) -> bool:
    """Whether ``viewer`` may see every verdict on a claim with these current verdicts, all of one kind (see the
    module's docstring): not blind, an overseer, their own verdict given, the claim verified, or
    disputed and ``viewer`` an adjudicator (not a party: they would have judged it)."""
    if not policy.blind or viewer.oversees or viewer.judged(current):
        return True
    status = claim_state(current, policy).status
    return status == ClaimStatus.REVIEWED or (status == ClaimStatus.DISPUTED and viewer.adjudicates)


def visible_verdicts(verdicts: Iterable[Verdict], policy: ReviewPolicy, viewer: ReviewViewer) -> list[Verdict]:
    """The one blind-review rule: of verdict rows (history or current, any claims, oldest first),
    those ``viewer`` may see, in the same order. Every surface filters through this *before*
    counting, labelling or narrowing anything, so nothing computed from a hidden verdict (counts,
    states, agreement, disputes, notes, exports) can reach the viewer.

    Per claim and kind, every row when ``shows_claim``, else only the viewer's own rows. Pass a claim's
    whole history (or all its current rows), not a subset already narrowed by reviewer or time."""
    rows = list(verdicts)
    if not policy.blind or viewer.oversees:
        return rows
    by_claim: dict[tuple[int, int, VerdictKind], list[Verdict]] = {}
    for v in rows:
        by_claim.setdefault((v.answer_id, v.claim_index, v.kind), []).append(v)
    open_claims = {key for key, vs in by_claim.items() if shows_claim(latest(vs), policy, viewer)}
    return [v for v in rows if (v.answer_id, v.claim_index, v.kind) in open_claims or viewer.owns(v)]
