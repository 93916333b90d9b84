"""A removal killed half-way (SIGKILL in the middle of its statements, or just before COMMIT)
leaves the store exactly as it was, row for row; the same removal then completes. SQLite and
PostgreSQL."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, Seed
from graphrag.store import Store
from graphrag.verify.review import record_verdict
from proc_helpers import HERE, ROOT, store_dump, store_problems, write_synthetic_corpus

HELPER = str(HERE / "proc_helpers.py")


def _run(*args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, HELPER, *args], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out


@pytest.fixture
def filled(store_url: str, tmp_path: Path) -> str:
    """8 runbooks and two versions of "policy"; an answer citing runbook-01, judged; a cached reply."""
    corpus = write_synthetic_corpus(tmp_path / "corpus", 10)
    _run("ingest", "--store", store_url, "--corpus", str(corpus))
    with Store(store_url) as s:
        span = s.span("runbook-01", 1, 1)
        assert span is not None
        item = ContextItem(1, span, Route(s.entities_at("runbook-01", 1, 1)[0]), 0.8, "mention")
        claim = Claim(0, span.text, 0, len(span.text) + 4, (Citation("1", True, item),))
        aid = s.save_answer(Answer("What does runbook 1 say?", AskSettings(), span.text + " [1]",
                                   (Seed(item.route.seed, 0.9),), (item.route,), (item,), (claim,)))
        answer = s.answer(aid)
        record_verdict(s, answer, answer.claims[0], answer.claims[0].citations[0], "supported", "ana", "ok")
        s.cache_put("reply", "{}")
    return store_url


@pytest.mark.parametrize("pause", ["DELETE FROM entities", "INSERT INTO removals", "COMMIT"])
@pytest.mark.timeout(180)
def test_a_removal_killed_half_way_leaves_the_store_as_it_was(filled: str, pause: str) -> None:
    before = store_dump(filled)
    p = subprocess.Popen([sys.executable, HELPER, "remove", "--store", filled, "--doc", "runbook-01",
                          "--pause-before", pause], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ROOT)
    assert json.loads(p.stdout.readline())["event"] == "ready", p.stderr.read()
    paused = json.loads(p.stdout.readline() or "{}")
    assert paused.get("event") == "paused", p.stderr.read()
    p.send_signal(signal.SIGKILL)
    assert p.wait(timeout=30) == -signal.SIGKILL
    p.stdout.close()
    p.stderr.close()

    Store(filled).close()  # opens cleanly (recovers the WAL, or the server rolled back the dead client)
    assert store_dump(filled) == before
    assert store_problems(filled) == []
    # ... and the removal, run again, completes.
    done = json.loads(_run("remove", "--store", filled, "--doc", "runbook-01").stdout.splitlines()[-1])
    assert done["spans"] > 0
    after = store_dump(filled)
    assert not [r for r in after["sentences"] if "runbook-01" in r] and len(after["removals"]) == 1
    assert after["verdicts"] == before["verdicts"]
    assert store_problems(filled) == []
