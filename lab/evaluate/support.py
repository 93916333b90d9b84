"""Evaluate a support checker on public, human-labelled claim/evidence pairs.

Formats:

- ``wice``: one claim per line; ``claim``, ``evidence`` (the cited page as a list of
  sentences), ``label`` (supported / partially_supported / not_supported).
- ``expertqa``: one question per line; each system answer holds ``claims`` with
  ``claim_string`` (inline [N] markers, stripped here), ``evidence`` passages
  ("[N] URL\\n\\npassage") and a ``support`` label. Complete -> supported,
  Partial -> partially_supported, Incomplete / Missing -> not_supported. Skipped (and
  counted): claims labelled N/A or unlabelled, claims without evidence (in this data every
  Missing claim has none, so Missing never appears in practice), and claims whose evidence
  is only the "[N] URL" header: the annotators read the web page, the file holds no text of
  it, so there is nothing to check the claim against.
- ``jsonl``: one object per line with ``claim``, ``evidence`` (a string or a list of
  sentences) and ``label`` (the three labels above, or true / false).

Metrics treat partially supported as NOT supported: a reviewer must look at it.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from graphrag.errors import GraphRAGError, InputError
from graphrag.verify.support.base import SupportChecker, SupportQuery
from graphrag.verify.support.metrics import Labels, Scores, auroc, binary_metrics
from lab import lab_config

SUPPORTED = "supported"
PARTIAL = "partially_supported"
NOT_SUPPORTED = "not_supported"
LABELS = (SUPPORTED, PARTIAL, NOT_SUPPORTED)

_EXPERTQA_LABELS = {
    "complete": SUPPORTED,
    "partial": PARTIAL,
    "incomplete": NOT_SUPPORTED,
    "missing": NOT_SUPPORTED,
}
_MARKER = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_PASSAGE_HEADER = re.compile(r"^\s*\[\d+\][^\n]*(?:\n+|$)")


@dataclass(frozen=True)
class SupportExample:
    """A labelled (claim, evidence) pair from a support dataset."""

    claim: str
    evidence: tuple[str, ...]  # sentences or passages, in source order
    label: str  # one of LABELS
    source: str  # dataset name, e.g. "wice"
    group: str = ""  # pairs that share a question (ExpertQA) must stay on one side of a split

    @property
    def supported(self) -> bool:
        """Whether the label is "supported"."""
        return self.label == SUPPORTED

    def query(self) -> SupportQuery:
        """The pair as the checker receives it."""
        # Blank lines keep each given sentence/passage a block of its own when re-split.
        return SupportQuery(claim=self.claim, evidence="\n\n".join(self.evidence))


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"data file not found: {path}")
    rows = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{n}: not a JSON line ({exc.msg})") from None
    return rows


def _need(row: dict[str, Any], keys: Sequence[str], where: str, fmt: str) -> None:
    missing = [k for k in keys if k not in row]
    if missing:
        raise InputError(f"{where}: no {', '.join(missing)} field; is this really the {fmt!r} format?")


def load_wice(path: Path, skipped: Counter[str] | None = None) -> list[SupportExample]:
    """Read WiCE pairs from JSON lines; an unknown label is an InputError naming the line."""
    out = []
    for n, row in enumerate(_read_jsonl(path), 1):
        _need(row, ("claim", "evidence", "label"), f"{path}:{n}", "wice")
        if row["label"] not in LABELS:
            raise InputError(f"{path}:{n}: unknown label {row['label']!r}")
        out.append(SupportExample(row["claim"], tuple(row["evidence"]), row["label"], "wice", group=f"wice:{n}"))
    return out


def strip_markers(text: str) -> str:
    """Remove inline citation markers such as " [3]" or "[1, 2]"."""
    return re.sub(r"\s+([.,;:!?])", r"\1", _MARKER.sub("", text)).strip()


def _passage_text(passage: str) -> str:
    """An ExpertQA evidence passage without its "[N] URL" header line ("" when that is all)."""
    return _PASSAGE_HEADER.sub("", passage, count=1).strip()


def load_expertqa(path: Path, skipped: Counter[str] | None = None) -> list[SupportExample]:
    """Claims with a support label and passage text; ``skipped`` counts the rest by reason."""
    skipped = Counter() if skipped is None else skipped
    out = []
    for n, row in enumerate(_read_jsonl(path), 1):
        _need(row, ("answers",), f"{path}:{n}", "expertqa")
        for answer in row["answers"].values():
            for claim in answer.get("claims") or []:
                label = _EXPERTQA_LABELS.get(str(claim.get("support") or "").lower())
                raw = claim.get("evidence") or []
                passages = tuple(p for p in (_passage_text(e) for e in raw) if p)
                if label is None:
                    skipped["no support label (N/A or none)"] += 1
                    continue
                if not raw:
                    skipped["no evidence"] += 1
                    continue
                if not passages:
                    skipped["evidence is only a URL, no passage text"] += 1
                    continue
                out.append(SupportExample(strip_markers(claim["claim_string"]), passages, label, "expertqa",
                                          group=f"expertqa:{n}"))
    return out


def _generic_label(value: object, where: str) -> str:
    if isinstance(value, bool):
        return SUPPORTED if value else NOT_SUPPORTED
    text = str(value).strip().lower()
    if text in {"true", "false"}:
        return SUPPORTED if text == "true" else NOT_SUPPORTED
    if text in {"partial", "partially supported"}:
        return PARTIAL
    if text in LABELS:
        return text
    raise InputError(f"{where}: unknown label {value!r}; use {', '.join(LABELS)} or true/false")


def load_jsonl(path: Path, skipped: Counter[str] | None = None) -> list[SupportExample]:
    """Read pairs from plain JSON lines (claim, evidence as text or a list, label)."""
    out = []
    for n, row in enumerate(_read_jsonl(path), 1):
        where = f"{path}:{n}"
        _need(row, ("claim", "evidence", "label"), where, "jsonl")
        ev = row["evidence"]
        evidence = (ev,) if isinstance(ev, str) else tuple(str(s) for s in ev)
        out.append(SupportExample(row["claim"], evidence, _generic_label(row["label"], where), "jsonl"))
    return out


LOADERS: dict[str, Callable[[Path, Counter[str] | None], list[SupportExample]]] = {
    "wice": load_wice,
    "expertqa": load_expertqa,
    "jsonl": load_jsonl,
}


def load_examples(
    path: str | Path, fmt: str, limit: int | None = None, skipped: Counter[str] | None = None
) -> list[SupportExample]:
    """Labelled pairs from ``path``; records the left-out ones by reason in ``skipped``."""
    try:
        loader = LOADERS[fmt]
    except KeyError:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(LOADERS)}") from None
    examples = loader(Path(path), skipped)
    if not examples:
        raise InputError(f"{path}: no usable examples in {fmt!r} format")
    return examples[:limit] if limit else examples


# --- metrics (AUROC and the confusion counts are the product's: graphrag.verify.support.metrics) --------


def calibration_table(y: Labels, scores: Scores, bins: int = 5) -> list[dict[str, float]]:
    """Equal-width score bins: count, mean score and the share actually supported."""
    t = np.asarray(y, dtype=bool)
    s = np.asarray(scores, dtype=float)
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(s, edges[1:-1], right=False), 0, bins - 1)
    rows = []
    for b in range(bins):
        mask = which == b
        n = int(mask.sum())
        rows.append({
            "low": float(edges[b]), "high": float(edges[b + 1]), "count": n,
            "mean_score": float(s[mask].mean()) if n else float("nan"),
            "supported_share": float(t[mask].mean()) if n else float("nan"),
        })
    return rows


def triage_value(y: Labels, scores: Scores, share: float = 0.2) -> float:
    """Share of the not-supported claims found in the lowest-scored ``share`` of all claims.

    What a reviewer gains by reading claims worst-first: 0.2 is what random order gives.
    """
    t = np.asarray(y, dtype=bool)
    s = np.asarray(scores, dtype=float)
    if (~t).sum() == 0:
        return float("nan")
    k = int(round(share * len(s)))
    first = np.argsort(s, kind="mergesort")[:k]
    return float((~t[first]).sum() / (~t).sum())


def support_metrics(y: Labels, scores: Scores, threshold: float) -> dict[str, object]:
    """All figures for one run: n, class counts, threshold metrics, AUROC, triage, calibration."""
    t = np.asarray(y, dtype=bool)
    s = np.asarray(scores, dtype=float)
    out: dict[str, object] = {"n": len(t), "n_supported": int(t.sum()), "threshold": float(threshold)}
    out.update(binary_metrics(t, s >= threshold))
    out["auroc"] = auroc(t, s)
    out["triage_top20"] = triage_value(t, s)
    out["calibration"] = calibration_table(t, s)
    return out


# --- CLI entry points (argparse lives in graphrag.cli) ----------------------------------


def evaluate_checker(examples: Sequence[SupportExample], checker: SupportChecker) -> tuple[dict[str, object], int]:
    """Score every example; returns the metrics and how many pairs the checker left unscored.

    An unscored pair (None) counts as score 0: the reviewer must look at it anyway.
    """
    results = checker.check([ex.query() for ex in examples])
    scores = [r.score if r is not None else 0.0 for r in results]
    unscored = sum(r is None for r in results)
    metrics = support_metrics([ex.supported for ex in examples], scores, checker.threshold)
    metrics["unscored"] = unscored
    return metrics, unscored


def _fmt(x: object) -> str:
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def _print_report(metrics: dict[str, Any], data: str, fmt: str, checker: str, out: TextIO) -> None:
    out.write(f"support checker {checker!r} on {data} ({fmt})\n")
    out.write(f"  pairs: {metrics['n']} ({metrics['n_supported']} supported; partial counts as not)\n")
    for key in ("balanced_accuracy", "auroc", "precision", "recall", "f1", "triage_top20", "threshold"):
        out.write(f"  {key:<18} {_fmt(metrics[key])}\n")
    out.write("  calibration: score bin   count  mean score  supported\n")
    for row in metrics["calibration"]:
        out.write(f"    [{row['low']:.1f}, {row['high']:.1f})    {row['count']:>6}  "
                  f"{_fmt(row['mean_score']):>10}  {_fmt(row['supported_share']):>9}\n")
    if metrics.get("unscored"):
        out.write(f"  unscored pairs (counted as 0): {metrics['unscored']}\n")
    for reason, count in (metrics.get("skipped") or {}).items():
        out.write(f"  left out of the data: {count} ({reason})\n")


def cli_eval_support(
    data: str,
    fmt: str,
    checker: str = "embedded",
    as_json: bool = False,
    out: TextIO = sys.stdout,
    limit: int | None = None,
) -> int:
    """`graphrag eval support`: score a checker on labelled pairs and print the figures."""
    from graphrag.verify.support import make_checker

    skipped: Counter[str] = Counter()
    try:
        examples = load_examples(data, fmt, limit, skipped)
        chk = make_checker(checker, **_checker_options(checker))
        start = time.perf_counter()
        metrics, _ = evaluate_checker(examples, chk)
        metrics["seconds"] = round(time.perf_counter() - start, 2)
    except GraphRAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    metrics.update({"data": str(data), "format": fmt, "checker": getattr(chk, "name", checker),
                    "skipped": dict(skipped)})
    if as_json:
        out.write(json.dumps(metrics, default=_json_default) + "\n")
    else:
        _print_report(metrics, data, fmt, checker, out)
    return 0


def _checker_options(name: str) -> dict[str, object]:
    """What the product builds the checker ``name`` with: the embedded one's embedder as the settings say, an Ollama
    judge's server (OLLAMA_HOST)."""
    if name == "embedded":
        return {"config": lab_config()}
    return {"host": lab_config().ollama_host} if name == "ollama" else {}


