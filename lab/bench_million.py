"""``graphrag bench million``: a million sentences and a million relations, and what a question costs there.

A synthetic store (``lab.million_store``) is written straight into the store's tables, then measured through
the product's public functions, so whatever replaces their insides is measured once merged: a full
``build_graph`` from the rows (a store's first start, and every start after a removal), the graph saved beside the
store and read back (``saved``: every other start; ``graph_load_s``); per question (a vector near a topic centre, naming one or two entities of that topic, asked
with the default "public" access, so other labels' documents are filtered out) ``retrieve_vector`` and then
what ``ask`` does with an extractive answer: its quotes of the first context items, markers and all, attributed
to the context's spans (``attribute``); the recall@10 of an approximate nearest-neighbour index over the
sentence vectors against the exact scan, when retrieval has one; the peak resident memory; and, on real MuSiQue
sentences, the ONNX encoder against sentence-transformers on torch (``lab.bench_encoder``).
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.store.url import StoreURL, parse_store
from lab.bench_scale import reset_peak, vm_hwm_mb
from lab.million_store import Layout, build, centres, entity_key, entity_name, matches

# The targets: (figure, comparison, bound).
# peak_rss_mb: over graph load, asks and community detection
TARGETS = (("ask_p50_ms", "<=", 50.0), ("peak_rss_mb", "<=", 6000.0), ("ann_recall_at_10", ">=", 0.95),
           ("graph_load_s", "<=", 10.0), ("encode_speedup", ">=", 1.8), ("embedding_cosine_min", ">=", 0.99))
QUESTION_NOISE = 0.8  # a question resembles its topic's sentences about as much as they resemble each other
ANN_K = 10
Question = tuple[np.ndarray, tuple[Any, ...]]  # (unit vector, anchors as Seeds)


def questions(layout: Layout, n: int, seed: int = 1) -> list[Question]:
    """``n`` questions: a vector near a random topic's centre, naming one or two of that topic's entities
    (one among its most named, one any), as the question's anchors."""
    from graphrag.language.encoding import DIM
    from graphrag.model import RouteStart, Seed

    rng = np.random.default_rng([layout.seed, seed])
    centre = centres(layout)
    out = []
    for _ in range(n):
        t = int(rng.integers(layout.topics))
        q = centre[t] + rng.standard_normal(DIM).astype(np.float32) * np.float32(QUESTION_NOISE / np.sqrt(DIM))
        ents = layout.entities_of_topic(t)
        named = [int(ents[int(rng.integers(min(5, len(ents))))])]
        if rng.random() < 0.5 and len(ents) > 1:
            named.append(int(ents[int(rng.integers(len(ents)))]))
        anchors = tuple(Seed(entity_key(e), 1.0, RouteStart.QUESTION, entity_name(e), "name")
                        for e in dict.fromkeys(named))
        out.append(((q / np.linalg.norm(q)).astype(np.float32), anchors))
    return out


