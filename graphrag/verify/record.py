"""The verification record as a measurement: progress, agreement, the checker against reviewers.

Everything is computed from the current verdicts (the latest per reviewer and claim) on the
claims a viewer may see, of those verdicts the viewer may see under blind review
(``graphrag.verify.policy.visible_verdicts``, applied before any filter), optionally narrowed by
time, reviewer, document or question. The
statistics come from libraries: Krippendorff's alpha (nominal, missing judgements allowed) from
``krippendorff``, Cohen's kappa, AUROC and balanced accuracy from scikit-learn.

"Judged supported" means a reviewer chose *supported*; *partially supported* and *unsupported*
both count as not supported when the checker's score is compared with the reviewers'.

A verdict answers one of two questions (``VerdictKind``): does the source back the claim, or does the quote
answer the question. With ``RecordFilter.kind`` the figures are those of one kind (``record_by_kind`` gives
both): its claims are those asked it, and any judged on it; the automatic check they are compared with is the
support checker's score for *backs* and the reader's probability that the documents answer for *answers*.
Without, each claim counts with the verdicts of the kind it is asked.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from itertools import combinations
from typing import Any

import numpy as np

from graphrag.access.identity import Viewer
from graphrag.language.names import reviewer_key, same_reviewer
from graphrag.model import ClaimFlag, SupportLabel, Verdict, VerdictKind, VerdictLabel, asked_kind
from graphrag.store import Store
from graphrag.verify.policy import ADJUDICATOR, ANYONE, ClaimStatus, ReviewViewer, claim_state
from graphrag.verify.sight import claims_seen, visible_current
from graphrag.verify.status import review_policy

MIN_PAIR_CLAIMS = 20  # Cohen's kappa for a pair of reviewers only with at least this many shared claims
TRIAGE_SHARE = 0.2  # the first 20% of the queue
BINS = 5  # reliability diagram: checker score bins of width 0.2
CATEGORIES = (VerdictLabel.SUPPORTED, VerdictLabel.PARTIAL, VerdictLabel.UNSUPPORTED)


@dataclass(frozen=True)
class RecordFilter:
    """Which verdicts and claims the statistics count; None leaves a field unfiltered."""

    since: str | None = None  # ISO time: verdicts at or after
    until: str | None = None  # ISO time: verdicts before
    reviewer: str | None = None
    document: str | None = None  # a cited document id
    question: str | None = None  # a substring of the question (a question set)
    kind: VerdictKind | None = None  # one kind of judgement; None: each claim with the kind it is asked

    def keeps_verdict(self, v: Verdict) -> bool:
        """Whether a verdict falls in the time range and matches the reviewer and document."""
        t = v.created_at or ""
        return ((self.since is None or t >= self.since) and (self.until is None or t < self.until)
                and (self.reviewer is None or same_reviewer(v.reviewer, self.reviewer))
                and (self.document is None or v.document_id == self.document))


@dataclass(frozen=True)
class PairAgreement:
    """Agreement of two reviewers on the claims both judged (Cohen's kappa)."""

    reviewers: tuple[str, str]
    n: int  # claims both judged
    kappa: float | None  # None below MIN_PAIR_CLAIMS or when undefined (one category only)


@dataclass(frozen=True)
class Share:
    """``k`` of ``n`` with its 95% Wilson score interval (``low``, ``high``; None when ``n`` is 0)."""

    k: int
    n: int
    low: float | None = None
    high: float | None = None

    @property
    def value(self) -> float | None:
        """k / n, None when nothing was counted."""
        return self.k / self.n if self.n else None

    def __str__(self) -> str:
        if not self.n:
            return f"{self.k}"
        return f"{self.k} ({self.k / self.n:.0%}, 95% CI {self.low:.0%}–{self.high:.0%})"


def share(k: int, n: int) -> Share:
    """``k`` of ``n`` with a 95% Wilson interval: it stays inside 0..1 and is honest for small n (scipy)."""
    if not n:
        return Share(k, n)
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return Share(k, n, float(ci.low), float(ci.high))


@dataclass(frozen=True)
class VerdictCounts:
    """What ``n`` judgements said: supported, partly supported, not supported, each a share of ``n``. For the
    record as a whole (``who`` None) the judgements are the settled verdicts of reviewed claims; for a reviewer,
    their current verdicts."""

    who: str | None
    n: int
    supported: Share
    partial: Share
    unsupported: Share


def verdict_counts(who: str | None, labels: Sequence[VerdictLabel]) -> VerdictCounts:
    """Count ``labels`` by kind, each with its share and 95% interval."""
    c = Counter(labels)
    n = len(labels)
    return VerdictCounts(who, n, share(c[VerdictLabel.SUPPORTED], n), share(c[VerdictLabel.PARTIAL], n),
                         share(c[VerdictLabel.UNSUPPORTED], n))


@dataclass(frozen=True)
class CalibrationBin:
    """One bin of checker scores and how often reviewers judged its claims supported."""

    low: float
    high: float
    n: int
    judged_supported: float | None  # share of these claims reviewers judged supported


class PickedBy(str, Enum):
    """What put an unsupported citation in front of the reader (``picked_by``)."""

    RETRIEVAL = "retrieval"
    GENERATOR = "generator"
    DOCUMENT = "document"


def picked_by(flags: Sequence[ClaimFlag], verdict: Verdict) -> PickedBy:
    """Who is answerable for a citation a reviewer judged unsupported, from what the record holds:

    - document: the cited version was already superseded when it was cited, or has been since
      (the verdict is stale): the source itself is out of date;
    - retrieval: the claim quotes its cited sentence word for word, so the generator added nothing:
      the sentence retrieval handed it does not support what the answer needed;
    - generator: the claim's words are the generator's own, and its source does not bear them out.
    """
    if verdict.stale or verdict.source_removed or ClaimFlag.SUPERSEDED_SOURCE in flags:
        return PickedBy.DOCUMENT
    return PickedBy.RETRIEVAL if _verbatim(flags) else PickedBy.GENERATOR


@dataclass(frozen=True)
class SourceQuality:
    """How often reviewers judged claims citing one document version unsupported, and what picked those
    citations (retrieval, the generator or the document: ``picked_by``)."""

    document: str
    version: int
    judged: int
    unsupported: int
    retrieval: int = 0
    generator: int = 0
    by_document: int = 0

    @property
    def unsupported_rate(self) -> float:
        """Share of judged claims judged unsupported; 0 when none were judged."""
        return self.unsupported / self.judged if self.judged else 0.0


@dataclass(frozen=True)
class RecordStats:
    """The review record's figures: progress, agreement, calibration and source quality."""

    claims: int  # visible claims matching the filter
    unreviewed: int  # no verdict yet, or fewer than the review policy requires
    reviewed_claims: int  # the required reviewers agree (or an adjudicator settled it), not stale: whatever they found
    disputed: int  # reviewers disagree and no adjudicator has settled it
    stale: int  # every verdict on the claim judged a since-superseded version
    verdicts: int  # current verdicts counted
    reviewers: tuple[str, ...]
    alpha: float | None  # Krippendorff's alpha (nominal) over all reviewers
    alpha_units: int  # claims with two or more judgements (what alpha is computed on)
    pairs: tuple[PairAgreement, ...]
    checker_n: int  # judged claims with a checker score (verbatim quotes left out)
    auroc: float | None
    balanced_accuracy: float | None
    calibration: tuple[CalibrationBin, ...]
    triage_found: float | None  # share of claims judged unsupported found in the first 20% of the queue
    triage_random: float = TRIAGE_SHARE
    sources: tuple[SourceQuality, ...] = field(default=())
    source_removed: int = 0  # claims of answers withdrawn because a document they drew on was removed
    tampered: int = 0  # current verdicts whose claim's or sentence's words changed after them (left out of figures)
    # "Reviewed" is not "supported": what the reviewed claims were settled as, and what each reviewer said.
    reviewed: VerdictCounts = field(default_factory=lambda: verdict_counts(None, []))
    by_reviewer: tuple[VerdictCounts, ...] = ()
    kind: VerdictKind | None = None  # the judgement counted (None: each claim's asked one)

    @property
    def verified(self) -> int:
        """Reviewed claims that reviewers found supported (backed, or answering the question): "verified" is said of
        these only, never of a claim reviewed and judged partly or not supported."""
        return self.reviewed.supported.k

    def to_json(self) -> dict[str, Any]:
        """The statistics as JSON-ready data, NaN written as null."""
        def num(x: float | None) -> float | None:
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)

        def counts(c: VerdictCounts) -> dict[str, Any]:
            def one(x: Share) -> dict[str, Any]:
                return {"n": x.k, "share": num(x.value), "ci95": [num(x.low), num(x.high)]}

            return {"reviewer": c.who, "n": c.n, "supported": one(c.supported), "partially_supported": one(c.partial),
                    "unsupported": one(c.unsupported)}

        return {
            "kind": None if self.kind is None else self.kind.value,
            "question": None if self.kind is None else self.kind.question,
            "progress": {"claims": self.claims, "unreviewed": self.unreviewed, "reviewed": self.reviewed_claims,
                         "verified": self.verified,
                         "disputed": self.disputed, "stale": self.stale, "source_removed": self.source_removed,
                         "verdicts": self.verdicts, "tampered": self.tampered},
            "reviewed": counts(self.reviewed),
            "by_reviewer": [counts(c) for c in self.by_reviewer],
            "agreement": {
                "reviewers": list(self.reviewers),
                "krippendorff_alpha_nominal": num(self.alpha), "alpha_claims": self.alpha_units,
                "cohen_kappa_pairs": [{"reviewers": list(p.reviewers), "n": p.n, "kappa": num(p.kappa)}
                                      for p in self.pairs],
            },
            "checker": {
                "n": self.checker_n, "auroc": num(self.auroc), "balanced_accuracy": num(self.balanced_accuracy),
                "reliability": [{"low": b.low, "high": b.high, "n": b.n, "judged_supported": num(b.judged_supported)}
                                for b in self.calibration],
                "triage_unsupported_in_first_20pct": num(self.triage_found), "triage_random": self.triage_random,
            },
            "sources": [{"document": s.document, "version": s.version, "judged": s.judged,
                         "unsupported": s.unsupported, "unsupported_rate": round(s.unsupported_rate, 4),
                         "picked_by": {"retrieval": s.retrieval, "generator": s.generator,
                                       "document": s.by_document}}
                        for s in self.sources],
        }


