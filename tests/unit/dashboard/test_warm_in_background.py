"""The models load while the first page is drawn (issue 60: the first question after a restart waited about 5 s for
them): the dashboard warms the asker in the background, once per process, and a question asked meanwhile waits for
that load rather than starting another."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app_helpers import app, ok
from helpers import write_document_rows

pytestmark = pytest.mark.unit


def test_the_asker_is_warmed_in_the_background_as_the_first_page_is_drawn(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrag.answer import Asker
    from graphrag.store import Store

    warmed = threading.Event()
    threads: list[str] = []

    def warm(self: Asker) -> Asker:  # no model in this tier: the load is counted, not done
        threads.append(threading.current_thread().name)
        warmed.set()
        return self

    monkeypatch.setattr(Asker, "warm", warm)
    with Store(tmp_path / "store.db") as s:
        write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
        path = s.path
    at = app(monkeypatch, path)
    monkeypatch.setenv("GRAPHRAG_WARM", "1")  # as served (the tests' pages warm nothing)
    ok(at)  # the Ask page, nothing asked
    assert warmed.wait(10), "the models were not loaded until a question was asked"
    assert threads == ["graphrag-warm-models"]  # off the page's thread: the page did not wait for it
    at = app(monkeypatch, path)
    monkeypatch.setenv("GRAPHRAG_WARM", "1")
    ok(at)  # another session of the same process: loaded once
    assert threads == ["graphrag-warm-models"]
