"""The relevance walk on a small hand-built graph: which entities it reaches, at what depth, by which route, in
what order and how strongly; and what that makes of each sentence (the ``Reach``). Pinned so a refactor of the
walk shows any change in what retrieval finds."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import DocVersion, Frontier
from graphrag.answer.retrieval.walk import reach, relevance_walk
from graphrag.language.encoding import DIM
from graphrag.model import COMENTION, RouteStart

pytestmark = pytest.mark.unit

KEYS = ["a", "b", "c", "x", "y", "z"]
# sentence rows: (document, index, entities named, weight = how relevant the sentence is to the question)
ROWS = [
    (0, 0, "ab", 0.9),  # a -> b
    (0, 1, "", 0.9),  # b -> x, a sentence naming neither (so it is reached only as the step's sentence)
    (0, 2, "ax", 0.1),  # a -> x, directly but weakly
    (0, 3, "ay", 0.5),  # a and y named together, no relation
    (1, 0, "xz", 1.0),  # x -> z, in a document the asker may not see
    (0, 4, "ca", 0.4),  # c -> a
]
RELATIONS = [(1, "a", "b", "owns", 0, 0), (2, "b", "x", "runs", 0, 1), (3, "a", "x", "near", 0, 2),
             (4, "x", "z", "hides", 1, 4), (5, "c", "a", "feeds", 0, 5)]


def small_graph() -> KnowledgeGraph:
    docs = [DocVersion("open", 1, frozenset({"public"}), False, "Open", None),
            DocVersion("secret", 1, frozenset({"internal"}), False, "Secret", None)]
    mentions = [(KEYS.index(e), r) for r, (_, _, named, _) in enumerate(ROWS) for e in named]
    return KnowledgeGraph(KEYS, KEYS, np.zeros((len(KEYS), DIM), dtype=np.float32), docs,
                          np.array([e for e, _ in mentions]), np.array([r for _, r in mentions]),
                          np.array([d for d, *_ in ROWS]), np.array([i for _, i, *_ in ROWS]),
                          np.zeros((len(ROWS), DIM), dtype=np.float32), RELATIONS)


def walk_from_a(graph: KnowledgeGraph, hops: int = 2, visible: tuple[bool, bool] = (True, False)):
    weights = np.array([w for *_, w in ROWS], dtype=np.float32)
    return relevance_walk(graph, ["a"], hops, "both", np.array(visible), seed_scores={"a": 1.0},
                          row_weight=weights, node_weight=np.ones(len(KEYS), dtype=np.float32), comention=True)


def test_the_walk_takes_the_strongest_route_in_strength_order_within_its_hops() -> None:
    g = small_graph()
    w = walk_from_a(g)
    # settled strongest first: b (0.9), x through b (0.81), y by co-mention (0.5), c against its relation (0.4)
    assert list(w.routes) == ["a", "b", "x", "y", "c"]
    assert {k: r.depth for k, r in w.routes.items()} == {"a": 0, "b": 1, "x": 2, "y": 1, "c": 1}
    assert w.scores == pytest.approx({"a": 1.0, "b": 0.9, "x": 0.81, "y": 0.5, "c": 0.4})
    # x by the two strong steps, not the weak direct relation (0.1)
    x = w.routes["x"]
    assert [(s.relation_id, s.relation_type, s.entity, s.forward, s.sentence_index) for s in x.steps] == [
        (1, "owns", "b", True, 0), (2, "runs", "x", True, 1)]
    assert all(s.document_id == "open" and s.version == 1 for s in x.steps)
    y, c = w.routes["y"].steps[0], w.routes["c"].steps[0]
    assert (y.relation_id, y.relation_type, y.forward, y.sentence_index) == (None, COMENTION, True, 3)
    assert (c.relation_id, c.entity, c.forward) == (5, "c", False)
    assert all(r.seed == "a" and r.start is RouteStart.QUESTION for r in w.routes.values())
    # z is two steps on from x, through a document the asker may not see: never reached
    assert "z" not in walk_from_a(g, hops=3).routes
    seen_all = walk_from_a(g, hops=3, visible=(True, True))
    assert seen_all.routes["z"].depth == 3 and seen_all.scores["z"] == pytest.approx(0.81)
    # hops bound the depth: at 1, x comes by the weak direct relation
    one = walk_from_a(g, hops=1)
    assert one.routes["x"].depth == 1 and one.scores["x"] == pytest.approx(0.1)
    # the graph's method is the same walk
    assert relevance_walk(g, ["a"], 2, "both", np.array([True, False]), seed_scores={"a": 1.0},
                            row_weight=np.array([r[3] for r in ROWS], dtype=np.float32),
                            node_weight=np.ones(len(KEYS), dtype=np.float32), comention=True) == w


def test_the_reach_gives_each_sentence_its_strength_and_route() -> None:
    g = small_graph()
    got = reach(g, walk_from_a(g), np.array([True, False]))
    # a sentence naming reached entities is worth their sum; one stating a step at least that step's strength
    assert got.strength.tolist() == pytest.approx([1.9, 0.81, 1.81, 1.5, 0.0, 1.4])
    assert {r: (hit.route.end, hit.via, hit.depth) for r in got.rows if (hit := got.route(r))} == {
        0: ("a", "mention", 0), 2: ("a", "mention", 0), 3: ("a", "mention", 0), 5: ("a", "mention", 0),
        1: ("x", "relation", 2)}
    assert got.beyond().tolist() == [1]
    assert got.seed_of(1) == "a" and got.seed_of(4) == "" and got.route(4) is None


def test_the_frontier_orders_strongest_then_shallowest_then_by_key() -> None:
    heap: list[Frontier] = []
    for f in (Frontier(-0.5, 1, "b", ("a", 0, 1, 0), None), Frontier(-0.9, 2, "z", ("a", 0, 2, 1), None),
              Frontier(-0.5, 1, "a", ("c", 1, -1, 3), None), Frontier(-0.5, 0, "c", ("", 0, -1, -1), None)):
        heapq.heappush(heap, f)
    assert [heapq.heappop(heap).entity for _ in range(4)] == ["z", "c", "a", "b"]
