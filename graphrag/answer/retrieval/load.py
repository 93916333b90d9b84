"""Loading the graph from a store: whole (``build_graph``) or, after an ingest that only added rows, the
cached graph extended with them (``extend_graph``, ``extended``). ``load_graph`` keeps one graph per store.

The relation arrays of the first load are shared by the graphs derived from it; the relations added since sit
beside them in arrays of their own (``Edges``). Anything but an addition (a removal, a rewrite) reloads the
whole graph.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from graphrag.answer.retrieval import saved
from graphrag.answer.retrieval.columns import (
    DocIndex,
    KeyIndex,
    SentenceRows,
    collector_paused,
    columns,
    lookup,
)
from graphrag.answer.retrieval.edges import Edges, type_dtype
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.indexed import attach
from graphrag.answer.retrieval.records import DocVersion, GraphMark, doc_version
from graphrag.answer.retrieval.vectors import Rows, spare_rows, stack
from graphrag.store import Store
from graphrag.store.codec import Row
from graphrag.store.graph import Chunk, GraphAdditions

log = logging.getLogger(__name__)
# Past this many relations added beside the first load's arrays (as a share of them, or at
# least this many), the next change reloads the whole graph: each derived graph builds the added
# part's adjacency again (its cost grows with the added part), and a walk looks in two places
# for every entity.
MAX_ADDED_SHARE = 0.25
MIN_ADDED_LIMIT = 20_000

_cache: dict[str, KnowledgeGraph] = {}
_cache_lock = threading.Lock()
_update_locks: dict[str, threading.Lock] = {}


def load_graph(store: Store) -> KnowledgeGraph:
    """The graph for the store's current generation. When the store changed since the cached
    graph, only additions: a graph extended with them; anything else: the whole graph again.
    One thread updates while the others wait for it (they all want the new graph); a question
    already being answered keeps the graph it took."""
    gen = store.generation()
    key = store.url.key  # the store's identity (file or server URL), so two handles share one graph
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit.generation == gen:
            return hit
        lock = _update_locks.setdefault(key, threading.Lock())
    with lock:
        with _cache_lock:
            hit = _cache.get(key)
        if hit is not None and hit.generation == store.generation():  # another thread updated it meanwhile
            return hit
        graph = (extend_graph(store, hit) if hit is not None else None) or _start(store)
        attach(graph, store, hit)  # the nearest-neighbour indexes follow: hit's, the files', or built
        with _cache_lock:
            _cache[key] = graph
        return graph


def forget_graphs() -> None:
    """Drop every graph this process holds: the next ``load_graph`` builds each anew, or reads the files kept beside
    its store, as a process starting afresh would (a benchmark's cold load, a test's restart)."""
    with _cache_lock:
        _cache.clear()


def _start(store: Store) -> KnowledgeGraph:
    """The whole graph: the one saved beside the store when the store agrees with it (extended with what was
    added since), else built from the rows and saved for the next process."""
    found = saved.read(store)
    if found is not None:
        graph, current = found
        out = graph if current else extend_graph(store, graph)
        if out is not None:
            return out
        log.info("the store changed since its graph was saved: rebuilding it")
    graph = build_graph(store)
    saved.save_soon(store, graph)
    return graph


def build_graph(store: Store) -> KnowledgeGraph:
    """Build the in-memory graph from one consistent snapshot of the store."""
    def read() -> tuple[int, _Columns]:  # run again whole, into new columns, if the connection drops
        cols = _Columns()
        gen = store.append_run()[0]
        store.read_graph(cols, spare_rows)
        return gen, cols

    with collector_paused():
        gen, cols = store.in_snapshot(read)  # one consistent state, even while an ingest commits
        edges = cols.edges
        mark = GraphMark(gen, cols.last_mention, int(edges.base.id.max()) if len(edges) else 0)
        return KnowledgeGraph(cols.keys, cols.names, cols.vectors, cols.docs, cols.mention_entity, cols.mention_row,
                              cols.sentence_doc, cols.sentence_idx, cols.sentence_vectors, edges, gen, mark, cols.index)


class _Columns:
    """The graph's columns, built as the store reads its rows (a ``GraphSink``): each chunk of rows is turned
    into arrays with the indices of the tables read before it, then dropped, so no table is ever held whole as
    Python tuples."""

    def documents(self, rows: list[Row]) -> None:
        self.docs = [doc_version(d) for d in rows]
        self.doc_index = DocIndex(self.docs)

    def entities(self, chunks: Iterator[Chunk], vectors: np.ndarray) -> None:
        self.keys: list[str] = []
        self.names: list[str] = []
        for chunk in chunks:
            keys, names = columns(chunk, 2)
            self.keys += keys
            self.names += names
        self.entity_index = KeyIndex(self.keys)
        self.index = self.entity_index.index
        self.vectors = vectors

    def sentences(self, chunks: Iterator[Chunk], vectors: np.ndarray) -> None:
        per_chunk = []
        for chunk in chunks:
            doc_id, version, idx = columns(chunk, 3)
            per_chunk.append((self.doc_index.of(doc_id, version), np.array(idx, dtype=np.int64)))
        self.sentence_doc, self.sentence_idx = _joined(per_chunk, (np.int64, np.int64))
        self.rows = SentenceRows(self.sentence_doc, self.sentence_idx)
        self.sentence_vectors = vectors

    def mentions(self, chunks: Iterator[Chunk], last_id: int) -> None:
        per_chunk = []
        for chunk in chunks:
            key, doc_id, version, idx = columns(chunk, 4)
            per_chunk.append((self.entity_index.of(key, np.int64),
                              self.rows.of(self.doc_index.of(doc_id, version), np.array(idx, dtype=np.int64))))
        self.mention_entity, self.mention_row = _joined(per_chunk, (np.int64, np.int64))
        self.last_mention = last_id

    def relations(self, chunks: Iterator[Chunk]) -> None:
        self.edges = _edges(chunks, self.entity_index, self.doc_index, self.rows, len(self.keys))


def _edges(chunks: Iterator[Chunk], entities: KeyIndex, docs: DocIndex, rows: SentenceRows,
           n_entities: int) -> Edges:
    types: dict[str, int] = {}  # code by type, in the order first seen (by relation id)
    per_chunk = []
    for chunk in chunks:
        r_id, r_src, r_dst, r_type, r_doc_id, r_version, r_idx = columns(chunk, 7)
        for t in dict.fromkeys(r_type):
            types.setdefault(t, len(types))
        doc = docs.of(r_doc_id, r_version)
        per_chunk.append((np.array(r_id, dtype=np.int64), entities.of(r_src, np.int32),
                          entities.of(r_dst, np.int32), lookup(types, r_type, np.int64), doc,
                          rows.of(doc, np.array(r_idx, dtype=np.int64))))
    ids, src, dst, code, doc, row = _joined(per_chunk, (np.int64, np.int32, np.int32, np.int64, np.int64, np.int64))
    return Edges.of_columns(ids, src, dst, code.astype(type_dtype(len(types))), list(types), doc, row, n_entities)


def _joined(per_chunk: Sequence[tuple[np.ndarray, ...]], dtypes: Sequence[Any]) -> list[np.ndarray]:
    """Each column's chunks end to end (empty columns of these types when there were no chunks)."""
    if not per_chunk:
        return [np.zeros(0, dtype=t) for t in dtypes]
    return [np.concatenate(col) for col in zip(*per_chunk, strict=True)]


