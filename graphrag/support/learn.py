"""Adapting the embedded checker to a team's verdicts: a correction stage on the shipped score.

Why a correction on top rather than refitting the trees: the shipped trees were fitted on
thousands of public pairs whose features a deployed store does not have (they need the data
files and minutes of MiniLM), while a team has tens to hundreds of verdicts. So the shipped
model stays as it is and a small logistic stage is fitted on the team's pairs::

    p = sigmoid(a + b * logit(shipped score) + w . (x - mean) / scale)

starting from the shipped model (a = 0, b = 1, w = 0) and pulled back towards it by an L2
penalty ``lam/2 * (a^2 + (b - 1)^2 + |w|^2)``, so with few verdicts it stays close to the
shipped scores and moves only as far as the verdicts argue. It keeps the shipped model's
monotonicity: b >= 0 (the stage never reverses the shipped score) and each w_j has the sign of
the feature's known direction (``DIRECTION``: more similarity never lowers the score, a missing
number never raises it). The penalty strength is chosen by grouped cross-validation inside the
team's own verdicts (``LAMBDAS``); nothing here looks at the figures it reports.

Labels: a verdict of *supported* is 1; *partially supported* and *unsupported* are 0 (as in the
shipped fit, where partial support is not support: a reviewer must look at it). Each class gets
the same total weight, so the 0.5 threshold stays at equal odds.

Only numpy, scipy (the bounded fit) and scikit-learn (grouped folds) are used; no model is
loaded here, so everything is testable on made-up feature rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphrag.errors import InputError

LAMBDAS = (1.0, 3.0, 10.0, 30.0, 100.0)  # candidate penalty strengths, picked by inner grouped CV
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


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=float), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


@dataclass(frozen=True)
class Correction:
    """The fitted stage: p = sigmoid(intercept + slope * logit(base) + coef . (x - mean) / scale)."""

    intercept: float
    slope: float
    coef: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    lam: float

    def predict(self, base_scores: np.ndarray, x: np.ndarray) -> np.ndarray:
        z = self.intercept + self.slope * logit(base_scores) + ((np.atleast_2d(x) - self.mean) / self.scale) @ self.coef
        return 1.0 / (1.0 + np.exp(-z))

    def to_json(self) -> dict[str, Any]:
        return {"intercept": round(self.intercept, 6), "slope": round(self.slope, 6),
                "coef": [round(float(v), 6) for v in self.coef], "mean": [round(float(v), 6) for v in self.mean],
                "scale": [round(float(v), 6) for v in self.scale], "lam": self.lam}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Correction:
        return cls(float(raw["intercept"]), float(raw["slope"]), np.asarray(raw["coef"], dtype=float),
                   np.asarray(raw["mean"], dtype=float), np.asarray(raw["scale"], dtype=float), float(raw["lam"]))


def class_weights(y: np.ndarray) -> np.ndarray:
    """Equal total weight per class, mean 1."""
    y = np.asarray(y, dtype=bool)
    w = np.where(y, 1.0 / max(int(y.sum()), 1), 1.0 / max(int((~y).sum()), 1))
    return w * len(y) / w.sum()


def fit_correction(base_scores: np.ndarray, x: np.ndarray, y: np.ndarray, direction: Sequence[int],
                   lam: float) -> Correction:
    """The bounded, penalised logistic fit described in the module docstring."""
    from scipy.optimize import minimize

    x = np.atleast_2d(np.asarray(x, dtype=float))
    t = np.asarray(y, dtype=float)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0  # a constant feature: its weight stays at the prior (0)
    z = (x - mean) / scale
    base = logit(base_scores)
    w = class_weights(t.astype(bool))
    design = np.column_stack([np.ones(len(t)), base, z])
    prior = np.zeros(design.shape[1])
    prior[1] = 1.0  # the shipped model itself

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        eta = design @ theta
        # log(1 + e^eta) - t * eta, stably
        nll = np.sum(w * (np.logaddexp(0.0, eta) - t * eta))
        grad = design.T @ (w * (1.0 / (1.0 + np.exp(-eta)) - t))
        d = theta - prior
        return float(nll + lam / 2 * d @ d), grad + lam * d

    bounds = [(None, None), (0.0, None)] + [(0.0, None) if s > 0 else (None, 0.0) for s in direction]
    res = minimize(loss, prior.copy(), jac=True, method="L-BFGS-B", bounds=bounds)
    theta = res.x
    return Correction(float(theta[0]), float(theta[1]), theta[2:].copy(), mean, scale, float(lam))


def _folds(y: np.ndarray, groups: np.ndarray, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Grouped folds (one answer's pairs in one fold), stratified by class where possible."""
    from sklearn.model_selection import StratifiedGroupKFold

    k = min(k, len(set(groups.tolist())))
    splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
    return [(tr, te) for tr, te in splitter.split(np.zeros(len(y)), y.astype(int), groups)]


