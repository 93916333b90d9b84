"""The workspace: one object per process holding the settings (read from the environment once, or given), the store
and the models, each made once whichever thread asks first; its verbs take their settings from it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

import graphrag
from graphrag.answer import Asker
from graphrag.config import Config
from graphrag.store import Store
from graphrag.workspace import Workspace
from proc_helpers import HashEmbedder, write_synthetic_corpus

pytestmark = pytest.mark.unit


def test_open_reads_the_environment_once_and_not_when_given_a_config(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[object] = []

    def from_env(cls: type[Config], *args: Any, **kwargs: Any) -> Config:
        reads.append(args)
        return Config(store=str(tmp_path / "from-env.db"), store_retry_s=0.5)

    monkeypatch.setattr(Config, "from_env", classmethod(from_env))
    with graphrag.open() as ws:
        assert ws.store.url.path == tmp_path / "from-env.db"  # opened at once, where the settings say
        assert ws.store.database.retry_s == 0.5
        ws.ingest([], extractor="rules")
        assert ws.store.counts()["documents"] == 0
    assert len(reads) == 1
    with graphrag.open(tmp_path / "given.db", config=Config(store_retry_s=2.0)) as ws:
        assert (ws.store.url.path, ws.store.database.retry_s) == (tmp_path / "given.db", 2.0)
    assert len(reads) == 1


def _together(n: int, act: Any) -> list[Any]:
    """``act()`` on ``n`` threads released at once; what each returned."""
    start, out = threading.Barrier(n), [None] * n

    def run(i: int) -> None:
        start.wait()
        out[i] = act()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return out


def test_the_models_load_once_when_threads_ask_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[str] = []

    def load(passage_vectors: bool = False) -> object:
        loads.append(f"reader, second view {passage_vectors}")
        time.sleep(0.05)  # long enough for the other threads to arrive while it loads
        return object()

    def warm(self: Asker) -> Asker:
        loads.append("warm")
        time.sleep(0.05)
        return self

    monkeypatch.setattr("graphrag.answer.ask.Reader.load", load)
    monkeypatch.setattr(Asker, "warm", warm)
    with Workspace(Config(passage_vectors=True), where=tmp_path / "s.db", embedder=HashEmbedder()) as ws:
        askers = _together(4, lambda: ws.asker)
        assert all(a is askers[0] for a in askers)
        readers = _together(4, lambda: ws.asker.reader)
        assert all(r is readers[0] for r in readers) and loads == ["reader, second view True"]
        assert _together(3, ws.warm) == [ws, ws, ws] and loads[1:] == ["warm"]  # the others waited for it
        assert ws.warm() is ws and loads[1:] == ["warm"]


def test_closing_leaves_a_store_it_was_given_open(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        with Workspace(Config(), store=store) as ws:
            assert ws.store is store
        assert ws.store is store and store.counts()["documents"] == 0


def test_an_ollama_ingest_asks_the_configured_server(tmp_path: Path, dead_host: str) -> None:
    corpus = write_synthetic_corpus(tmp_path / "c", 3)
    with Workspace(Config(ollama_host=dead_host), where=tmp_path / "s.db", embedder=HashEmbedder()) as ws:
        report = ws.ingest([corpus], extractor="ollama", model="llama3.1")
    assert report.documents and all(d.status == "model_unavailable" for d in report.documents)
    assert all(dead_host in (d.error or "") for d in report.documents), report.documents[0].error
