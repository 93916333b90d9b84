"""The command line while PostgreSQL restarts (issue 42): ``graphrag ask``, ``review list`` and ``review mark``, each
in a child process whose read inside a snapshot meets the restart, go through (read again from the snapshot's start
on a new connection; the verdict stored once); a server that stays down past the store's retry is one plain line,
never a traceback; and the next command after the restart works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app_helpers import ROOT, build_store, write_corpus
from graphrag.store import Store

pytestmark = [pytest.mark.model, pytest.mark.slow]

FAULTS = str(Path(__file__).resolve().parents[1] / "support" / "db_faults.py")
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "GRAPHRAG_STORE_RETRY_S": "3"}


def _restarted_inside(pg_server, *args: str) -> tuple[int, str, str]:
    """``graphrag ARGS`` with PostgreSQL restarted just before its first read inside a snapshot is sent."""
    proc = subprocess.Popen([sys.executable, FAULTS, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=ENV)
    assert proc.stdout is not None and proc.stdin is not None
    first = proc.stdout.readline()
    if first.strip() != "paused":
        proc.kill()
        raise AssertionError(f"the command read nothing inside a snapshot: {first}{proc.communicate()}")
    pg_server.restart()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def _graphrag(*args: str, env: dict[str, str] = ENV) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphrag", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=300)


def test_ask_review_list_and_mark_go_through_a_database_restart(pg_server, tmp_path: Path) -> None:
    url = pg_server.new_database()
    build_store(url, write_corpus(tmp_path / "corpus"))

    code, out, err = _restarted_inside(pg_server, "ask", "What do exports use?", "--store", url, "--json")
    assert (code, "Traceback" in err) == (0, False), err
    answer = json.loads(out)
    assert answer["answer_id"] and answer["claims"]

    code, out, err = _restarted_inside(pg_server, "review", "list", "--store", url, "--json")
    assert (code, "Traceback" in err) == (0, False), err
    assert {r["answer_id"] for r in json.loads(out)} == {answer["answer_id"]}

    code, out, err = _restarted_inside(pg_server, "review", "mark", "--answer", str(answer["answer_id"]), "--claim", "1",
                                       "--verdict", "supported", "--reviewer", "ana", "--store", url, "--json")
    assert (code, "Traceback" in err) == (0, False), err
    with Store(url) as s:
        assert [(v.id, v.reviewer, v.verdict.value) for v in s.verdicts()] == [
            (json.loads(out)["verdict_id"], "ana", "supported")]  # stored once

    pg_server.stop()  # down for longer than the store waits (3 s here)
    try:
        down = _graphrag("review", "list", "--store", url)
    finally:
        pg_server.start()
    assert down.returncode == 1 and "Traceback" not in down.stderr
    assert "unreachable" in down.stderr and "check that the server is running" in down.stderr
    after = _graphrag("review", "list", "--store", url, "--json")
    assert after.returncode == 0 and len(json.loads(after.stdout)) == len(answer["claims"])
