"""Review policy: verified, disputed, adjudicated and blind review, as pure rules (no store)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphrag.errors import InputError
from graphrag.model import Answer, AnswerStatus, AskSettings, Claim, Verdict, VerdictLabel
from graphrag.verify.policy import (
    ADJUDICATOR,
    ClaimStatus,
    ReviewPolicy,
    ReviewViewer,
    answer_status,
    claim_state,
    visible_verdicts,
)

pytestmark = pytest.mark.unit

S, P, U = VerdictLabel.SUPPORTED, VerdictLabel.PARTIAL, VerdictLabel.UNSUPPORTED
ONE, TWO, THREE = ReviewPolicy(1), ReviewPolicy(2), ReviewPolicy(3)


def v(reviewer: str, label: VerdictLabel, *, role: str = "reviewer", stale: bool = False, at: str = "t1",
      claim: int = 0, note: str = "") -> Verdict:
    return Verdict(1, claim, label, reviewer, "sha", created_at=at, stale=stale, role=role, note=note)


def seen(rows: list[Verdict], policy: ReviewPolicy, name: str | None, **kw: bool) -> set[str]:
    return {x.reviewer for x in visible_verdicts(rows, policy, ReviewViewer(name, **kw))}


def test_one_verdict_verifies_under_the_default_policy() -> None:
    assert claim_state([], ONE).status == ClaimStatus.UNREVIEWED
    state = claim_state([v("ana", S)], ONE)
    assert state.status == ClaimStatus.VERIFIED and state.verdict == S


def test_two_required_verdicts_must_agree() -> None:
    assert claim_state([v("ana", S)], TWO).status == ClaimStatus.IN_REVIEW
    assert claim_state([v("ana", S), v("ben", S)], TWO).status == ClaimStatus.VERIFIED
    assert claim_state([v("ana", S), v("ben", P)], TWO).status == ClaimStatus.DISPUTED


def test_an_adjudicator_settles_a_dispute() -> None:
    disputed = [v("ana", S), v("ben", U)]
    state = claim_state([*disputed, v("cat", U, role=ADJUDICATOR, at="t2")], TWO)
    assert state.status == ClaimStatus.VERIFIED and state.verdict == U and state.adjudicated
    # the latest adjudication is the one that counts (a changed mind is a new row)
    state = claim_state([*disputed, v("cat", U, role=ADJUDICATOR, at="t2"), v("cat", S, role=ADJUDICATOR, at="t3")],
                        TWO)
    assert state.verdict == S


def test_stale_verdicts_do_not_verify() -> None:
    assert claim_state([v("ana", S, stale=True)], ONE).status == ClaimStatus.STALE


def test_blind_review_hides_other_verdicts_until_the_viewer_has_given_one() -> None:
    others = [v("ana", S)]
    assert seen(others, TWO, "ben") == set() and seen(others, TWO, None) == set()
    mine = [*others, v("ben", U)]
    assert seen(mine, TWO, "ben") == {"ana", "ben"}
    assert seen(others, ONE, "ben") == {"ana"}  # not blind with one verdict required
    assert seen(others, TWO, "ben", oversees=True) == {"ana"}  # an overseer (a team admin) sees the record


def test_with_three_required_a_disagreement_stays_blind_until_the_third_verdict() -> None:
    """The first two verdicts differ: the claim is not disputed yet, and the third reviewer sees
    neither verdict (nor a dispute, nor a count) before giving theirs."""
    two = [v("ana", S, note="ana-note"), v("ben", U, note="ben-note")]
    assert claim_state(two, THREE).status == ClaimStatus.IN_REVIEW
    assert seen(two, THREE, "cat") == set() and seen(two, THREE, None) == set()
    three = [*two, v("cat", S)]
    assert claim_state(three, THREE).status == ClaimStatus.DISPUTED
    assert seen(three, THREE, "dan", adjudicates=True) == {"ana", "ben", "cat"}  # to settle it
    assert seen(three, THREE, "dan") == set()  # a reviewer who may not adjudicate still sees nothing of it
    agreed = [v("ana", S), v("ben", S), v("cat", S)]
    assert seen(agreed, THREE, None) == {"ana", "ben", "cat"}  # a verified claim is the team's outcome


def test_each_claim_is_judged_blind_on_its_own_and_history_follows_the_current_rows() -> None:
    rows = [v("ana", S, claim=0), v("ben", S, claim=1), v("ana", U, claim=1, at="t2"), v("ben", U, claim=0, at="t2")]
    assert seen(rows, TWO, "ana") == {"ana", "ben"}  # ana judged both claims
    out = visible_verdicts([v("ana", S, claim=0), v("ben", S, claim=1)], TWO, ReviewViewer("ana"))
    assert [(x.reviewer, x.claim_index) for x in out] == [("ana", 0)]  # ben's verdict on claim 1 stays hidden
    # a stale round of verdicts leaves a claim blind again for the next round
    stale = [v("ana", S, stale=True), v("ben", S, stale=True)]
    assert seen(stale, TWO, "cat") == set()


def test_an_adjudication_by_a_party_to_the_dispute_does_not_settle_it() -> None:
    disputed = [v("ana", S), v("ben", U)]
    own = claim_state([*disputed, v("ana", S, role=ADJUDICATOR, at="t2")], TWO)
    assert own.status == ClaimStatus.DISPUTED and not own.adjudicated
    assert claim_state([*disputed, v("cat", S, role=ADJUDICATOR, at="t2")], TWO).adjudicated


def test_an_answer_is_verified_when_every_claim_is_and_otherwise_keeps_its_stored_status() -> None:
    # the store returns the status an answer was saved with; the policy says when it is verified
    answer = Answer("q?", AskSettings(), "a [1]", (), (), (), (Claim(0, "a", 0, 1), Claim(1, "b", 0, 1)),
                    AnswerStatus.AUTO_CHECKED)
    both = [v("ana", S, claim=0), v("ana", S, claim=1)]
    assert answer_status(answer, both, ONE) == AnswerStatus.VERIFIED
    assert answer_status(answer, both[:1], ONE) == AnswerStatus.AUTO_CHECKED  # claim 1 not judged
    assert answer_status(answer, both, TWO) == AnswerStatus.AUTO_CHECKED  # each claim needs a second reviewer
    assert answer_status(answer, [*both, v("ben", S, claim=0), v("ben", S, claim=1)], TWO) == AnswerStatus.VERIFIED
    # issue 60: "verified" only for what reviewers found supported; a claim judged partly (or not) supported leaves
    # the answer reviewed, not verified
    partly = [v("ana", S, claim=0), v("ana", P, claim=1)]
    assert answer_status(answer, partly, ONE) == AnswerStatus.REVIEWED
    assert answer_status(answer, [v("ana", U, claim=0), v("ana", S, claim=1)], ONE) == AnswerStatus.REVIEWED
    assert claim_state(partly[1:], ONE).status == ClaimStatus.REVIEWED == "reviewed"
    withdrawn = replace(answer, status=AnswerStatus.WITHDRAWN)
    assert answer_status(withdrawn, both, ONE) == AnswerStatus.WITHDRAWN  # a removal withdrew it: never verified
    assert answer_status(replace(answer, claims=()), [], ONE) == AnswerStatus.AUTO_CHECKED  # nothing to verify


def test_policy_bounds() -> None:
    with pytest.raises(InputError):
        ReviewPolicy(0)
    with pytest.raises(InputError):
        ReviewPolicy(6)
    assert not ONE.blind and TWO.blind
