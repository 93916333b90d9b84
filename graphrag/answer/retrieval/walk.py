"""The walk: a bounded best-first walk from the question's entities over relations and co-mentions, each step
weighted by how relevant its sentence is (``relevance_walk``, a ``Walk`` per entity), and what it reached per
sentence row (``reach``, a ``Reach``)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from graphrag.answer.retrieval.records import Edge, Frontier, Reach, ReachedRows, Walk
from graphrag.model import COMENTION, Route, RouteStart, RouteStep

if TYPE_CHECKING:
    from graphrag.answer.retrieval.graph import KnowledgeGraph

DIRECTIONS = ("both", "out")
# A sentence naming several reached entities (the waterfall AND the country) is worth their sum, as in
# personalised PageRank; its route stays the one to its best entity. 0: only the best entity counts.
REACH_SUM = 1.0


def routes(graph: KnowledgeGraph, seeds: Iterable[str], hops: int, direction: str,
           visible_docs: np.ndarray) -> dict[str, Route]:
    """Multi-source walk over relations with every edge worth the same: each seed at depth 0,
    each node at its least depth, one route per node (see ``relevance_walk``)."""
    return relevance_walk(graph, seeds, hops, direction, visible_docs).routes


def relevance_walk(graph: KnowledgeGraph, seeds: Iterable[str], hops: int, direction: str,
                   visible_docs: np.ndarray, *, seed_scores: Mapping[str, float] | None = None,
                   row_weight: np.ndarray | None = None, node_weight: np.ndarray | None = None,
                   comention: bool = False, start: RouteStart = RouteStart.QUESTION,
                   rows_per_entity: int = 12, max_nodes: int = 400,
                   prepare_rows: Callable[[np.ndarray], None] | None = None) -> Walk:
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

    With ``row_weight``, ``prepare_rows`` (if given) is called once per entity expanded, with the sentence
    rows whose weight that expansion reads (its visible relations' rows and its co-mention candidates),
    before it reads any: a caller may fill those weights lazily. The walk reads ``row_weight`` only at
    integer indices.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    weighted = row_weight is not None
    weights = row_weight if row_weight is not None else np.empty(0, dtype=np.float32)  # read only if weighted
    index, keys = graph.index, graph.keys
    spec = node_weight if node_weight is not None else np.ones(len(keys), dtype=np.float32)
    both = direction == "both"
    frontier: list[tuple[float, int, str, tuple[str, int, int, int], Edge | None]] = []  # Frontier's fields
    for s in sorted(set(seeds)):
        if s in index:
            sc = float(seed_scores.get(s, 1.0)) if seed_scores else 1.0
            heapq.heappush(frontier, (-sc, 0, s, ("", 0, -1, -1), None))
    routes: dict[str, Route] = {}
    scores: dict[str, float] = {}
    settled = np.zeros(len(keys), dtype=bool)  # routes, by entity index: filters whole edge arrays at once
    blocks: list[_Block] = []
    while frontier and len(routes) < max_nodes:
        entry = heapq.heappop(frontier)
        if len(entry) > 5:  # the head of an expansion's block: its next entry takes its place on the heap
            block, i = blocks[entry[5]], entry[6] + 1
            if i < block.size:
                heapq.heappush(frontier, block.entry(i))
        if entry[2] in routes:
            continue
        f = Frontier._make(entry[:5])
        key, neg, depth = f.entity, f.priority, f.depth
        if f.edge is None:
            routes[key] = Route(key, (), start)
        else:
            parent = routes[f.tie[0]]
            routes[key] = Route(parent.seed, (*parent.steps, _step(graph, f.edge)), start)
        scores[key] = -neg
        at = index[key]
        settled[at] = True
        if depth >= hops:
            continue
        rel = _relations(graph, at, both, visible_docs, settled)
        candidates = _comention_rows(graph, at, visible_docs) if comention and both else None
        if weighted and prepare_rows is not None:
            prepare_rows(np.concatenate([rel.row.astype(np.int64), candidates]) if candidates is not None
                         else rel.row.astype(np.int64))
        if len(rel.row):
            w = weights[rel.row].astype(np.float64) * spec[rel.nbr].astype(np.float64) if weighted \
                else np.ones(len(rel.row))
            keep = w > 0
            offered, rel_prio = _Related(*(col[keep] for col in rel)), neg * w[keep]
        else:
            offered, rel_prio = rel, np.zeros(0)
        # a co-mention is left out where any visible relation states the pair, even one not offered (weight 0)
        com = _comentions(graph, at, neg, candidates, rel, settled, weights if weighted else None, spec,
                          rows_per_entity) if candidates is not None else None
        block = _Block.of(graph, len(blocks), key, depth + 1, offered, rel_prio, com)
        if block.size:
            blocks.append(block)
            heapq.heappush(frontier, block.entry(0))
    return Walk(routes, scores)


class _Related(NamedTuple):
    """The visible relations from one entity to entities not yet settled, as columns."""

    id: np.ndarray
    nbr: np.ndarray  # the entity at the other end
    type: np.ndarray  # code into the graph's relation types
    row: np.ndarray
    forward: np.ndarray  # followed as extracted


def _relations(graph: KnowledgeGraph, at: int, both: bool, visible_docs: np.ndarray,
               settled: np.ndarray) -> _Related:
    parts = []
    for seg, pos, forward in graph.edges.around(at, both):
        nbr = (seg.dst if forward else seg.src)[pos]
        keep = visible_docs[seg.doc[pos]] & ~settled[nbr]
        pos = pos[keep]
        parts.append(_Related(seg.id[pos], nbr[keep], seg.type[pos], seg.row[pos],
                              np.full(len(pos), forward)))
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return _NO_RELATIONS
    return _Related(*(np.concatenate(cols) for cols in zip(*parts)))


_NO_RELATIONS = _Related(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int16),
                         np.zeros(0, np.int32), np.zeros(0, bool))


def _comention_rows(graph: KnowledgeGraph, at: int, visible_docs: np.ndarray) -> np.ndarray:
    rows = graph.mentions.rows_of(at)
    kept: np.ndarray = rows[visible_docs[graph.sentence_doc[rows]]]
    return kept.astype(np.int64, copy=False)


def _comentions(graph: KnowledgeGraph, at: int, neg: float, rows: np.ndarray, rel: _Related, settled: np.ndarray,
                weights: np.ndarray | None, spec: np.ndarray, rows_per_entity: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The entities named beside the entity at ``at`` in its most relevant visible sentences ``rows``, except
    those a visible relation from it already offers through the same sentence: (entities, rows, the rows' ranks,
    priorities)."""
    rank = graph.row_rank
    if weights is not None and len(rows) > rows_per_entity:
        rows = rows[np.lexsort((rank[rows], -weights[rows]))[:rows_per_entity]]
    if weights is not None:
        w_row = weights[rows].astype(np.float64)
        keep = ~(w_row <= 0)
        rows, w_row = rows[keep], w_row[keep]
    ents, at_row = graph.mentions.entities_of_rows(rows)
    n_rows = graph.n_sentences
    pair = ents.astype(np.int64) * n_rows + rows[at_row]
    keep = (ents != at) & ~settled[ents]
    if len(rel.row):
        stated = rel.nbr.astype(np.int64) * n_rows + rel.row
        # np.isin sorts: for the few pairs of a typical entity, comparing all with all is several times cheaper
        keep &= ~(np.isin(pair, stated) if len(pair) * len(stated) > 4096 else (pair[:, None] == stated).any(axis=1))
    # An entity named twice in one sentence is offered twice as the same entry; the second pop finds it settled.
    ents, at_row = ents[keep], at_row[keep]
    row = rows[at_row]
    w = w_row[at_row] * spec[ents].astype(np.float64) if weights is not None else np.ones(len(ents))
    return ents, row, rank[row], neg * w


