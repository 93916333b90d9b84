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


def test_each_unanswerable_kind_has_its_own_auroc_and_the_operating_point_its_risk():
    mixed = [*rows(True, False), {"kind": "near_miss", "answered": True, "right": False, "probability": 0.95}]
    got = summarise_abstention(mixed)
    # the near miss scores above every answerable question: alone against them it is told apart never
    assert got["auroc_by_kind"] == {"in_domain": 1.0, "near_miss": 0.0}
    assert got["coverage"]["k"] == 11 and got["coverage"]["n"] == 21
    assert got["risk"]["k"] == 3 and got["risk"]["n"] == 11  # the near miss and two answerable ones not right
    assert 0.0 < got["risk_coverage_area"] < 1.0


def test_the_risk_coverage_curve_is_drawn_per_set_with_its_operating_point():
    from lab.plot_risk_coverage import _x, _y, curves, svg

    panel = {"nq": {"abstention": {"detail": rows(True, False)}}, "musique": {"questions": 3},
             "squad": {"abstention": {"detail": rows(True, True)}}}
    drawn = curves(panel)
    assert list(drawn) == ["nq", "squad"]  # sets without abstention rows are not drawn
    assert drawn["nq"][1] == (0.5, 0.2) and drawn["squad"][1] == (1.0, 0.6)
    out = svg(drawn, "t")
    assert out.count("<polyline") == 2 and f'cx="{_x(0.5):.1f}" cy="{_y(0.2):.1f}"' in out
