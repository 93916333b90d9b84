"""One status per answer, in a reader's words (dashboard.render.answer_summary)."""

from __future__ import annotations

import pytest

from dashboard.render import answer_summary
from graphrag.model import Citation, Claim, ClaimFlag, Support, SupportLabel, Verdict, VerdictLabel
from graphrag.verify import ClaimState, ClaimStatus

pytestmark = pytest.mark.unit

CHECKED = Support(0.9, SupportLabel.SUPPORTED, "embedded", "test")


def claim(i: int, quote: bool = True) -> Claim:
    return Claim(i, f"claim {i}", 0, 1, (Citation("1", True),), (ClaimFlag.VERBATIM_QUOTE,) if quote else (),
                 support=None if quote else CHECKED)


def verdict(i: int, label: VerdictLabel, who: str) -> Verdict:
    return Verdict(1, i, label, who, "sha")


UNREVIEWED = ClaimState(ClaimStatus.UNREVIEWED, None, 0, 1)


def test_before_review() -> None:
    assert answer_summary([claim(0), claim(1), claim(2)], [UNREVIEWED] * 3, []) == (
        "3 quotes, checked automatically; not yet reviewed", "blue")
    text, _ = answer_summary([claim(0), claim(1, quote=False)], [UNREVIEWED] * 2, [])
    assert text == "2 claims, 1 of them quoted word for word, checked automatically; not yet reviewed"


def test_after_review() -> None:
    claims = [claim(0), claim(1), claim(2)]
    verified = ClaimState(ClaimStatus.VERIFIED, VerdictLabel.SUPPORTED, 2, 2)
    both = [verdict(i, VerdictLabel.SUPPORTED, who) for i in range(3) for who in ("ana", "bo")]
    assert answer_summary(claims, [verified] * 3, both) == (
        "3 quotes, checked automatically; verified by 2 reviewers", "green")
    one_bad = [verdict(0, VerdictLabel.SUPPORTED, "ana"), verdict(1, VerdictLabel.UNSUPPORTED, "ana")]
    text, colour = answer_summary(claims, [verified, verified, UNREVIEWED], one_bad)
    assert text.endswith("; 1 of 3 claims judged not backed") and colour == "red"  # in the verdict's kind's words


def test_reviewed_is_not_verified_when_a_claim_was_found_partly_supported() -> None:
    """Issue 60: every claim reviewed, one settled as partly answering: reviewed, said in the kind's words, never
    "verified" (which is only what reviewers found supported)."""
    claims = [claim(0), claim(1)]
    yes = ClaimState(ClaimStatus.REVIEWED, VerdictLabel.SUPPORTED, 1, 1)
    partly = ClaimState(ClaimStatus.REVIEWED, VerdictLabel.PARTIAL, 1, 1)
    said = [verdict(0, VerdictLabel.SUPPORTED, "ana"), verdict(1, VerdictLabel.PARTIAL, "ana")]
    text, colour = answer_summary(claims, [yes, partly], said)
    assert text == "2 quotes, checked automatically; reviewed: 1 of 2 claims judged partly backed", text
    assert colour == "orange" and "verified" not in text
