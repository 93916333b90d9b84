"""``python -m lab.bench_index``: the nearest-neighbour index (graphrag.answer.retrieval.index) at a million rows.

Synthetic 384-d unit vectors drawn around ``--centres`` topic centres (each row its centre plus Gaussian noise of
``--noise`` times a unit vector's length, so a row's nearest neighbours are other rows of its topic, not copies).
The queries are ``--queries`` further rows drawn the same way. Printed as JSON: the build (training and adding
every row, seconds), recall@10 of the index's answer (its ``nearest``: candidates re-scored exactly) against an
exact scan, query latency (p50 and p95 ms, one query at a time, without and with an access filter hiding half the
rows), the exact scan's p50 for comparison, and the index's size (its file, which is what it holds in memory).

``--retrieval`` measures instead what retrieval does per question on a graph of those rows (no store: no context
items are read): a synthetic ``KnowledgeGraph`` whose rows each name two of ``--entities`` entities of their topic,
with 200,000 relations, half its documents hidden from the asker. Printed: the indexes' build (both), and p50 ms of
the question's scores (the index's candidates), the similarity seeds (entity index, relevance of the candidates),
the walk (rows scored as it reads them) and the reach (its rows scored), against the exact scores of every row.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.retrieval import index as ann

K = 10
CANDIDATES = 300  # as retrieval asks (graphrag.answer.retrieval.scores.CANDIDATES)


def clustered(n: int, dim: int, centres: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` unit rows around ``centres`` random unit centres, and the centre of each row."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centres, dim), dtype=np.float32)
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    topic = rng.integers(0, centres, n)
    out = np.empty((n, dim), dtype=np.float32)
    for i in range(0, n, 100_000):  # in parts: the noise of a million rows at once is another 1.5 GB
        part = rng.standard_normal((min(100_000, n - i), dim), dtype=np.float32) * (noise / np.sqrt(dim))
        part += c[topic[i:i + len(part)]]
        part /= np.linalg.norm(part, axis=1, keepdims=True)
        out[i:i + len(part)] = part
    return out, topic


def exact_top(vectors: np.ndarray, q: np.ndarray, k: int, visible: np.ndarray | None = None) -> np.ndarray:
    """The exact top ``k`` rows (an einsum scan, as retrieval's exact path)."""
    sims = np.einsum("ij,j->i", vectors, q)
    if visible is not None:
        sims = np.where(visible, sims, -np.inf)
    top = np.argpartition(-sims, k)[:k]
    return top[np.argsort(-sims[top])]


def _ms(times: list[float], q: float) -> float:
    return round(1000 * float(np.quantile(times, q)), 2)


def run(n: int, dim: int, centres: int, noise: float, queries: int, seed: int) -> dict[str, Any]:
    """Build the index over ``n`` rows and measure it (see the module's docstring)."""
    data, _ = clustered(n + queries, dim, centres, noise, seed)
    vectors, qs = data[:n], data[n:]
    t0 = time.perf_counter()
    index = ann.VectorIndex.build(vectors)
    build_s = time.perf_counter() - t0
    half = np.random.default_rng(seed + 1).random(n) < 0.5
    recalls, filtered_recalls, times, filtered_times, exact_times = [], [], [], [], []
    for q in qs:
        t = time.perf_counter()
        rows, _ = ann.nearest(vectors, q, CANDIDATES, n, None, index)
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        truth = exact_top(vectors, q, K)
        exact_times.append(time.perf_counter() - t)
        recalls.append(len(set(rows[:K].tolist()) & set(truth.tolist())) / K)
        t = time.perf_counter()
        rows, _ = ann.nearest(vectors, q, CANDIDATES, n, half, index)
        filtered_times.append(time.perf_counter() - t)
        assert half[rows].all(), "a filtered search returned a hidden row"
        filtered_recalls.append(len(set(rows[:K].tolist()) & set(exact_top(vectors, q, K, half).tolist())) / K)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.faiss"
        ann.write(index, path)
        size = path.stat().st_size
    return {
        "rows": n, "dim": dim, "centres": centres, "noise": noise, "queries": queries,
        "lists": index.index.nlist, "nprobe": ann.NPROBE, "candidates": CANDIDATES,
        "build_s": round(build_s, 1),
        "recall_at_10": round(statistics.mean(recalls), 4),
        "recall_at_10_min": round(min(recalls), 2),
        "recall_at_10_half_visible": round(statistics.mean(filtered_recalls), 4),
        "query_p50_ms": _ms(times, 0.5), "query_p95_ms": _ms(times, 0.95),
        "query_half_visible_p50_ms": _ms(filtered_times, 0.5),
        "exact_scan_p50_ms": _ms(exact_times, 0.5),
        "index_mb": round(size / 2**20, 1),
        "vectors_mb": round(vectors.nbytes / 2**20, 1),
    }


def retrieval_run(n: int, dim: int, centres: int, noise: float, queries: int, seed: int, entities: int
                  ) -> dict[str, Any]:
    """Per-question retrieval steps on a synthetic indexed graph (see the module's docstring)."""
    from graphrag.answer.retrieval import indexed, scores, seeds, walk
    from graphrag.answer.retrieval.graph import KnowledgeGraph
    from graphrag.answer.retrieval.records import DocVersion
    from graphrag.answer.retrieval.retrieve import SPECIFICITY_POWER

    data, topic = clustered(n + queries, dim, centres, noise, seed)
    names, _ = clustered(entities, dim, centres, 1.0, seed + 2)
    rng = np.random.default_rng(seed + 1)
    band = max(1, entities // centres)  # the entities of a topic
    m_ent = (topic[:n].repeat(2) * band + rng.integers(0, band, 2 * n)) % entities
    n_docs = max(1, n // 50)
    docs = [DocVersion(f"d{i}", 1, frozenset({"public" if i % 2 else "internal"}), False, f"D{i}", None)
            for i in range(n_docs)]
    s_doc = np.sort(rng.integers(0, n_docs, n))
    rels = [(i, f"e{m_ent[2 * r]}", f"e{m_ent[2 * r + 1]}", "rel", int(s_doc[r]), int(r))
            for i, r in enumerate(rng.integers(0, n, 200_000).tolist())]
    g = KnowledgeGraph([f"e{i}" for i in range(entities)], [f"E{i}" for i in range(entities)], names, docs, m_ent,
                       np.repeat(np.arange(n), 2), s_doc, np.arange(n) - np.searchsorted(s_doc, s_doc), data[:n], rels)
    t = time.perf_counter()
    indexed.attach(g)
    build_s = time.perf_counter() - t
    visible_docs, visible_entities = g.visibility(["public"])
    rows = g.visible_rows(["public"])
    spec = g.specificity ** SPECIFICITY_POWER
    steps: dict[str, list[float]] = {"scores": [], "seeds": [], "walk": [], "reach": [], "exact_scores": []}
    scored_rows = []
    for q in data[n:]:
        t0 = time.perf_counter()
        s = scores.QuestionScores(g, q, rows)
        t1 = time.perf_counter()
        found = seeds.find_seeds(g, s.entity_relevance(visible_entities), 3, visible_entities)
        t2 = time.perf_counter()
        w = walk.relevance_walk(g, [x.entity for x in found], 2, "both", visible_docs,
                                seed_scores={x.entity: 1.0 for x in found}, row_weight=s.step_weight,
                                node_weight=spec, comention=True, prepare_rows=s.prepare)
        t3 = time.perf_counter()
        r = walk.reach(g, w, visible_docs)
        s.prepare(np.fromiter(r.rows, dtype=np.int64, count=len(r.rows)))
        t4 = time.perf_counter()
        for k, v in zip(("scores", "seeds", "walk", "reach"), (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            steps[k].append(v)
        scored_rows.append(int(s.done.sum()))
        held, g.indexes = g.indexes, None
        t = time.perf_counter()
        scores.QuestionScores(g, q, rows)
        steps["exact_scores"].append(time.perf_counter() - t)
        g.indexes = held
    return {"rows": n, "entities": entities, "queries": queries, "indexes_build_s": round(build_s, 1),
            **{f"{k}_p50_ms": _ms(v, 0.5) for k, v in steps.items()},
            "rows_scored_p50": int(np.median(scored_rows))}


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run, print JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--centres", type=int, default=2_000)
    p.add_argument("--noise", type=float, default=1.5)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--retrieval", action="store_true", help="per-question retrieval steps on a synthetic graph")
    p.add_argument("--entities", type=int, default=200_000)
    a = p.parse_args(argv)
    if a.retrieval:
        out = retrieval_run(a.n, a.dim, a.centres, a.noise, a.queries, a.seed, a.entities)
    else:
        out = run(a.n, a.dim, a.centres, a.noise, a.queries, a.seed)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
