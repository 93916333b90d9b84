"""The database's vector search as retrieval's nearest-neighbour index: on a store whose server has pgvector
(``graphrag.store.vector_search``), a large graph's candidates come from the server, not from an index this
process builds or holds.

``ServerIndex.candidates`` answers what ``index.VectorIndex.candidates`` answers (up to ``k`` rows near a vector,
for the caller to score exactly against the graph's float32 vectors), with the asker's labels, the superseded
rule and a question's document scope in the SQL query (pgvector's iterative index scan keeps going until enough
rows pass). The asker is recognised from the visibility array retrieval passes (``KnowledgeGraph.asker_of``); an
array the graph did not make falls back to an exact scan in process. Rows the server holds that this graph does
not (added by another process since it was loaded) are skipped: the next question's graph has them.
"""

from __future__ import annotations

import functools
import logging

import numpy as np

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.store import Store
from graphrag.store.vector_search import AskerFilter, halfvec_text

log = logging.getLogger(__name__)


class ServerIndex:
    """One kind of a graph's rows ("sentences" or "entities") searched by the store's database."""

    def __init__(self, store: Store, graph: KnowledgeGraph, kind: str) -> None:
        self.store, self.graph, self.kind = store, graph, kind

    @functools.cached_property
    def _first_row(self) -> np.ndarray:
        """Each document's first sentence row (-1 for none): a sentence's row is its document's first plus its
        index wherever a document's rows are consecutive and in order, which ``_row`` checks."""
        g = self.graph
        first = np.full(len(g.docs), -1, dtype=np.int64)
        rows = np.arange(len(g.sentence_doc), dtype=np.int64)
        starts = rows[g.sentence_idx == 0]
        first[g.sentence_doc[starts]] = starts
        return first

    def _row(self, doc_id: str, version: int, idx: int) -> int | None:
        g = self.graph
        d = g.doc_index.get((doc_id, version))
        if d is None:
            return None
        guess = int(self._first_row[d]) + idx
        if self._first_row[d] >= 0 and guess < g.n_sentences and g.sentence_doc[guess] == d \
                and g.sentence_idx[guess] == idx:
            return guess
        return g.row_of(doc_id, version, idx)

    def asker(self, visible: np.ndarray | None) -> AskerFilter | None:
        """The SQL filter that selects the rows of ``visible`` (None: every row), or None when the graph did not
        make that array (the caller then scans exactly)."""
        if visible is None:
            return AskerFilter(None, include_superseded=True)
        key = self.graph.asker_of(visible)
        if key is None:
            return None
        labels, include_superseded, documents = key
        return AskerFilter(labels, include_superseded, documents)

    def candidates(self, query: np.ndarray, k: int, n: int, visible: np.ndarray | None = None) -> np.ndarray | None:
        """Up to ``k`` rows below ``n`` (and ``visible``) near ``query``, from the database; None when the asker
        cannot be put in a query."""
        asker = self.asker(visible)
        if asker is None:
            return None
        q = halfvec_text(np.asarray(query, dtype=np.float32))
        if self.kind == "sentences":
            found = [self._row(d, v, i) for d, v, i in self.store.nearest_sentences(q, k, asker)]
        else:
            found = [self.graph.index.get(key) for key in self.store.nearest_entities(q, k, asker)]
        rows = np.array([r for r in found if r is not None and r < n], dtype=np.int64)
        if visible is not None:  # the query's filter, checked again against the graph's own rule
            rows = rows[visible[rows]]
        return rows


def search_note(store: Store, graph: KnowledgeGraph) -> str | None:
    """What an asker is told about how their question was searched, when it differs from the usual: the graph's
    rows are searched by the database while its HNSW index is not ready (an exact scan: the same rows, slower).
    The store's status is at most a few seconds old (``Store.vector_search``)."""
    indexes = graph.indexes
    if indexes is None or (indexes.server_sentences is None and indexes.server_entities is None):
        return None
    found = store.vector_search()
    if found.index_ready or not found.in_database:
        return None
    return (f"Searched by an exact scan (the same sentences, slower than usual): the database's HNSW index is "
            f"{found.index_state}.")
