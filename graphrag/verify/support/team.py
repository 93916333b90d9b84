"""Refit the embedded checker from the team's verdicts (``graphrag checker fit --from-verdicts``).

A verdict judges one claim against one cited span. Its pair is rebuilt from the store exactly
as the checker saw it when scoring that citation alone: the claim's text, the span's text and
the sentences around it. Labels: supported = 1; partially supported and unsupported = 0.
When several reviewers judged the same pair, each one's latest verdict counts and the majority
decides; a tie is left out (and counted). A span whose text no longer matches the hash the
reviewer judged is left out too. The fit itself is ``graphrag.verify.support.learn``. The dashboard
calls ``fit_from_verdicts(store, by=who)`` as the CLI does; the refit is audited with who asked for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphrag.access.identity import Viewer
from graphrag.config import Config
from graphrag.model import Answer, VerdictKind, VerdictLabel
from graphrag.store.audit import AuditKind
from graphrag.store.audit import event as audit_event
from graphrag.store.codec import sha256_text
from graphrag.verify.status import current_verdicts
from graphrag.verify.support.base import SupportQuery
from graphrag.verify.support.learn import RefitRefused, check_enough, refit, shipped_rows

Featuriser = Callable[[Sequence[SupportQuery]], np.ndarray]


@dataclass(frozen=True)
class JudgedPair:
    """A reviewer's verdict on one cited claim, as a pair to fit on."""

    answer_id: int
    claim_index: int
    marker: str
    query: SupportQuery
    supported: bool


@dataclass(frozen=True)
class FitOutcome:
    """A fitted version saved to the store: its number, the fit report and the pairs skipped, by reason."""

    version: int
    report: dict[str, Any]
    skipped: dict[str, int] = field(default_factory=dict)


def judged_pairs(store: Any) -> tuple[list[JudgedPair], Counter[str]]:
    """Every (claim, cited span) pair with a verdict, labelled by its reviewers' latest verdicts."""
    from graphrag.verify.support.claims import neighbour_texts

    skipped: Counter[str] = Counter()
    votes: dict[tuple[int, int, str], list[bool]] = {}
    hashes: dict[tuple[int, int, str], str] = {}
    for v in current_verdicts(store):
        if v.kind is not VerdictKind.BACKS:  # the checker scores support; whether a quote answers is another question
            skipped["verdict on whether a quote answers the question"] += 1
            continue
        if v.marker is None:
            skipped["verdict on a claim that cites nothing"] += 1
            continue
        key = (v.answer_id, v.claim_index, v.marker)
        votes.setdefault(key, []).append(v.verdict is VerdictLabel.SUPPORTED)
        hashes[key] = v.span_sha256
    answers: dict[int, Answer | None] = {}
    out = []
    for (aid, idx, marker), vs in sorted(votes.items()):
        yes = sum(vs)
        if yes * 2 == len(vs):
            skipped["reviewers split evenly"] += 1
            continue
        if aid not in answers:
            answers[aid] = store.answer(aid)
        answer = answers[aid]
        claim = next((c for c in answer.claims if c.index == idx), None) if answer else None
        cite = next((c for c in claim.citations if c.marker == marker and c.valid and c.item), None) if claim else None
        if claim is None or cite is None or cite.item is None:
            skipped["claim or citation not found"] += 1
            continue
        if sha256_text(cite.item.span.text) != hashes[(aid, idx, marker)]:
            skipped["cited text changed since the verdict"] += 1
            continue
        query = SupportQuery(claim.text, cite.item.span.text, neighbour_texts(store, cite))
        out.append(JudgedPair(aid, idx, marker, query, yes * 2 > len(vs)))
    return out, skipped


def checker_features(queries: Sequence[SupportQuery], config: Config | None = None) -> np.ndarray:
    """The embedded checker's feature rows (loads MiniLM as ``config`` describes; default: the defaults)."""
    from graphrag.verify.support.embedded import EmbeddedChecker

    return np.vstack([pf.vector() for pf in EmbeddedChecker(config=config).featurise(queries)])


def fit_from_verdicts(store: Any, features: Featuriser = checker_features, seed: int = 0, *,
                      by: Viewer) -> FitOutcome:
    """Refit the checker's trees on the shipped rows plus the team's verdicts; adopt the refit
    as a new active version.

    Raises RefitRefused (with the figures when they were computed) and leaves the store's
    checker versions untouched unless there are enough verdicts of both classes and the
    refit beats the shipped model beyond the spread across folds. ``by`` (an admin) is audited
    either way: an adopted version with it, a refused refit as its own row.
    """
    from graphrag.verify.support.embedded import params_from_raw, shipped_raw

    pairs, skipped = judged_pairs(store)
    y = np.array([p.supported for p in pairs], dtype=bool)
    groups = [str(p.answer_id) for p in pairs]
    try:
        check_enough(y, groups)  # before any model is loaded
        x = features([p.query for p in pairs])
        params, report = refit(params_from_raw(shipped_raw()).predict, shipped_rows(), x, y, groups, seed)
    except RefitRefused as exc:
        exc.report["skipped"] = dict(skipped)
        store.add_audit(audit_event(by, AuditKind.CHECKER_REFIT, adopted=False, reason=str(exc)))
        raise
    report["skipped"] = dict(skipped)
    params["fitted_on"] = {"shipped rows": "wice_claim_dev + expertqa_rand_val", "team pairs": report["n"]}
    params["labels"] = "supported = 1; partially supported and unsupported = 0"
    source = f"verdicts: {report['n']} pairs ({report['n_supported']} supported) from {report['answers']} answers"
    version = store.add_checker_version(params, source, report, by=by)
    return FitOutcome(version, report, dict(skipped))
