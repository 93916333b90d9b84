"""Enabling the database's vector search on a store that already holds rows: in short steps that leave other
connections reading and writing, resumable after an interruption, an index left invalid built again; while the
HNSW index is not ready the server's search is an exact scan that answers the same rows, and the asker is told
(the status, `graphrag ask` on stderr and in --json); once it is built the note is gone. No model: vectors are
written straight (lab/million_store.py) and questions are embedded by the hash embedder."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from graphrag.answer.retrieval import index as ann
from graphrag.answer.retrieval import load_graph, retrieve_vector
from graphrag.language.encoding import DIM
from graphrag.model import AskSettings
from graphrag.store import Store, vector_enable
from graphrag.store.db import Database
from graphrag.store.url import parse_store
from graphrag.store.vector_search import Stage, status
from lab.bench_pgvector_enable import other_connection
from lab.million_store import Layout, build

pytestmark = pytest.mark.postgresql

LAYOUT = Layout(3000, 3000)


@pytest.fixture()
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A graph of a few thousand rows searched as a large one is: by the database, even for a selective asker."""
    monkeypatch.setattr(ann, "EXACT_BELOW", 1000)
    monkeypatch.setattr(ann, "EXACT_SUBSET", 0)


def _conninfo(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def _sql(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(_conninfo(url), autocommit=True) as c:
        cur = c.execute(sql)
        return cur.fetchall() if cur.description else []


@pytest.fixture()
def rows_before_pgvector(pgvector_url: str) -> Iterator[str]:
    """A store holding rows written before its vector search was enabled: the synthetic layout, then the pgvector
    columns, trigger, indexes and encoder row taken away again."""
    with Store(pgvector_url) as store:
        build(store, LAYOUT)
    _sql(pgvector_url, "DROP TRIGGER graphrag_embedding ON sentences; DROP TRIGGER graphrag_embedding ON entities; "
                       "ALTER TABLE sentences DROP COLUMN embedding; ALTER TABLE entities DROP COLUMN embedding; "
                       "DELETE FROM meta WHERE key = 'vector_encoder'")
    with Store(pgvector_url, readonly=True) as store:
        assert store.vector_search().stage == Stage.PROCESS
    yield pgvector_url


def _as_the_trigger_converts(url: str) -> bool:
    """Whether the first rows' halfvecs are what the trigger's conversion makes of their vectors."""
    same = " AND ".join(f"(SELECT count(*) FROM (SELECT * FROM {t} ORDER BY {k} LIMIT 60) AS r WHERE "
                        "embedding IS DISTINCT FROM graphrag_halfvec(vector)) = 0"
                        for t, k in (("sentences", "doc_id, version, idx"), ("entities", "key")))
    return _sql(url, f"SELECT {same}") == [(True,)]


def _copied(url: str) -> list[tuple[object, ...]]:
    """Whether every stored vector has its halfvec; the number of valid indexes; the encoder recorded."""
    return _sql(url, "SELECT (SELECT count(vector) = count(embedding) FROM sentences), "
                     "(SELECT count(vector) = count(embedding) FROM entities), "
                     "(SELECT count(*) FROM pg_index WHERE indisvalid AND indexrelid IN "
                     "(to_regclass('sentences_embedding'), to_regclass('entities_embedding'))), "
                     "(SELECT value FROM meta WHERE key = 'vector_encoder')")


READY = [(True, True, 2, f"all-MiniLM-L6-v2/{DIM}")]  # every vector copied, both indexes valid, encoder recorded


def test_other_connections_read_and_write_while_a_store_is_enabled(rows_before_pgvector: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    url = rows_before_pgvector
    monkeypatch.setattr(vector_enable, "BATCH", 300)
    waits: list[float] = []
    stop = threading.Event()
    thread = threading.Thread(target=other_connection, args=(_conninfo(url), stop, waits, 0.0, "other"))
    thread.start()
    try:
        time.sleep(0.3)
        t0 = time.perf_counter()
        with Store(url) as store:  # the owner opening a small store enables it
            found = store.vector_search()
        enable_s = time.perf_counter() - t0
    finally:
        stop.set()
        thread.join()
    assert found.stage == Stage.READY and found.index_ready
    assert _copied(url) == READY, "every stored vector copied, both indexes valid, the encoder recorded"
    assert _as_the_trigger_converts(url)
    assert _sql(url, "SELECT count(*) = count(embedding) FROM entities WHERE key LIKE 'other:%'") == [(True,)]
    assert len(waits) >= 10, (len(waits), enable_s)
    assert max(waits) < 0.4 * enable_s, f"a reader waited {max(waits):.2f} s of the enabling's {enable_s:.2f} s"


def test_an_interrupted_copy_is_resumed_by_the_next_open(rows_before_pgvector: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    url = rows_before_pgvector
    monkeypatch.setattr(vector_enable, "BATCH", 500)
    real, calls = vector_enable.copy_batch, []

    def killed_at_the_third_batch(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # the process stopped mid-copy: this batch's transaction is rolled back
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vector_enable, "copy_batch", killed_at_the_third_batch)
    db = Database(parse_store(url))
    try:
        with pytest.raises(KeyboardInterrupt):
            vector_enable.enable(db)
        found = db.read(status)
    finally:
        db.close()
    assert found.stage == Stage.COPYING and not found.in_database, "searched in process until the copy is done"
    assert "1,000 of" in found.note and "graphrag store setup" in found.note, found.note
    assert _sql(url, "SELECT count(embedding) FROM sentences") == [(1000,)]
    monkeypatch.setattr(vector_enable, "copy_batch", real)
    with Store(url) as store:
        assert store.vector_search().stage == Stage.READY
    assert _copied(url) == READY and _as_the_trigger_converts(url)
    assert _sql(url, "SELECT count(*) FROM meta WHERE key = 'vector_copy'") == [(0,)]


def test_an_index_left_invalid_is_built_again(pgvector_url: str) -> None:
    with Store(pgvector_url) as store:
        build(store, LAYOUT)
    # what a CREATE INDEX CONCURRENTLY killed mid-way leaves
    _sql(pgvector_url, "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'sentences_embedding'::regclass")
    with Store(pgvector_url, readonly=True) as store:
        found = store.vector_search()
    assert found.stage == Stage.INDEXING and found.in_database and not found.index_ready
    assert "exact scan" in found.note and "invalid" in found.note, found.note
    with Store(pgvector_url) as store:
        assert store.vector_search().index_ready
    assert _copied(pgvector_url) == READY


def test_without_its_index_an_ask_answers_the_same_by_an_exact_scan_and_says_so(
        pgvector_url: str, small_thresholds: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from graphrag.answer import ask
    from graphrag.cli import main
    from proc_helpers import HashEmbedder

    monkeypatch.setattr(ask, "get_embedder", lambda config: HashEmbedder())
    with Store(pgvector_url) as store:
        build(store, LAYOUT)
        monkeypatch.setattr(vector_enable, "OPEN_BELOW", 0)  # as a large store: an open leaves the index to setup
        graph = load_graph(store)
        assert graph.indexes is not None and graph.indexes.server_sentences is not None
        q = graph.sentence_vectors[123]
        indexed = retrieve_vector(store, graph, q, AskSettings())
        assert store.vector_search().index_ready
        _sql(pgvector_url, "DROP INDEX sentences_embedding; DROP INDEX entities_embedding")
        found = store.vector_search(refresh=True)
        assert found.in_database and not found.index_ready and "exact scan" in found.note
        exact = retrieve_vector(store, graph, q, AskSettings())
    assert [c.span for c in exact.context] == [c.span for c in indexed.context]

    question = "Which sentences name entity seven?"
    assert main(["ask", question, "--store", pgvector_url, "--json"]) == 0
    out = capsys.readouterr()
    assert "note: Searched by an exact scan" in out.err and "HNSW index is missing" in out.err, out.err
    assert "exact scan" in json.loads(out.out)["search_note"]
    assert main(["store", "info", "--store", pgvector_url, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vector_stage"] == "indexing" and info["vector_index_ready"] is False

    role = f"app_{pgvector_url.rsplit('_', 1)[1]}"
    assert main(["store", "setup", "--owner-url", pgvector_url, "--app-role", role]) == 0
    assert "HNSW indexes built" in capsys.readouterr().err
    assert main(["ask", question, "--store", pgvector_url, "--json"]) == 0
    out = capsys.readouterr()
    assert "exact scan" not in out.err and json.loads(out.out)["search_note"] is None