def choose_lambda(base_scores: np.ndarray, x: np.ndarray, y: np.ndarray, groups: np.ndarray,
                  direction: Sequence[int], seed: int = 0) -> float:
    """The penalty with the lowest held-out (class-weighted) log-loss over grouped folds."""
    folds = _folds(y, groups, FOLDS, seed)
    best, best_loss = LAMBDAS[-1], np.inf
    for lam in LAMBDAS:
        total = 0.0
        for tr, te in folds:
            if len(set(y[tr].tolist())) < 2:
                continue
            p = np.clip(fit_correction(base_scores[tr], x[tr], y[tr], direction, lam).predict(base_scores[te], x[te]),
                        1e-6, 1 - 1e-6)
            w = class_weights(y[te])
            total += float(-np.sum(w * (y[te] * np.log(p) + (1 - y[te]) * np.log(1 - p))))
        if total < best_loss:
            best, best_loss = lam, total
    return best


def fit_with_choice(base_scores: np.ndarray, x: np.ndarray, y: np.ndarray, groups: np.ndarray,
                    direction: Sequence[int], seed: int = 0) -> Correction:
    lam = choose_lambda(base_scores, x, y, groups, direction, seed)
    return fit_correction(base_scores, x, y, direction, lam)


def _metrics(y: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    from graphrag.evaluate.support import auroc, binary_metrics

    return binary_metrics(y, scores >= THRESHOLD)["balanced_accuracy"], auroc(y, scores)


def compare(base_scores: np.ndarray, x: np.ndarray, y: np.ndarray, groups: Sequence[str],
            direction: Sequence[int], seed: int = 0) -> dict[str, Any]:
    """Grouped cross-validation of the refit against the shipped scores on the same folds.

    Per fold: balanced accuracy and AUROC of both on the held-out answers; overall: the same
    on the pooled out-of-fold scores, and the mean and spread (sd) of the per-fold gains.
    """
    y = np.asarray(y, dtype=bool)
    g = np.asarray(groups)
    base_scores = np.asarray(base_scores, dtype=float)
    oof = np.zeros(len(y))
    folds = []
    for tr, te in _folds(y, g, FOLDS, seed):
        corr = fit_with_choice(base_scores[tr], x[tr], y[tr], g[tr], direction, seed)
        oof[te] = corr.predict(base_scores[te], x[te])
        (ba_s, au_s), (ba_r, au_r) = _metrics(y[te], base_scores[te]), _metrics(y[te], oof[te])
        folds.append({"n": int(len(te)), "shipped_ba": ba_s, "refit_ba": ba_r, "shipped_auroc": au_s,
                      "refit_auroc": au_r})
    ba_gain = np.array([f["refit_ba"] - f["shipped_ba"] for f in folds])
    au_gain = np.array([f["refit_auroc"] - f["shipped_auroc"] for f in folds])
    au_gain = au_gain[~np.isnan(au_gain)]
    (ba_s, au_s), (ba_r, au_r) = _metrics(y, base_scores), _metrics(y, oof)
    return {
        "n": int(len(y)), "n_supported": int(y.sum()), "answers": int(len(set(g.tolist()))), "folds": folds,
        "shipped": {"balanced_accuracy": round(ba_s, 4), "auroc": round(au_s, 4)},
        "refit": {"balanced_accuracy": round(ba_r, 4), "auroc": round(au_r, 4)},
        "gain_balanced_accuracy": {"mean": round(float(ba_gain.mean()), 4), "sd": round(float(ba_gain.std(ddof=1)), 4)
                                   if len(ba_gain) > 1 else 0.0},
        "gain_auroc": {"mean": round(float(au_gain.mean()), 4) if len(au_gain) else float("nan"),
                       "sd": round(float(au_gain.std(ddof=1)), 4) if len(au_gain) > 1 else 0.0},
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
    au_ok = not np.isfinite(au["mean"]) or au["mean"] >= -max(au["sd"], 0.0)
    return ba["mean"] > 0 and ba["mean"] > ba["sd"] and au_ok


def refit(base_scores: np.ndarray, x: np.ndarray, y: np.ndarray, groups: Sequence[str],
          direction: Sequence[int], seed: int = 0) -> tuple[Correction, dict[str, Any]]:
    """Check, cross-validate and fit on every verdict; RefitRefused unless adoption is justified."""
    y = np.asarray(y, dtype=bool)
    check_enough(y, groups)
    report = compare(base_scores, x, y, groups, direction, seed)
    if not real_gain(report):
        ba = report["gain_balanced_accuracy"]
        raise RefitRefused(
            f"the refit is not clearly better: balanced accuracy gain {ba['mean']:+.3f} with fold spread "
            f"{ba['sd']:.3f} (AUROC gain {report['gain_auroc']['mean']:+.3f}); parameters left as they are",
            report)
    return fit_with_choice(base_scores, x, y, np.asarray(groups), direction, seed), report