class _Block:
    """One expansion's offers, relations and co-mentions, sorted as the heap orders them (priority, entity key,
    relation before co-mention, relation id or -1, row or its rank). Only its least unpopped entry is on the
    heap: popping it pushes the next, so entries pop in the order pushing them all would give, while the
    thousands a hub offers and the walk never reaches are not made into tuples (most of a walk's time at a
    million sentences)."""

    __slots__ = ("_depth", "_keys", "_number", "_source", "_types", "a", "b", "ent", "forward", "kind", "prio",
                 "row", "rtype", "size")
    _depth: int
    _keys: list[str]
    _number: int
    _source: str
    _types: list[str]
    a: list[int]  # relation id, -1 for a co-mention
    b: list[int]  # the sentence row of a relation, the row's rank for a co-mention
    ent: list[int]
    forward: list[bool]
    kind: list[int]  # 0: relation, 1: co-mention
    prio: list[float]
    row: list[int]
    rtype: list[int]  # code into the graph's relation types, -1 for a co-mention
    size: int

    @classmethod
    def of(cls, graph: KnowledgeGraph, number: int, source: str, depth: int, rel: _Related, rel_prio: np.ndarray,
           com: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None) -> _Block:
        n_rel = len(rel.row)
        ent = rel.nbr.astype(np.int64)
        cols = [rel_prio, ent, np.zeros(n_rel, np.int64), rel.id.astype(np.int64), rel.row.astype(np.int64),
                rel.type.astype(np.int64), rel.forward, rel.row.astype(np.int64)]
        if com is not None and len(com[0]):
            c_ent, c_row, c_rank, c_prio = com
            n = len(c_ent)
            more = [c_prio, c_ent.astype(np.int64), np.ones(n, np.int64), np.full(n, -1, np.int64),
                    c_rank.astype(np.int64), np.full(n, -1, np.int64), np.ones(n, bool), c_row.astype(np.int64)]
            cols = [np.concatenate([x, y]) for x, y in zip(cols, more)]
        prio, ent, kind, a, b, rtype, forward, row = cols
        order = np.lexsort((b, a, kind, graph.key_rank[ent], prio))
        block = cls()
        block._number, block._source, block._depth = number, source, depth
        block._keys, block._types = graph.keys, graph.edges.types
        block.prio, block.ent, block.kind, block.a, block.b = (c[order].tolist() for c in (prio, ent, kind, a, b))
        block.rtype, block.forward, block.row = (c[order].tolist() for c in (rtype, forward, row))
        block.size = len(order)
        return block

    def entry(self, i: int) -> tuple[Any, ...]:
        """Entry ``i`` as the heap holds it: Frontier's fields, then this block's number and ``i``."""
        e = self._keys[self.ent[i]]
        row = self.row[i]
        if self.kind[i] == 0:
            edge: Edge = (self.a[i], self._types[self.rtype[i]], e, self.forward[i], row)
        else:
            edge = (None, COMENTION, e, True, row)
        return (self.prio[i], self._depth, e, (self._source, self.kind[i], self.a[i], self.b[i]), edge,
                self._number, i)


