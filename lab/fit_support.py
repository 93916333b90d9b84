"""Fit the embedded support checker's model and write its parameters.

    python -m lab.fit_support --data ../shared/data --report

reads wice_claim_dev.jsonl and expertqa_rand_val.jsonl, computes the checker's features with
the very code the checker runs (graphrag.verify.support.embedded.featurise), and

- with --report, prints cross-fit figures: fitted on ExpertQA and scored on WiCE, fitted on
  WiCE and scored on ExpertQA (out of sample); fitted on both, scored out of fold (5-fold,
  the claims of one ExpertQA question kept in one fold); and fitted on both and scored on
  each (in sample, said so);
- writes graphrag/verify/support/embedded_params.json fitted on both datasets (and the feature rows
  it was fitted on, embedded_train.npz, which a team's refit starts from): gradient-boosted
  trees (``--model gbdt``, the default, exported as plain JSON arrays the checker walks in
  numpy) or the earlier sign-constrained logistic model (``--model logistic``).

Sample weights give each (dataset, class) cell the same total weight, so neither a dataset's
size nor its share of supported claims can be learnt; the 0.5 threshold then sits at equal
odds. Embeddings (sentence vectors, and token embeddings of claims and selected sentences)
are cached in a temporary directory (not the repo) so refits are quick.
scikit-learn fits the trees (graphrag/verify/support/fitting.py); the checker itself scores with numpy and MiniLM.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import cast

import numpy as np

from graphrag.language.encoding import Embedder
from graphrag.verify.support.embedded import DIRECTION, FEATURES, PARAMS_PATH, featurise
from graphrag.verify.support.fitting import (
    PARTIAL_THRESHOLD,
    THRESHOLD,
    cell_weights,
    fit_trees,
    predict,
)
from graphrag.verify.support.learn import TRAIN_PATH
from lab import lab_config
from lab.evaluate.features import CachedEmbedder
from lab.evaluate.support import SupportExample, load_expertqa, load_wice, support_metrics

ROOT = Path(__file__).resolve().parents[1]  # the checkout: its data sits beside it in ../shared/data

Fitter = Callable[[np.ndarray, np.ndarray, np.ndarray], dict[str, object]]  # (x, y, source) -> parameters
C = 1.0  # L2 strength of the logistic fit; the default, not tuned on the reported figures


def feature_matrix(examples: Sequence[SupportExample], embedder: Embedder) -> np.ndarray:
    pfs = featurise([ex.query() for ex in examples], embedder)
    return np.vstack([pf.vector() for pf in pfs])


def fit(x: np.ndarray, y: np.ndarray, source: np.ndarray) -> dict[str, object]:
    """Standardise, fit a weighted, sign-constrained logistic regression; return shippable parameters.

    A feature whose weight comes out against its known direction (embedded.DIRECTION) is
    dropped, the most contrary first, and the rest refitted; dropped features keep weight 0.
    """
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    direction = np.array([DIRECTION[f] for f in FEATURES])
    keep = list(range(len(FEATURES)))
    while True:
        model = LogisticRegression(C=C, max_iter=2000)
        model.fit(z[:, keep], y, sample_weight=cell_weights(y, source))
        signed = model.coef_[0] * direction[keep]
        if signed.min() >= -1e-6:
            break
        keep.pop(int(np.argmin(signed)))
    coef = np.zeros(len(FEATURES))
    coef[keep] = model.coef_[0]
    return {
        "kind": "logistic",
        "features": list(FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in coef],
        "intercept": round(float(model.intercept_[0]), 6),
        "threshold": THRESHOLD,
        "partial_threshold": PARTIAL_THRESHOLD,
    }


SUMMARY_KEYS = ("n", "balanced_accuracy", "auroc", "precision", "recall", "f1", "triage_top20")


def rounded(m: Mapping[str, object]) -> dict[str, object]:
    """The summary figures of ``support_metrics``, floats to 4 places."""
    return {k: round(v, 4) if isinstance(v := m[k], float) else v for k in SUMMARY_KEYS}


def summary(params: dict[str, object], x: np.ndarray, y: np.ndarray) -> dict[str, object]:
    return rounded(support_metrics(y, predict(params, x), THRESHOLD))


def out_of_fold(fitter: Fitter, x: np.ndarray, y: np.ndarray, source: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Scores of each pair from a model fitted on the other four folds (one fixed shuffle)."""
    from sklearn.model_selection import StratifiedGroupKFold

    strata = np.array([f"{s}:{int(c)}" for s, c in zip(source, y)])
    scores = np.zeros(len(y))
    for train, test in StratifiedGroupKFold(5, shuffle=True, random_state=0).split(x, strata, groups):
        scores[test] = predict(fitter(x[train], y[train], source[train]), x[test])
    return scores


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"), help="folder with the two files")
    ap.add_argument("--report", action="store_true", help="print cross-fit and in-sample figures")
    ap.add_argument("--out", default=str(PARAMS_PATH), help="where to write the fitted parameters")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "graphrag-support-cache" / "minilm.npz"))
    ap.add_argument("--model", choices=("gbdt", "logistic"), default="gbdt",
                    help="tree ensemble (shipped) or the earlier sign-constrained logistic model")
    ap.add_argument("--dry-run", action="store_true", help="do not write parameters")
    args = ap.parse_args(argv)

    from graphrag.language.embed import get_embedder

    data = Path(args.data)
    sets = {"wice": load_wice(data / "wice_claim_dev.jsonl"),
            "expertqa": load_expertqa(data / "expertqa_rand_val.jsonl")}
    embedder = CachedEmbedder(get_embedder(lab_config()), Path(args.cache))
    xs, ys = {}, {}
    for name, examples in sets.items():
        start = time.perf_counter()
        xs[name] = feature_matrix(examples, embedder)
        ys[name] = np.array([ex.supported for ex in examples])
        print(f"{name}: {len(examples)} pairs, {int(ys[name].sum())} supported, "
              f"features in {time.perf_counter() - start:.0f}s", file=sys.stderr)

    x_all = np.vstack([xs["wice"], xs["expertqa"]])
    y_all = np.concatenate([ys["wice"], ys["expertqa"]])
    src_all = np.array(["wice"] * len(ys["wice"]) + ["expertqa"] * len(ys["expertqa"]))
    fitter = fit_trees if args.model == "gbdt" else fit
    final = fitter(x_all, y_all, src_all)

    report: dict[str, object] = {}
    if args.report:
        for train, test in (("expertqa", "wice"), ("wice", "expertqa")):
            p = fitter(xs[train], ys[train], np.array([train] * len(ys[train])))
            report[f"fit_{train}__eval_{test}"] = summary(p, xs[test], ys[test])
        groups = np.array([ex.group for name in ("wice", "expertqa") for ex in sets[name]])
        oof = out_of_fold(fitter, x_all, y_all, src_all, groups)
        for name in ("wice", "expertqa"):
            m = support_metrics(y_all[src_all == name], oof[src_all == name], THRESHOLD)
            report[f"fit_both__eval_{name}__5fold"] = rounded(m)
        for name in ("wice", "expertqa"):
            report[f"fit_both__eval_{name}__in_sample"] = summary(final, xs[name], ys[name])
        print(json.dumps(report, indent=2))
        if final["kind"] == "logistic":
            print("coefficients (standardised):", file=sys.stderr)
            for f, c in sorted(zip(FEATURES, cast("list[float]", final["coef"])), key=lambda t: -abs(t[1])):
                print(f"  {f:<20} {c:+.3f}", file=sys.stderr)

    if not args.dry_run:
        final["fitted_on"] = {"wice_claim_dev": len(ys["wice"]), "expertqa_rand_val": len(ys["expertqa"])}
        final["weights"] = "equal total weight per (dataset, class)"
        indent = None if final["kind"] == "gbdt" else 1  # trees: compact, tens of KB
        Path(args.out).write_text(json.dumps(final, indent=indent, separators=(",", ":") if indent is None
                                             else None) + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
        # The rows the parameters were fitted on ship beside them: a team's refit from its
        # verdicts (graphrag checker fit) fits on these plus the team's pairs.
        train_path = Path(args.out).with_name(TRAIN_PATH.name)
        np.savez_compressed(train_path, x=x_all.astype(np.float32), y=y_all.astype(bool), source=src_all)
        print(f"wrote {train_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
