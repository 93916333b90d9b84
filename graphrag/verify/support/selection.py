"""Evidence selection over sentence embeddings: which of the evidence sentences a claim rests on.

Several sentences can support one claim together; their mean embedding stands in for the joined
text without encoding it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def unit_rows(v: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero)."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    out: np.ndarray = v / np.maximum(n, 1e-12)
    return out


def top_m_similarity(claim_vec: np.ndarray, sent_vecs: np.ndarray, max_m: int) -> tuple[float, list[int]]:
    """Best cosine of the claim with the mean of its m most similar sentences, m = 1..max_m.

    Several sentences can support one claim together; their mean embedding stands in for the
    joined text without encoding it again. Taking the best m means an extra, unrelated
    sentence in the evidence can never lower the score. Returns the cosine and the indices.
    """
    sims = sent_vecs @ claim_vec
    order = [int(i) for i in np.argsort(-sims, kind="stable")[:max_m]]
    cums = np.cumsum(sent_vecs[order], axis=0)
    scores = unit_rows(cums) @ claim_vec
    m = int(np.argmax(scores)) + 1
    return float(scores[m - 1]), sorted(order[:m])


def best_window(claim_vec: np.ndarray, sent_vecs: np.ndarray, max_width: int = 3) -> tuple[float, int, int]:
    """The contiguous run of up to ``max_width`` sentences whose mean embedding is closest to the claim.

    Returns (cosine, start, end) with end exclusive.
    """
    n = sent_vecs.shape[0]
    cum = np.vstack([np.zeros((1, sent_vecs.shape[1]), dtype=sent_vecs.dtype), np.cumsum(sent_vecs, axis=0)])
    best = (-1.0, 0, min(1, n))
    for width in range(1, min(max_width, n) + 1):
        sums = cum[width:] - cum[:-width]
        sims = unit_rows(sums) @ claim_vec
        i = int(np.argmax(sims))
        if float(sims[i]) > best[0] + 1e-6:
            best = (float(sims[i]), i, i + width)
    return best


def join_sentences(sentences: Sequence[str], indices: Iterable[int]) -> str:
    """The chosen sentences in document order, joined with spaces."""
    return " ".join(sentences[i] for i in sorted(set(indices)))
