"""The reader's second view over a question's context items: multilingual-e5-small's cosine between the question
and each "title. sentence" (``graphrag.language.passage_encoder``), combined with the answer scorer's score to
order the quotes.

The two are put on one scale by standardising each over the question's candidates (a z-score: the scorer's
calibrated probabilities and e5's cosines have different spreads) and added with equal weight. Measured on the
answer panel (docs/figures.md "Answers"), where the weight was chosen: NQ dev's first citation inside the evidence
0.611 -> 0.677 and short answer 0.495 -> 0.523. On articles no weight was chosen on it did not carry
(``python -m lab.evaluate.held_out_articles``: SQuAD 2.0 dev's held-out articles 0.503 -> 0.517 first citation on
the answer's sentence, nq_train's held-out articles 0.309 -> 0.288), while its vectors doubled the ingest's time; so
it is off unless ``GRAPHRAG_PASSAGE_VECTORS=1`` asks for it (the ingest then stores each sentence's vector and the
reader has it; off, neither encodes anything with e5).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from graphrag.errors import StoreError
from graphrag.language.passage_encoder import PassageEncoder, passage_text
from graphrag.model import ContextItem
from graphrag.store import Store

log = logging.getLogger(__name__)

# The second view's weight beside the scorer's (both as z-scores over the candidates).
SECOND_WEIGHT = 1.0

VectorsOf = Callable[[PassageEncoder, Sequence[ContextItem]], np.ndarray]


def _z(x: np.ndarray) -> np.ndarray:
    spread = float(x.std())
    return (x - x.mean()) / spread if spread > 1e-9 else np.zeros_like(x)


def combined_order(context: Sequence[ContextItem], scores: Mapping[int, float], similarities: np.ndarray
                   ) -> dict[int, float]:
    """The quotes' order score per context item number: z(scorer) + ``SECOND_WEIGHT`` * z(e5 cosine)."""
    s = np.array([scores[c.n] for c in context], dtype=np.float64)
    both = _z(s) + SECOND_WEIGHT * _z(np.asarray(similarities, dtype=np.float64))
    return {c.n: float(v) for c, v in zip(context, both)}


def stored_vectors(store: Store, title: Callable[[str, int], str | None]) -> VectorsOf:
    """The items' passage vectors under the given encoder (the second view's, written at ingest; the answer
    scorer's) as ``store`` holds them; those missing (a store ingested before, a title changed since, a sentence no
    question read yet) are encoded now and kept, so each is encoded once per model."""

    def vectors_of(encoder: PassageEncoder, items: Sequence[ContextItem]) -> np.ndarray:
        keys = [(c.span.document_id, c.span.version, c.span.sentence_index) for c in items]
        try:
            have = store.passage_vectors(encoder.name, keys)
        except StoreError as exc:
            log.warning("cannot read the stored passage vectors (%s): encoding them now", exc)
            have = {}
        missing = [i for i, k in enumerate(keys) if k not in have]
        if missing:
            texts = [passage_text(title(keys[i][0], keys[i][1]) or "", items[i].span.text) for i in missing]
            made = encoder.passages(texts)
            rows = [(keys[i], made[j]) for j, i in enumerate(missing)]
            have.update(rows)
            try:
                store.save_passage_vectors(encoder.name, rows)
            except StoreError as exc:  # a cache: the answer does not depend on keeping them
                log.warning("cannot keep the passage vectors just encoded (%s)", exc)
        out = np.zeros((len(items), encoder.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = have[k]
        return out

    return vectors_of
