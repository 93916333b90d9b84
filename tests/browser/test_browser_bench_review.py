"""``graphrag bench review --browser`` (issue 25, item 6): the scripted reviewer judges claims with the keyboard in
headless Chromium, prints the verdict round trip and claims per minute, and its verdicts are in the store.

Twenty claims, the issue's "review twenty claims with the keyboard" (the Ask page and a reviewer naming themself are
in test_browser_review_keys.py): what is tested is that the benchmark drives the page through a reviewer's stint
and measures, not the figures. Its screenshot of the page where the reviewer stopped lands in test-artifacts/ for a
human to look at.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app_helpers import ROOT, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()
pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")

ARTIFACTS = ROOT / "test-artifacts"
CLAIMS = 20


def test_the_browser_benchmark_prints_its_figures_and_records_each_verdict(tmp_path: Path) -> None:
    from graphrag.store import Store

    ARTIFACTS.mkdir(exist_ok=True)
    db = tmp_path / "store.db"
    shot = ARTIFACTS / "12-bench-review-browser.png"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "graphrag", "bench", "review", "--browser", "--claims", str(CLAIMS),
                          "--json", "--store", str(db), "--screenshot", str(shot)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    figures = json.loads(run.stdout)
    assert figures["claims_judged"] == CLAIMS and figures["verdicts_recorded"] == CLAIMS, figures
    assert 0 < figures["verdict_p50_ms"] <= figures["verdict_p95_ms"] <= figures["verdict_max_ms"], figures
    assert figures["claims_per_minute"] > 0 and figures["loadavg_before"], figures
    assert shot.exists()

    with Store(db) as s:
        verdicts = s.verdicts()
    assert len(verdicts) == CLAIMS
    assert {v.reviewer for v in verdicts} == {"bench"} and {v.role for v in verdicts} == {"reviewer"}
    # the keys' mix: S, S, P, U, ...; each on a different claim
    assert [v.verdict.value for v in verdicts][:4] == ["supported", "supported", "partially_supported", "unsupported"]
    assert len({(v.answer_id, v.claim_index) for v in verdicts}) == CLAIMS