def krippendorff_alpha(table: Sequence[Sequence[VerdictLabel | None]]) -> float | None:
    """Nominal alpha over a reviewers x claims table (None where a reviewer did not judge)."""
    import krippendorff

    codes = {c: i for i, c in enumerate(CATEGORIES)}
    data = np.array([[np.nan if x is None else codes[x] for x in row] for row in table], dtype=float)
    if data.size == 0 or data.shape[0] < 2:
        return None
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if not pairable.any():
        return None
    values = set(data[:, pairable][~np.isnan(data[:, pairable])].tolist())
    if len(values) < 2:  # every judgement the same: alpha is undefined (no variation to agree on)
        return None
    return float(krippendorff.alpha(reliability_data=data[:, pairable], level_of_measurement="nominal",
                                    value_domain=list(range(len(CATEGORIES)))))


def cohen_kappa(a: Sequence[VerdictLabel], b: Sequence[VerdictLabel]) -> float | None:
    """Cohen's kappa of two reviewers' labels; None when fewer than two labels occur or it is undefined."""
    from sklearn.metrics import cohen_kappa_score

    if len(set(a) | set(b)) < 2:
        return None
    k = float(cohen_kappa_score([x.value for x in a], [x.value for x in b]))
    return None if math.isnan(k) else k


