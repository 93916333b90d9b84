"""The checker's metrics (the refit's adoption rule and the lab's evaluations use them) on hand-computed values."""

from __future__ import annotations

import math

import pytest

from graphrag.verify.support.metrics import auroc, binary_metrics

Y = [True, True, True, False, False]
SCORES = [0.9, 0.6, 0.4, 0.5, 0.1]


@pytest.mark.unit
def test_binary_metrics_hand_computed() -> None:
    # threshold 0.5 -> predicted [T, T, F, T, F]: tp 2, fn 1, fp 1, tn 1
    m = binary_metrics(Y, [s >= 0.5 for s in SCORES])
    assert (m["tp"], m["fn"], m["fp"], m["tn"]) == (2, 1, 1, 1)
    assert m["balanced_accuracy"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert m["precision"] == pytest.approx(2 / 3)
    assert m["recall"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 / 3)


@pytest.mark.unit
def test_auroc_hand_computed_with_ties_and_one_class() -> None:
    assert auroc(Y, SCORES) == pytest.approx(5 / 6)  # 5 of 6 (pos, neg) pairs ordered right
    assert auroc([True, False], [0.5, 0.5]) == pytest.approx(0.5)
    assert auroc([True, True, False, False], [0.7, 0.3, 0.3, 0.1]) == pytest.approx(0.875)
    assert math.isnan(auroc([True, True], [0.1, 0.2]))
