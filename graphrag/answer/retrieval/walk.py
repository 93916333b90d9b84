"""The walk: a bounded best-first walk from the question's entities over relations and co-mentions, each step
weighted by how relevant its sentence is (``relevance_walk``, a ``Walk`` per entity), and what it reached per
sentence row (``reach``, a ``Reach``)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from graphrag.answer.retrieval.records import Edge, Frontier, Reach, Walk
from graphrag.model import COMENTION, Route, RouteStart, RouteStep

if TYPE_CHECKING:
    from graphrag.answer.retrieval.graph import KnowledgeGraph

DIRECTIONS = ("both", "out")
# A sentence naming several reached entities (the waterfall AND the country) is worth their sum, as in
# personalised PageRank; its route stays the one to its best entity. 0: only the best entity counts.
REACH_SUM = 1.0


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
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    weighted = row_weight is not None
    weights = row_weight if row_weight is not None else np.empty(0, dtype=np.float32)  # read only if weighted
    # looked up for every edge: the walk is the graph's own code and reads its tables directly
    index, keys, sentence_doc = graph.index, graph.keys, graph.sentence_doc
    rows_of, entities_in = graph.mentions.rows_of, graph.mentions.entities_in
    spec = node_weight if node_weight is not None else np.ones(len(keys), dtype=np.float32)
    frontier: list[tuple[float, int, str, tuple[str, int, int, int], Edge | None]] = []  # Frontier's fields
    for s in sorted(set(seeds)):
        if s in index:
            sc = float(seed_scores.get(s, 1.0)) if seed_scores else 1.0
            heapq.heappush(frontier, (-sc, 0, s, ("", 0, -1, -1), None))
    routes: dict[str, Route] = {}
    scores: dict[str, float] = {}
    rank = graph.row_rank if comention else np.empty(0, dtype=np.int64)  # read only with co-mentions
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
        if prepare_rows is not None:  # the rows whose weights this expansion reads (scored lazily, scores.py)
            prepare_rows(np.array([int(a["row"]) for adj, _ in graph.edges.sides(key, direction == "both")
                                   for es in adj.values() for a in es.values()]
                                  + (rows_of(index[key]).tolist() if comention else []), dtype=np.int64))
        related: set[tuple[str, int]] = set()
        for adjacency, forward in graph.edges.sides(key, direction == "both"):
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
    score wins, then the shallower route, then the entity key.
    """
    n_rows = graph.n_sentences
    index, sentence_doc, rows_of = graph.index, graph.sentence_doc, graph.mentions.rows_of  # once per route
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
                offer(row, score, route, _via(route))
        m = rows_of(index[key])
        m = m[visible_docs[sentence_doc[m]]]
        np.add.at(total, m, score)
        for row in m.tolist():
            offer(row, score, route, "mention")
    return Reach(walk, np.maximum(total, best) if REACH_SUM else best, found)