def _consensus(labels: Iterable[VerdictLabel]) -> VerdictLabel | None:
    """The majority verdict of a claim's reviewers; None on a tie."""
    counts = Counter(labels).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def record_stats(store: Store, by: Viewer, flt: RecordFilter = RecordFilter(),
                 viewer: ReviewViewer = ANYONE) -> RecordStats:
    """Statistics over the claims ``by`` may see that match ``flt``, from the verdicts ``viewer``
    may see (under blind review, none of others' on a claim still judged blind that they have not
    judged: such a claim counts as unreviewed for them)."""
    claims = claims_seen(store, by.labels)
    if flt.question:
        q = flt.question.lower()
        claims = [c for c in claims if q in c["question"].lower()]
    wanted = {(c["answer_id"], c["index"]): c for c in claims}
    # the judgement each claim is counted by: the filter's kind, else the one the claim is asked
    kinds = {key: flt.kind or asked_kind(c["flags"]) for key, c in wanted.items()}
    policy = review_policy(store)
    current: dict[tuple[int, int], list[Verdict]] = {}
    for v in visible_current(store, viewer, policy=policy):  # blind review first, then the filter
        key = (v.answer_id, v.claim_index)
        if key in wanted and v.kind == kinds[key] and flt.keeps_verdict(v):
            current.setdefault(key, []).append(v)
    if flt.reviewer or flt.document:  # narrowed to claims this reviewer / document concerns
        wanted = {k: c for k, c in wanted.items() if k in current}
    elif flt.kind is not None:  # the claims asked this kind, and any judged on it anyway
        wanted = {k: c for k, c in wanted.items() if k in current or asked_kind(c["flags"]) == flt.kind}

    states = {key: claim_state(current.get(key, []), policy) for key in wanted}
    count = Counter(st.status for st in states.values())
    unreviewed = count[ClaimStatus.UNREVIEWED] + count[ClaimStatus.IN_REVIEW]
    reviewed, disputed, stale = count[ClaimStatus.REVIEWED], count[ClaimStatus.DISPUTED], count[ClaimStatus.STALE]
    # A tampered verdict judged words that are not the claim's any more: counted, and left out of the figures.
    tampered = sum(1 for vs in current.values() for v in vs if v.tampered)
    # Agreement is between reviewers: an adjudicator's verdict settles a claim but is no rating.
    current = {k: [v for v in vs if v.role != ADJUDICATOR and not v.tampered] for k, vs in current.items()}
    current = {k: vs for k, vs in current.items() if vs}

    # One reviewer per reviewer_key ("Ana" and "аna" are one: latest() kept one verdict per claim), shown by the
    # name on one of their current verdicts.
    shown = {reviewer_key(v.reviewer): v.reviewer for vs in current.values() for v in vs}
    order = sorted(shown, key=lambda r: (shown[r], r))
    reviewers = tuple(shown[r] for r in order)
    keys = sorted(current)
    table = [[next((v.verdict for v in current[k] if reviewer_key(v.reviewer) == r), None) for k in keys]
             for r in order]
    alpha_units = sum(1 for k in keys if len(current[k]) >= 2)
    pairs = []
    for i, j in combinations(range(len(reviewers)), 2):
        shared = [(a, b) for a, b in zip(table[i], table[j]) if a and b]
        kappa = cohen_kappa([a for a, _ in shared], [b for _, b in shared]) if len(shared) >= MIN_PAIR_CLAIMS else None
        pairs.append(PairAgreement((reviewers[i], reviewers[j]), len(shared), kappa))

    # The automatic check against the reviewers: for "backs", a claim's joined support score beside its consensus;
    # for "answers", the reader's probability that the documents answer (it answered each: it predicted yes).
    scored: list[tuple[float, bool, bool]] = []  # (score, check said yes, judged yes)
    for key in keys:
        c = wanted[key]
        verdict = states[key].verdict or _consensus(v.verdict for v in current[key])
        if verdict is None:
            continue
        if kinds[key] is VerdictKind.ANSWERS:
            p = c.get("answerable")
            if flt.kind is VerdictKind.ANSWERS and p is not None:
                scored.append((float(p), True, verdict == VerdictLabel.SUPPORTED))
            continue
        s = c["support"]
        if s is None or _verbatim(c["flags"]):
            continue
        scored.append((s.score, s.label == SupportLabel.SUPPORTED, verdict == VerdictLabel.SUPPORTED))
    auroc = bacc = triage = None
    if scored and len({j for _, _, j in scored}) == 2:
        from sklearn.metrics import balanced_accuracy_score, roc_auc_score

        y = [j for _, _, j in scored]
        auroc = float(roc_auc_score(y, [s for s, _, _ in scored]))
        bacc = float(balanced_accuracy_score(y, [p for _, p, _ in scored]))
        ordered = sorted(scored, key=lambda t: t[0])  # the queue's triage order: lowest support first
        first = ordered[: max(1, math.ceil(TRIAGE_SHARE * len(ordered)))]
        bad_total = sum(1 for _, _, j in scored if not j)
        triage = sum(1 for _, _, j in first if not j) / bad_total if bad_total else None
    calibration = []
    for b in range(BINS):
        lo, hi = b / BINS, (b + 1) / BINS
        inside = [j for s, _, j in scored if lo <= s < hi or (b == BINS - 1 and s == 1.0)]
        calibration.append(CalibrationBin(lo, hi, len(inside), sum(inside) / len(inside) if inside else None))

    per_source: dict[tuple[str, int], list[PickedBy | None]] = {}  # None: judged, not unsupported
    for key, vs in current.items():
        for v in vs:
            if v.document_id is not None and v.version is not None:
                per_source.setdefault((v.document_id, v.version), []).append(
                    picked_by(wanted[key]["flags"], v) if v.verdict == VerdictLabel.UNSUPPORTED else None)
    sources = sorted((SourceQuality(d, ver, len(xs), sum(x is not None for x in xs), xs.count(PickedBy.RETRIEVAL),
                                    xs.count(PickedBy.GENERATOR), xs.count(PickedBy.DOCUMENT))
                      for (d, ver), xs in per_source.items()),
                     key=lambda s: (-s.unsupported_rate, -s.judged, s.document, s.version))
    settled = [st.verdict for st in states.values() if st.status == ClaimStatus.REVIEWED and st.verdict is not None]
    by_reviewer = tuple(verdict_counts(name, [x for x in row if x is not None]) for name, row in zip(reviewers, table))
    return RecordStats(len(wanted), unreviewed, reviewed, disputed, stale, sum(len(v) for v in current.values()),
                       reviewers, krippendorff_alpha(table), alpha_units, tuple(pairs), len(scored), auroc, bacc,
                       tuple(calibration), triage, TRIAGE_SHARE, tuple(sources),
                       sum(1 for c in wanted.values() if ClaimFlag.SOURCE_REMOVED in c["flags"]), tampered,
                       verdict_counts(None, settled), by_reviewer, flt.kind)


