"""``graphrag bench scale``: how cost grows with the corpus.

The corpus is repeated ``scale`` times: copy 0 is the corpus itself, copy k keeps each
paragraph under a new id with light edits (years moved by k, the sentences rotated by k), so
every copy is new text for the pipeline while names and topics repeat as in a real collection.
The store is grown step by step (e.g. 1x, then to 5x, then to 10x) and, at each step, measured:
ingest seconds, the process's peak memory while ingesting (VmHWM, reset before each step),
store size, a full graph load, ask latency on real questions, and the dashboard's cold start
(``streamlit run app.py`` on that store until the first page is drawn, and until a first
answer, which loads the graph, is on screen).
"""

from __future__ import annotations

import gc
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from lab import lab_config

if TYPE_CHECKING:  # imported where used: the benchmark loads only what it measures
    from playwright.sync_api import Page

    from graphrag.ingest.documents import Source
    from graphrag.language.encoding import Embedder

ROOT = Path(__file__).resolve().parent.parent
_YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-2]\d)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def edited(text: str, k: int) -> str:
    """Copy ``k`` of a paragraph: years moved by k, sentences rotated by k (copy 0 is the text)."""
    if k == 0:
        return text
    text = _YEAR.sub(lambda m: str(int(m.group(0)) + k), text)
    parts = _SENTENCE_END.split(text)
    r = k % len(parts)
    return " ".join(parts[r:] + parts[:r])


def copies(items: Sequence[object], first: int, last: int) -> Iterator[Source]:
    """Copies ``first`` .. ``last - 1`` of every Source in ``items``, under distinct ids."""
    from graphrag.ingest.documents import Source

    for k in range(first, last):
        for s in items:
            if not isinstance(s, Source):
                continue
            yield s if k == 0 else replace(s, id=f"{s.id}~{k}", title=f"{s.title} ({k})", text=edited(s.text, k),
                                           path=f"{s.path}~{k}" if s.path else None)


def vm_hwm_mb() -> float:
    """This process's peak resident memory (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rss_parts_mb() -> dict[str, float]:
    """This process's resident memory now, split: its own (RssAnon) and the mapped files' pages (RssFile, the
    file cache's, shared with every process mapping them), in MB."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("RssAnon", "RssFile"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def reset_peak() -> bool:
    """Set VmHWM back to the current resident size (Linux: 5 > /proc/self/clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def store_mb(path: Path) -> float:
    """Size of the SQLite store in MB, its -wal and -shm files included."""
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6  # with -wal and -shm


def questions(path: Path, n: int) -> list[str]:
    """The first ``n`` questions of a JSON question file; one fixed question when the file is missing."""
    if not path.is_file():
        return ["Who founded the company that made the first commercial jet airliner?"]
    return [q["question"] for q in json.loads(path.read_text())[:n]]


def ask_figures(store_path: Path, embedder: Embedder, qs: Sequence[str]) -> dict[str, object]:
    """Graph load time and median retrieve and ask latency on ``qs``, the models warmed up first."""
    from graphrag.answer.ask import Asker
    from graphrag.answer.retrieval.load import build_graph, forget_graphs
    from graphrag.model import AskSettings
    from graphrag.store import Store

    forget_graphs()
    with Store(store_path) as store:
        t0 = time.perf_counter()
        build_graph(store)
        load_s = time.perf_counter() - t0
        asker = Asker(store, embedder=embedder, config=lab_config())
        settings = AskSettings()
        asker.ask(qs[0], settings)  # the graph, spaCy and the checker loaded once, outside the figures
        retrieve_ms, ask_ms = [], []
        for q in qs:
            t = time.perf_counter()
            asker.retrieve(q, settings)
            retrieve_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            asker.ask(q, settings)
            ask_ms.append((time.perf_counter() - t) * 1000)
    forget_graphs()
    return {"graph_load_s": round(load_s, 2), "questions": len(qs),
            "retrieve_p50_ms": round(statistics.median(retrieve_ms), 1),
            "ask_p50_ms": round(statistics.median(ask_ms), 1)}


def dashboard_cold_start(store_path: Path, question: str, timeout_s: float = 600) -> dict[str, object]:
    """Seconds from starting ``streamlit run app.py`` on the store until the Ask page is drawn in
    Chromium, and until a first answer (which loads the models and the graph) is on screen."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"skipped": "playwright is not installed (requirements-dev.txt)"}
    from graphrag.serve import DashboardDidNotStart, dashboard
    from lab.browser import chromium

    env = {"GRAPHRAG_STORE": str(store_path), "GRAPHRAG_SAMPLE": "0", "HF_HUB_OFFLINE": "1",
           "OLLAMA_HOST": "127.0.0.1:9"}
    started = time.perf_counter()
    try:
        with tempfile.NamedTemporaryFile("w+", suffix=".log") as log, \
                dashboard(log, env, timeout_s=timeout_s) as url:
            serving_s = time.perf_counter() - started
            with sync_playwright() as pw:
                browser = chromium(pw)
                page = browser.new_page()
                page.goto(url)
                _settled(page, timeout_s)
                page.get_by_label("Question", exact=True).wait_for(timeout=timeout_s * 1000)
                first_page_s = time.perf_counter() - started
                page.get_by_label("Question", exact=True).fill(question)
                page.get_by_role("button", name="Ask", exact=True).click()
                page.wait_for_function("() => [...document.querySelectorAll('h3')]"
                                       ".some(e => e.innerText.trim().startsWith('Answer #'))",
                                       timeout=timeout_s * 1000)
                first_answer_s = time.perf_counter() - started
                browser.close()
    except DashboardDidNotStart as exc:
        return {"error": "streamlit did not start", "log": str(exc)[-1000:]}
    return {"serving_s": round(serving_s, 1), "first_page_s": round(first_page_s, 1),
            "first_answer_s": round(first_answer_s, 1)}


def _settled(page: Page, timeout_s: float) -> None:
    ms = timeout_s * 1000
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=ms)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=ms)


