"""Adapting the embedded checker to a team's verdicts: refit the trees on the shipped data plus the team's.

The shipped trees were fitted (lab/fit_support.py) on the feature rows of the public WiCE
and ExpertQA pairs; those rows ship beside the parameters (``embedded_train.npz``, 50 KB), so
a refit needs no data files and no MiniLM pass over them. A refit is the same monotonic tree
ensemble, same settings, fitted on the shipped rows plus the team's judged pairs as a third
source. The fit gives each (source, class) cell the same total weight, so the team's verdicts,
a few hundred rows beside a thousand, weigh as much as each public dataset: per row, much more.

Why this and not a small correction stage on top of the shipped score: both were measured on the
learning curve (docs/figures.md); a correction fitted on the team's rows alone moves the decision for
every kind of pair and lost balanced accuracy on the dataset it was not fitted on beyond the
noise, while keeping the shipped rows in the fit keeps what the shipped model knew. The trees
stay monotonic in each feature's known direction (``DIRECTION``), like the shipped ones.

Labels: a verdict of *supported* is 1; *partially supported* and *unsupported* are 0 (as in the
shipped fit, where partial support is not support: a reviewer must look at it).

Adoption: enough judged pairs of both classes from enough answers, then grouped cross-validation
(one answer's pairs in one fold) of the refit against the shipped model on the same folds; the
refit is adopted only when its mean gain in balanced accuracy over the folds is positive and
larger than the spread (sd) of those gains, and AUROC is not worse beyond its own spread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.errors import InputError, ModelUnavailable

TRAIN_PATH = Path(__file__).with_name("embedded_train.npz")
TEAM = "team"  # the source name of the team's rows in the fit
MIN_JUDGED = 50  # judged pairs needed before a refit may replace the parameters
MIN_PER_CLASS = 10  # ... with at least this many of each class
MIN_GROUPS = 3  # answers: grouped folds need a few
FOLDS = 5
THRESHOLD = 0.5


class RefitRefused(InputError):
    """The refit was not adopted: too few verdicts, one class, or no real gain. Nothing changed."""

    def __init__(self, message: str, report: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.report = dict(report or {})


@dataclass(frozen=True)
class TrainingRows:
    """Feature rows, labels and source names of pairs to fit on."""

    x: np.ndarray
    y: np.ndarray
    source: np.ndarray

    def plus(self, x: np.ndarray, y: np.ndarray, source: str = TEAM) -> TrainingRows:
        """These rows with ``x`` and ``y`` appended under the source name ``source``."""
        return TrainingRows(np.vstack([self.x, x]), np.concatenate([self.y, np.asarray(y, dtype=bool)]),
                            np.concatenate([self.source, np.array([source] * len(y))]))


def shipped_rows(path: Path = TRAIN_PATH) -> TrainingRows:
    """The rows the shipped parameters were fitted on (written by lab/fit_support.py)."""
    from graphrag.verify.support.embedded import FEATURES

    if not path.is_file():
        raise ModelUnavailable(f"the shipped training rows are missing ({path}); run python -m lab.fit_support",
                               backend="embedded")
    data = np.load(path)
    x = data["x"].astype(float)
    if x.shape[1] != len(FEATURES):
        raise ModelUnavailable(f"{path} holds other features; rerun python -m lab.fit_support", backend="embedded")
    return TrainingRows(x, data["y"].astype(bool), data["source"].astype(str))


def refit_params(base: TrainingRows, x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """The tree ensemble fitted on ``base`` plus the team's rows (see the module docstring)."""
    from graphrag.verify.support.fitting import fit_trees

    rows = base.plus(np.atleast_2d(x), y)
    return fit_trees(rows.x, rows.y.astype(int), rows.source)


def predictor(params: Mapping[str, Any]) -> Callable[[np.ndarray], np.ndarray]:
    """The predict function of raw fitted parameters (trees or logistic)."""
    from graphrag.verify.support.embedded import params_from_raw

    return params_from_raw(dict(params)).predict