def record_by_kind(store: Store, by: Viewer, flt: RecordFilter = RecordFilter(),
                   viewer: ReviewViewer = ANYONE) -> dict[VerdictKind, RecordStats]:
    """``record_stats`` for each kind of judgement apart: *answers* (quotes), then *backs*."""
    return {k: record_stats(store, by, replace(flt, kind=k), viewer)
            for k in (VerdictKind.ANSWERS, VerdictKind.BACKS)}


def _verbatim(flags: Sequence[ClaimFlag]) -> bool:
    # A verbatim quote checked against its own sentence scores as supported by construction: its
    # score says nothing about the checker, so it is left out of the comparison.
    return any(getattr(f, "value", f) == "verbatim_quote" for f in flags)


@dataclass(frozen=True)
class CarryCheck:
    """What carry-over shows on the claims a viewer may see (``graphrag.verify.carry``): how many verdicts it carries
    now, and the verdicts the rule before issue 60 carried besides (whether a quote answers, carried to an answer
    to another question), each with the question it was given on and the one it was carried to."""

    carried: int
    old_rule_only: tuple[tuple[Verdict, str, str], ...]  # (the verdict as carried, its question, its source's)

    def to_json(self) -> dict[str, Any]:
        """The check as JSON-ready data."""
        return {"carried": self.carried, "old_rule_only": len(self.old_rule_only),
                "old_rule_verdicts": [
                    {"answer_id": v.answer_id, "claim_index": v.claim_index, "question": q, "reviewer": v.reviewer,
                     "kind": v.kind.value, "judgement": v.words, "carried_from": v.carried_from,
                     "carried_from_answer": v.carried_answer, "carried_from_question": src}
                    for v, q, src in self.old_rule_only]}


def carry_check(store: Store, by: Viewer, viewer: ReviewViewer = ANYONE) -> CarryCheck:
    """Carry-over on the claims ``by`` may see, from the verdicts ``viewer`` may see under blind review: a verdict
    the old rule carried is listed only when the row it came from is one they may see, on an answer they see."""
    from graphrag.verify.carry import old_rule_carries, verdict_rows
    from graphrag.verify.policy import visible_verdicts

    claims = claims_seen(store, by.labels)
    seen = {(c["answer_id"], c["index"]) for c in claims}
    questions: dict[int | None, str] = {c["answer_id"]: c["question"] for c in claims}
    rows = visible_verdicts(verdict_rows(store), review_policy(store), viewer)
    shown = {v.id for v in rows if v.id is not None}
    carried = sum(1 for v in rows if v.carried_from is not None and (v.answer_id, v.claim_index) in seen)
    old = tuple((v, questions[v.answer_id], questions[v.carried_answer]) for v in old_rule_carries(store)
                if (v.answer_id, v.claim_index) in seen and v.carried_from in shown and v.carried_answer in questions)
    return CarryCheck(carried, old)
