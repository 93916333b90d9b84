"""The knowledge graph in memory: a NetworkX MultiDiGraph plus the arrays retrieval needs.

Nodes are entity keys; every relation is its own edge (key = relation id), so two relations
between the same pair both survive. Visibility (access labels, superseded versions) is a
property of the document a mention or relation came from; it is computed once per asker
as a boolean array over document versions and checked on every edge the walk follows.

A graph is never modified once built: after an ingest, ``load_graph`` derives a new one that
adds the new rows (``KnowledgeGraph.extended``) and swaps it in, so a question being answered
meanwhile keeps the graph it started with, whole. The NetworkX multigraph of the first load is
shared by the graphs derived from it; the relations added since sit beside it (``Edges``).
Anything but an addition (a removal, a rewrite) reloads the whole graph.
"""

from __future__ import annotations

import functools
import heapq
import json
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from graphrag.access.rule import Access
from graphrag.embed import DIM
from graphrag.model import COMENTION, Route, RouteStart, RouteStep
from graphrag.store import Store
from graphrag.store.graph import GraphAdditions

log = logging.getLogger(__name__)
DIRECTIONS = ("both", "out")
EdgeAttrs = dict[str, Any]  # one relation on the graph: type, doc (an index into docs) and row (a sentence row)
# Past this many relations added beside the first load's multigraph (as a share of it, or at
# least this many), the next change reloads the whole graph: each derived graph copies the part
# of the added adjacency it touches, and a walk looks in two places for every entity.
MAX_ADDED_SHARE = 0.25
MIN_ADDED_LIMIT = 20_000


@dataclass(frozen=True)
class DocVersion:
    """A document version as the graph sees it: who may see it and whether it is superseded."""

    id: str
    version: int
    access: frozenset[str]
    superseded: bool
    title: str
    effective_date: str | None
    # what tells this version from one removed and written again under the same number
    sha256: str = ""
    ingested_at: str = ""


@dataclass(frozen=True)
class GraphMark:
    """Where a loaded graph stands in the store: the generation it was read at and the last
    mention and relation ids it holds (ids grow: document writers are serialised)."""

    generation: int
    mention_id: int
    relation_id: int


class Edges:
    """The relations: a NetworkX multigraph built once, plus the relations added since, in
    adjacency dicts of the same shape kept beside it. Deriving adds to copies of only the
    parts it touches, so an earlier ``Edges`` (and a walk running on it) never changes."""

    def __init__(self, base: nx.MultiDiGraph[str], succ: dict[str, dict[str, dict[int, EdgeAttrs]]] | None = None,
                 pred: dict[str, dict[str, dict[int, EdgeAttrs]]] | None = None, added: int = 0,
                 base_count: int | None = None) -> None:
        self.base = base
        self.succ = succ or {}
        self.pred = pred or {}
        self.added = added
        # counting a MultiDiGraph's edges walks all of them: count once
        self.base_count = base.number_of_edges() if base_count is None else base_count

    def __len__(self) -> int:
        return self.base_count + self.added

    def sides(self, key: str, both: bool) -> list[tuple[dict[str, dict[int, EdgeAttrs]], bool]]:
        """(adjacency, forward) pairs to follow from ``key``: out-edges, then in-edges if ``both``."""
        out = []
        # The plain dicts behind networkx's read-only succ/pred views (the walk is a hot path); the
        # networkx stubs do not declare these attributes.
        base_succ, base_pred = self.base._succ, self.base._pred  # type: ignore[attr-defined]
        for base, extra, forward in ((base_succ, self.succ, True), (base_pred, self.pred, False)):
            if not forward and not both:
                break
            if key in base:
                out.append((base[key], forward))
            if key in extra:
                out.append((extra[key], forward))
        return out

    def with_added(self, relations: Iterable[tuple[int, str, str, str, int, int]]) -> Edges:
        """These edges plus ``relations``: only the adjacency entries they touch are copied, so this object is
        unchanged."""
        succ, pred = dict(self.succ), dict(self.pred)
        copied: set[tuple[int, str]] = set()  # (side, key) whose inner dict is already this graph's own
        n = 0
        for rel_id, src, dst, rtype, doc, row in relations:
            attrs = {"type": rtype, "doc": doc, "row": row}
            for side, (adj, a, b) in enumerate(((succ, src, dst), (pred, dst, src))):
                if (side, a) not in copied:
                    adj[a] = {nbr: dict(edges) for nbr, edges in adj.get(a, {}).items()}
                    copied.add((side, a))
                adj[a].setdefault(b, {})[rel_id] = attrs
            n += 1
        return Edges(self.base, succ, pred, self.added + n, self.base_count)

    def merged(self) -> nx.MultiDiGraph[str]:
        """One NetworkX multigraph of all the edges (the base itself when nothing was added)."""
        if not self.added:
            return self.base
        g = self.base.copy()
        for src, nbrs in self.succ.items():
            for dst, edges in nbrs.items():
                for rel_id, attrs in edges.items():
                    g.add_edge(src, dst, key=rel_id, **attrs)
        return g


