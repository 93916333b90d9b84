"""The relations held as arrays: the NetworkX view (``KnowledgeGraph.graph``) and ``relations_at`` give what
they gave when the relations were a NetworkX multigraph (with the added ones in adjacency dicts beside it), and
extending a graph leaves the earlier one as it was."""

from __future__ import annotations

import numpy as np
import pytest

from graphrag.answer.retrieval.edges import Edges
from graphrag.answer.retrieval.records import DocVersion
from graphrag.answer.retrieval.walk import relevance_walk
from random_graphs import Random, random_asks, random_graph
from walk_oracle import multigraph

pytestmark = pytest.mark.unit


KEYS = ["a", "b", "c", "x", "z"]
# id, source, target, type, doc, row: a parallel pair (1, 6) and one the other way (7), ids not in load order
RELATIONS = [(1, "a", "b", "owns", 0, 0), (2, "b", "x", "runs", 0, 1), (3, "a", "x", "near", 0, 2),
             (4, "x", "z", "hides", 1, 4), (9, "c", "a", "feeds", 0, 5), (6, "a", "b", "sells", 0, 3),
             (7, "b", "a", "owns", 0, 3)]


def small_graph():  # type: ignore[no-untyped-def]
    docs = [DocVersion("open", 1, frozenset({"public"}), False, "Open", None),
            DocVersion("secret", 1, frozenset({"internal"}), False, "Secret", None)]
    return Random(KEYS, docs, np.array([0, 0, 0, 0, 1, 0]), np.array([0, 1, 2, 3, 0, 4]), [(0, 0), (1, 0)],
                  RELATIONS).graph()


def _edges(g) -> list[tuple[str, str, int, dict[str, object]]]:  # type: ignore[no-untyped-def]
    return list(g.edges(keys=True, data=True))


def test_the_networkx_view_and_relations_at_are_as_before() -> None:
    kg = small_graph()
    old = multigraph(KEYS, RELATIONS)
    assert list(kg.graph.nodes) == KEYS
    assert _edges(kg.graph) == _edges(old)
    assert [(n, dict(p)) for n, p in kg.graph.pred.items()] == [(n, dict(p)) for n, p in old.pred.items()]
    out = [("a", "b", 1, {"type": "owns", "doc": 0, "row": 0}), ("a", "b", 6, {"type": "sells", "doc": 0, "row": 3}),
           ("a", "x", 3, {"type": "near", "doc": 0, "row": 2})]
    assert list(kg.relations_at("a")) == [*out, ("c", "a", 9, {"type": "feeds", "doc": 0, "row": 5}),
                                          ("b", "a", 7, {"type": "owns", "doc": 0, "row": 3})]
    assert list(kg.relations_at("a", incoming=False)) == out
    assert list(kg.relations_at("z")) == [("x", "z", 4, {"type": "hides", "doc": 1, "row": 4})]
    assert list(kg.relations_at("nobody")) == []


def _old_relations_at(base, added, key: str, incoming: bool):  # type: ignore[no-untyped-def]
    """``relations_at`` as it was: the first load's multigraph, then the added adjacency (the same shape as a
    multigraph of the added relations alone), out-edges of both before in-edges."""
    for pred in (False, True) if incoming else (False,):
        for g in (base, added):
            adj = g.pred if pred else g.succ
            if key not in adj:
                continue
            for nbr, edges in adj[key].items():
                for rel_id, attrs in edges.items():
                    yield (nbr, key, rel_id, attrs) if pred else (key, nbr, rel_id, attrs)


@pytest.mark.parametrize("seed", range(3))
def test_an_extended_graph_lists_its_relations_as_before_and_leaves_the_earlier_one_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n_keys=18, n_rels=50)
    index = {k: i for i, k in enumerate(g.keys)}
    first = 12
    old = [r for r in g.relations if index[r[1]] < first and index[r[2]] < first][:25]
    rest = [r for r in g.relations if r not in old]
    base = Edges.of({k: i for i, k in enumerate(g.keys[:first])}, old)
    earlier = g.graph(base)
    columns = [np.copy(getattr(base.base, c)) for c in ("id", "src", "dst", "type", "doc", "row")]
    asks = random_asks(rng, g, 10)
    for ask in asks:
        ask["seeds"] = [s for s in ask["seeds"] if index.get(s, first) < first]  # type: ignore[attr-defined]
    before = [relevance_walk(earlier, **ask) for ask in asks]  # type: ignore[arg-type]
    view = _edges(earlier.graph)

    mid = base.with_added(index, rest[:10])
    later = g.graph(mid.with_added(index, rest[10:]))
    assert (len(earlier.edges), earlier.edges.added, len(later.edges), later.edges.added) == (
        len(old), 0, len(old) + len(rest), len(rest))
    assert mid.added == 10 and len(mid) == len(old) + 10
    for c, want in zip(("id", "src", "dst", "type", "doc", "row"), columns):
        assert (getattr(earlier.edges.base, c) == want).all()
    assert [relevance_walk(earlier, **ask) for ask in asks] == before  # type: ignore[arg-type]
    assert _edges(earlier.graph) == view

    old_base, old_added = multigraph([], old), multigraph([], rest)
    for key in g.keys:
        for incoming in (True, False):
            assert list(later.relations_at(key, incoming=incoming)) == list(
                _old_relations_at(old_base, old_added, key, incoming))
    full = multigraph(g.keys, old + rest)
    assert list(later.graph.nodes) == g.keys  # every entity, those without a relation too
    assert sorted(_edges(later.graph), key=repr) == sorted(_edges(full), key=repr)
