"""The walk over the relation arrays against the oracle (the walk as it was over a NetworkX multigraph,
tests/support/walk_oracle.py) on random graphs full of ties: equal row weights, equal node weights, equal seed
scores, parallel relations, self-loops, an entity named twice in one sentence, invisible documents; and on a
graph extended with relations (and entities) after its first load. Also the hook that lets a caller fill row
weights lazily."""

from __future__ import annotations

import numpy as np
import pytest

from graphrag.answer.retrieval.edges import Edges
from graphrag.answer.retrieval.walk import reach, relevance_walk
from random_graphs import random_asks, random_graph
from walk_oracle import multigraph, oracle_reach, oracle_walk

pytestmark = pytest.mark.unit

def _same(got, want) -> None:
    assert list(got.routes.items()) == list(want.routes.items())  # settle order too
    assert list(got.scores.items()) == list(want.scores.items())


@pytest.mark.parametrize("seed", range(6))
def test_the_walk_over_arrays_is_the_walk_over_a_multigraph(seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = random_graph(rng)
    kg, nxg = g.graph(), multigraph(g.keys, g.relations)
    asks = random_asks(rng, g, 40)
    stepped = crossed = 0
    for ask in asks:
        seeds = ask.pop("seeds")
        hops, direction, visible = ask.pop("hops"), ask.pop("direction"), ask.pop("visible_docs")
        got = relevance_walk(kg, seeds, hops, direction, visible, **ask)
        _same(got, oracle_walk(nxg, kg, seeds, hops, direction, visible, **ask))
        stepped += sum(len(r.steps) for r in got.routes.values())
        reached, want = reach(kg, got, visible), oracle_reach(kg, got, visible)
        assert reached.rows == want.rows  # the same route and "via" per row
        assert sorted(reached.beyond().tolist()) == sorted(want.beyond().tolist())
        assert np.array_equal(reached.strength, want.strength)  # float32 sums in the same order: equal bits
        crossed += sum(1 for route, via in reached.rows.values() if via != "mention")
    assert stepped > 40, "the random graphs give walks that go somewhere"
    assert crossed > 5, "some sentences are reached as a step's sentence, not only by naming an entity"


@pytest.mark.parametrize("seed", range(4))
def test_the_walk_on_an_extended_graph_is_the_walk_on_all_its_relations(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    g = random_graph(rng, n_keys=20, n_rels=60)
    first_keys = 14  # entities past these come with the additions (the extended graph's new entities)
    index = {k: i for i, k in enumerate(g.keys)}
    old = [r for r in g.relations if index[r[1]] < first_keys and index[r[2]] < first_keys][:30]
    rest = [r for r in g.relations if r not in old]
    base = Edges.of({k: i for i, k in enumerate(g.keys[:first_keys])}, old)
    half = len(rest) // 2
    edges = base.with_added(index, rest[:half]).with_added(index, rest[half:])
    assert (edges.base_count, edges.added) == (len(old), len(rest))
    kg = g.graph(edges)
    nxg = multigraph(g.keys, old + rest)
    for ask in random_asks(rng, g, 30):
        seeds = ask.pop("seeds")
        hops, direction, visible = ask.pop("hops"), ask.pop("direction"), ask.pop("visible_docs")
        _same(relevance_walk(kg, seeds, hops, direction, visible, **ask),
              oracle_walk(nxg, kg, seeds, hops, direction, visible, **ask))


class LazyWeights(np.ndarray):
    """Row weights that may be read only at rows a caller prepared, and only by integer index."""

    ready: set[int]

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        at = np.asarray(i)
        assert at.dtype.kind in "iu", "row weights are read at integer indices"
        missing = set(np.atleast_1d(at).tolist()) - self.ready
        assert not missing, f"rows read before they were prepared: {sorted(missing)}"
        return np.asarray(super().__getitem__(i))


def _filler(lazy: LazyWeights, weights: np.ndarray, calls: list[np.ndarray]):  # type: ignore[no-untyped-def]
    def prepare(rows: np.ndarray) -> None:
        calls.append(rows)
        lazy.ready |= set(rows.tolist())
        np.asarray(lazy)[rows] = weights[rows]  # filled in place, as a lazy scorer would

    return prepare


def test_rows_are_prepared_before_their_weights_are_read() -> None:
    rng = np.random.default_rng(7)
    g = random_graph(rng)
    kg = g.graph()
    for ask in random_asks(rng, g, 30):
        weights = ask.pop("row_weight")
        if weights is None:
            continue
        lazy = np.full(len(weights), -1.0, dtype=np.float32).view(LazyWeights)
        lazy.ready = set()
        calls: list[np.ndarray] = []
        prepare = _filler(lazy, weights, calls)
        seeds = ask.pop("seeds")
        hops, direction, visible = ask.pop("hops"), ask.pop("direction"), ask.pop("visible_docs")
        got = relevance_walk(kg, seeds, hops, direction, visible, row_weight=lazy, prepare_rows=prepare, **ask)
        _same(got, relevance_walk(kg, seeds, hops, direction, visible, row_weight=weights, **ask))
        expanded = sum(1 for r in got.routes.values() if r.depth < hops)
        assert len(calls) == expanded, "one call per entity expanded"
