"""The in-memory graph at scale: how long ``build_graph`` takes on a store of N relations and how many bytes the
graph holds per relation (the relation columns and their adjacency; no Python object is kept per relation).

The store is synthetic, written with bulk inserts straight into its tables (through ingest it would measure
spaCy and the encoder): ~0.3 entities per relation, one sentence per two relations in documents of 20
sentences, each sentence naming three entities (the first two joined by a relation, the last two by
another), a few relation types, random unit vectors for entities and sentences.

    python -m lab.bench_graph [--relations N] [--store PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from graphrag.language.encoding import DIM
from graphrag.store import UnsupportedStore, sqlite_file

PER_DOC = 20


def synthetic_store(path: Path, n_relations: int, seed: int = 0) -> dict[str, int]:
    """Write a store of ``n_relations`` relations at ``path``; the sizes it holds."""
    from graphrag.store import Store, now

    rng = np.random.default_rng(seed)
    n_sent = max(1, n_relations // 2)
    n_ent = max(3, int(n_relations * 0.3))
    n_docs = (n_sent + PER_DOC - 1) // PER_DOC
    named = rng.integers(n_ent, size=(n_sent, 3))
    with Store(path) as store, store.transaction() as db:
        db.executemany("INSERT INTO documents VALUES (?,?,?,?,?,?,?,?,0,'ok','bench',?)",
                       [(f"d{d}", 1, f"Doc {d}", None, '["public"]', "h", "", None, now()) for d in range(n_docs)])
        for lo in range(0, n_sent, 50_000):  # vectors a chunk at a time: bounded memory while writing
            hi = min(n_sent, lo + 50_000)
            vec = _unit(rng, hi - lo)
            db.executemany("INSERT INTO sentences VALUES (?,?,?,0,1,'s',?)",
                           ((f"d{s // PER_DOC}", 1, s % PER_DOC, vec[s - lo].tobytes()) for s in range(lo, hi)))
        for lo in range(0, n_ent, 50_000):
            hi = min(n_ent, lo + 50_000)
            vec = _unit(rng, hi - lo)
            db.executemany("INSERT INTO entities VALUES (?,?,'concept',?)",
                           ((f"e{e}", f"Entity {e}", vec[e - lo].tobytes()) for e in range(lo, hi)))
        db.executemany("INSERT INTO mentions (entity_key, doc_id, version, sentence_idx, description, extractor)"
                       " VALUES (?,?,1,?,'','bench')",
                       ((f"e{e}", f"d{s // PER_DOC}", s % PER_DOC) for s, row in enumerate(named.tolist())
                        for e in row))
        types = [f"r{t}" for t in rng.integers(7, size=n_relations).tolist()]
        db.executemany("INSERT INTO relations (source_key, target_key, type, description, doc_id, version,"
                       " sentence_idx, extractor) VALUES (?,?,?,'',?,1,?,'bench')",
                       ((f"e{named[r // 2, r % 2]}", f"e{named[r // 2, r % 2 + 1]}", types[r], f"d{r // 2 // PER_DOC}",
                         r // 2 % PER_DOC) for r in range(n_relations)))
        db.execute("UPDATE meta SET value=CAST(value AS INTEGER)+1 WHERE key='generation'")
    return {"relations": n_relations, "entities": n_ent, "sentences": n_sent, "mentions": 3 * n_sent,
            "documents": n_docs}


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    vec = rng.standard_normal((n, DIM)).astype(np.float32)
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    return vec


def measure(path: Path) -> dict[str, object]:
    """Build the graph of the store at ``path`` once; its size and how long it took."""
    from graphrag.answer.retrieval.load import build_graph
    from graphrag.store import Store

    with Store(path) as store:
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        graph = build_graph(store)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = len(graph.edges)
    return {
        "relations": n, "entities": len(graph.keys), "sentences": graph.n_sentences,
        "mentions": len(graph.mentions.entity),
        # the relation columns and both adjacencies; the relation types are one short shared list
        "bytes_per_relation": round(graph.edges.nbytes / max(n, 1), 1),
        "python_objects_per_relation": 0,
        "relation_types": len(graph.edges.types),
        "build_seconds": round(seconds, 2),
        "build_cpu_seconds": round(cpu, 2),  # the process's own CPU time (on a busy machine, below the wall time)
    }


def _sqlite_file(value: str) -> Path:
    try:
        return sqlite_file(value)
    except UnsupportedStore as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    """Write the store (unless ``--store`` names one already written), build its graph, print the figures."""
    ap = argparse.ArgumentParser(prog="python -m lab.bench_graph", description=__doc__.split("\n\n")[0])
    ap.add_argument("--relations", type=int, default=1_000_000)
    ap.add_argument("--store", type=_sqlite_file, metavar="PATH",
                    help="keep the SQLite store at this path (reused when it exists)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.store or Path(tmp) / "graph.db"
        written: dict[str, object] = {}
        if not path.exists():
            t0 = time.perf_counter()
            synthetic_store(path, args.relations)
            written["store_written_seconds"] = round(time.perf_counter() - t0, 2)
        print(json.dumps({**measure(path), **written}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