def bench_scale(*, corpus: str | Path, questions_path: str | Path, scale: int, steps: Sequence[int] = (1,),
                limit: int | None = None, start: int = 0, queries: int, store: str | Path | None = None,
                dashboard: bool = True) -> int:
    """``graphrag bench scale``: grow a store step by step from copies of the corpus (its first ``limit``
    paragraphs) up to ``scale`` copies, measuring at each of ``steps`` and at the end, and print each step's
    figures (JSON lines). ``store`` already holding ``start`` copies grows an earlier run's store (default: a
    temporary file); ``queries`` questions of ``questions_path`` are asked at each step; ``dashboard`` false
    skips the dashboard's cold start."""
    from graphrag.ingest.documents import Source, read_corpus_json
    from graphrag.ingest.extract.rules import RulesExtractor, load_spacy
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.language.embed import get_embedder
    from graphrag.store import Store

    if not Path(corpus).is_file():
        print(f"error: no corpus at {corpus} (a JSON list of {{title, text}})", file=sys.stderr)
        return 2
    base = [x for x in read_corpus_json(Path(corpus)) if isinstance(x, Source)][:limit]
    sizes = sorted({s for s in (steps or [1]) if start < s < scale} | {scale})
    qs = questions(Path(questions_path), queries)
    load_spacy()
    embedder = get_embedder(lab_config())
    embedder.encode(["warm up"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(store) if store else Path(tmp) / "scale.db"
        done, ingest_total = start, 0.0  # a resumed run counts only its own ingest time
        for step in sizes:
            gc.collect()
            reset = reset_peak()
            with Store(path) as db:
                ingestor = Ingestor(db, RulesExtractor(), embedder, config=lab_config())
                report = ingestor.ingest(list(copies(base, done, step)))
                peak = vm_hwm_mb()
                counts = db.counts()
            t = report.timings
            ingest_total += t.total_s
            added = sum(d.sentences for d in report.documents)
            row: dict[str, object] = {
                "scale": step, "documents": counts["documents"], "sentences": counts["sentences"],
                "entities": counts["entities"], "relations": counts["relations"],
                "ingest_s_step": round(t.total_s, 1), "ingest_s_total": round(ingest_total, 1),
                "sentences_per_s_step": round(added / t.total_s, 1) if t.total_s else None,
                "peak_memory_ingest_mb": round(peak, 1), "peak_reset": reset, "store_mb": round(store_mb(path), 1),
                "load_average": round(os.getloadavg()[0], 2),
            }
            reset_peak()
            row.update(ask_figures(path, embedder, qs))
            row["peak_memory_ask_mb"] = round(vm_hwm_mb(), 1)
            if dashboard:
                row["dashboard_cold_start"] = dashboard_cold_start(path, qs[0])
            print(json.dumps(row), flush=True)  # one line per step: a long run shows each as it ends
            done = step
    return 0
