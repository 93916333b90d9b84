"""Review policy: verified, disputed, adjudicated and blind review, as pure rules (no store)."""

from __future__ import annotations

import pytest

from graphrag.errors import InputError
from graphrag.model import Verdict, VerdictLabel
from graphrag.review_policy import ADJUDICATOR, ClaimStatus, ReviewPolicy, claim_state, shown_verdicts

pytestmark = pytest.mark.unit

S, P, U = VerdictLabel.SUPPORTED, VerdictLabel.PARTIAL, VerdictLabel.UNSUPPORTED
ONE, TWO = ReviewPolicy(1), ReviewPolicy(2)


def v(reviewer: str, label: VerdictLabel, *, role: str = "reviewer", stale: bool = False, at: str = "t1") -> Verdict:
    return Verdict(1, 0, label, reviewer, "sha", created_at=at, stale=stale, role=role)


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
    assert shown_verdicts(others, TWO, "ben") == ()
    assert shown_verdicts(others, TWO, None) == ()
    mine = [*others, v("ben", U)]
    assert {x.reviewer for x in shown_verdicts(mine, TWO, "ben")} == {"ana", "ben"}
    assert shown_verdicts(others, TWO, "cat", adjudicating=True) == tuple(others)
    assert shown_verdicts(others, ONE, "ben") == tuple(others)  # not blind with one verdict required


def test_policy_bounds() -> None:
    with pytest.raises(InputError):
        ReviewPolicy(0)
    with pytest.raises(InputError):
        ReviewPolicy(6)
    assert not ONE.blind and TWO.blind
