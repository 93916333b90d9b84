"""Learning curve of the team refit (``graphrag eval support --learn-from``).

A labelled file plays the team: its labels are the verdicts (supported = 1; partial and not
supported = 0). The starting model is the tree ensemble fitted (as lab/fit_support.py fits
the shipped one) on the *other* file only, so it never saw the scored claims; the refit is
``graphrag.verify.support.learn``'s: the same trees on the other file's rows plus N verdicts as a
third source. For each size N and each random draw, N claims of the target file are taken as
verdicts, whole questions at a time (the claims of one ExpertQA question never straddle refit
and scoring; the last question drawn is cut to make exactly N and its remaining claims are
scored by neither), and both models score the rest of the target file.

The other file is the starting model's own training data, so scoring it with models fitted on
all of it would be in sample. It is scored out of sample on both sides instead: split in five
folds (questions whole); for each, the start is fitted on the other four folds and the refit on
those four plus the same verdicts, and both score the held-out fold.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from graphrag.errors import GraphRAGError
from graphrag.verify.support.learn import (
    FOLDS,
    THRESHOLD,
    TrainingRows,
    grouped_folds,
    predictor,
    refit_params,
)
from graphrag.verify.support.metrics import auroc, binary_metrics
from lab.evaluate.support import load_examples


def _figures(y: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    return binary_metrics(y, s >= THRESHOLD)["balanced_accuracy"], auroc(y, s)


def draw_split(groups: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Indices of ``n`` verdicts (whole groups, in random order, the last one cut) and of the
    claims left to score (groups not touched)."""
    order = rng.permutation(np.unique(groups))
    train: list[int] = []
    used = set()
    for g in order:
        if len(train) >= n:
            break
        members = np.flatnonzero(groups == g).tolist()
        train.extend(members[: n - len(train)])
        used.add(g)
    test = np.flatnonzero(~np.isin(groups, list(used)))
    return np.array(train), test


def bootstrap_sd(y: np.ndarray, s: np.ndarray, rng: np.random.Generator, rounds: int = 200) -> float:
    """Sampling noise of balanced accuracy on this set (sd over bootstrap resamples)."""
    vals = []
    for _ in range(rounds):
        i = rng.integers(0, len(y), len(y))
        vals.append(_figures(y[i], s[i])[0])
    return float(np.std(vals, ddof=1))


def learning_curve(x: np.ndarray, y: np.ndarray, groups: np.ndarray, other: TrainingRows,
                   other_groups: np.ndarray, sizes: Sequence[int], draws: int, seed: int = 0) -> dict[str, Any]:
    """The figures for each size: start vs refit on the held-out target claims and, out of
    sample, on the other file (see the module docstring)."""
    from graphrag.verify.support.fitting import fit_trees

    start_scores = predictor(fit_trees(other.x, other.y.astype(int), other.source))(x)
    folds = grouped_folds(other.y, other_groups, FOLDS, seed)
    fold_rows = [TrainingRows(other.x[tr], other.y[tr], other.source[tr]) for tr, _ in folds]
    other_scores = np.zeros(len(other.y))
    for rows, (_, te) in zip(fold_rows, folds):
        other_scores[te] = predictor(fit_trees(rows.x, rows.y.astype(int), rows.source))(other.x[te])
    rows_out, skipped = [], []
    for n in sizes:
        if n >= len(y):
            skipped.append(f"{n} verdicts: the file has only {len(y)} claims, none would be left to score")
            continue
        per_draw = []
        for d in range(draws):
            rng = np.random.default_rng([seed, n, d])
            train, test = draw_split(groups, n, rng)
            if len(set(y[train].tolist())) < 2 or len(test) == 0:
                continue
            refit = predictor(refit_params(other, x[train], y[train]))
            ba0, au0 = _figures(y[test], start_scores[test])
            ba1, au1 = _figures(y[test], refit(x[test]))
            other_refit = np.zeros(len(other.y))
            for rows, (_, te) in zip(fold_rows, folds):
                other_refit[te] = predictor(refit_params(rows, x[train], y[train]))(other.x[te])
            oba0, oau0 = _figures(other.y, other_scores)
            oba1, oau1 = _figures(other.y, other_refit)
            per_draw.append({"n_scored": len(test), "start_ba": ba0, "refit_ba": ba1, "start_auroc": au0,
                             "refit_auroc": au1, "other_start_ba": oba0, "other_refit_ba": oba1,
                             "other_start_auroc": oau0, "other_refit_auroc": oau1})
        if not per_draw:
            continue

        def stat(key: str, draws_: list[dict[str, Any]] = per_draw) -> dict[str, float]:
            v = np.array([r[key] for r in draws_], dtype=float)
            return {"mean": round(float(v.mean()), 4), "sd": round(float(v.std(ddof=1)) if len(v) > 1 else 0.0, 4)}

        for r in per_draw:
            r["gain_ba"] = r["refit_ba"] - r["start_ba"]
            r["gain_auroc"] = r["refit_auroc"] - r["start_auroc"]
            r["other_gain_ba"] = r["other_refit_ba"] - r["other_start_ba"]
            r["other_gain_auroc"] = r["other_refit_auroc"] - r["other_start_auroc"]
        keys = ("start_ba", "refit_ba", "gain_ba", "start_auroc", "refit_auroc", "gain_auroc", "other_start_ba",
                "other_refit_ba", "other_gain_ba", "other_gain_auroc")
        rows_out.append({"verdicts": n, "draws": len(per_draw), "n_scored": stat("n_scored"),
                         **{k: stat(k) for k in keys}})
    noise = bootstrap_sd(other.y, other_scores, np.random.default_rng(seed))
    return {"sizes": rows_out, "skipped": skipped, "other_ba_noise_sd": round(noise, 4)}


