"""The knowledge graph in memory: a NetworkX MultiDiGraph plus the arrays retrieval needs.

Nodes are entity keys; every relation is its own edge (key = relation id), so two relations
between the same pair both survive. Visibility (access labels, superseded versions) is a
property of the document a mention or relation came from; it is computed once per asker
as a boolean array over document versions and checked on every edge the walk follows.
"""

from __future__ import annotations

import functools
import heapq
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from graphrag.embed import DIM
from graphrag.access import Access
from graphrag.model import COMENTION, Route, RouteStart, RouteStep
from graphrag.store import Store

DIRECTIONS = ("both", "out")


@dataclass(frozen=True)
class DocVersion:
    id: str
    version: int
    access: frozenset[str]
    superseded: bool
    title: str
    effective_date: str | None


class KnowledgeGraph:
    """Immutable snapshot of the store's graph at one store generation."""

    def __init__(
        self,
        keys: Sequence[str],
        names: Sequence[str],
        vectors: np.ndarray,
        docs: Sequence[DocVersion],
        mention_entity: np.ndarray,  # entity index per mention
        mention_row: np.ndarray,  # sentence row per mention
        sentence_doc: np.ndarray,  # document index per sentence row
        sentence_idx: np.ndarray,  # sentence index within its document per row
        sentence_vectors: np.ndarray,
        relations: Iterable[tuple[int, str, str, str, int, int]],  # id, source, target, type, doc, row
        generation: int = 0,
    ) -> None:
        self.keys = list(keys)
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.names = list(names)
        self.vectors = vectors
        self.docs = list(docs)
        self.doc_index = {(d.id, d.version): i for i, d in enumerate(self.docs)}
        self.sentence_doc = sentence_doc
        self.sentence_idx = sentence_idx
        self.sentence_vectors = sentence_vectors
        self.generation = generation
        # mentions grouped by entity: CSR-style offsets so a lookup is two slices
        order = np.argsort(mention_entity, kind="stable")
        self._m_rows = mention_row[order]
        self._m_offsets = np.searchsorted(mention_entity[order], np.arange(len(self.keys) + 1))
        # and by sentence row, to name the entities a sentence mentions
        by_row = np.argsort(mention_row, kind="stable")
        self._r_entities = mention_entity[by_row]
        self._r_offsets = np.searchsorted(mention_row[by_row], np.arange(len(sentence_doc) + 1))
        self.mention_doc = sentence_doc[mention_row] if len(mention_row) else np.zeros(0, dtype=np.int64)
        self._mention_entity = mention_entity
        self.graph = nx.MultiDiGraph()
        self.graph.add_nodes_from(self.keys)
        for rel_id, src, dst, rtype, doc, row in relations:
            self.graph.add_edge(src, dst, key=rel_id, type=rtype, doc=doc, row=row)
        self._vis_cache: dict[tuple[frozenset[str], bool], tuple[np.ndarray, np.ndarray]] = {}
        self._rows_cache: dict[tuple[frozenset[str], bool], np.ndarray] = {}
        self._lock = threading.Lock()

    # --- visibility -----------------------------------------------------------------------

    def visibility(self, access: Iterable[str], include_superseded: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(visible document versions, visible entities) for an asker, as boolean arrays.

        A document is visible when it shares a label with the asker and, unless asked
        otherwise, is not superseded. An entity is visible when one of its mentions is.
        """
        labels = frozenset(access)
        key = (labels, include_superseded)
        with self._lock:
            if key not in self._vis_cache:
                viewer = Access(labels, include_superseded)
                docs = np.array([viewer.sees(d.access, d.superseded) for d in self.docs], dtype=bool)
                ents = np.zeros(len(self.keys), dtype=bool)
                if len(self._mention_entity):
                    ents[self._mention_entity[docs[self.mention_doc]]] = True
                self._vis_cache[key] = (docs, ents)
            return self._vis_cache[key]

    def visible_rows(self, access: Iterable[str], include_superseded: bool = False) -> np.ndarray:
        """Sentence rows whose document version is visible to the asker (cached like visibility)."""
        key = (frozenset(access), include_superseded)
        with self._lock:
            hit = self._rows_cache.get(key)
        if hit is None:
            hit = self.visibility(access, include_superseded)[0][self.sentence_doc]
            with self._lock:
                self._rows_cache[key] = hit
        return hit

    # --- seeds and walk ---------------------------------------------------------------------

    def mention_rows(self, entity: int) -> np.ndarray:
        return self._m_rows[self._m_offsets[entity]:self._m_offsets[entity + 1]]

    def entities_in_row(self, row: int) -> np.ndarray:
        return self._r_entities[self._r_offsets[row]:self._r_offsets[row + 1]]

    def best_mention_scores(self, sentence_scores: np.ndarray) -> np.ndarray:
        """Per entity, the highest score among the sentences that mention it (-1 if none)."""
        out = np.full(len(self.keys), -1.0, dtype=np.float32)
        has = self._m_offsets[1:] > self._m_offsets[:-1]
        if has.any():
            out[has] = np.maximum.reduceat(sentence_scores[self._m_rows], self._m_offsets[:-1][has])
        return out

    @functools.cached_property
    def specificity(self) -> np.ndarray:
        """Per entity, how specific it is: 1 for an entity one sentence mentions, falling
        towards 0 for one that most sentences mention (an inverse document frequency over
        sentences). A walk through a hub ("film", "country") joins everything to everything."""
        n = max(len(self.sentence_doc), 1)
        df = np.maximum(np.diff(self._m_offsets), 1)
        return (np.log1p(n / df) / np.log1p(n)).astype(np.float32)

    def walk(self, seeds: Iterable[str], hops: int, direction: str, visible_docs: np.ndarray) -> dict[str, Route]:
        """Multi-source walk over relations with every edge worth the same: each seed at depth 0,
        each node at its least depth, one route per node (see ``relevance_walk``)."""
        return self.relevance_walk(seeds, hops, direction, visible_docs).routes

    def relevance_walk(self, seeds: Iterable[str], hops: int, direction: str, visible_docs: np.ndarray, *,
                       seed_scores: Mapping[str, float] | None = None, row_weight: np.ndarray | None = None,
                       node_weight: np.ndarray | None = None,
                       comention: bool = False, start: RouteStart = RouteStart.QUESTION,
                       rows_per_entity: int = 12, max_nodes: int = 400) -> Walk:
        """Best-first walk from every seed at once: a node's score is the best product, over the
        routes reaching it, of its seed's score and each step's weight; one route per node.

        A step's weight is ``row_weight`` of the sentence stating the edge (how relevant that
        sentence is to the question) times ``node_weight`` of the entity reached (e.g. its
        specificity, so hubs pass little on; 1 when not given); without
        ``row_weight`` every edge is worth 1, and the walk is a breadth-first search. Edges are
        the relations (both ways, or only as extracted with direction "out") and, with
        ``comention``, any two entities one sentence names together (only with direction
        "both"; from each entity, its ``rows_per_entity`` most relevant sentences).

        Ties are broken by depth, then entity key, then the edge, so the result does not depend
        on the order the seeds were given in (a visited set shared across seeds would hide
        nodes). Edges from invisible documents are never followed.
        """
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        weighted = row_weight is not None
        spec = node_weight if node_weight is not None else np.ones(len(self.keys), dtype=np.float32)
        heap: list[tuple] = []  # type: ignore[type-arg]
        for s in sorted(set(seeds)):
            if s in self.index:
                sc = float(seed_scores.get(s, 1.0)) if seed_scores else 1.0
                heapq.heappush(heap, (-sc, 0, s, ("", 0, -1, -1), None))
        routes: dict[str, Route] = {}
        scores: dict[str, float] = {}
        succ, pred = self.graph._succ, self.graph._pred  # plain dict views: the walk is a hot path
        while heap and len(routes) < max_nodes:
            neg, depth, key, tie, step = heapq.heappop(heap)
            if key in routes:
                continue
            if step is None:
                routes[key] = Route(key, (), start)
            else:
                parent = routes[tie[0]]
                routes[key] = Route(parent.seed, (*parent.steps, self._step(*step)), start)
            scores[key] = -neg
            if depth >= hops:
                continue
            related: set[tuple[str, int]] = set()
            sides = ((succ[key], True), (pred[key], False)) if direction == "both" else ((succ[key], True),)
            for adjacency, forward in sides:
                for nbr, edges in adjacency.items():
                    if nbr in routes:
                        continue
                    for rel_id, attrs in edges.items():
                        if not visible_docs[attrs["doc"]]:
                            continue
                        row = int(attrs["row"])
                        related.add((nbr, row))
                        w = float(row_weight[row]) * float(spec[self.index[nbr]]) if weighted else 1.0  # type: ignore[index]
                        if w > 0:
                            heapq.heappush(heap, (neg * w, depth + 1, nbr, (key, 0, rel_id, row),
                                                  (rel_id, attrs["type"], nbr, forward, row)))
            if not (comention and direction == "both"):
                continue
            rows = self.mention_rows(self.index[key])
            rows = rows[visible_docs[self.sentence_doc[rows]]]
            if weighted and len(rows) > rows_per_entity:
                rows = rows[np.lexsort((rows, -row_weight[rows]))[:rows_per_entity]]  # type: ignore[index]
            for row in rows.tolist():
                w_row = float(row_weight[row]) if weighted else 1.0  # type: ignore[index]
                if w_row <= 0:
                    continue
                for e in self.entities_in_row(row).tolist():
                    nbr = self.keys[e]
                    if nbr == key or nbr in routes or (nbr, row) in related:
                        continue
                    w = w_row * float(spec[e]) if weighted else 1.0  # type: ignore[index]
                    related.add((nbr, row))
                    heapq.heappush(heap, (neg * w, depth + 1, nbr, (key, 1, -1, row),
                                          (None, COMENTION, nbr, True, row)))
        return Walk(routes, scores)

    def _step(self, rel_id: int | None, rtype: str, entity: str, forward: bool, row: int) -> RouteStep:
        doc = self.docs[int(self.sentence_doc[row])]
        return RouteStep(rel_id, rtype, entity, forward, doc.id, doc.version, int(self.sentence_idx[row]))

    @functools.cached_property
    def _row_index(self) -> dict[tuple[int, int], int]:
        return {(int(d), int(i)): r for r, (d, i) in enumerate(zip(self.sentence_doc.tolist(), self.sentence_idx.tolist()))}

    def row_of(self, document_id: str | None, version: int | None, sentence_index: int | None) -> int | None:
        """The sentence row of a span, or None when the graph does not hold it."""
        d = self.doc_index.get((document_id, version))  # type: ignore[arg-type]
        if d is None or sentence_index is None:
            return None
        return self._row_index.get((d, sentence_index))


@dataclass(frozen=True)
class Walk:
    routes: dict[str, Route]  # one route per reached entity key
    scores: dict[str, float]  # the score each entity was reached with (seed score x step weights)


@dataclass(frozen=True)
class _Cached:
    generation: int
    graph: KnowledgeGraph


_cache: dict[str, _Cached] = {}
_cache_lock = threading.Lock()


def load_graph(store: Store) -> KnowledgeGraph:
    """The graph for the store's current generation, rebuilt only when the store changed."""
    gen = store.generation()
    key = store.url.key  # the store's identity (file or server URL), so two handles share one graph
    with _cache_lock:
        hit = _cache.get(key)
        if hit and hit.generation == gen:
            return hit.graph
    graph = build_graph(store, gen)
    with _cache_lock:
        _cache[key] = _Cached(gen, graph)
    return graph