def _json_default(x: object) -> object:
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


_BENCH_CLAIMS = (
    "Exports stay available for {n} days after cancellation.",
    "Billing stops at the end of the current period, {n} days after notice.",
    "Only administrators can restore a deleted workspace within {n} days.",
    "Snapshots are taken every night and kept for {n} days.",
)
_BENCH_EVIDENCE = (
    "Snapshot exports remain available for 30 days after an account is cancelled. "
    "Cancelling ends billing at period end. Exports use the latest snapshot.",
    "Workspace owners and administrators may restore a deleted workspace within 14 days. "
    "After that the data is purged. Restores keep the original member list.",
    "The platform takes a snapshot of every workspace each night. "
    "Snapshots are kept for 90 days and are encrypted at rest. Older snapshots are deleted.",
)


def bench_queries(n: int) -> list[SupportQuery]:
    """``n`` synthetic pairs with evidence of three sentences each; varied so nothing is cached."""
    out = []
    for i in range(n):
        claim = _BENCH_CLAIMS[i % len(_BENCH_CLAIMS)].format(n=10 + i)
        evidence = _BENCH_EVIDENCE[i % len(_BENCH_EVIDENCE)] + f" Reference {i}."
        out.append(SupportQuery(claim=claim, evidence=evidence))
    return out


def cli_bench_support(as_json: bool = True, out: TextIO = sys.stdout, batch: int = 32, rounds: int = 5) -> int:
    """`graphrag bench support`: per-pair latency of the embedded checker, batched."""
    from graphrag.verify.support import make_checker

    try:
        chk = make_checker("embedded", **_checker_options("embedded"))
        chk.check(bench_queries(4))  # load the model and parameters outside the timing
        per_pair = []
        for r in range(rounds):
            queries = bench_queries(batch * (r + 2))[-batch:]
            start = time.perf_counter()
            chk.check(queries)
            per_pair.append((time.perf_counter() - start) * 1000 / batch)
    except GraphRAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ms = np.asarray(per_pair)
    result = {
        "checker": "embedded", "batch": batch, "rounds": rounds, "evidence_sentences": 4,
        "p50_ms_per_pair": round(float(np.percentile(ms, 50)), 2),
        "p95_ms_per_pair": round(float(np.percentile(ms, 95)), 2),
        "pairs_per_s": round(float(1000 / ms.mean()), 1),
    }
    if as_json:
        out.write(json.dumps(result) + "\n")
    else:
        for k, v in result.items():
            out.write(f"{k:<18} {v}\n")
    return 0
