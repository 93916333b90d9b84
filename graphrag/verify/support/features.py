"""The support checker's features, declared once.

Each feature is one row of a table: its name (its column in the fitted parameters), the direction
it may push the score, the function that computes it, and its value when there is no evidence to
compare with. The direction is known before any fit: more similarity or coverage never argues
against support, a missing number, term or qualifier never argues for it. The tree fit is
monotonic in it (``fitting.py``) and the logistic fit drops a weight against it (collinear
features otherwise trade signs and the model stops transferring across datasets). ``FEATURES``
and ``DIRECTION`` are read from the table, and a parameter file fitted on other names is refused,
so names, directions and fitted parameters cannot drift apart.

Two stages: the pair features read a ``Pair`` (the claim, its evidence sentences and their
sentence embeddings, after selection); the token features read a ``TokenMatch`` (contextual
token embeddings of the claim and the selected sentences), computed in a second pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Generic, TypeVar

import numpy as np

from graphrag.language import lexical as L
from graphrag.verify.support.selection import best_window, join_sentences, top_m_similarity
from graphrag.verify.support.tokens import LOW_ALIGNMENT, TokenMatch, match_tokens

FOR, AGAINST = 1, -1  # a higher value never argues against support / never argues for it
MAX_SELECTED = 6  # sentences the lexical checks read: enough for multi-sentence support

T = TypeVar("T")


@dataclass(frozen=True)
class Feature(Generic[T]):
    """One feature: its name (a column of the fitted parameters), the direction it may push the score, how it
    is computed, and its value when there is no evidence."""

    name: str
    direction: int  # FOR or AGAINST
    value: Callable[[T], float]
    without_evidence: float | None = 0.0  # None: computed all the same (it reads the claim only)


def _share(part: Sequence[object], whole: Sequence[object]) -> float:
    return len(part) / len(whole) if whole else 0.0


class Pair:
    """One claim against its evidence sentences, with their embeddings, and the selection the
    lexical checks read: the two best sentences, each claim chunk's best, the best window."""

    def __init__(self, claim: str, sentences: Sequence[str], claim_vec: np.ndarray, sent_vecs: np.ndarray,
                 chunks: Sequence[str], chunk_vecs: np.ndarray) -> None:
        self.claim = claim
        self.sentences = sentences
        self.claim_vec = claim_vec
        self.sent_vecs = sent_vecs
        self.chunks = chunks
        self.chunk_vecs = chunk_vecs

    @cached_property
    def sims(self) -> np.ndarray:
        """Cosine similarity of each evidence sentence to the claim."""
        sims: np.ndarray = self.sent_vecs @ self.claim_vec
        return sims

    @cached_property
    def order(self) -> list[int]:
        """Sentence indices, most similar to the claim first (stable on ties)."""
        return [int(i) for i in np.argsort(-self.sims, kind="stable")]

    @cached_property
    def window(self) -> tuple[float, int, int]:
        """The best run of consecutive sentences: its similarity to the claim, start and end."""
        return best_window(self.claim_vec, self.sent_vecs)

    @cached_property
    def chunk_sims(self) -> np.ndarray:
        """Similarity of each evidence sentence to each claim chunk, shape (sentences, chunks)."""
        sims: np.ndarray = self.sent_vecs @ self.chunk_vecs.T  # (sentences, chunks)
        return sims

    @cached_property
    def selected(self) -> list[int]:
        """Indices of the selected sentences, in the order they were chosen."""
        _, start, end = self.window
        chunk_best = [int(i) for i in np.argmax(self.chunk_sims, axis=0)]
        out: list[int] = []
        for i in [*self.order[:2], *chunk_best, *range(start, end)]:
            if i not in out and len(out) < MAX_SELECTED:
                out.append(i)
        return out

    @cached_property
    def selected_text(self) -> str:
        """The selected sentences joined, in document order."""
        return join_sentences(self.sentences, self.selected)

    @cached_property
    def all_text(self) -> str:
        """Every evidence sentence joined."""
        return " ".join(self.sentences)

    @cached_property
    def coverage(self) -> tuple[float, list[str]]:
        """Share of claim content words in the selection, and the words missing from it."""
        return L.coverage(self.claim, self.selected_text)

    @cached_property
    def claim_numbers(self) -> list[str]:
        """The numbers the claim states."""
        return L.missing_numbers(self.claim, "")

    @cached_property
    def missing_numbers(self) -> list[str]:
        """The claim's numbers that the selected sentences do not state."""
        return L.missing_numbers(self.claim, self.selected_text)

    @cached_property
    def claim_terms(self) -> list[str]:
        """The claim's capitalised terms (names)."""
        return L.capitalised_terms(self.claim)

    @cached_property
    def missing_terms(self) -> list[str]:
        """The claim's capitalised terms that the selected sentences do not name."""
        return L.missing_terms(self.claim, self.selected_text)

    @cached_property
    def qualifiers(self) -> list[str]:
        """Qualifiers of the claim ("only", "never", ...) that the selected sentences lack."""
        return L.missing_qualifiers(self.claim, self.selected_text)

    def coverage_all(self) -> float:
        """Share of claim content words found in all the evidence, not only the selection."""
        if len(self.sentences) > len(self.selected):
            return L.coverage(self.claim, self.all_text)[0]
        return self.coverage[0]


