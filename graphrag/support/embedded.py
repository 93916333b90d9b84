"""The embedded support checker: MiniLM similarity plus lexical checks, calibrated offline.

For each pair the evidence (the cited span(s), plus neighbouring sentences when given) is
split into sentences and embedded with all-MiniLM-L6-v2. Evidence selection finds what the
claim could rest on: the most similar sentences, the best contiguous window, and the best
sentence for each chunk of the claim, so several sentences can support one claim together
and a long page works as well as a single cited sentence. Lexical features then compare the
claim with that selection: numbers, capitalised terms, negation, qualifiers, word coverage.

A logistic model fitted by ``scripts/fit_support.py`` maps the features to a probability of
"supported" (at balanced odds: every dataset and class weighs the same in the fit); its
parameters ship in ``embedded_params.json``. The fit keeps only features whose weight has
their known direction, so some features carry weight 0 and serve only the reason string.
Labels: supported at ``threshold`` and above, partial down to ``partial_threshold``, else
not supported. Runtime needs only numpy and the MiniLM model.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graphrag.errors import ModelUnavailable
from graphrag.model import Support, SupportLabel
from graphrag.support import features as F
from graphrag.support.base import SupportQuery
from graphrag.text import split_sentences

PARAMS_PATH = Path(__file__).with_name("embedded_params.json")
MAX_SELECTED = 6  # sentences the lexical checks read: enough for multi-sentence support

FEATURES: tuple[str, ...] = (
    "sim_max",  # best single sentence
    "sim_top3",  # mean embedding of the best one to three sentences (best of the three)
    "sim_window",  # best contiguous run of up to three sentences
    "sim_chunk_min",  # weakest claim chunk against its best sentence
    "cov_selected",  # claim content words found in the selected sentences
    "cov_all",  # ... anywhere in the evidence
    "cov_chunk_min",  # weakest chunk's coverage in the selection
    "bigram_selected",  # claim word pairs kept intact in the selection
    "num_missing",  # share of claim numbers absent from the selection
    "num_missing_all",  # ... absent from all the evidence
    "term_missing",  # share of claim capitalised terms absent from the selection
    "term_missing_all",
    "negation_mismatch",
    "qualifiers_missing",  # count, capped at 3
    "claim_words",  # log(1 + content words): long claims are more often partly supported
)

# The direction each feature can push the score, known before any fit: more similarity or
# coverage never argues against support; a missing number, term or qualifier never argues
# for it. The fit drops a feature whose weight comes out against its direction (collinear
# features otherwise trade signs and the model stops transferring across datasets).
DIRECTION: dict[str, int] = {f: (1 if f.startswith(("sim_", "cov_", "bigram_")) else -1) for f in FEATURES}


@dataclass
class PairFeatures:
    """Feature values of one pair plus what the reason string needs."""

    values: dict[str, float]
    selected: list[int]  # indices of the sentences the selection kept
    n_sentences: int
    missing_numbers: list[str] = field(default_factory=list)
    missing_terms: list[str] = field(default_factory=list)
    source_terms: list[str] = field(default_factory=list)
    missing_words: list[str] = field(default_factory=list)
    qualifiers: list[str] = field(default_factory=list)
    negation: bool = False

    def vector(self) -> np.ndarray:
        return np.array([self.values[f] for f in FEATURES], dtype=float)


def evidence_sentences(query: SupportQuery) -> list[str]:
    """Sentences of the cited evidence followed by its neighbours, duplicates dropped."""
    out: list[str] = []
    seen: set[str] = set()
    for block in (query.evidence, *query.neighbours):
        for s in split_sentences(block or ""):
            if s.text not in seen:
                seen.add(s.text)
                out.append(s.text)
    return out


def _share(part: Sequence[object], whole: Sequence[object]) -> float:
    return len(part) / len(whole) if whole else 0.0


def pair_features(
    claim: str, sentences: Sequence[str], claim_vec: np.ndarray, sent_vecs: np.ndarray,
    chunks: Sequence[str], chunk_vecs: np.ndarray,
) -> PairFeatures:
    """All features of one claim against its evidence sentences, given their embeddings."""
    if not sentences:
        values = {f: 0.0 for f in FEATURES}
        values.update(num_missing=1.0, num_missing_all=1.0, term_missing=1.0, term_missing_all=1.0)
        values["claim_words"] = math.log1p(len(F.content_stems(claim)))
        return PairFeatures(values, [], 0)
    sims = sent_vecs @ claim_vec
    order = [int(i) for i in np.argsort(-sims, kind="stable")]
    sim_top3, _ = F.top_m_similarity(claim_vec, sent_vecs, 3)
    sim_window, w_start, w_end = F.best_window(claim_vec, sent_vecs)
    chunk_sims = sent_vecs @ chunk_vecs.T  # (sentences, chunks)
    chunk_best = [int(i) for i in np.argmax(chunk_sims, axis=0)]

    # Selection: the two best sentences, each chunk's best sentence, the best window.
    selected: list[int] = []
    for i in [*order[:2], *chunk_best, *range(w_start, w_end)]:
        if i not in selected and len(selected) < MAX_SELECTED:
            selected.append(i)
    sel_text = F.join_sentences(sentences, selected)
    all_text = " ".join(sentences)

    cov_sel, missing_words = F.coverage(claim, sel_text)
    claim_numbers = F.missing_numbers(claim, "")
    miss_num = F.missing_numbers(claim, sel_text)
    claim_terms = F.capitalised_terms(claim)
    miss_terms = F.missing_terms(claim, sel_text)
    qualifiers = F.missing_qualifiers(claim, sel_text)
    negation = F.negation_mismatch(claim, F.join_sentences(sentences, order[:2]))
    values = {
        "sim_max": float(sims[order[0]]),
        "sim_top3": sim_top3,
        "sim_window": sim_window,
        "sim_chunk_min": float(chunk_sims.max(axis=0).min()),
        "cov_selected": cov_sel,
        "cov_all": F.coverage(claim, all_text)[0] if len(sentences) > len(selected) else cov_sel,
        "cov_chunk_min": min(F.coverage(c, sel_text)[0] for c in chunks),
        "bigram_selected": F.bigram_coverage(claim, sel_text),
        "num_missing": _share(miss_num, claim_numbers),
        "num_missing_all": _share(F.missing_numbers(claim, all_text), claim_numbers),
        "term_missing": _share(miss_terms, claim_terms),
        "term_missing_all": _share(F.missing_terms(claim, all_text), claim_terms),
        "negation_mismatch": float(negation),
        "qualifiers_missing": float(min(len(qualifiers), 3)),
        "claim_words": math.log1p(len(F.content_stems(claim))),
    }
    claim_stems = set(F.content_stems(claim))
    source_terms = [t for t in F.capitalised_terms(sel_text) if not set(F.content_stems(t)) & claim_stems]
    return PairFeatures(values, sorted(selected), len(sentences), miss_num, miss_terms, source_terms,
                        missing_words, qualifiers, negation)


def _quote(items: Sequence[str], n: int = 3) -> str:
    return ", ".join(items[:n])


def reason(pf: PairFeatures, label: SupportLabel) -> str:
    """A short, readable account of the score: the first problems found, else what matched."""
    if pf.n_sentences == 0:
        return "no evidence text"
    problems = []
    if pf.missing_numbers:
        problems.append(f"{_quote(pf.missing_numbers)} not in source")
    if pf.negation:
        problems.append("negation differs")
    if pf.missing_terms:
        named = f"claim names {_quote(pf.missing_terms, 2)}"
        problems.append(f"source names {_quote(pf.source_terms, 2)}, {named}" if pf.source_terms else
                        f"{named}, source does not")
    if pf.qualifiers:
        problems.append(f"source does not say {_quote(pf.qualifiers, 2)}")
    if not problems and pf.values["cov_selected"] < 0.75 and pf.missing_words:
        problems.append(f"{_quote(pf.missing_words)} not in source")
    where = ""
    if pf.n_sentences > 1:  # long evidence: say which sentences the score rests on
        numbers = ", ".join(str(i + 1) for i in pf.selected[:4])
        plural = "es: sentences" if len(pf.selected) > 1 else ": sentence"
        where = f" (best match{plural} {numbers} of {pf.n_sentences})"
    if problems:
        return "; ".join(problems[:2]) + where
    if label is SupportLabel.SUPPORTED:
        close = pf.values["sim_max"] >= 0.8 or pf.values["cov_selected"] >= 0.9
        return ("close paraphrase" if close else "same content, reworded") + where
    return f"topic matches but content differs (similarity {pf.values['sim_max']:.2f})" + where


@dataclass(frozen=True)
class LogisticParams:
    """A standardised logistic model: p = sigmoid(b + w . (x - mean) / scale)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float
    partial_threshold: float

    @classmethod
    def load(cls, path: Path) -> LogisticParams:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if tuple(raw["features"]) != FEATURES:
            raise ModelUnavailable(f"{path} was fitted on other features; rerun scripts/fit_support.py",
                                   backend="embedded")
        return cls(tuple(raw["features"]), np.asarray(raw["mean"]), np.asarray(raw["scale"]),
                   np.asarray(raw["coef"]), float(raw["intercept"]), float(raw["threshold"]),
                   float(raw["partial_threshold"]))

    def predict(self, x: np.ndarray) -> np.ndarray:
        z = self.intercept + ((x - self.mean) / self.scale) @ self.coef
        return 1.0 / (1.0 + np.exp(-z))