def questions_seen(layout: Layout, n: int, labels_held: Sequence[str], seed: int = 2) -> list[Question]:
    """``n`` questions as ``questions`` draws them, each on a topic whose documents carry one of ``labels_held``
    (an asker asks about what they can see)."""
    from lab.million_store import labels

    seen = [t for t in range(layout.topics)
            if any(set(labels_held) & set(labels(int(d))) for d in range(t, layout.documents, layout.topics))]
    drawn: list[Question] = []
    centre = centres(layout)
    for qvec, anchors in questions(layout, n * max(1, layout.topics // max(1, len(seen))) * 4, seed):
        if int(np.argmax(centre @ qvec)) in seen:
            drawn.append((qvec, anchors))
        if len(drawn) == n:
            break
    return drawn


def extractive_answer(context: Sequence[Any], quotes: int = 3) -> str:
    """What the extractive generator's answer is made of: context sentences quoted, each with its marker."""
    return " ".join(f"{c.span.text.rstrip('.')} [{c.n}]." for c in context[:quotes])


def ask_latencies(store: Any, graph: Any, asked: Sequence[Question]) -> tuple[list[float], dict[str, Any]]:
    """Milliseconds per question for retrieval and attribution (the first question warms up, untimed), and
    what the answers drew on."""
    from graphrag.answer.retrieval import retrieve_vector
    from graphrag.model import AskSettings, RouteStart
    from graphrag.verify.attribution import attribute

    settings = AskSettings()
    retrieve_vector(store, graph, asked[0][0], settings, asked[0][1])
    ms, items, anchored, cited = [], [], 0, 0
    for qvec, anchors in asked:
        t = time.perf_counter()
        got = retrieve_vector(store, graph, qvec, settings, anchors)
        claims = attribute(extractive_answer(got.context), got.context)
        ms.append((time.perf_counter() - t) * 1000)
        items.append(len(got.context))
        anchored += got.seeding is RouteStart.QUESTION
        cited += sum(1 for c in claims for x in c.citations if x.valid)
    return ms, {"context_items_mean": round(statistics.mean(items), 1), "questions_anchored": anchored,
                "citations_resolved": cited, "access": list(settings.access)}


def attach_indexes(store: Any, graph: Any) -> dict[str, Any]:
    """Give ``graph`` its nearest-neighbour indexes as ``load_graph`` does (``indexed.attach``): built and written
    beside the store the first time, read back from the files afterwards; the seconds of each (the second is what
    a dashboard's start pays once the files exist). On a store whose database searches the vectors (pgvector)
    nothing is built or held: the figures are the database's index (built with the store) instead."""
    from graphrag.answer.retrieval.indexed import attach, folder
    from graphrag.store.vector_search import sizes

    t0 = time.perf_counter()
    attach(graph, store)
    first_s = time.perf_counter() - t0
    built = graph.indexes
    if built is not None and built.server_sentences is not None:
        size = store.database.read(sizes)
        return {"vector_search": "pgvector", "index_first_attach_s": round(first_s, 3), "index_built": False,
                "index_files_mb": 0.0, "index_rows": graph.n_sentences,
                "pgvector_index_mb": {k.removesuffix("_index_bytes"): round(v / 1e6, 1)
                                      for k, v in size.items() if k.endswith("_index_bytes")},
                "pgvector_table_mb": {k.removesuffix("_table_bytes"): round(v / 1e6, 1)
                                      for k, v in size.items() if k.endswith("_table_bytes")}}
    t0 = time.perf_counter()
    attach(graph, store)  # files now match this graph: read, not built
    reread_s = time.perf_counter() - t0
    sentences = graph.indexes.sentences if graph.indexes is not None else None
    files = sorted(folder(store).parent.glob(folder(store).name + ".*.faiss"))
    return {"vector_search": "faiss" if sentences is not None else "exact",
            "index_first_attach_s": round(first_s, 2), "index_reload_s": round(reread_s, 2),
            "index_built": built is not None and built.sentences is not None,
            "index_files_mb": round(sum(p.stat().st_size for p in files) / 1e6, 1),
            "index_rows": None if sentences is None else sentences.index.rows}


FILTER_LABELS = ("finance",)  # 11% of the synthetic documents (10% finance, 1% finance and legal)


ON_TOPIC = 0.5  # a question with a visible row at least this similar asks about something the asker can see


def ann_recall(graph: Any, asked: Sequence[Question], k: int = ANN_K,
               access: Sequence[str] | None = None) -> tuple[float | None, str]:
    """Recall@k of the sentence index's neighbours (the candidates retrieval asks for, re-scored exactly, as
    retrieval uses them) against the exact scan over every sentence row; None (and why) when the graph has no index
    (below ``index.EXACT_BELOW`` rows retrieval scans exactly). With ``access``, over the rows an asker holding
    those labels sees, the index asked with the same filter (never the exact fallback for a few visible rows), and
    only for the questions with a visible row on their topic (at least ``ON_TOPIC`` similar; ``questions_seen``
    draws them): elsewhere the nearest visible rows are off-topic noise, many within a rounding of each other,
    where recall measures ties."""
    from graphrag.answer.retrieval.index import EXACT_BELOW
    from graphrag.answer.retrieval.scores import CANDIDATES

    searcher = graph.indexes.searcher("sentences") if graph.indexes is not None else None
    if searcher is None:
        return None, f"no index: {graph.n_sentences:,} sentence rows, below {EXACT_BELOW:,} retrieval scans exactly"
    n, hits, counted = graph.n_sentences, 0, 0
    visible = graph.visible_rows(access) if access is not None else None
    for qvec, _ in asked:
        sims = graph.sentence_similarities(qvec)
        if visible is not None:
            sims = np.where(visible, sims, -np.inf)
        exact = np.argpartition(-sims, k)[:k]
        if visible is not None and float(sims[exact].max()) < ON_TOPIC:
            continue
        found = searcher.candidates(qvec, CANDIDATES, n, visible)  # as many as retrieval asks for
        got = found[np.argsort(-(graph.sentence_vectors[found] @ qvec))][:k]
        hits += len(set(got.tolist()) & set(exact.tolist()))
        counted += 1
    kind = "pgvector HNSW (halfvec, iterative scan)" if graph.indexes.server_sentences is not None else "faiss IVF"
    shown = (f", asker {list(access)} ({int(visible.sum()):,} rows), the {counted} of {len(asked)} questions with "
             f"a visible row on their topic") if access is not None and visible is not None else ""
    if not counted:
        return None, f"{kind}: no question{shown}"
    return hits / (k * counted), f"{kind} candidates re-scored exactly, against the exact scan{shown}"


def walk_vector_reads(store: Any, graph: Any, asked: Sequence[Question]) -> dict[str, Any]:
    """The vectors the walk scores per question (``QuestionScores.prepare``): how many rows, and what reading
    them costs from the graph's copy (mapped from the saved graph, or in memory) against a read from the
    database (one query per question, the rows' float32 vectors by document version and index)."""
    from sqlalchemy import text

    from graphrag.answer.retrieval import retrieve_vector
    from graphrag.answer.retrieval.scores import QuestionScores
    from graphrag.model import AskSettings

    seen: list[np.ndarray] = []
    original = QuestionScores.prepare

    def spy(self: QuestionScores, rows: np.ndarray) -> None:
        seen.append(np.asarray(rows, dtype=np.int64))
        original(self, rows)

    per_question: list[np.ndarray] = []
    QuestionScores.prepare = spy  # type: ignore[method-assign]
    try:
        for qvec, anchors in asked:
            seen.clear()
            retrieve_vector(store, graph, qvec, AskSettings(), anchors)
            per_question.append(np.unique(np.concatenate(seen)) if seen else np.zeros(0, dtype=np.int64))
    finally:
        QuestionScores.prepare = original  # type: ignore[method-assign]
    sql = text("SELECT s.vector FROM sentences s JOIN unnest(CAST(:d AS text[]), CAST(:v AS int[]), "
               "CAST(:i AS int[])) AS w(doc_id, version, idx) ON s.doc_id = w.doc_id AND s.version = w.version "
               "AND s.idx = w.idx")
    local, remote = [], []
    for rows in per_question:
        t0 = time.perf_counter()
        _ = np.ascontiguousarray(graph.sentence_vectors[rows]).sum()
        local.append((time.perf_counter() - t0) * 1000)
        params = {"d": [graph.docs[d].id for d in graph.sentence_doc[rows].tolist()],
                  "v": [graph.docs[d].version for d in graph.sentence_doc[rows].tolist()],
                  "i": graph.sentence_idx[rows].tolist()}
        t0 = time.perf_counter()
        got = store.database.read(lambda c, p=params: c.execute(sql, p).fetchall())
        np.frombuffer(b"".join(r[0] for r in got), dtype=np.float32)
        remote.append((time.perf_counter() - t0) * 1000)
    return {"walk_rows_per_question_p50": int(statistics.median([len(r) for r in per_question])),
            "walk_vectors_copy_ms_p50": round(statistics.median(local), 2),
            "walk_vectors_server_ms_p50": round(statistics.median(remote), 2)}


_SECOND_PROCESS = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from graphrag.answer.retrieval import load_graph, retrieve_vector
from graphrag.model import AskSettings
from graphrag.store import Store
from lab.bench_scale import rss_parts_mb, vm_hwm_mb
store = Store(sys.argv[1])
graph = load_graph(store)
ready = time.perf_counter() - t0
q = np.frombuffer(bytes.fromhex(sys.argv[2]), dtype=np.float32)
got = retrieve_vector(store, graph, q, AskSettings())
print(json.dumps({"ready_s": round(ready, 2), "first_answer_s": round(time.perf_counter() - t0, 2),
                  "context": len(got.context), "peak_rss_mb": round(vm_hwm_mb(), 1), "rss": rss_parts_mb(),
                  "indexes": "exact" if graph.indexes is None or graph.indexes.searcher("sentences") is None else
                  ("pgvector" if graph.indexes.server_sentences is not None else "faiss")}))
"""


def second_process(store: Any, qvec: np.ndarray) -> dict[str, Any]:
    """What another dashboard process on this store pays before its first answer, once the store is indexed (the
    saved graph and, without pgvector, the index files are there): a fresh Python opening the store, loading the
    graph and answering one question (no models: the vector given), with its peak memory."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent.parent),
                                                                     os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", _SECOND_PROCESS, store.url.value, qvec.astype(np.float32).tobytes().hex()],
                         capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode != 0:
        return {"second_process_error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return {"second_process_ready_s": got["ready_s"], "second_process_first_answer_s": got["first_answer_s"],
            "second_process_peak_rss_mb": got["peak_rss_mb"], "second_process_search": got["indexes"],
            "second_process_rss_own_mb": got["rss"].get("RssAnon"), "second_process_rss_files_mb": got["rss"].get("RssFile")}


def encoder_figures(data: Path, n: int, repeats: int = 3) -> dict[str, Any]:
    """ONNX against torch on ``n`` real MuSiQue sentences (``lab.bench_encoder``); nulls and a note when the
    data or an encoder is missing (never an error: the rest of the figures stand)."""
    from lab.bench_encoder import CORPUS, run, sentences

    if n < 1:
        return {"encode_speedup": None, "embedding_cosine_min": None, "encoder_note": "skipped (no sentences asked)"}
    if not (data / CORPUS).is_file():
        return {"encode_speedup": None, "embedding_cosine_min": None,
                "encoder_note": f"skipped: no {CORPUS} in {data} (see ../shared/data/README.md)"}
    from graphrag.config import Config

    threads = Config.from_env().torch_threads or 1
    try:
        report = run(sentences(data, n), ["torch", "onnx"], threads, repeats)
    except Exception as exc:  # noqa: BLE001 - an encoder that cannot load is reported, the other figures stand
        return {"encode_speedup": None, "embedding_cosine_min": None,
                "encoder_note": f"skipped: {type(exc).__name__}: {exc}"}
    return {"encode_speedup": report["speedup"]["onnx"], "embedding_cosine_min": report["cosine"]["onnx"]["min"],
            "encoder_sentences": report["sentences"], "encoder_threads": threads,
            "encoder_load_average": report["load_average"],
            "encoder_sentences_per_s": {k: v["sentences_per_s"] for k, v in report["encoders"].items()}}


def targets(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target with its figure and whether it is met (None when the figure is missing)."""
    compare: dict[str, Callable[[float, float], bool]] = {"<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}
    out = {}
    for name, op, bound in TARGETS:
        value = row.get(name)
        out[name] = {"target": f"{op} {bound:g}", "value": value,
                     "met": None if value is None else compare[op](float(value), bound)}
    return out


def measure(path: Path | StoreURL, layout: Layout, n_questions: int, reuse: bool) -> dict[str, Any]:
    """Build (or reuse) the store at ``path`` (a SQLite file or a PostgreSQL URL) and measure graph load, asks and
    memory; one row of figures."""
    from graphrag.answer.retrieval import build_graph, saved
    from graphrag.store import Store

    gc.collect()
    reset_peak()
    where = parse_store(path)
    row: dict[str, Any] = {"store_kind": where.kind, "load_average_start": round(os.getloadavg()[0], 2)}
    with Store(where) as store:
        if reuse and matches(store, layout):
            row.update(build_store_s=None, store_reused=True)
        else:
            t0 = time.perf_counter()
            phases = build(store, layout)
            row.update(build_store_s=round(time.perf_counter() - t0, 2), build_phases_s=phases)
        counts = store.counts()
        row.update(sentences=counts["sentences"], relations=counts["relations"], entities=counts["entities"],
                   mentions=counts["mentions"], documents=counts["documents"])
        row["build_peak_rss_mb"] = round(vm_hwm_mb(), 1)
    gc.collect()
    reset_peak()  # what a product process holds: the graph and the questions, not the synthetic build
    with Store(where) as store:
        t0 = time.perf_counter()
        graph = build_graph(store)
        row["graph_build_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        row["graph_saved"] = saved.save(store, graph)
        row["graph_save_s"] = round(time.perf_counter() - t0, 2)
        if row["graph_saved"]:  # what every later start pays: the saved graph, checked against the store
            del graph
            gc.collect()
            t0 = time.perf_counter()
            found = saved.read(store)
            row["graph_load_s"] = round(time.perf_counter() - t0, 2)
            if found is None or not found[1]:
                raise RuntimeError("the graph just saved was not read back as current")
            graph = found[0]
        else:  # too small to be saved: every start builds it
            row["graph_load_s"] = row["graph_build_s"]
        row.update(attach_indexes(store, graph))
        asked = questions(layout, max(2, n_questions + 1))
        t0 = time.perf_counter()
        ms, about = ask_latencies(store, graph, asked)
        row.update(ask_p50_ms=round(statistics.median(ms), 2), ask_p95_ms=round(float(np.percentile(ms, 95)), 2),
                   questions=len(ms), ask_total_s=round(time.perf_counter() - t0, 2), **about)
        row["peak_rss_before_communities_mb"] = round(vm_hwm_mb(), 1)
        row.update(community_figures(graph))
        row["peak_rss_mb"] = round(vm_hwm_mb(), 1)
        recall, note = ann_recall(graph, asked[1:])
        row.update(ann_recall_at_10=None if recall is None else round(recall, 4), ann_note=note)
        if where.kind == "postgresql":
            row.update(walk_vector_reads(store, graph, asked[1:11]))
        recall, note = ann_recall(graph, questions_seen(layout, len(asked) - 1, FILTER_LABELS), access=FILTER_LABELS)
        row.update(ann_recall_at_10_filtered=None if recall is None else round(recall, 4), ann_filtered_note=note)
        del graph
        gc.collect()
        row.update(second_process(store, asked[0][0]))
        if where.kind == "postgresql":
            row["store_mb"] = round(store.database.read(
                lambda c: int(c.exec_driver_sql("SELECT pg_database_size(current_database())").scalar() or 0)) / 1e6, 1)
    row["load_average_end"] = round(os.getloadavg()[0], 2)  # the machine's other work moves every figure
    if where.path is not None and where.path.is_file():
        file = where.path
        row["store_mb"] = round(sum(p.stat().st_size for p in file.parent.glob(file.name + "*")) / 1e6, 1)
    return row


def community_figures(graph: Any) -> dict[str, Any]:
    """Community detection over what "public" sees (the themes' first question pays it): seconds, the method
    ("leiden", or "louvain" without graspologic-native), how many communities, and the largest one's entities."""
    from graphrag.answer.communities import communities

    t0 = time.perf_counter()
    found = communities(graph, ["public"])
    return {"communities_s": round(time.perf_counter() - t0, 2), "communities_method": found.method,
            "communities": len(found.groups),
            "largest_community_entities": len(found.groups[0].entities) if found.groups else 0}


def decades(sentences: int) -> list[int]:
    """10k, 100k, 1M, ... below ``sentences``."""
    out, n = [], 10_000
    while n < sentences:
        out.append(n)
        n *= 10
    return out


@contextmanager
def scratch_database(url: StoreURL, suffix: str) -> Iterator[StoreURL]:
    """A new, empty database beside ``url``'s on the same server (for a decade's store), dropped after."""
    import psycopg

    assert url.url is not None
    name = f"{url.url.database}_{suffix}"
    conninfo = url.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{name}"')
    try:
        yield parse_store(url.url.set(database=name).render_as_string(hide_password=False))
    finally:
        with psycopg.connect(conninfo, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _clear_cache_files(url: StoreURL) -> None:
    """The saved graph (and any index files) a PostgreSQL store left in this host's cache folder."""
    from graphrag.answer.retrieval.indexed import folder
    from graphrag.store import Store

    with Store(url) as store:
        base = folder(store)
    for p in base.parent.glob(base.name + ".*"):
        shutil.rmtree(p) if p.is_dir() else p.unlink()


def _decade_rows(kind: str, store: StoreURL | None, tmp: Path, sentences: int, relations: int, n_questions: int,
                 seed: int) -> None:
    """A JSON line per decade below ``sentences``, each on a store of its own (a file, or a database beside
    ``store``'s), removed after."""
    for n in decades(sentences):
        small = Layout(n, max(1, round(relations * n / sentences)), seed)
        if kind == "postgresql":
            assert store is not None
            with scratch_database(store, f"decade_{n}") as url:
                row = measure(url, small, n_questions, reuse=False)
                _clear_cache_files(url)
        else:
            row = measure(tmp / f"decade-{n}.db", small, n_questions, reuse=False)
            for p in tmp.glob(f"decade-{n}.db*"):  # the store and the files beside it
                shutil.rmtree(p) if p.is_dir() else p.unlink()
        print(json.dumps({"decade": n, **row}), flush=True)


def bench_million(*, sentences: int = 1_000_000, relations: int = 1_000_000, store: str | StoreURL | None = None,
                  n_questions: int = 50, encoder_sentences: int = 5000, data: str | Path = "../shared/data",
                  per_decade: bool = False, seed: int = 0, beside_sqlite: bool = True) -> int:
    """``graphrag bench million``: print the figures as one JSON object (with ``per_decade``, first a JSON line
    per decade below ``sentences``, relations in proportion). ``store`` is a SQLite file or a PostgreSQL URL
    (never a URL taken for a file name); with PostgreSQL and ``beside_sqlite`` the same sizes are measured on a
    temporary SQLite store too, in the same run, under ``"sqlite"``."""
    started = time.perf_counter()
    where = parse_store(store) if store is not None else None
    kind = where.kind if where is not None else "sqlite"
    with tempfile.TemporaryDirectory() as tmp:
        if per_decade:
            _decade_rows(kind, where, Path(tmp), sentences, relations, n_questions, seed)
            if kind == "postgresql" and beside_sqlite:
                _decade_rows("sqlite", None, Path(tmp), sentences, relations, n_questions, seed)
        layout = Layout(sentences, relations, seed)
        try:
            row = measure(where if where is not None else Path(tmp) / "million.db", layout, n_questions,
                          reuse=where is not None)
        except ValueError as exc:  # --store names a store holding something else: never written over
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if kind == "postgresql" and beside_sqlite:
            row["sqlite"] = measure(Path(tmp) / "million.db", layout, n_questions, reuse=False)
    t0 = time.perf_counter()
    row.update(encoder_figures(Path(data), encoder_sentences))
    row["encoder_s"] = round(time.perf_counter() - t0, 1)
    row["targets"] = targets(row)
    row["total_s"] = round(time.perf_counter() - started, 1)
    row["note"] = ("ask = retrieve_vector (anchors, walk, context with its store reads) + attribution of an "
                   "extractive answer quoting the first 3 context items; question vector and anchors given (no "
                   "embedding, no spaCy, no support check); peak_rss_mb is VmHWM reset after the build (graph "
                   "load and asks), build_peak_rss_mb the build's")
    print(json.dumps(row, indent=2))
    return 0