def grouped_folds(y: np.ndarray, groups: np.ndarray, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Grouped folds (one answer's pairs in one fold), stratified by class where possible."""
    import warnings

    from sklearn.model_selection import StratifiedGroupKFold

    k = min(k, len(set(np.asarray(groups).tolist())))
    splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
    with warnings.catch_warnings():  # a class smaller than k: sklearn warns, the folds are still grouped
        warnings.simplefilter("ignore", UserWarning)
        return list(splitter.split(np.zeros(len(y)), np.asarray(y).astype(int), groups))


def _metrics(y: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    from graphrag.verify.support.metrics import auroc, binary_metrics

    return binary_metrics(y, scores >= THRESHOLD)["balanced_accuracy"], auroc(y, scores)


def _spread(v: np.ndarray) -> dict[str, float]:
    v = v[~np.isnan(v)]
    if not len(v):
        return {"mean": float("nan"), "sd": 0.0}
    return {"mean": round(float(v.mean()), 4), "sd": round(float(v.std(ddof=1)), 4) if len(v) > 1 else 0.0}


def compare(shipped: Callable[[np.ndarray], np.ndarray], base: TrainingRows, x: np.ndarray, y: np.ndarray,
            groups: Sequence[str], seed: int = 0) -> dict[str, Any]:
    """Grouped cross-validation of the refit against the shipped model on the same folds.

    Per fold: balanced accuracy and AUROC of both on the held-out answers (the refit fitted on
    the shipped rows plus the other folds' verdicts); overall: the same on the pooled
    out-of-fold scores, and the mean and spread (sd) of the per-fold gains.
    """
    y = np.asarray(y, dtype=bool)
    g = np.asarray(groups)
    shipped_scores = shipped(x)
    oof = np.zeros(len(y))
    folds = []
    for tr, te in grouped_folds(y, g, FOLDS, seed):
        oof[te] = predictor(refit_params(base, x[tr], y[tr]))(x[te])
        (ba_s, au_s), (ba_r, au_r) = _metrics(y[te], shipped_scores[te]), _metrics(y[te], oof[te])
        folds.append({"n": len(te), "shipped_ba": round(ba_s, 4), "refit_ba": round(ba_r, 4),
                      "shipped_auroc": round(au_s, 4), "refit_auroc": round(au_r, 4)})
    (ba_s, au_s), (ba_r, au_r) = _metrics(y, shipped_scores), _metrics(y, oof)
    return {
        "n": len(y), "n_supported": int(y.sum()), "answers": len(set(g.tolist())), "folds": folds,
        "shipped": {"balanced_accuracy": round(ba_s, 4), "auroc": round(au_s, 4)},
        "refit": {"balanced_accuracy": round(ba_r, 4), "auroc": round(au_r, 4)},
        "gain_balanced_accuracy": _spread(np.array([f["refit_ba"] - f["shipped_ba"] for f in folds])),
        "gain_auroc": _spread(np.array([f["refit_auroc"] - f["shipped_auroc"] for f in folds], dtype=float)),
    }


def check_enough(y: np.ndarray, groups: Sequence[str]) -> None:
    """Refuse (RefitRefused) before any fit when the verdicts cannot support one."""
    y = np.asarray(y, dtype=bool)
    n, pos = len(y), int(y.sum())
    counts = {"n": n, "n_supported": pos, "answers": len(set(groups))}
    if n < MIN_JUDGED:
        raise RefitRefused(f"only {n} judged claim/citation pairs; a refit needs at least {MIN_JUDGED}", counts)
    if min(pos, n - pos) < MIN_PER_CLASS:
        raise RefitRefused(f"the verdicts hold {pos} supported and {n - pos} not supported pairs; a refit needs "
                           f"at least {MIN_PER_CLASS} of each", counts)
    if len(set(groups)) < MIN_GROUPS:
        raise RefitRefused(f"the judged pairs come from {len(set(groups))} answer(s); cross-validation by answer "
                           f"needs at least {MIN_GROUPS}", counts)


def real_gain(report: Mapping[str, Any]) -> bool:
    """Adopt only when the mean fold gain in balanced accuracy is positive and beyond the
    fold-to-fold spread, and AUROC is not worse by more than its own spread."""
    ba, au = report["gain_balanced_accuracy"], report["gain_auroc"]
    au_ok = not np.isfinite(au["mean"]) or au["mean"] >= -au["sd"]
    return bool(ba["mean"] > 0 and ba["mean"] > ba["sd"] and au_ok)


def refit(shipped: Callable[[np.ndarray], np.ndarray], base: TrainingRows, x: np.ndarray, y: np.ndarray,
          groups: Sequence[str], seed: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """Check, cross-validate and fit on every verdict: (parameters, report). RefitRefused
    unless adoption is justified."""
    y = np.asarray(y, dtype=bool)
    check_enough(y, groups)
    report = compare(shipped, base, x, y, groups, seed)
    if not real_gain(report):
        ba = report["gain_balanced_accuracy"]
        raise RefitRefused(
            f"the refit is not clearly better: balanced accuracy gain {ba['mean']:+.3f} with fold spread "
            f"{ba['sd']:.3f} (AUROC gain {report['gain_auroc']['mean']:+.3f}); parameters left as they are",
            report)
    return refit_params(base, x, y), report