PAIR_FEATURES: tuple[Feature[Pair], ...] = (
    # best single sentence
    Feature("sim_max", FOR, lambda p: float(p.sims[p.order[0]])),
    # mean embedding of the best one to three sentences (best of the three)
    Feature("sim_top3", FOR, lambda p: top_m_similarity(p.claim_vec, p.sent_vecs, 3)[0]),
    # best contiguous run of up to three sentences
    Feature("sim_window", FOR, lambda p: p.window[0]),
    # weakest claim chunk against its best sentence
    Feature("sim_chunk_min", FOR, lambda p: float(p.chunk_sims.max(axis=0).min())),
    # claim content words found in the selected sentences ... anywhere in the evidence
    Feature("cov_selected", FOR, lambda p: p.coverage[0]),
    Feature("cov_all", FOR, Pair.coverage_all),
    # weakest chunk's coverage in the selection
    Feature("cov_chunk_min", FOR, lambda p: min(L.coverage(c, p.selected_text)[0] for c in p.chunks)),
    # claim word pairs kept intact in the selection
    Feature("bigram_selected", FOR, lambda p: L.bigram_coverage(p.claim, p.selected_text)),
    # share of claim numbers absent from the selection ... from all the evidence
    Feature("num_missing", AGAINST, lambda p: _share(p.missing_numbers, p.claim_numbers), 1.0),
    Feature("num_missing_all", AGAINST,
            lambda p: _share(L.missing_numbers(p.claim, p.all_text), p.claim_numbers), 1.0),
    # share of claim capitalised terms absent from the selection ... from all the evidence
    Feature("term_missing", AGAINST, lambda p: _share(p.missing_terms, p.claim_terms), 1.0),
    Feature("term_missing_all", AGAINST,
            lambda p: _share(L.missing_terms(p.claim, p.all_text), p.claim_terms), 1.0),
    Feature("negation_mismatch", AGAINST,
            lambda p: float(L.negation_mismatch(p.claim, join_sentences(p.sentences, p.order[:2])))),
    # count, capped at 3
    Feature("qualifiers_missing", AGAINST, lambda p: float(min(len(p.qualifiers), 3))),
    # log(1 + content words): long claims are more often partly supported
    Feature("claim_words", AGAINST, lambda p: math.log1p(len(L.content_stems(p.claim))), None),
)

# Each claim content token against the selected sentences' tokens, so one unmatched word can
# pull the score down: mean, minimum, IDF-weighted mean and mean of the two lowest best-match
# cosines, the IDF-weighted share present verbatim, the IDF-weighted share below LOW_ALIGNMENT.
TOKEN_FEATURES: tuple[Feature[TokenMatch], ...] = (
    Feature("tok_mean", FOR, lambda m: float(m.best.mean())),
    Feature("tok_min", FOR, lambda m: float(m.lowest[0])),
    Feature("tok_idf", FOR, lambda m: float((m.weight * m.best).sum() / m.weight.sum())),
    Feature("tok_bottom2", FOR, lambda m: float(m.lowest[:2].mean())),
    Feature("tok_exact_idf", FOR, lambda m: float((m.weight * m.exact).sum() / m.weight.sum())),
    Feature("tok_low_share", AGAINST,
            lambda m: float((m.weight * (m.best < LOW_ALIGNMENT)).sum() / m.weight.sum()), 1.0),
)

TABLE: tuple[Feature[Pair] | Feature[TokenMatch], ...] = (*PAIR_FEATURES, *TOKEN_FEATURES)
FEATURES: tuple[str, ...] = tuple(f.name for f in TABLE)
DIRECTION: dict[str, int] = {f.name: f.direction for f in TABLE}
TOKEN_FEATURE_NAMES: tuple[str, ...] = tuple(f.name for f in TOKEN_FEATURES)


def _unmatched_tokens() -> dict[str, float]:
    return {f.name: f.without_evidence or 0.0 for f in TOKEN_FEATURES}


def without_evidence(claim: str) -> dict[str, float]:
    """Every feature's value when there is no evidence text."""
    pair = Pair(claim, [], np.zeros(0), np.zeros((0, 0)), [], np.zeros((0, 0)))
    values = {f.name: f.value(pair) if f.without_evidence is None else f.without_evidence for f in PAIR_FEATURES}
    return values | _unmatched_tokens()


def pair_values(pair: Pair) -> dict[str, float]:
    """The pair features of ``pair``; the token features as if nothing matched, until they are filled in."""
    return {f.name: f.value(pair) for f in PAIR_FEATURES} | _unmatched_tokens()


def token_alignment(claim_ids: np.ndarray, claim_tokens: Sequence[str], claim_emb: np.ndarray,
                    evidence_ids: np.ndarray, evidence_emb: np.ndarray) -> dict[str, float]:
    """The token features of a claim against the selected evidence (see ``tokens.match_tokens``)."""
    match = match_tokens(claim_ids, claim_tokens, claim_emb, evidence_ids, evidence_emb)
    if match is None:
        return _unmatched_tokens()
    return {f.name: f.value(match) for f in TOKEN_FEATURES}
