"""Documents written straight into a store with vectors near a few topic centres (no model): stores large enough
to be indexed or saved once the size thresholds are forced down."""

from __future__ import annotations

import numpy as np

from graphrag.ingest.documents import Source
from graphrag.language.encoding import DIM
from graphrag.store import DocumentWrite, Store

TOPICS = 6
ENTITIES = 30


def centres() -> np.ndarray:
    c = np.random.default_rng(7).standard_normal((TOPICS, DIM)).astype(np.float32)
    return c / np.linalg.norm(c, axis=1, keepdims=True)


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def write_doc(store: Store, n: int, access: str, sentences: int = 20) -> None:
    """Document ``d<n>`` on topic n % TOPICS: sentences near its topic, each naming two of ENTITIES (shared
    across documents, so the walk crosses them), every third stating a relation between them."""
    rng = np.random.default_rng(n)
    topic = centres()[n % TOPICS]
    lines = [f"Sentence {i} of document {n} about topic {n % TOPICS}." for i in range(sentences)]
    text = " ".join(lines)
    spans, at = [], 0
    for line in lines:
        spans.append((at, at + len(line), line))
        at += len(line) + 1
    vecs = unit(topic + rng.standard_normal((sentences, DIM)).astype(np.float32) * 1.2 / np.sqrt(DIM))
    named = [(int(a), int(b)) for a, b in rng.integers(0, ENTITIES, (sentences, 2))]
    keys = sorted({f"e{e}" for pair in named for e in pair})
    ent_vecs = {k: unit(centres()[int(k[1:]) % TOPICS] + np.random.default_rng(int(k[1:]) + 100).standard_normal(
        DIM).astype(np.float32) * 0.8 / np.sqrt(DIM)) for k in keys}
    mentions = sorted({(f"e{e}", i) for i, pair in enumerate(named) for e in pair})
    relations = [(f"e{a}", f"e{b}", "links", "", i) for i, (a, b) in enumerate(named) if i % 3 == 0 and a != b]
    src = Source(f"d{n}", f"Document {n}", text, access=(access,))
    store.write_document(DocumentWrite(src.as_document(), "scripted", "ok", spans, vecs,
                                       [(k, k.upper(), "thing") for k in keys], ent_vecs,
                                       [(k, i, "", False) for k, i in mentions], relations))
