"""The abstention figures cannot make answering everything, or abstaining on everything, look good."""

from __future__ import annotations

import pytest

from lab.evaluate.abstention import auroc, risk_coverage, summarise_abstention, wilson

pytestmark = pytest.mark.unit


def rows(answered_answerable: bool, answered_unanswerable: bool) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(10):
        out.append({"kind": "answerable", "answered": answered_answerable, "right": answered_answerable and i < 8,
                    "probability": 0.9 - i / 100})
        out.append({"kind": "in_domain", "answered": answered_unanswerable, "right": False,
                    "probability": 0.5 - i / 100})
    return out


def test_answering_everything_and_abstaining_on_everything_both_score_badly():
    everything = summarise_abstention(rows(True, True))
    nothing = summarise_abstention(rows(False, False))
    good = summarise_abstention(rows(True, False))
    assert everything["in_domain_abstained"]["share"] == 0.0 and everything["truthfulness"] < good["truthfulness"]
    assert nothing["answerable_answered"]["share"] == 0.0 and nothing["over_refusal"]["share"] == 1.0
    assert nothing["truthfulness"] == 0.0 < good["truthfulness"] == pytest.approx((8 - 2) / 20)
    assert good["truthfulness_in_domain"] == 0.0 and everything["truthfulness_in_domain"] == -1.0


def test_shares_carry_wilson_intervals_and_the_score_its_auroc():
    assert wilson(0, 0) is None
    lo, hi = wilson(8, 10) or (0.0, 0.0)
    assert lo == pytest.approx(0.490, abs=1e-3) and hi == pytest.approx(0.943, abs=1e-3)
    assert summarise_abstention(rows(True, False))["auroc_no_answer_score"] == 1.0
    assert auroc([0.5], [0.5]) == 0.5 and auroc([], [0.1]) is None
    curve = risk_coverage(rows(True, False))
    assert curve[0] == (0.05, 0.0) and curve[-1][0] == 1.0 and curve[-1][1] == pytest.approx(12 / 20)
