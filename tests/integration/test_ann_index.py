"""The nearest-neighbour index (graphrag.answer.retrieval.index): recall against an exact scan on clustered
vectors, rows added later answering as a fresh build does, and an access filter that never lets a hidden row out,
even when every near neighbour is hidden."""

from __future__ import annotations

import numpy as np
import pytest

from graphrag.answer.retrieval import index as ann

# heavy (builds faiss indexes over thousands of vectors): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]

DIM = 384


def clustered(n: int, centres: int, seed: int = 0, noise: float = 1.5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centres, DIM)).astype(np.float32)
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    out = c[rng.integers(0, centres, n)] + rng.standard_normal((n, DIM)).astype(np.float32) * (noise / np.sqrt(DIM))
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out.astype(np.float32)


def exact(vectors: np.ndarray, q: np.ndarray, k: int, visible: np.ndarray | None = None) -> list[int]:
    sims = vectors @ q
    if visible is not None:
        sims = np.where(visible, sims, -np.inf)
    return [int(i) for i in np.argsort(-sims, kind="stable")[:k] if np.isfinite(sims[i])]


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    return clustered(20_100, 100)  # 20,000 rows and 100 queries drawn the same way


def test_recall_at_10_against_an_exact_scan(data: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    vectors, queries = data[:20_000], data[20_000:]
    index = ann.VectorIndex.build(vectors)
    assert index.index.nlist == ann.lists_for(20_000) > ann.NPROBE  # the search probes only some of the lists
    monkeypatch.setattr(ann, "EXACT_SUBSET", 0)
    recall = []
    for q in queries:
        rows, sims = ann.nearest(vectors, q, 100, 20_000, None, index)
        assert np.all(np.diff(sims) <= 0) and np.allclose(sims, vectors[rows] @ q, atol=1e-5)  # exact, best first
        recall.append(len(set(rows[:10].tolist()) & set(exact(vectors, q, 10))) / 10)
    assert np.mean(recall) >= 0.95


def test_rows_added_later_answer_as_a_fresh_build(data: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    vectors, queries = data[:20_000], data[20_000:]
    monkeypatch.setattr(ann, "EXACT_SUBSET", 0)
    fresh = ann.VectorIndex.build(vectors)
    # the same trained lists, filled in two ingests: the same answers, to the bit
    grown = ann.VectorIndex(ann._faiss().clone_index(fresh.index), 0)
    grown.index.reset()
    grown.add(vectors[:12_000], 0)
    grown.add(vectors, 12_000)  # a later graph: the same matrix, more rows
    assert grown.rows == grown.index.ntotal == 20_000
    with pytest.raises(ValueError):
        grown.add(vectors, 5)
    for q in queries[:30]:
        a = ann.nearest(vectors, q, 50, 20_000, None, fresh)
        b = ann.nearest(vectors, q, 50, 20_000, None, grown)
        assert a[0].tolist() == b[0].tolist() and np.array_equal(a[1], b[1])
    # lists trained on the first ingest's rows only still find the rows added after it
    later = ann.VectorIndex.build(vectors[:12_000])
    later.add(vectors, 12_000)
    recall = [len(set(ann.nearest(vectors, q, 100, 20_000, None, later)[0][:10].tolist()) & set(exact(vectors, q, 10)))
              / 10 for q in queries]
    assert np.mean(recall) >= 0.95
    # a graph of 12,000 rows sharing the grown index never gets a row it does not hold
    for q in queries[:10]:
        rows, _ = ann.nearest(vectors, q, 50, 12_000, None, grown)
        assert rows.max() < 12_000 and len(rows) == 50


def test_the_filter_never_returns_a_hidden_row(data: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    vectors, queries = data[:20_000], data[20_000:]
    index = ann.VectorIndex.build(vectors)
    monkeypatch.setattr(ann, "EXACT_SUBSET", 0)  # the index's own filter, not the exact scan of few rows
    q = queries[0]
    near = exact(vectors, q, 2_000)
    visible = np.ones(20_000, dtype=bool)
    visible[near] = False  # every near neighbour hidden: the probed lists hold few visible rows
    rows, sims = ann.nearest(vectors, q, 100, 20_000, visible, index)
    assert len(rows) == 100 and visible[rows].all()
    assert np.allclose(sims, vectors[rows] @ q, atol=1e-5)
    # a handful visible, far away: all found, through more lists or the exact scan
    few = np.zeros(20_000, dtype=bool)
    few[near[-5:]] = True
    rows, _ = ann.nearest(vectors, q, 100, 20_000, few, index)
    assert sorted(rows.tolist()) == sorted(near[-5:])
    monkeypatch.setattr(ann, "EXACT_SUBSET", 20_000)
    rows, _ = ann.nearest(vectors, q, 100, 20_000, few, index)
    assert sorted(rows.tolist()) == sorted(near[-5:])
    none = np.zeros(20_000, dtype=bool)
    assert len(ann.nearest(vectors, q, 100, 20_000, none, index)[0]) == 0


def test_without_an_index_nearest_is_the_exact_top(data: np.ndarray) -> None:
    vectors, q = data[:5_000], data[20_000]
    visible = np.arange(5_000) % 3 != 0
    rows, _ = ann.nearest(vectors, q, 20, 5_000, visible, None)
    assert rows.tolist() == exact(vectors, q, 20, visible)
    rows, _ = ann.nearest(vectors, q, 20, 5_000, None, None)
    assert rows.tolist() == exact(vectors, q, 20)
