"""``graphrag bench start``: how long a newcomer waits after `streamlit run app.py`, first and second start.

The dashboard is started as the README starts it (the sample corpus ingested on an empty store), on a store and
an ONNX cache folder of its own that do not exist yet (a first start), then again on the same ones (a second
start). Headless Chromium, with a fresh profile each time, opens the page; the figures are the seconds from the
server's launch until the Ask box is usable (the Question box drawn and the page's script run over) and until a
first answer is drawn. Then the first start's parts are timed one by one, each in a fresh process: imports, the
ONNX export, the model loads, and the sample ingest with the models already loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lab.bench_review_browser import QUESTIONS, SAMPLE
from lab.browser_session import SETTLED_JS, cannot_run, loadavg

_ANSWER_JS = ("() => [...document.querySelectorAll('h3')].some(e => e.innerText.trim().startsWith('Answer #'))")
_TIMEOUT_MS = 300_000

# Each part in a fresh interpreter: what a first start pays for it, without what an earlier part left loaded.
_PARTS = r"""
import json, sys, time
from pathlib import Path
t = {}
t0 = time.perf_counter()
import streamlit, graphrag, graphrag.ingest, graphrag.answer, dashboard.resources  # noqa: F401
t["imports_s"] = time.perf_counter() - t0
from graphrag.config import Config
cfg = Config.from_env()
from graphrag.language.encoding import model_path
from graphrag.language.embed_onnx import export_onnx
cache = Path(sys.argv[1])
t0 = time.perf_counter(); export_onnx(model_path(), cache); t["onnx_export_s"] = time.perf_counter() - t0
from graphrag.language.embed import get_embedder
t0 = time.perf_counter(); embedder = get_embedder(cfg); t["embedder_load_s"] = time.perf_counter() - t0
import graphrag as g
from graphrag.ingest import Ingestor, store_extractor
store = g.open_store(Path(sys.argv[2]))
t0 = time.perf_counter(); extractor = store_extractor("rules", store); t["extractor_load_s"] = time.perf_counter() - t0
from graphrag.answer import Asker
t0 = time.perf_counter(); Asker(store, embedder=embedder, config=cfg).warm(); t["reader_load_s"] = time.perf_counter() - t0
t0 = time.perf_counter()
Ingestor(store, extractor, config=cfg).ingest_paths([Path(sys.argv[3])])
t["sample_ingest_s"] = time.perf_counter() - t0
print(json.dumps({k: round(v, 1) for k, v in t.items()}))
"""


def _start(workdir: Path, env: dict[str, str], question: str, label: str) -> dict[str, Any]:
    """Launch the dashboard, open it in a fresh Chromium profile, and time the Ask box and a first answer."""
    from playwright.sync_api import sync_playwright

    from graphrag.serve import DashboardProcess
    from lab.browser import chromium_profile

    load_before = loadavg()
    with (workdir / f"server-{label}.log").open("w") as log, sync_playwright() as pw:
        t0 = time.perf_counter()
        server = DashboardProcess(log, env, timeout_s=240)
        try:
            url = server.start()
            serving = time.perf_counter() - t0
            ctx = chromium_profile(pw, workdir / f"profile-{label}", viewport={"width": 1440, "height": 900})
            try:
                page = ctx.new_page()
                page.set_default_timeout(_TIMEOUT_MS)
                page.goto(url)
                box = page.get_by_label("Question", exact=True)
                box.wait_for(state="visible")
                page.wait_for_function(SETTLED_JS, timeout=_TIMEOUT_MS)
                ask_box = time.perf_counter() - t0
                box.fill(question)
                page.get_by_role("button", name="Ask", exact=True).click()
                page.wait_for_function(f"() => ({_ANSWER_JS})() && ({SETTLED_JS})()", timeout=_TIMEOUT_MS)
                answer = time.perf_counter() - t0
            finally:
                ctx.close()
        finally:
            server.stop()
    return {"serving_s": round(serving, 1), "ask_box_s": round(ask_box, 1), "first_answer_s": round(answer, 1),
            "loadavg_before": load_before, "loadavg_after": loadavg()}


def bench_start(*, as_json: bool = False, parts: bool = True) -> int:
    """Time a first and a second start of the dashboard in headless Chromium (and, with ``parts``, the first
    start's parts); print the figures."""
    if why := cannot_run(1, "--starts"):
        print(why, file=sys.stderr)
        return 2
    from graphrag.serve import DashboardDidNotStart

    question = json.loads(QUESTIONS.read_text(encoding="utf-8"))[0]["question"]
    figures: dict[str, Any] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        work = Path(tmp)
        env = {"GRAPHRAG_STORE": str(work / "data" / "graphrag.db"), "GRAPHRAG_SAMPLE": "1",
               "GRAPHRAG_ONNX_CACHE": str(work / "onnx"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "OLLAMA_HOST": "127.0.0.1:9", "GRAPHRAG_MODE": "local"}
        (work / "data").mkdir()
        try:
            figures["first_start"] = _start(work, env, question, "first")
            figures["second_start"] = _start(work, env, question, "second")
        except DashboardDidNotStart as exc:
            print(str(exc), file=sys.stderr)
            return 1
        if parts:
            out = subprocess.run([sys.executable, "-c", _PARTS, str(work / "onnx-parts"), str(work / "parts.db"),
                                  str(SAMPLE)], capture_output=True, text=True, check=False,
                                 env={**os.environ, **env}, cwd=Path(__file__).resolve().parent.parent)
            if out.returncode:
                print(out.stderr[-2000:], file=sys.stderr)
                return 1
            figures["first_start_parts"] = json.loads(out.stdout.strip().splitlines()[-1])
    if as_json:
        print(json.dumps(figures, indent=2))
    else:
        for name in ("first_start", "second_start"):
            f = figures[name]
            print(f"{name.replace('_', ' ')}: serving {f['serving_s']} s, Ask box usable {f['ask_box_s']} s, "
                  f"first answer {f['first_answer_s']} s (load average {f['loadavg_before']} -> "
                  f"{f['loadavg_after']})")
        if parts:
            print("first start's parts, each in a fresh process: "
                  + ", ".join(f"{k} {v}" for k, v in figures["first_start_parts"].items()))
    return 0