def extend_graph(store: Store, graph: KnowledgeGraph) -> KnowledgeGraph | None:
    """``graph`` with what the store added since it was loaded, or None when the store changed
    in another way (or too much has been added beside the first load) and must be read whole."""
    if graph.edges.added > max(MIN_ADDED_LIMIT, MAX_ADDED_SHARE * graph.edges.base_count):
        return None
    read = store.in_snapshot(lambda: _additions(store, graph))
    if read is None:
        return None
    gen, docs, new_docs, added = read
    try:
        out = extended(graph, gen, docs, new_docs, added)
    except KeyError as exc:  # a row pointing at something neither graph nor additions hold
        log.warning("graph update did not add up (%s); reloading it whole", exc)
        return None
    if out is None:
        log.info("graph update did not add up; reloading it whole")
    return out


def _additions(store: Store, graph: KnowledgeGraph) -> tuple[int, list[DocVersion], list[DocVersion],
                                                             GraphAdditions] | None:
    """What the store added since ``graph`` was loaded (read it in one snapshot), or None when some commit since
    was not an addition."""
    gen, appends_from, appends_to = store.append_run()
    if (appends_to != gen or appends_from is None or appends_from > graph.mark.generation
            or gen < graph.mark.generation):
        return None  # some commit since this graph was loaded was not an addition
    docs = [doc_version(d) for d in store.graph_documents()]
    known = {(d.id, d.version): d for d in docs}
    if any(known.get((d.id, d.version), None) is None or not _same_version(known[(d.id, d.version)], d)
           for d in graph.docs):
        return None  # a version was removed, or removed and written again
    new_docs = [d for d in docs if (d.id, d.version) not in graph.doc_index]
    added = store.graph_additions(graph.mark.mention_id, graph.mark.relation_id,
                                  [(d.id, d.version) for d in new_docs])
    return gen, docs, new_docs, added


