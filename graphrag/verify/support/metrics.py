"""How well a checker's scores and labels match judged supported / not-supported labels.

The product needs these for the checker refit (``graphrag checker fit`` compares the refit with the shipped
model on the same folds); the lab's evaluations import them from here, so both report the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Labels = Sequence[bool] | np.ndarray  # supported or not, per claim
Scores = Sequence[float] | np.ndarray


def auroc(y: Labels, scores: Scores) -> float:
    """Area under the ROC curve (tied scores count half); NaN when only one class is present."""
    y_arr = np.asarray(y, dtype=bool)
    if y_arr.all() or not y_arr.any():  # scikit-learn raises here; a fold of one class has no AUROC
        return float("nan")
    from sklearn.metrics import roc_auc_score  # imported when scored: loading scikit-learn takes a second

    return float(roc_auc_score(y_arr, np.asarray(scores, dtype=float)))


def _safe_div(a: float, b: float) -> float:
    return a / b if b else 0.0


def binary_metrics(y: Labels, predicted: Labels) -> dict[str, float]:
    """Balanced accuracy and precision / recall / F1 of the supported class (0 where a count is 0)."""
    t = np.asarray(y, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    tp, fp = int((t & p).sum()), int((~t & p).sum())
    fn, tn = int((t & ~p).sum()), int((~t & ~p).sum())
    recall = _safe_div(tp, tp + fn)
    specificity = _safe_div(tn, tn + fp)
    precision = _safe_div(tp, tp + fp)
    return {
        "balanced_accuracy": (recall + specificity) / 2,
        "precision": precision,
        "recall": recall,
        "f1": _safe_div(2 * precision * recall, precision + recall),
        "tp": tp, "fp": fp, "fn": fn, "tn": tn,
    }
