"""``graphrag bench load --browser`` (issue 42, item 4) at its smallest: one reviewer on one dashboard on SQLite
judges nine claims (the eighth key is Z, an undo) and asks one question; the command prints its figures as a JSON
line and the record check holds what the page confirmed. What is tested is that the benchmark drives the pages and
checks the record, not the figures."""

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


def test_the_load_benchmark_drives_a_reviewer_and_checks_the_record() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "graphrag", "bench", "load", "--browser", "--reviewers", "1",
                          "--engines", "sqlite", "--verdicts", "9", "--asks", "1", "--claims", "10", "--json"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    f = json.loads(run.stdout.strip().splitlines()[-1])
    assert (f["engine"], f["dashboards"], f["sessions"]) == ("sqlite", 1, 1)
    assert f["verdicts"] == 9 and f["asks"] == 1, f  # round trips timed: eight verdicts and an undo
    assert f["record_ok"] and f["record_problems"] == [], f
    assert (f["verdicts_confirmed"], f["undos_confirmed"]) == (8, 1) and f["verdict_rows"] == 8, f
    assert f["correction_rows"] == 1, f
    assert f["cpu_ms_per_verdict"] > 0 and f["cpu_ms_per_ask"] > 0 and f["loadavg_during_verdicts"], f