def _step(graph: KnowledgeGraph, edge: Edge) -> RouteStep:
    rel_id, rtype, entity, forward, row = edge
    doc = graph.docs[int(graph.sentence_doc[row])]
    return RouteStep(rel_id, rtype, entity, forward, doc.id, doc.version, int(graph.sentence_idx[row]))


def _via(route: Route) -> str:
    return "co-mention" if route.steps[-1].comention else "relation"


def reach(graph: KnowledgeGraph, walk: Walk, visible_docs: np.ndarray) -> Reach:
    """Per sentence row, the best walk score among what reached it, and the route that did.

    A row is reached by mentioning a reached entity (its route ends at that entity, "mention")
    or by being the sentence of a route's last step ("relation" or "co-mention"). The highest
    score wins, then the shallower route, then the entity key; within one route its step's
    sentence is offered before the sentences naming its entity (the step wins a tie).

    Every offer is gathered into arrays, and the winner per row is the least of its offers' codes (the route's
    place in that order, then step before mention), found with one ``np.minimum.at``: a hub reached at depth 2 is
    named by thousands of sentences, and a Python call per offer cost 0.2 s a question at 1M rows.
    """
    n_rows = graph.n_sentences
    sentence_doc = graph.sentence_doc
    routes = list(walk.routes.values())
    keys = list(walk.routes)
    total = np.zeros(n_rows, dtype=np.float32)
    best = np.zeros(n_rows, dtype=np.float32)
    if not routes:
        return Reach(walk, total, {}, np.zeros(0, dtype=np.int64))
    score = np.array([walk.scores[k] for k in keys], dtype=np.float64)
    # each route's sentences naming its entity, route after route, each in rows_of order (the order summed below)
    m_rows, m_route = graph.mentions.rows_of_entities(np.array([graph.index[k] for k in keys], dtype=np.int64))
    seen = visible_docs[sentence_doc[m_rows]]
    m_rows, m_route = m_rows[seen], m_route[seen]
    np.add.at(total, m_rows, score.astype(np.float32)[m_route])  # float32 sums in the order of one call per route
    steps = [(i, graph.row_of(r.steps[-1].document_id, r.steps[-1].version, r.steps[-1].sentence_index))
             for i, r in enumerate(routes) if r.steps]
    steps = [(i, row) for i, row in steps if row is not None and visible_docs[sentence_doc[row]]]
    s_route = np.array([i for i, _ in steps], dtype=np.int64)
    s_rows = np.array([row for _, row in steps], dtype=np.int64)
    # the routes ranked as a row's offers compete: the highest score, then the shallower, then the entity key
    place = np.empty(len(routes), dtype=np.int64)
    place[sorted(range(len(routes)), key=lambda i: (-score[i], routes[i].depth, routes[i].end))] = \
        np.arange(len(routes))
    code = np.full(n_rows, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(code, s_rows, 2 * place[s_route])  # a step's sentence: kind 0
    np.minimum.at(code, m_rows, 2 * place[m_route] + 1)  # a sentence naming the entity: kind 1
    won = np.flatnonzero(code != np.iinfo(np.int64).max)  # ascending
    by_place = np.argsort(place)
    route_of, kind = by_place[code[won] // 2], code[won] % 2
    best[won] = score[route_of].astype(np.float32)
    depth = np.array([r.depth for r in routes], dtype=np.int64)
    # per route its pair for a step's sentence (2i) and for a sentence naming its entity (2i + 1)
    pairs = [p for r in routes for p in (((r, _via(r)) if r.steps else (r, "mention")), (r, "mention"))]
    found = ReachedRows(won, 2 * route_of + kind, pairs)
    return Reach(walk, np.maximum(total, best) if REACH_SUM else best, found, won[depth[route_of] >= 1])