class _Rows:
    """A float32 matrix with spare rows at its end. Graphs hold views of its first rows; the
    graph derived from the newest one writes its new rows after them (rows no earlier view
    contains) instead of copying every vector."""

    def __init__(self, data: np.ndarray, filled: int) -> None:
        self.data = data
        self.filled = filled
        self.lock = threading.Lock()

    @classmethod
    def holding(cls, rows: np.ndarray) -> tuple[np.ndarray, _Rows]:
        """``rows`` may be the first rows of a larger matrix (``_stack`` leaves spare rows)."""
        base = rows.base
        data = base if isinstance(base, np.ndarray) and _prefix_of(rows, base) else rows
        return rows, cls(data, len(rows))

    def extended(self, view: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, _Rows]:
        n, k = len(view), len(new)
        with self.lock:
            if self.filled == n and n + k <= len(self.data) and (view is self.data or _prefix_of(view, self.data)):
                self.data[n:n + k] = new
                self.filled = n + k
                return self.data[:n + k], self
        grown = np.zeros((n + k + max(1024, (n + k) // 4), view.shape[1]), dtype=np.float32)  # lazily paged in
        grown[:n] = view
        grown[n:n + k] = new
        holder = _Rows(grown, n + k)
        return grown[:n + k], holder


def _prefix_of(view: np.ndarray, data: object) -> bool:
    return (isinstance(data, np.ndarray) and view.base is data and data.ndim == 2 and view.ndim == 2
            and data.shape[1] == view.shape[1] and view.ctypes.data == data.ctypes.data)


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
        relations: Iterable[tuple[int, str, str, str, int, int]] | Edges,  # id, source, target, type, doc, row
        generation: int = 0,
        mark: GraphMark | None = None,
        index: dict[str, int] | None = None,  # keys' positions, when the caller has them already
    ) -> None:
        self.keys = list(keys)
        self.index = index if index is not None else {k: i for i, k in enumerate(self.keys)}
        self.names = list(names)
        self.docs = list(docs)
        self.doc_index = {(d.id, d.version): i for i, d in enumerate(self.docs)}
        if isinstance(relations, Edges):
            self.edges = relations
        else:
            g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
            g.add_nodes_from(self.keys)
            n = 0
            for rel_id, src, dst, rtype, doc, row in relations:
                g.add_edge(src, dst, key=rel_id, type=rtype, doc=doc, row=row)
                n += 1
            self.edges = Edges(g, base_count=n)
        self.vectors, self._vector_rows = _Rows.holding(vectors)
        self.sentence_vectors, self._sentence_rows = _Rows.holding(sentence_vectors)
        self._arrays(mention_entity, mention_row, sentence_doc, sentence_idx)
        self.generation = generation
        self.mark = mark or GraphMark(generation, 0, 0)
        self._vis_cache: dict[tuple[frozenset[str], bool, frozenset[str]], tuple[np.ndarray, np.ndarray]] = {}
        self._rows_cache: dict[tuple[frozenset[str], bool, frozenset[str]], np.ndarray] = {}
        self._lock = threading.Lock()

    def _arrays(self, mention_entity: np.ndarray, mention_row: np.ndarray, sentence_doc: np.ndarray,
                sentence_idx: np.ndarray) -> None:
        self.sentence_doc = sentence_doc
        self.sentence_idx = sentence_idx
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
        self._mention_row = mention_row

    @functools.cached_property
    def graph(self) -> nx.MultiDiGraph[str]:
        """Every relation as one NetworkX multigraph (for tools and tests: after additions this
        is a copy, made on first use; the walk and ``relations_at`` read ``edges`` in place)."""
        return self.edges.merged()

    def relations_at(self, key: str, *, incoming: bool = True) -> Iterator[tuple[str, str, int, EdgeAttrs]]:
        """(source, target, relation id, attributes) of every relation from ``key``, and into
        it unless ``incoming`` is False."""
        for adjacency, forward in self.edges.sides(key, incoming):
            for nbr, edges in adjacency.items():
                for rel_id, attrs in edges.items():
                    yield (key, nbr, rel_id, attrs) if forward else (nbr, key, rel_id, attrs)

    @functools.cached_property
    def doc_sentence_counts(self) -> np.ndarray:
        """Sentences per document version (by index in ``docs``): how long a page is, for retrieval (a long
        document's subject) and the generator (a bridge between short pages)."""
        return np.bincount(self.sentence_doc, minlength=len(self.docs))

    @functools.cached_property
    def row_rank(self) -> np.ndarray:
        """Per sentence row, its place in (document id, version, index) order: ties between
        equal scores break on it, so a graph extended in place ranks like one loaded whole."""
        order = sorted(range(len(self.docs)), key=lambda i: (self.docs[i].id, self.docs[i].version))
        doc_rank = np.empty(len(self.docs), dtype=np.int64)
        doc_rank[order] = np.arange(len(order))
        by = np.lexsort((self.sentence_idx, doc_rank[self.sentence_doc])) if len(self.sentence_doc) else \
            np.zeros(0, dtype=np.int64)
        rank = np.empty(len(by), dtype=np.int64)
        rank[by] = np.arange(len(by))
        return rank

    def extended(self, generation: int, docs: Sequence[DocVersion], new_docs: Sequence[DocVersion],
                 added: GraphAdditions) -> KnowledgeGraph | None:
        """A new graph: this one plus ``added`` (the rows of ``new_docs``), with every version's
        labels and superseded flag as ``docs`` now say. None when the rows do not add up to the
        store's sizes or point outside the new versions (then the store changed in another way).
        This graph is left as it was: lists and dicts are copied, vectors written past its rows."""
        n_rows, n_ents = len(self.sentence_doc), len(self.keys)
        new_keys = [e for e in added.entities if e["key"] not in self.index]
        sizes = added.sizes
        if (n_ents + len(new_keys) != sizes["entities"] or len(self._mention_entity) + len(added.mentions)
                != sizes["mentions"] or len(self.edges) + len(added.relations) != sizes["relations"]
                or n_rows + len(added.sentences) != sizes["sentences"]):
            return None
        fresh = {(d.id, d.version): d for d in docs}
        doc_list = [fresh[(d.id, d.version)] for d in self.docs] + list(new_docs)
        doc_index = dict(self.doc_index)
        doc_index.update({(d.id, d.version): len(self.docs) + i for i, d in enumerate(new_docs)})
        new_rows = {(r["doc_id"], r["version"], r["idx"]): n_rows + i for i, r in enumerate(added.sentences)}
        keys, names = self.keys + [e["key"] for e in new_keys], self.names + [e["name"] for e in new_keys]
        index = dict(self.index)
        index.update({e["key"]: n_ents + i for i, e in enumerate(new_keys)})
        changed = []  # known entities whose stored vector differs (it was missing when first written)
        for e in added.entities:
            i = self.index.get(e["key"])
            if i is None:
                continue
            if self.names[i] != e["name"]:
                return None
            vec = _stack([e["vector"]], spare=False)[0]
            if not np.array_equal(self.vectors[i], vec):
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
        s_doc = np.concatenate([self.sentence_doc, np.array([doc_index[(r["doc_id"], r["version"])]
                                                             for r in added.sentences], dtype=np.int64)])
        s_idx = np.concatenate([self.sentence_idx, np.array([r["idx"] for r in added.sentences], dtype=np.int64)])
        s_vec, s_holder = self._sentence_rows.extended(self.sentence_vectors,
                                                       _stack([r["vector"] for r in added.sentences], spare=False))
        vectors, v_holder = self._vector_rows.extended(self.vectors,
                                                       _stack([e["vector"] for e in new_keys], spare=False))
        if changed:  # rare: a private copy, since earlier graphs share these rows
            vectors = vectors.copy()
            for i, vec in changed:
                vectors[i] = vec
            v_holder = _Rows(vectors, len(vectors))
        mark = GraphMark(generation, max((m["id"] for m in added.mentions), default=self.mark.mention_id),
                         max((r["id"] for r in added.relations), default=self.mark.relation_id))
        out = KnowledgeGraph(keys, names, vectors, doc_list, np.concatenate([self._mention_entity, m_ent]),
                             np.concatenate([self._mention_row, m_row]), s_doc, s_idx, s_vec,
                             self.edges.with_added(relations), generation, mark, index)
        out._vector_rows, out._sentence_rows = v_holder, s_holder
        if "_row_index" in self.__dict__:  # built already: carry it over rather than rebuild it on first use
            row_index = dict(self._row_index)
            row_index.update({(doc_index[(d, v)], i): row for (d, v, i), row in new_rows.items()})
            out.__dict__["_row_index"] = row_index
        return out

    # --- visibility -----------------------------------------------------------------------

    def visibility(self, access: Iterable[str], include_superseded: bool = False,
                   documents: Iterable[str] = ()) -> tuple[np.ndarray, np.ndarray]:
        """(visible document versions, visible entities) for an asker, as boolean arrays.

        A document is visible when it shares a label with the asker and, unless asked
        otherwise, is not superseded; with ``documents`` given, only those document ids are
        (a question scoped to documents). An entity is visible when one of its mentions is.
        """
        labels = frozenset(access)
        scope = frozenset(documents)
        key = (labels, include_superseded, scope)
        with self._lock:
            if key not in self._vis_cache:
                viewer = Access(labels, include_superseded)
                docs = np.array([viewer.sees(d.access, d.superseded) and (not scope or d.id in scope)
                                 for d in self.docs], dtype=bool)
                ents = np.zeros(len(self.keys), dtype=bool)
                if len(self._mention_entity):
                    ents[self._mention_entity[docs[self.mention_doc]]] = True
                self._vis_cache[key] = (docs, ents)
            return self._vis_cache[key]

    def visible_rows(self, access: Iterable[str], include_superseded: bool = False,
                     documents: Iterable[str] = ()) -> np.ndarray:
        """Sentence rows whose document version is visible to the asker (cached like visibility)."""
        key = (frozenset(access), include_superseded, frozenset(documents))
        with self._lock:
            hit = self._rows_cache.get(key)
        if hit is None:
            hit = self.visibility(access, include_superseded, documents)[0][self.sentence_doc]
            with self._lock:
                self._rows_cache[key] = hit
        return hit

    # --- seeds and walk ---------------------------------------------------------------------

    def mention_rows(self, entity: int) -> np.ndarray:
        """Sentence rows that mention the entity at this index."""
        return self._m_rows[self._m_offsets[entity]:self._m_offsets[entity + 1]]

    def entities_in_row(self, row: int) -> np.ndarray:
        """Indices of the entities a sentence row mentions."""
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
        spec: np.ndarray = (np.log1p(n / df) / np.log1p(n)).astype(np.float32)
        return spec

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
        weights = row_weight if row_weight is not None else np.empty(0, dtype=np.float32)  # read only if weighted
        spec = node_weight if node_weight is not None else np.ones(len(self.keys), dtype=np.float32)
        heap: list[tuple[Any, ...]] = []
        for s in sorted(set(seeds)):
            if s in self.index:
                sc = float(seed_scores.get(s, 1.0)) if seed_scores else 1.0
                heapq.heappush(heap, (-sc, 0, s, ("", 0, -1, -1), None))
        routes: dict[str, Route] = {}
        scores: dict[str, float] = {}
        rank = self.row_rank if comention else np.empty(0, dtype=np.int64)  # read only with co-mentions
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
            for adjacency, forward in self.edges.sides(key, direction == "both"):
                for nbr, edges in adjacency.items():
                    if nbr in routes:
                        continue
                    for rel_id, attrs in edges.items():
                        if not visible_docs[attrs["doc"]]:
                            continue
                        row = int(attrs["row"])
                        related.add((nbr, row))
                        w = float(weights[row]) * float(spec[self.index[nbr]]) if weighted else 1.0
                        if w > 0:
                            heapq.heappush(heap, (neg * w, depth + 1, nbr, (key, 0, rel_id, row),
                                                  (rel_id, attrs["type"], nbr, forward, row)))
            if not (comention and direction == "both"):
                continue
            rows = self.mention_rows(self.index[key])
            rows = rows[visible_docs[self.sentence_doc[rows]]]
            if weighted and len(rows) > rows_per_entity:
                rows = rows[np.lexsort((rank[rows], -weights[rows]))[:rows_per_entity]]
            for row in rows.tolist():
                w_row = float(weights[row]) if weighted else 1.0
                if w_row <= 0:
                    continue
                for e in self.entities_in_row(row).tolist():
                    nbr = self.keys[e]
                    if nbr == key or nbr in routes or (nbr, row) in related:
                        continue
                    w = w_row * float(spec[e]) if weighted else 1.0
                    related.add((nbr, row))
                    heapq.heappush(heap, (neg * w, depth + 1, nbr, (key, 1, -1, int(rank[row])),
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
        if document_id is None or version is None or sentence_index is None:
            return None
        d = self.doc_index.get((document_id, version))
        if d is None:
            return None
        return self._row_index.get((d, sentence_index))


@dataclass(frozen=True)
class Walk:
    """What a walk reached: a route and a score per entity."""

    routes: dict[str, Route]  # one route per reached entity key
    scores: dict[str, float]  # the score each entity was reached with (seed score x step weights)


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
        graph = (extend_graph(store, hit) if hit is not None else None) or build_graph(store)
        with _cache_lock:
            _cache[key] = graph
        return graph


def build_graph(store: Store) -> KnowledgeGraph:
    """Build the in-memory graph from one consistent snapshot of the store."""
    with store.snapshot():  # one consistent state, even while an ingest commits
        gen = store.append_run()[0]
        ents, ments, rels, docs = store.graph_rows()
        srows = store.sentence_rows()
    doc_list = [_doc_version(d) for d in docs]
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
    mark = GraphMark(gen, max((m["id"] for m in ments), default=0), max((r["id"] for r in rels), default=0))
    return KnowledgeGraph(keys, [e["name"] for e in ents], _stack([e["vector"] for e in ents]), doc_list,
                          m_ent, m_row, s_doc, s_idx, s_vec, relations, gen, mark)


def extend_graph(store: Store, graph: KnowledgeGraph) -> KnowledgeGraph | None:
    """``graph`` with what the store added since it was loaded, or None when the store changed
    in another way (or too much has been added beside the first load) and must be read whole."""
    if graph.edges.added > max(MIN_ADDED_LIMIT, MAX_ADDED_SHARE * graph.edges.base_count):
        return None
    with store.snapshot():
        gen, appends_from, appends_to = store.append_run()
        if (appends_to != gen or appends_from is None or appends_from > graph.mark.generation
                or gen < graph.mark.generation):
            return None  # some commit since this graph was loaded was not an addition
        docs = [_doc_version(d) for d in store.graph_documents()]
        known = {(d.id, d.version): d for d in docs}
        if any(known.get((d.id, d.version), None) is None or not _same_version(known[(d.id, d.version)], d)
               for d in graph.docs):
            return None  # a version was removed, or removed and written again
        new_docs = [d for d in docs if (d.id, d.version) not in graph.doc_index]
        added = store.graph_additions(graph.mark.mention_id, graph.mark.relation_id,
                                      [(d.id, d.version) for d in new_docs])
    try:
        out = graph.extended(gen, docs, new_docs, added)
    except KeyError as exc:  # a row pointing at something neither graph nor additions hold
        log.warning("graph update did not add up (%s); reloading it whole", exc)
        return None
    if out is None:
        log.info("graph update did not add up; reloading it whole")
    return out


def _doc_version(d: Mapping[str, Any]) -> DocVersion:
    return DocVersion(str(d["doc_id"]), int(d["version"]), frozenset(json.loads(str(d["access"]))),
                      bool(d["superseded"]), str(d["title"]), d["effective_date"], str(d["sha256"]),
                      str(d["ingested_at"]))


def _same_version(a: DocVersion, b: DocVersion) -> bool:
    return a.sha256 == b.sha256 and a.ingested_at == b.ingested_at


def _stack(blobs: Sequence[bytes | None], spare: bool = True) -> np.ndarray:
    """Vectors from blobs, as the first rows of a matrix with spare rows for later additions
    (untouched pages of a large zeroed allocation cost no memory)."""
    n = len(blobs)
    out = np.zeros((n + (max(1024, n // 16) if spare else 0), DIM), dtype=np.float32)
    for i, b in enumerate(blobs):
        if b is not None:
            out[i] = np.frombuffer(b, dtype=np.float32)
    return out[:n]
