"""``graphrag bench reader``: what the reader costs on a real store.

For each question (the sample corpus's written-down questions by default, or a panel's JSON ``questions``), the
context is retrieved with 24 candidates (``max_context=24``) and ``Reader.read`` is timed on it (the answer scorer
when one ships, each candidate read with its neighbours and title, the features, the abstention decision and, when it
answers, the second view from the stored vectors); then the whole ``ask`` (default settings) is timed.
Prints p50/p95 of both in ms, and whether a scorer was loaded. The asks run on a copy of the SQLite store, so the
store named keeps no unaudited benchmark answers; a PostgreSQL store is refused (copy it into SQLite first).
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from graphrag.answer.ask import Asker
from graphrag.errors import InputError
from graphrag.model import AskSettings
from graphrag.store import Store
from graphrag.store.url import parse_store
from lab import lab_config

SAMPLE_QUESTIONS = Path(__file__).parent / "evaluate" / "sample_questions.json"
CANDIDATES = 24


def _questions(path: Path, limit: int) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data["questions"] if isinstance(data, dict) else data
    return [r["question"] for r in rows][:limit]


def _pct(xs: list[float], p: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def bench_reader(store: str, questions: str | None = None, limit: int = 50) -> int:
    """Time the reader on 24 retrieved candidates and the whole ask, per question; print JSON figures."""
    qs = _questions(Path(questions) if questions else SAMPLE_QUESTIONS, limit)
    where = parse_store(store)
    if where.kind != "sqlite" or where.path is None:
        raise InputError("bench reader asks on a copy of a SQLite store, so that no benchmark answer is kept "
                         "unaudited: copy the PostgreSQL store into SQLite first (graphrag store migrate)")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "bench.db"
        source, target = sqlite3.connect(where.path), sqlite3.connect(copy)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        return _bench(str(copy), where.display, qs)


def _bench(store: str, name: str, qs: list[str]) -> int:
    with Store(store) as s:
        asker = Asker(s, config=lab_config()).warm()
        settings = AskSettings()
        wide = replace(settings, max_context=CANDIDATES)
        asker.ask(qs[0], settings)  # the first ask loads what a process loads once
        reader_ms, ask_ms, sizes = [], [], []
        graph = asker.graph()
        for q in qs:
            context = asker.retrieve(q, wide).context
            t0 = time.perf_counter()
            asker.read(q, context, graph)
            reader_ms.append((time.perf_counter() - t0) * 1000)
            sizes.append(len(context))
            t0 = time.perf_counter()
            asker.ask(q, settings)
            ask_ms.append((time.perf_counter() - t0) * 1000)
    print(json.dumps({"store": name, "questions": len(qs), "candidates_p50": statistics.median(sizes),
                      "scorer": asker.reader.scorer.name if asker.reader.scorer is not None else None,
                      "second_view": asker.reader.second.name if asker.reader.second is not None else None,
                      "reader_p50_ms": round(statistics.median(reader_ms), 1),
                      "reader_p95_ms": round(_pct(reader_ms, 95), 1),
                      "ask_p50_ms": round(statistics.median(ask_ms), 1), "ask_p95_ms": round(_pct(ask_ms, 95), 1)},
                     indent=2))
    return 0
