"""Benchmarks: commands that print figures as JSON (never timed tests).

- ingest: a {title, text} corpus with the rules extractor; where the time went.
- ask: retrieval + attribution latency on synthetic graphs, beside a bare numpy top-k plus a
  networkx BFS on the same graph.
- load: concurrent verdict writers on one store, and ask latency while an ingest runs.
- review: review-queue build time as answers accumulate (``--browser``, a reviewer's verdicts in Chromium, is
  lab/bench_review_browser.py).
- documents: a generated many-page PDF through the reader and ingest; cited-page render time.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from graphrag.access import library_viewer
from graphrag.language.embed import similarities
from graphrag.model import PUBLIC, AskSettings, Seed
from lab import lab_config

if TYPE_CHECKING:  # imported where used: a benchmark loads only what it measures
    from graphrag.answer.retrieval.graph import KnowledgeGraph
    from graphrag.answer.retrieval.retrieve import Retrieval
    from graphrag.store import Store, StoreURL


def _print(obj: dict[str, object]) -> int:
    print(json.dumps(obj, indent=2))
    return 0


def _pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs), p)) if xs else float("nan")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- ingest -------------------------------------------------------------------------------


def _bulk_limit(texts: list[str], names: list[str], sample: int = 1500, passages: list[str] | None = None,
                passage_encoder: Any = None) -> dict[str, Any]:
    """What the models alone take on the same work: one spaCy pipe over every sentence, one MiniLM
    encode of every sentence and entity name, and (when the ingest stored the reader's second view) one e5 call over
    every "title. sentence" (``passages``). Torch's thread count is the one that was fastest on a
    sample of these texts on this machine (1 or 2 threads), so the limit is the best the models allow."""
    import torch

    from graphrag.ingest.extract.rules import load_spacy
    from graphrag.language.embed import get_embedder

    nlp = load_spacy()
    t0 = time.perf_counter()
    for _ in nlp.pipe(texts, batch_size=256):
        pass
    parse_s = time.perf_counter() - t0
    embedder = get_embedder(lab_config())
    everything = texts + names
    rng = np.random.default_rng(0)
    trial = [everything[i] for i in rng.choice(len(everything), min(sample, len(everything)), replace=False)]
    before = torch.get_num_threads()
    trials: dict[int, float] = {}
    try:
        for threads in sorted({1, min(2, os.cpu_count() or 1)}):
            torch.set_num_threads(threads)
            t0 = time.perf_counter()
            embedder.encode(trial, batch_size=64)
            trials[threads] = time.perf_counter() - t0
        best = min(trials, key=lambda k: trials[k])
        torch.set_num_threads(best)
        t0 = time.perf_counter()
        embedder.encode(everything, batch_size=64)
        encode_s = time.perf_counter() - t0
    finally:
        torch.set_num_threads(before)
    passage_s = 0.0
    if passage_encoder is not None and passages:
        t0 = time.perf_counter()
        passage_encoder.passages(passages)
        passage_s = time.perf_counter() - t0
    return {"parse_s": round(parse_s, 2), "encode_s": round(encode_s, 2), "passage_s": round(passage_s, 2),
            "torch_threads": best, "thread_trial_s": {str(k): round(v, 2) for k, v in trials.items()},
            "texts_encoded": len(everything), "seconds": round(parse_s + encode_s + passage_s, 2)}


def bench_ingest(corpus: str | Path, *, limit: int | None = None, bulk_limit: bool = True) -> int:
    """``graphrag bench ingest``: ingest a JSON corpus (its first ``limit`` paragraphs) with the rules extractor
    and print the timings (JSON), and what the models alone take on the same texts unless ``bulk_limit`` is
    false; 2 when the corpus is missing."""
    from graphrag.ingest.documents import Source, read_corpus_json
    from graphrag.ingest.extract.rules import RulesExtractor, load_spacy
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.language.embed import get_embedder
    from graphrag.language.passage_encoder import passage_text
    from graphrag.store import Store

    if not Path(corpus).is_file():
        print(f"error: no corpus at {corpus} (a JSON list of {{title, text}})", file=sys.stderr)
        return 2
    items = [x for x in read_corpus_json(Path(corpus)) if isinstance(x, Source)][:limit]
    t0 = time.perf_counter()
    load_spacy()
    embedder = get_embedder(lab_config())
    embedder.encode(["warm up"])
    load_s = time.perf_counter() - t0
    load_at_start = os.getloadavg()[0]  # other work on the machine: the figures depend on it
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        ingestor = Ingestor(store, RulesExtractor(), embedder, config=lab_config())
        report = ingestor.ingest(items)
        peak_mb = _peak_mb()  # before the bulk limit, which holds every vector at once
        counts = store.counts()
        assert store.path is not None  # a SQLite file
        store_mb = os.path.getsize(store.path) / 1e6
        t = report.timings
        # The same corpus again: every document unchanged, so a hash and a lookup each, no model call.
        calls = t.extract_calls + t.encode_calls
        again = ingestor.ingest(items)
        re_s = again.timings.total_s - t.total_s
        re_calls = again.timings.extract_calls + again.timings.encode_calls - calls
        unchanged = sum(d.status == "unchanged" for d in again.documents)
        # The same texts the pipeline encoded: every stored sentence and every entity name.
        stored = [(d.title, sp.text) for d in store.documents() for sp in store.sentences(d.id, d.version)]
        texts = [body for _, body in stored]
        passages = [passage_text(title, body) for title, body in stored]
        names = list(store.entity_names().values())
    second = ingestor.passage_encoder
    bulk = _bulk_limit(texts, names, passages=passages, passage_encoder=second) if bulk_limit else None
    sentences = counts["sentences"]
    out: dict[str, object] = {
        "documents": len(items),
        "sentences": sentences,
        "entities": counts["entities"],
        "mentions": counts["mentions"],
        "relations": counts["relations"],
        "seconds": round(t.total_s, 2),
        "sentences_per_s": round(sentences / t.total_s, 1),
        "parse_s": round(t.parse_s, 2),
        "encode_s": round(t.encode_s, 2),
        # of encode_s: the reader's second view of each sentence (e5), when it is installed and on
        "passage_s": round(t.passage_s, 2),
        "second_view": second.name if second is not None else None,
        "write_s": round(t.write_s, 2),
        "overhead_s": round(t.total_s - t.parse_s - t.encode_s, 2),
        "total_over_parse_plus_encode": round(t.total_s / (t.parse_s + t.encode_s), 3),
        "model_calls": calls,
        "model_load_s": round(load_s, 2),
        "peak_memory_mb": round(peak_mb, 1),
        "store_mb": round(store_mb, 1),
        "reingest_unchanged_s": round(re_s, 2),
        "reingest_over_first": round(re_s / t.total_s, 4),
        "reingest_model_calls": re_calls,
        "reingest_unchanged_documents": unchanged,
        "encode_threads": ingestor.encode_threads or _torch_threads(),
        "overlap": ingestor.overlap,  # parse and encode on two threads (see graphrag.ingest.pipeline.encode_threads_default)
        "load_average_at_start": round(load_at_start, 2),
    }
    if bulk is not None:
        out["bulk_limit"] = bulk
        out["total_over_bulk_limit"] = round(t.total_s / float(bulk["seconds"]), 3)
    return _print(out)


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


# --- ask ----------------------------------------------------------------------------------


def synthetic_store(path: Path, n_entities: int, seed: int = 0) -> None:
    """A store with n entities (random unit vectors), 2 mentions and 2 relations each, and
    one sentence per 3 entities (the rules extractor gave 3.3 entities per sentence on the
    MuSiQue corpus). Written with bulk SQL: building it through ingest would measure spaCy.
    """
    from graphrag.store import Store, now

    rng = np.random.default_rng(seed)
    dim = 384
    n_sent = max(1, n_entities // 3)
    per_doc = 20
    n_docs = (n_sent + per_doc - 1) // per_doc
    with Store(path) as store, store.transaction() as db:
        db.executemany("INSERT INTO documents VALUES (?,?,?,?,?,?,?,?,0,'ok','bench',?)",
                       [(f"d{d}", 1, f"Doc {d}", None, json.dumps(["public"] if d % 10 else ["internal"]), "h",
                         " ".join(f"Sentence {d}-{i}." for i in range(per_doc)), None, now()) for d in range(n_docs)])
        vec = rng.standard_normal((n_sent, dim)).astype(np.float32)
        vec /= np.linalg.norm(vec, axis=1, keepdims=True)
        rows = []
        for s in range(n_sent):
            d, i = divmod(s, per_doc)
            text = f"Sentence {d}-{i}."
            start = sum(len(f"Sentence {d}-{j}.") + 1 for j in range(i))
            rows.append((f"d{d}", 1, i, start, start + len(text), text, vec[s].tobytes()))
        db.executemany("INSERT INTO sentences VALUES (?,?,?,?,?,?,?)", rows)
        evec = rng.standard_normal((n_entities, dim)).astype(np.float32)
        evec /= np.linalg.norm(evec, axis=1, keepdims=True)
        db.executemany("INSERT INTO entities VALUES (?,?,?,?)",
                       [(f"e{e}", f"Entity {e}", "concept", evec[e].tobytes()) for e in range(n_entities)])
        ments = []
        for e in range(n_entities):
            for s in (e % n_sent, int(rng.integers(n_sent))):
                d, i = divmod(s, per_doc)
                ments.append((f"e{e}", f"d{d}", 1, i, "synthetic", "bench", 0))
        db.executemany("INSERT INTO mentions (entity_key, doc_id, version, sentence_idx, description, extractor,"
                       " implied) VALUES (?,?,?,?,?,?,?)", ments)
        rels = []
        for e in range(n_entities):
            for _ in range(2):
                t = int(rng.integers(n_entities))
                d, i = divmod(e % n_sent, per_doc)
                rels.append((f"e{e}", f"e{t}", f"r{t % 7}", "synthetic", f"d{d}", 1, i, "bench"))
        db.executemany("INSERT INTO relations (source_key, target_key, type, description, doc_id, version,"
                       " sentence_idx, extractor) VALUES (?,?,?,?,?,?,?,?)", rels)
        db.execute("UPDATE meta SET value=CAST(value AS INTEGER)+1 WHERE key='generation'")


def _bare(vectors: np.ndarray, undirected: nx.Graph[str], keys: list[str], q: np.ndarray, k: int, hops: int) -> int:
    scores = similarities(vectors, q)  # the same similarity function as the product, for a fair ratio
    top = np.argpartition(-scores, k)[:k]
    reached = 0
    for depth, layer in enumerate(nx.bfs_layers(undirected, [keys[i] for i in top])):
        if depth > hops:
            break
        reached += len(layer)
    return reached


def bench_ask(*, sizes: Sequence[int], queries: int, after_ingest: int = 0, after_ingest_rounds: int = 0,
              corpus: str | Path | None = None) -> int:
    """``graphrag bench ask``: retrieval latency without generation (``queries`` questions) on synthetic graphs
    of the given sizes (JSON); with ``after_ingest`` > 0, then ``after_ingest_rounds`` times that many paragraphs
    of ``corpus`` are ingested and the first answer after each is timed."""
    from graphrag.answer.retrieval.load import load_graph
    from graphrag.answer.retrieval.retrieve import retrieve_vector
    from graphrag.store import Store
    from graphrag.verify.attribution import attribute

    settings = AskSettings()
    results = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.db"
            t0 = time.perf_counter()
            synthetic_store(path, n)
            build_s = time.perf_counter() - t0
            with Store(path) as store:
                t0 = time.perf_counter()
                graph = load_graph(store)
                load_s = time.perf_counter() - t0
                undirected = graph.graph.to_undirected(as_view=True)
                rng = np.random.default_rng(1)
                asked = []
                for _ in range(queries):
                    named = int(rng.integers(n))
                    q = graph.vectors[named] + 0.5 * rng.standard_normal(graph.vectors.shape[1])
                    # The question names the entity its vector was drawn near: that is its anchor.
                    asked.append(((q / np.linalg.norm(q)).astype(np.float32), (Seed(graph.keys[named], 1.0),)))
                ours, bare = [], []
                retrieve_vector(store, graph, asked[0][0], settings, asked[0][1])  # warm the caches
                for q, anchors in asked:
                    t = time.perf_counter()
                    got = retrieve_vector(store, graph, q, settings, anchors)
                    answer = " ".join(f"{c.span.text} [{c.n}]" for c in got.context[:3])
                    attribute(answer, got.context)
                    ours.append((time.perf_counter() - t) * 1000)
                    t = time.perf_counter()
                    _bare(graph.vectors, undirected, graph.keys, q, settings.k, settings.hops)
                    bare.append((time.perf_counter() - t) * 1000)
                after = (_after_ingest(store, graph, settings, corpus, after_ingest, after_ingest_rounds)
                         if after_ingest else None)
            results.append({
                "entities": n, "relations": len(graph.edges), "queries": len(asked),
                "p50_ms": round(statistics.median(ours), 2), "p95_ms": round(_pct(ours, 95), 2),
                "bare_p50_ms": round(statistics.median(bare), 2), "bare_p95_ms": round(_pct(bare, 95), 2),
                "ratio_p50": round(statistics.median(ours) / statistics.median(bare), 2),
                "graph_load_s": round(load_s, 2), "store_build_s": round(build_s, 2),
                **({"after_ingest": after} if after else {}),
            })
    return _print({"k": settings.k, "hops": settings.hops, "max_context": settings.max_context, "sizes": results,
                   "note": "question embedding and anchor finding (spaCy parse of the question) excluded; one "
                           "anchor per question; bare = numpy top-k + nx.bfs_layers"})


def _after_ingest(store: Store, graph: KnowledgeGraph, settings: AskSettings, corpus_path: str | Path | None,
                  per_round: int, rounds_n: int) -> dict[str, object]:
    """Ingest paragraphs into the loaded store, then time the first answer (which applies the
    ingest to the graph) against the same answer again; a few rounds of new paragraphs, and a
    full reload at the end for comparison."""
    from graphrag.answer.retrieval.load import build_graph, load_graph
    from graphrag.answer.retrieval.retrieve import retrieve_vector
    from graphrag.ingest.documents import Source, read_corpus_json
    from graphrag.ingest.extract.rules import RulesExtractor
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.language.embed import get_embedder
    from graphrag.verify.attribution import attribute

    if corpus_path is None or not Path(corpus_path).is_file():
        return {"skipped": f"no corpus at {corpus_path}"}
    corpus = [x for x in read_corpus_json(Path(corpus_path)) if isinstance(x, Source)]
    ingestor = Ingestor(store, RulesExtractor(), get_embedder(lab_config()), config=lab_config())

    def answer(g: KnowledgeGraph, q: np.ndarray, anchors: tuple[Seed, ...]) -> Retrieval:
        got = retrieve_vector(store, g, q, settings, anchors)
        attribute(" ".join(f"{c.span.text} [{c.n}]" for c in got.context[:3]), got.context)
        return got

    rounds: list[dict[str, Any]] = []
    for r in range(rounds_n):
        paragraphs = corpus[r * per_round:(r + 1) * per_round]
        t0 = time.perf_counter()
        ingestor.ingest(paragraphs)
        ingest_s = time.perf_counter() - t0
        before = graph
        t0 = time.perf_counter()
        graph = load_graph(store)
        update_s = time.perf_counter() - t0
        new_key = next(k for k in reversed(graph.keys) if k not in before.index)
        q = graph.vectors[graph.index[new_key]]
        anchors = (Seed(new_key, 1.0),)  # a question about what was just ingested
        answer(graph, q, anchors)
        first_s = time.perf_counter() - t0
        warm = []
        for _ in range(5):
            t = time.perf_counter()
            answer(load_graph(store), q, anchors)
            warm.append(time.perf_counter() - t)
        rounds.append({"paragraphs": len(paragraphs), "ingest_s": round(ingest_s, 1), "update_s": round(update_s, 3),
                       "first_answer_s": round(first_s, 3), "warm_answer_s": round(statistics.median(warm), 3),
                       "extra_s": round(first_s - statistics.median(warm), 3),
                       "updated_in_place": graph.edges.added > 0})
    t0 = time.perf_counter()
    full = build_graph(store)
    reload_s = time.perf_counter() - t0
    same = all(answer(graph, graph.vectors[i], (Seed(graph.keys[i], 1.0),))
               == answer(full, graph.vectors[i], (Seed(graph.keys[i], 1.0),))
               for i in range(0, len(graph.keys), max(1, len(graph.keys) // 20)))
    return {"rounds": rounds, "extra_s_median": round(statistics.median(x["extra_s"] for x in rounds), 3),
            "full_reload_s": round(reload_s, 2), "same_answers_as_full_reload": same}


# --- load ---------------------------------------------------------------------------------


WriterFigures = tuple[list[float], int, float, float]  # latencies (ms), errors, start and end (epoch s)


def _writer(path: str, answer_id: int, n: int, who: int, out: mp.Queue[WriterFigures]) -> None:
    from graphrag.store import Store
    from graphrag.verify.review import record_verdict

    latencies, errors = [], 0
    with Store(path) as store:
        answer = store.answer(answer_id)
        assert answer is not None
        claim = answer.claims[0]
        citation = next((c for c in claim.citations if c.valid), None)
        started = time.time()
        for i in range(n):
            t = time.perf_counter()
            try:
                record_verdict(store, answer, claim, citation, ("supported", "partial", "unsupported")[i % 3],
                               f"reviewer-{who}", f"note {i}")
            except Exception:  # noqa: BLE001 - counted, not hidden: the figure must show lost writes
                errors += 1
            latencies.append((time.perf_counter() - t) * 1000)
        finished = time.time()
    out.put((latencies, errors, started, finished))


def _ingester(path: str, n_docs: int) -> None:
    from graphrag.ingest.documents import Source
    from graphrag.ingest.extract.rules import RulesExtractor
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.store import Store

    with Store(path) as store:
        docs = [Source(f"load-{i}", f"Load {i}", f"Exports of batch {i} use snapshot {i}. Snapshot {i} follows the "
                       f"retention policy for {i % 30 + 1} days.") for i in range(n_docs)]
        Ingestor(store, RulesExtractor(), config=lab_config()).ingest(docs)


def bench_load(*, writers: int, verdicts: int, store_url: StoreURL | None = None) -> int:
    """``graphrag bench load``: ``writers`` processes recording ``verdicts`` verdicts each on one store, and ask
    latency while an ingest runs (JSON). ``store_url`` must be empty (2 otherwise); default: a temporary SQLite
    file."""
    from graphrag.answer.ask import Asker
    from graphrag.ingest.extract.rules import RulesExtractor
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.store import Store

    sample = Path(__file__).resolve().parent.parent / "sample_corpus"
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        # the processes get the store's full value (a PostgreSQL URL keeps its password)
        path = store_url.value if store_url is not None else str(Path(tmp) / "load.db")
        with Store(path) as store:
            if store.counts()["versions"]:
                print(f"error: bench load writes its own documents and verdicts: give it an empty store "
                      f"({store.url.display} holds documents)", file=sys.stderr)
                return 2
            Ingestor(store, RulesExtractor(), config=lab_config()).ingest_paths([sample])
            asker = Asker(store, config=lab_config())
            answer = asker.ask("How long do exports stay available after cancellation?").answer
            queue: mp.Queue[WriterFigures] = ctx.Queue()
            procs = [ctx.Process(target=_writer, args=(path, answer.id, verdicts, w, queue)) for w in range(writers)]
            t0 = time.perf_counter()
            for p in procs:
                p.start()
            got = [queue.get() for _ in procs]
            for p in procs:
                p.join()
            wall = time.perf_counter() - t0
            latencies = [x for lat, *_ in got for x in lat]
            errors = sum(e for _, e, *_ in got)
            # the rate over the writing itself, not the processes' start-up (imports)
            write_wall = max(g[3] for g in got) - min(g[2] for g in got)
            stored = len(store.verdicts(answer.id))
            # ask latency alone, then while an ingest process writes
            questions = ["How long do exports stay available?", "What do snapshots follow?",
                         "Who can cancel an account?", "How is billing handled after cancellation?"]
            idle = []
            for q in questions * 3:
                t = time.perf_counter()
                asker.ask(q)
                idle.append((time.perf_counter() - t) * 1000)
            ing = ctx.Process(target=_ingester, args=(path, 300))
            ing.start()
            busy: list[float] = []
            ask_errors: list[str] = []  # counted, not raised: the figure must show failed asks
            while ing.is_alive() and len(busy) + len(ask_errors) < 200:
                t = time.perf_counter()
                try:
                    asker.ask(questions[len(busy) % len(questions)])
                except Exception as exc:  # noqa: BLE001 - counted and shown in the figures
                    ask_errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                busy.append((time.perf_counter() - t) * 1000)
            ing.join()
    return _print({
        "store": store.url.label, "writers": writers, "verdicts_per_writer": verdicts, "verdicts_stored": stored,
        "verdicts_expected": writers * verdicts, "write_errors": errors,
        "verdicts_per_s": round(stored / write_wall, 1), "writers_wall_s_with_startup": round(wall, 2), "write_p50_ms": round(statistics.median(latencies), 2),
        "write_p95_ms": round(_pct(latencies, 95), 2),
        "ask_idle_p50_ms": round(statistics.median(idle), 1), "ask_idle_p95_ms": round(_pct(idle, 95), 1),
        "ask_during_ingest_p50_ms": round(statistics.median(busy), 1) if busy else None,
        "ask_during_ingest_p95_ms": round(_pct(busy, 95), 1) if busy else None,
        "asks_during_ingest": len(busy), "ask_errors": len(ask_errors),
        "first_ask_error": ask_errors[0] if ask_errors else None,
    })


# --- review queue ----------------------------------------------------------------------------


def bench_review(*, answers: Sequence[int], rounds: int) -> int:
    """``graphrag bench review``: review-queue build time as answers accumulate: one real answer on the sample
    corpus, stored again and again, the queue built ``rounds`` times (every visible claim, triage order) once
    the store holds each number of ``answers``."""
    from dataclasses import replace

    from graphrag.answer.ask import Asker
    from graphrag.ingest.extract.rules import RulesExtractor
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.store import Store
    from graphrag.verify.review import review_queue

    sample = Path(__file__).resolve().parent.parent / "sample_corpus"
    rows = []
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "review.db") as store:
        Ingestor(store, RulesExtractor(), config=lab_config()).ingest_paths([sample])
        answer = Asker(store, config=lab_config()).ask("How long do exports stay available after cancellation?").answer
        for size in sorted(answers):
            while store.counts()["answers"] < size:
                store.save_answer(replace(answer, id=None))
            times, n = [], 0
            for _ in range(rounds):
                t = time.perf_counter()
                n = len(review_queue(store, library_viewer([PUBLIC])))
                times.append((time.perf_counter() - t) * 1000)
            rows.append({"answers": size, "claims_in_queue": n, "queue_p50_ms": round(statistics.median(times), 1),
                         "queue_max_ms": round(max(times), 1)})
    return _print({"claims_per_answer": len(answer.claims), "rounds": rounds, "sizes": rows})


# --- documents ----------------------------------------------------------------------------

_TOPICS = ["exports", "snapshots", "invoices", "workspaces", "audit logs", "members", "projects", "dashboards"]
_VERBS = ["are kept for", "are reviewed every", "are copied after", "are removed after", "are checked within"]
_UNITS = ["days", "weeks", "hours", "months"]


def _bench_text(page: int, line: int) -> str:
    """A deterministic handbook-like sentence, varied enough for the parser to do real work."""
    k = page * 41 + line * 7
    return (f"On plan {page % 5 + 1}, {_TOPICS[k % 8]} of team {line % 9 + 1} {_VERBS[k % 5]} {k % 60 + 2} "
            f"{_UNITS[k % 4]} by the {_TOPICS[(k + 3) % 8]} service.")


def bench_pdf(pages: int) -> bytes:
    """A ``pages``-page PDF: running header and page number, every third page in two columns."""
    import io

    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792), invariant=1)
    for p in range(pages):
        c.setFont("Helvetica", 9)
        c.drawString(72, 752, "Larkspur operations handbook")
        c.drawCentredString(306, 40, str(p + 1))
        c.setFont("Helvetica", 10)
        columns = [(72, 220), (320, 220)] if p % 3 == 2 else [(72, 468)]
        n = 0
        for x, width in columns:
            y = 720.0
            words: list[str] = []
            while y > 80:
                while sum(stringWidth(w + " ", "Helvetica", 10) for w in words) < width:
                    words.extend(_bench_text(p, n).split())
                    n += 1
                line: list[str] = []
                while words and stringWidth(" ".join([*line, words[0]]), "Helvetica", 10) <= width:
                    line.append(words.pop(0))
                c.drawString(x, y, " ".join(line))
                y -= 13
        c.showPage()
    c.save()
    return buf.getvalue()


def bench_documents(*, pages: int, renders: int) -> int:
    """``graphrag bench documents``: a generated PDF of ``pages`` pages through the reader and ingest, and the
    time to render ``renders`` cited pages (JSON)."""
    from graphrag.ingest.documents import Source
    from graphrag.ingest.extract.rules import RulesExtractor, load_spacy
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.ingest.readers.pdf import read_pdf
    from graphrag.language.embed import get_embedder
    from graphrag.present.pages import forget_drawn_pages, render_page
    from graphrag.store import Store

    t0 = time.perf_counter()
    data = bench_pdf(pages)
    generate_s = time.perf_counter() - t0
    load_spacy()
    embedder = get_embedder(lab_config())
    embedder.encode(["warm up"])
    read_t: dict[str, float] = {}
    text, title, layout = read_pdf(data, timings=read_t)
    source = Source("bench-handbook", title or "bench", text, layout=layout)
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        ingestor = Ingestor(store, RulesExtractor(), embedder, config=lab_config())
        report = ingestor.ingest([source])
        counts = store.counts()
        layouts = store.layouts("bench-handbook", 1)
        pdf = store.document_file("bench-handbook", 1)
        assert pdf is not None
        render_ms = []
        for idx in sorted(layouts)[:: max(1, len(layouts) // renders)][:renders]:
            lay = layouts[idx]
            forget_drawn_pages()  # every render a cache miss, as for a page not yet seen
            r0 = time.perf_counter()
            render_page(pdf[1], lay.page or 1, lay.boxes)
            render_ms.append((time.perf_counter() - r0) * 1000)
    t = report.timings
    read_s = read_t["extract_s"] + read_t["layout_s"]
    core = t.parse_s + t.encode_s
    other = read_s + t.total_s - core
    return _print({
        "pages": pages,
        "pdf_mb": round(len(data) / 1e6, 2),
        "generate_s": round(generate_s, 2),
        "sentences": counts["sentences"],
        "status": report.documents[0].status,
        "text_extraction_s": round(read_t["extract_s"], 2),
        "layout_s": round(read_t["layout_s"] + t.layout_s, 2),
        "layout_reading_order_s": round(read_t["layout_s"], 2),
        "layout_sentence_boxes_s": round(t.layout_s, 2),
        "parse_s": round(t.parse_s, 2),
        "encode_s": round(t.encode_s, 2),
        "write_s": round(t.write_s, 2),
        "seconds": round(read_s + t.total_s, 2),
        "pages_per_s": round(pages / (read_s + t.total_s), 2),
        "not_parse_encode_over_parse_encode": round(other / core, 3),
        "peak_memory_mb": round(_peak_mb(), 1),
        "render_150dpi_p50_ms": round(statistics.median(render_ms), 1),
        "render_150dpi_p95_ms": round(_pct(render_ms, 95), 1),
        "renders": len(render_ms),
    })