def _print(result: dict[str, Any], out: TextIO) -> None:
    out.write(f"team refit learning curve: {result['target']} ({result['target_format']}, {result['target_n']} claims) "
              f"starting from trees fitted on {result['start']} ({result['start_format']}); "
              f"partial support counts as not supported\n")
    out.write("  verdicts  scored | balanced accuracy: start  refit   gain        | AUROC: start  refit   gain"
              "        | other set BA gain   AUROC gain\n")

    def ms(s: dict[str, float], sign: bool = False) -> str:
        return f"{s['mean']:+.3f}±{s['sd']:.3f}" if sign else f"{s['mean']:.3f}"

    for r in result["sizes"]:
        out.write(f"  {r['verdicts']:>8}  {r['n_scored']['mean']:>6.0f} |                    {ms(r['start_ba'])}  "
                  f"{ms(r['refit_ba'])}  {ms(r['gain_ba'], True)} |        {ms(r['start_auroc'])}  "
                  f"{ms(r['refit_auroc'])}  {ms(r['gain_auroc'], True)} | {ms(r['other_gain_ba'], True):>17}  "
                  f"{ms(r['other_gain_auroc'], True)}\n")
    for why in result["skipped"]:
        out.write(f"  skipped: {why}\n")
    out.write(f"  (mean ± sd over {result['draws']} draws; other set: {result['start']}, scored out of fold by start "
              f"models fitted on the rest of it; sampling noise of its balanced accuracy (bootstrap sd): "
              f"{result['other_ba_noise_sd']:.3f})\n")


def cli_learning_curve(data: str, fmt: str, start_data: str, start_fmt: str, sizes: Sequence[int] = (50, 100, 200, 400),
                       draws: int = 5, seed: int = 0, cache: str | None = None, as_json: bool = False,
                       out: TextIO | None = None) -> int:
    """``graphrag eval learning-curve``: refit from growing samples of ``data`` starting from ``start_data``'s
    model, and print the gains (or JSON); 2 on unreadable input."""
    out = out or sys.stdout
    from lab.evaluate.features import cached_features

    try:
        target = load_examples(data, fmt)
        start = load_examples(start_data, start_fmt)
    except GraphRAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    x = cached_features(data, fmt, target, cache)
    ox = cached_features(start_data, start_fmt, start, cache)
    y = np.array([e.supported for e in target])
    other = TrainingRows(ox, np.array([e.supported for e in start]), np.array([start_fmt] * len(start)))
    groups = np.array([e.group or f"row:{i}" for i, e in enumerate(target)])
    other_groups = np.array([e.group or f"row:{i}" for i, e in enumerate(start)])
    result = learning_curve(x, y, groups, other, other_groups, sizes, draws, seed)
    result.update({"target": str(data), "target_format": fmt, "target_n": len(target), "start": str(start_data),
                   "start_format": start_fmt, "draws": draws, "seed": seed})
    if as_json:
        out.write(json.dumps(result) + "\n")
    else:
        _print(result, out)
    return 0