def build_graph(store: Store, generation: int = 0) -> KnowledgeGraph:
    with store.snapshot():  # one consistent state, even while an ingest commits
        ents, ments, rels, docs = store.graph_rows()
        srows = store.sentence_rows()
    doc_list = [DocVersion(d["doc_id"], d["version"], frozenset(json.loads(d["access"])), bool(d["superseded"]),
                           d["title"], d["effective_date"]) for d in docs]
    doc_index = {(d.id, d.version): i for i, d in enumerate(doc_list)}
    row_of = {(r["doc_id"], r["version"], r["idx"]): i for i, r in enumerate(srows)}
    s_doc = np.array([doc_index[(r["doc_id"], r["version"])] for r in srows], dtype=np.int64)
    s_idx = np.array([r["idx"] for r in srows], dtype=np.int64)
    s_vec = _stack([r["vector"] for r in srows])
    keys = [e["key"] for e in ents]
    e_index = {k: i for i, k in enumerate(keys)}
    m_ent = np.array([e_index[m["entity_key"]] for m in ments], dtype=np.int64)
    m_row = np.array([row_of[(m["doc_id"], m["version"], m["sentence_idx"])] for m in ments], dtype=np.int64)
    relations = [(r["id"], r["source_key"], r["target_key"], r["type"], doc_index[(r["doc_id"], r["version"])],
                  row_of[(r["doc_id"], r["version"], r["sentence_idx"])]) for r in rels]
    return KnowledgeGraph(keys, [e["name"] for e in ents], _stack([e["vector"] for e in ents]), doc_list,
                          m_ent, m_row, s_doc, s_idx, s_vec, relations, generation)


def _stack(blobs: Sequence[bytes | None]) -> np.ndarray:
    out = np.zeros((len(blobs), DIM), dtype=np.float32)
    for i, b in enumerate(blobs):
        if b is not None:
            out[i] = np.frombuffer(b, dtype=np.float32)
    return out