def extended(graph: KnowledgeGraph, generation: int, docs: Sequence[DocVersion], new_docs: Sequence[DocVersion],
             added: GraphAdditions) -> KnowledgeGraph | None:
    """A new graph: ``graph`` plus ``added`` (the rows of ``new_docs``), with every version's
    labels and superseded flag as ``docs`` now say. None when the rows do not add up to the
    store's sizes or point outside the new versions (then the store changed in another way).
    ``graph`` is left as it was: lists and dicts are copied, vectors written past its rows."""
    n_rows, n_ents = graph.n_sentences, len(graph.keys)
    new_keys = [e for e in added.entities if e["key"] not in graph.index]
    sizes = added.sizes
    if (n_ents + len(new_keys) != sizes["entities"] or len(graph.mentions.entity) + len(added.mentions)
            != sizes["mentions"] or len(graph.edges) + len(added.relations) != sizes["relations"]
            or n_rows + len(added.sentences) != sizes["sentences"]):
        return None
    fresh = {(d.id, d.version): d for d in docs}
    doc_list = [fresh[(d.id, d.version)] for d in graph.docs] + list(new_docs)
    doc_index = dict(graph.doc_index)
    doc_index.update({(d.id, d.version): len(graph.docs) + i for i, d in enumerate(new_docs)})
    new_rows = {(r["doc_id"], r["version"], r["idx"]): n_rows + i for i, r in enumerate(added.sentences)}
    keys, names = graph.keys + [e["key"] for e in new_keys], graph.names + [e["name"] for e in new_keys]
    index = dict(graph.index)
    index.update({e["key"]: n_ents + i for i, e in enumerate(new_keys)})
    changed = []  # known entities whose stored vector differs (it was missing when first written)
    for e in added.entities:
        i = graph.index.get(e["key"])
        if i is None:
            continue
        if graph.names[i] != e["name"]:
            return None
        vec = stack([e["vector"]], spare=False)[0]
        if not np.array_equal(graph.vectors[i], vec):
            changed.append((i, vec))
    m_ent = np.array([index[m["entity_key"]] for m in added.mentions], dtype=np.int64)
    m_row = np.array([new_rows[(m["doc_id"], m["version"], m["sentence_idx"])] for m in added.mentions],
                     dtype=np.int64)
    relations = []
    for r in added.relations:
        if r["source_key"] not in index or r["target_key"] not in index:
            return None
        relations.append((r["id"], r["source_key"], r["target_key"], r["type"],
                          doc_index[(r["doc_id"], r["version"])],
                          new_rows[(r["doc_id"], r["version"], r["sentence_idx"])]))
    s_doc = np.concatenate([graph.sentence_doc, np.array([doc_index[(r["doc_id"], r["version"])]
                                                          for r in added.sentences], dtype=np.int64)])
    s_idx = np.concatenate([graph.sentence_idx, np.array([r["idx"] for r in added.sentences], dtype=np.int64)])
    s_vec, s_holder = graph.sentence_vector_rows.extended(graph.sentence_vectors,
                                                          stack([r["vector"] for r in added.sentences], spare=False))
    vectors, v_holder = graph.vector_rows.extended(graph.vectors, stack([e["vector"] for e in new_keys], spare=False))
    if changed:  # rare: a private copy, since earlier graphs share these rows
        vectors = vectors.copy()
        for i, vec in changed:
            vectors[i] = vec
        v_holder = Rows(vectors, len(vectors))
    mark = GraphMark(generation, max((m["id"] for m in added.mentions), default=graph.mark.mention_id),
                     max((r["id"] for r in added.relations), default=graph.mark.relation_id))
    out = KnowledgeGraph(keys, names, vectors, doc_list, np.concatenate([graph.mentions.entity, m_ent]),
                         np.concatenate([graph.mentions.row, m_row]), s_doc, s_idx, s_vec,
                         graph.edges.with_added(index, relations), generation, mark, index)
    out.vector_rows, out.sentence_vector_rows = v_holder, s_holder
    if "span_rows" in graph.__dict__:  # built already: carry it over rather than rebuild it on first use
        span_rows = dict(graph.span_rows)
        span_rows.update({(doc_index[(d, v)], i): row for (d, v, i), row in new_rows.items()})
        out.__dict__["span_rows"] = span_rows
    return out


def _same_version(a: DocVersion, b: DocVersion) -> bool:
    return a.sha256 == b.sha256 and a.ingested_at == b.ingested_at
