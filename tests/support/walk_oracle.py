"""The test oracle for the relevance walk: the walk as it was when relations lived in a NetworkX multigraph
(commit 192e54c), kept verbatim but for where it reads the relations from (a multigraph the test builds from
the same relation tuples, not the graph's arrays). Tests compare ``walk.relevance_walk`` with it on random
graphs; it is not product code and must not be "fixed" to agree with the walk. ``oracle_reach`` is the reach
as it was at 0755048, for the same purpose."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from typing import Any

import networkx as nx
import numpy as np

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import Frontier, Reach, Walk
from graphrag.answer.retrieval.walk import DIRECTIONS, _step
from graphrag.model import COMENTION, Route, RouteStart


def multigraph(keys: Iterable[str], relations: Iterable[tuple[int, str, str, str, int, int]]) -> nx.MultiDiGraph:
    """The relations (id, source, target, type, doc, row) as the old graph held them."""
    g: nx.MultiDiGraph = nx.MultiDiGraph()
    g.add_nodes_from(keys)
    for rel_id, src, dst, rtype, doc, row in relations:
        g.add_edge(src, dst, key=rel_id, type=rtype, doc=doc, row=row)
    return g


def _sides(g: nx.MultiDiGraph, key: str, both: bool) -> list[tuple[dict[str, dict[int, dict[str, Any]]], bool]]:
    out = [(g._succ[key], True)] if key in g._succ else []
    if both and key in g._pred:
        out.append((g._pred[key], False))
    return out


def oracle_walk(relations: nx.MultiDiGraph, graph: KnowledgeGraph, seeds: Iterable[str], hops: int, direction: str,
                visible_docs: np.ndarray, *, seed_scores: Mapping[str, float] | None = None,
                row_weight: np.ndarray | None = None, node_weight: np.ndarray | None = None,
                comention: bool = False, start: RouteStart = RouteStart.QUESTION,
                rows_per_entity: int = 12, max_nodes: int = 400) -> Walk:
    """``relevance_walk`` as of 192e54c, following the edges of ``relations``."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    weighted = row_weight is not None
    weights = row_weight if row_weight is not None else np.empty(0, dtype=np.float32)
    index, keys, sentence_doc = graph.index, graph.keys, graph.sentence_doc
    rows_of, entities_in = graph.mentions.rows_of, graph.mentions.entities_in
    spec = node_weight if node_weight is not None else np.ones(len(keys), dtype=np.float32)
    frontier: list[tuple[Any, ...]] = []
    for s in sorted(set(seeds)):
        if s in index:
            sc = float(seed_scores.get(s, 1.0)) if seed_scores else 1.0
            heapq.heappush(frontier, (-sc, 0, s, ("", 0, -1, -1), None))
    routes: dict[str, Route] = {}
    scores: dict[str, float] = {}
    rank = graph.row_rank if comention else np.empty(0, dtype=np.int64)
    while frontier and len(routes) < max_nodes:
        entry = heapq.heappop(frontier)
        if entry[2] in routes:
            continue
        f = Frontier._make(entry)
        key, neg, depth = f.entity, f.priority, f.depth
        if f.edge is None:
            routes[key] = Route(key, (), start)
        else:
            parent = routes[f.tie[0]]
            routes[key] = Route(parent.seed, (*parent.steps, _step(graph, f.edge)), start)
        scores[key] = -neg
        if depth >= hops:
            continue
        related: set[tuple[str, int]] = set()
        for adjacency, forward in _sides(relations, key, direction == "both"):
            for nbr, edges in adjacency.items():
                if nbr in routes:
                    continue
                for rel_id, attrs in edges.items():
                    if not visible_docs[attrs["doc"]]:
                        continue
                    row = int(attrs["row"])
                    related.add((nbr, row))
                    w = float(weights[row]) * float(spec[index[nbr]]) if weighted else 1.0
                    if w > 0:
                        heapq.heappush(frontier, (neg * w, depth + 1, nbr, (key, 0, rel_id, row),
                                                  (rel_id, attrs["type"], nbr, forward, row)))
        if not (comention and direction == "both"):
            continue
        rows = rows_of(index[key])
        rows = rows[visible_docs[sentence_doc[rows]]]
        if weighted and len(rows) > rows_per_entity:
            rows = rows[np.lexsort((rank[rows], -weights[rows]))[:rows_per_entity]]
        for row in rows.tolist():
            w_row = float(weights[row]) if weighted else 1.0
            if w_row <= 0:
                continue
            for e in entities_in(row).tolist():
                nbr = keys[e]
                if nbr == key or nbr in routes or (nbr, row) in related:
                    continue
                w = w_row * float(spec[e]) if weighted else 1.0
                related.add((nbr, row))
                heapq.heappush(frontier, (neg * w, depth + 1, nbr, (key, 1, -1, int(rank[row])),
                                          (None, COMENTION, nbr, True, row)))
    return Walk(routes, scores)


def oracle_reach(graph: KnowledgeGraph, walk: Walk, visible_docs: np.ndarray) -> Reach:
    """The reach as it was before its offers were gathered into arrays (one Python offer per sentence naming a
    reached entity): the test's oracle for ``walk.reach``."""
    n_rows = graph.n_sentences
    index, sentence_doc, rows_of = graph.index, graph.sentence_doc, graph.mentions.rows_of
    best = np.zeros(n_rows, dtype=np.float32)
    found: dict[int, tuple[Route, str]] = {}
    rank: dict[int, tuple[float, int, str]] = {}

    def offer(row: int, score: float, route: Route, via: str) -> None:
        r = (-score, route.depth, route.end)
        if row not in rank or r < rank[row]:
            rank[row] = r
            found[row] = (route, via)
            best[row] = score

    total = np.zeros(n_rows, dtype=np.float32)
    for key, route in walk.routes.items():
        score = walk.scores[key]
        if route.steps:
            step = route.steps[-1]
            row = graph.row_of(step.document_id, step.version, step.sentence_index)
            if row is not None and visible_docs[sentence_doc[row]]:
                offer(row, score, route, "co-mention" if route.steps[-1].comention else "relation")
        m = rows_of(index[key])
        m = m[visible_docs[sentence_doc[m]]]
        np.add.at(total, m, score)
        for row in m.tolist():
            offer(row, score, route, "mention")
    return Reach(walk, np.maximum(total, best), found)
