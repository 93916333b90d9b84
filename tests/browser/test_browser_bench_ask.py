"""``graphrag bench ask --browser``: Chromium asks sample questions on the Ask page and the command prints the
click-to-answer round trip. What is tested is that it drives the page and measures (a short run), not the figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app_helpers import ROOT, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()
pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")


def test_the_ask_page_benchmark_times_each_answer_it_asked_for() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "graphrag", "bench", "ask", "--browser", "--asks", "3", "--json"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    figures = json.loads(run.stdout)
    assert figures["asks"] == 3, figures
    assert 0 < figures["ask_p50_ms"] <= figures["ask_p95_ms"] <= figures["ask_max_ms"], figures
    assert figures["loadavg_before"] and figures["cpus"], figures


def test_the_ask_page_benchmark_refuses_a_count_below_one() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "graphrag", "bench", "ask", "--browser", "--asks", "0"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "--asks must be at least 1" in run.stderr
