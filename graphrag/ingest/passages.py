"""Filling in the reader's passage vectors (the answer scorer's and the second view's) for sentences stored without
them (a store ingested before, with ``GRAPHRAG_PASSAGE_VECTORS=0``, or since the scorer was refitted):
``graphrag store passages``. A question would encode the ones it reads anyway (and keep them); this does every
sentence now, so no question pays for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphrag.language.passage_encoder import PassageEncoder, passage_text
from graphrag.model import Progress
from graphrag.store import Store

CHUNK = 256  # sentences encoded and written per step: a step's progress line, and what a stop loses at most


@dataclass(frozen=True)
class Filled:
    """What ``fill_passage_vectors`` did."""

    encoded: int
    model: str
    dropped: int = 0  # vectors of the model's earlier weights deleted


def fill_passage_vectors(store: Store, encoder: PassageEncoder, progress: Callable[[Progress], None] | None = None,
                         total: int | None = None) -> Filled:
    """Encode and keep every sentence's ``encoder`` vector that ``store`` lacks, ``CHUNK`` at a time (each chunk
    committed: a stopped run keeps what it did and a rerun goes on from there), after deleting those its earlier
    weights left. ``total``: the sentences to expect, for the progress line."""
    dropped = store.drop_superseded_passage_vectors(encoder.name)
    done = 0
    while batch := store.sentences_without_passage_vectors(encoder.name, CHUNK):
        vectors = encoder.passages([passage_text(title, body) for _, title, body in batch])
        if not store.save_passage_vectors(encoder.name, [(key, vectors[i]) for i, (key, _, _) in enumerate(batch)]):
            break  # a read-only store keeps nothing: stop rather than encode the same sentences again
        done += len(batch)
        if progress is not None:
            progress(Progress(done, max(total or 0, done), "sentences encoded"))
    return Filled(done, encoder.name, dropped)