class EmbeddedChecker:
    """Support checker with no server: MiniLM + lexical features + a fitted logistic model."""

    name = "embedded"

    def __init__(self, params_path: str | None = None, embedder: object | None = None) -> None:
        path = Path(params_path) if params_path else PARAMS_PATH
        if not path.is_file():
            raise ModelUnavailable(f"support parameters not found at {path}; run scripts/fit_support.py",
                                   backend="embedded")
        self.params = LogisticParams.load(path)  # a few KB of JSON: cheap
        self.threshold = self.params.threshold
        self.partial_threshold = self.params.partial_threshold
        self._embedder = embedder  # the model loads on first check(), not here

    @property
    def embedder(self):  # noqa: ANN201 - an Embedder (graphrag.embed)
        if self._embedder is None:
            from graphrag.embed import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def featurise(self, queries: Sequence[SupportQuery]) -> list[PairFeatures]:
        return featurise(queries, self.embedder)

    def label(self, score: float) -> SupportLabel:
        if score >= self.threshold:
            return SupportLabel.SUPPORTED
        if score >= self.partial_threshold:
            return SupportLabel.PARTIAL
        return SupportLabel.NOT_SUPPORTED

    def check(self, queries: Sequence[SupportQuery]) -> list[Support | None]:
        if not queries:
            return []
        pfs = self.featurise(queries)
        scores = self.params.predict(np.vstack([pf.vector() for pf in pfs]))
        out: list[Support | None] = []
        for pf, score in zip(pfs, scores):
            s = float(np.clip(score, 0.0, 1.0))
            label = self.label(s)
            out.append(Support(score=round(s, 4), label=label, checker=self.name, reason=reason(pf, label)))
        return out


def featurise(queries: Sequence[SupportQuery], embedder: object) -> list[PairFeatures]:
    """Features for many pairs with one batched encode of every distinct text."""
    sentences = [evidence_sentences(q) for q in queries]
    chunks = [F.claim_chunks(q.claim) for q in queries]
    texts: dict[str, int] = {}
    for q, sents, chs in zip(queries, sentences, chunks):
        for t in (q.claim, *sents, *chs):
            texts.setdefault(t, len(texts))
    vecs = embedder.encode(list(texts))  # type: ignore[attr-defined]

    def rows(items: Sequence[str]) -> np.ndarray:
        return vecs[[texts[t] for t in items]] if items else np.zeros((0, vecs.shape[1]), dtype=vecs.dtype)

    return [
        pair_features(q.claim, sents, vecs[texts[q.claim]], rows(sents), chs, rows(chs))
        for q, sents, chs in zip(queries, sentences, chunks)
    ]
