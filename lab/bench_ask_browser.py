"""``graphrag bench ask --browser``: the Ask page's round trip as a person waits for it, in headless Chromium.

A throwaway store gets the sample corpus; the dashboard runs on it (graphrag.serve) and Chromium asks the sample
questions on the Ask page, one after another. A round trip runs from the click on "Ask" until the page's script
run is over with the answer drawn: retrieval, the extractive answer, the support check, saving the answer and
the page's own work, which `graphrag bench ask` (the pipeline alone) leaves out.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lab.bench_review_browser import QUESTIONS, SAMPLE
from lab.browser_session import SETTLED_JS, cannot_run, dashboard_page, loadavg, pct

# The heading of the answer on screen ("Answer #3 ..."), which changes when a new answer is drawn.
_ANSWER_JS = ("() => { const h = [...document.querySelectorAll('h3')].map(e => e.innerText.trim())"
              ".find(t => t.startsWith('Answer #')); return h === undefined ? null : h; }")
_STEP_TIMEOUT_MS = 120_000


def bench_ask_browser(*, asks: int = 20, as_json: bool = False) -> int:
    """Ingest the sample corpus into a throwaway store, start the dashboard and Chromium, ask ``asks`` sample
    questions on the Ask page (the first one not counted: it loads the models and the graph) and print the round
    trip p50/p95/max."""
    if why := cannot_run(asks, "--asks"):
        print(why, file=sys.stderr)
        return 2
    import graphrag
    from graphrag.serve import DashboardDidNotStart

    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))]
    times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-ask-") as tmp:
        path = Path(tmp) / "store.db"
        with graphrag.open_store(path) as store:
            graphrag.ingest_paths(store, [SAMPLE])
        try:
            with dashboard_page(path, Path(tmp)) as page:
                page.wait_for_function(SETTLED_JS, timeout=240_000)
                load_before = loadavg()
                for i in range(asks + 1):  # one more: the first ask loads the models and the graph
                    page.get_by_label("Question", exact=True).fill(questions[i % len(questions)])
                    page.wait_for_function(SETTLED_JS, timeout=_STEP_TIMEOUT_MS)
                    before = page.evaluate(_ANSWER_JS)
                    t0 = time.perf_counter()
                    page.get_by_role("button", name="Ask", exact=True).click()
                    page.wait_for_function(f"prev => ({_ANSWER_JS})() !== prev && ({SETTLED_JS})()", arg=before,
                                           timeout=_STEP_TIMEOUT_MS)
                    if i:
                        times.append((time.perf_counter() - t0) * 1000)
        except DashboardDidNotStart as exc:
            print(str(exc), file=sys.stderr)
            return 1
    figures: dict[str, Any] = {
        "asks": len(times), "ask_p50_ms": round(statistics.median(times), 1),
        "ask_p95_ms": round(pct(times, 95), 1), "ask_max_ms": round(max(times), 1),
        "loadavg_before": load_before, "loadavg_after": loadavg(), "cpus": os.cpu_count(),
    }
    if as_json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{len(times)} sample questions asked on the Ask page in Chromium (after one that loads the models)")
        print(f"click to answer drawn: p50 {figures['ask_p50_ms']} ms, p95 {figures['ask_p95_ms']} ms, "
              f"max {figures['ask_max_ms']} ms")
        print(f"load average: {load_before} before, {figures['loadavg_after']} after ({os.cpu_count()} cores)")
    return 0
