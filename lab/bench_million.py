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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

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
    a dashboard's start pays once the files exist)."""
    from graphrag.answer.retrieval.indexed import attach, folder

    t0 = time.perf_counter()
    attach(graph, store)
    first_s = time.perf_counter() - t0
    built = graph.indexes
    t0 = time.perf_counter()
    attach(graph, store)  # files now match this graph: read, not built
    reread_s = time.perf_counter() - t0
    sentences = graph.indexes.sentences if graph.indexes is not None else None
    files = sorted(folder(store).parent.glob(folder(store).name + ".*.faiss"))
    return {"index_first_attach_s": round(first_s, 2), "index_reload_s": round(reread_s, 2),
            "index_built": built is not None and built.sentences is not None,
            "index_files_mb": round(sum(p.stat().st_size for p in files) / 1e6, 1),
            "index_rows": None if sentences is None else sentences.index.rows}


def ann_recall(graph: Any, asked: Sequence[Question], k: int = ANN_K) -> tuple[float | None, str]:
    """Recall@k of the sentence index's neighbours (its candidates re-scored exactly, as retrieval uses them)
    against the exact scan over every sentence row; None (and why) when the graph has no index (below
    ``index.EXACT_BELOW`` rows retrieval scans exactly)."""
    from graphrag.answer.retrieval.index import EXACT_BELOW, nearest

    held = graph.indexes.sentences if graph.indexes is not None else None
    if held is None:
        return None, f"no index: {graph.n_sentences:,} sentence rows, below {EXACT_BELOW:,} retrieval scans exactly"
    n, hits = graph.n_sentences, 0
    for qvec, _ in asked:
        exact = np.argpartition(-graph.sentence_similarities(qvec), k)[:k]
        got, _ = nearest(graph.sentence_vectors, qvec, k, n, None, held.index)
        hits += len(set(got.tolist()) & set(exact.tolist()))
    return hits / (k * len(asked)), "faiss IVF candidates re-scored exactly, against the exact scan"


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


def measure(path: Path, layout: Layout, n_questions: int, reuse: bool) -> dict[str, Any]:
    """Build (or reuse) the store at ``path`` and measure graph load, asks and memory; one row of figures."""
    from graphrag.answer.retrieval import build_graph, saved
    from graphrag.store import Store

    gc.collect()
    reset_peak()
    row: dict[str, Any] = {"load_average_start": round(os.getloadavg()[0], 2)}
    with Store(path) as store:
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
    with Store(path) as store:
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
        del graph
    row["load_average_end"] = round(os.getloadavg()[0], 2)  # the machine's other work moves every figure
    if path.is_file():
        row["store_mb"] = round(sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6, 1)
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


def bench_million(*, sentences: int = 1_000_000, relations: int = 1_000_000, store: str | None = None,
                  n_questions: int = 50, encoder_sentences: int = 5000, data: str | Path = "../shared/data",
                  per_decade: bool = False, seed: int = 0) -> int:
    """``graphrag bench million``: print the figures as one JSON object (with ``per_decade``, first a JSON line
    per decade below ``sentences``, relations in proportion)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if per_decade:
            for n in decades(sentences):
                small = Layout(n, max(1, round(relations * n / sentences)), seed)
                row = measure(Path(tmp) / f"decade-{n}.db", small, n_questions, reuse=False)
                print(json.dumps({"decade": n, **row}), flush=True)
                for p in Path(tmp).glob(f"decade-{n}.db*"):  # the store and the files beside it
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
        layout = Layout(sentences, relations, seed)
        path = Path(store) if store else Path(tmp) / "million.db"
        try:
            row = measure(path, layout, n_questions, reuse=store is not None)
        except ValueError as exc:  # --store names a store holding something else: never written over
            print(f"error: {exc}", file=sys.stderr)
            return 2
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
