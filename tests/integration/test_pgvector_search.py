"""On a PostgreSQL store whose server has pgvector, the database searches the vectors: halfvec columns written in the
transaction that writes the rows, an HNSW index kept in step with versions and removals, the asker's labels in the
query, and no index built or held by the process. Without pgvector the store keeps the in-process index and says
so, with how to enable it. Vectors of another encoder or dimension are refused; a database restart during an ask
is a clear error and the next ask works. No model: vectors are written straight (tests/support/vector_docs.py)."""

from __future__ import annotations

import logging

import numpy as np
import psycopg
import pytest

from graphrag.answer.retrieval import index as ann
from graphrag.answer.retrieval import load_graph, retrieve_vector
from graphrag.answer.retrieval.indexed import folder
from graphrag.errors import StoreError
from graphrag.language.encoding import DIM
from graphrag.model import AskSettings
from graphrag.store import DocumentWrite, Store, StoreUnreachable
from graphrag.store.vector_search import AskerFilter, VectorsMismatch, halfvec_text
from lab.million_store import Layout, build, labels
from lab.million_store import centres as million_centres
from vector_docs import centres, unit, write_doc

pytestmark = pytest.mark.postgresql

LAYOUT = Layout(3000, 3000)
PUBLIC = AskerFilter(frozenset({"public"}))


@pytest.fixture()
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A graph of a few thousand rows searched as a large one is: by an index, even for a selective asker."""
    monkeypatch.setattr(ann, "EXACT_BELOW", 1000)
    monkeypatch.setattr(ann, "EXACT_SUBSET", 0)


def _sql(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as c:
        cur = c.execute(sql)
        return cur.fetchall() if cur.description else []


def _question(topic: int) -> np.ndarray:
    """A vector near a topic of the synthetic layout."""
    near = million_centres(LAYOUT)[topic]
    return unit(near + np.random.default_rng(topic).standard_normal(DIM).astype(np.float32) * 0.5 / np.sqrt(DIM))


def test_the_database_searches_and_the_process_holds_no_index(pgvector_url: str, small_thresholds: None) -> None:
    with Store(pgvector_url) as store:
        assert store.vector_search().in_database and store.vector_search().pgvector
        build(store, LAYOUT)
        graph = load_graph(store)
        assert graph.indexes is not None and graph.indexes.server_sentences is not None
        assert graph.indexes.server_entities is not None
        assert graph.indexes.sentences is None and graph.indexes.entities is None, "no faiss index held"
        base = folder(store)
        assert not list(base.parent.glob(base.name + ".*.faiss")), "no index files written"
        q = graph.sentence_vectors[123]
        got = retrieve_vector(store, graph, q, AskSettings())
    assert got.context and all(c.span.document_id for c in got.context)
    assert ("syn00000012", 3) in {(c.span.document_id, c.span.sentence_index) for c in got.context}
    assert _sql(pgvector_url, "SELECT count(*) FROM pg_indexes WHERE indexdef LIKE '%hnsw%halfvec_cosine_ops%'") \
        == [(2,)]


def test_the_askers_labels_are_in_the_query_and_recall_holds(pgvector_url: str, small_thresholds: None) -> None:
    with Store(pgvector_url) as store:
        build(store, LAYOUT)
        graph = load_graph(store)
        searcher = graph.indexes.searcher("sentences")
        for access in (["public"], ["legal"]):
            visible = graph.visible_rows(access)
            hits = 0
            for t in range(10):
                q = _question(t)
                found = searcher.candidates(q, 10, graph.n_sentences, visible)
                assert len(found) == 10, "the iterative scan goes on until enough rows pass the filter"
                docs = {graph.docs[d].id for d in graph.sentence_doc[found]}
                assert all(set(access) & set(labels(int(d[3:]))) for d in docs)
                exact = np.argsort(-np.where(visible, graph.sentence_vectors @ q, -np.inf))[:10]
                hits += len(set(found.tolist()) & set(exact.tolist()))
            assert hits / 100 >= 0.95, (access, hits)
        # the server's own answer, without the process's re-check: only what the labels allow
        rows = store.nearest_sentences(halfvec_text(_question(1)), 40, AskerFilter(frozenset({"legal"})))
    assert len(rows) == 40 and all("legal" in labels(int(d[3:])) for d, _, _ in rows)


def test_ingest_writes_the_halfvec_and_versions_and_removals_keep_the_index_in_step(pgvector_url: str) -> None:
    with Store(pgvector_url) as store:
        for n in range(4):
            write_doc(store, n, "public")
        assert _sql(pgvector_url, "SELECT count(*), count(embedding) FROM sentences") == [(80, 80)]
        assert _sql(pgvector_url, "SELECT count(*) = count(embedding) FROM entities") == [(True,)]
        q = halfvec_text(centres()[2])
        assert {d for d, _, _ in store.nearest_sentences(q, 80, PUBLIC)} == {"d0", "d1", "d2", "d3"}
        from graphrag.access.identity import library_viewer

        store.remove_document("d2", actor="test", by=library_viewer())
        assert "d2" not in {d for d, _, _ in store.nearest_sentences(q, 80, PUBLIC)}
        write_doc(store, 10, "public")  # d10, then a new version of it: the old one is superseded
        src_rows = _sql(pgvector_url, "SELECT count(*) FROM sentences WHERE doc_id = 'd10'")
        assert src_rows == [(20,)]
        _sql(pgvector_url, "UPDATE documents SET superseded = 1 WHERE doc_id = 'd10'")
        assert "d10" not in {d for d, _, _ in store.nearest_sentences(q, 100, PUBLIC)}
        assert "d10" in {d for d, _, _ in store.nearest_sentences(q, 100, AskerFilter(frozenset({"public"}), True))}


def test_a_vector_of_another_dimension_is_refused_and_nothing_is_written(pgvector_url: str) -> None:
    from graphrag.ingest.documents import Source

    with Store(pgvector_url) as store:
        write_doc(store, 0, "public")
        text = "One sentence. Another one."
        src = Source("wide", "Wide", text, access=("public",))
        vecs = unit(np.ones((2, 768), dtype=np.float32))
        with pytest.raises(StoreError) as err:
            store.write_document(DocumentWrite(src.as_document(), "scripted", "ok",
                                               [(0, 13, "One sentence."), (14, 26, "Another one.")], vecs,
                                               [], {}, [], []))
        assert "768 dimensions" in str(err.value) and "another encoder" in str(err.value)
        assert store.document("wide", 1) is None
    assert _sql(pgvector_url, "SELECT count(*) FROM sentences WHERE doc_id = 'wide'") == [(0,)]


def test_a_store_whose_vectors_another_encoder_made_is_refused(pgvector_url: str, small_thresholds: None) -> None:
    with Store(pgvector_url) as store:
        build(store, LAYOUT)
    _sql(pgvector_url, "UPDATE meta SET value = 'other-encoder/384' WHERE key = 'vector_encoder'")
    with Store(pgvector_url) as store, pytest.raises(VectorsMismatch) as err:
        load_graph(store)
    assert "other-encoder/384" in str(err.value) and "new store" in str(err.value)


def test_without_pgvector_the_store_says_so_once_and_keeps_its_index(pg_url: str, small_thresholds: None,
                                                                     caplog: pytest.LogCaptureFixture,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrag.answer.retrieval import indexed

    # once per process and store: an earlier test on the same database may have been told already
    monkeypatch.setattr(indexed, "_told", set())
    # ... and a logging configuration made by another test (dictConfig) may have disabled the module's logger
    monkeypatch.setattr(logging.getLogger(indexed.__name__), "disabled", False)
    caplog.set_level(logging.INFO)
    with Store(pg_url) as store:
        found = store.vector_search()
        assert not found.in_database
        assert "no pgvector" in found.note and "graphrag store setup" in found.note
        for n in range(60):
            write_doc(store, n, "public")
        graph = load_graph(store)
        assert graph.indexes is not None and graph.indexes.sentences is not None, "the in-process index"
        assert graph.indexes.server_sentences is None
        write_doc(store, 61, "public")
        load_graph(store)
    told = [r for r in caplog.records if r.levelno == logging.WARNING and "no pgvector" in r.getMessage()]
    assert len(told) == 1


def test_a_restart_during_an_ask_is_a_clear_error_and_the_next_ask_works(pgvector_server, pgvector_url: str,
                                                                         small_thresholds: None) -> None:
    with Store(pgvector_url, retry_s=0.5) as store:
        build(store, LAYOUT)
        graph = load_graph(store)
        q = graph.sentence_vectors[7]
        before = retrieve_vector(store, graph, q, AskSettings())
        pgvector_server.stop()
        try:
            with pytest.raises(StoreUnreachable) as err:
                retrieve_vector(store, graph, q, AskSettings())
            assert "unreachable" in str(err.value) and "retry" in str(err.value)
        finally:
            pgvector_server.start()
        got = retrieve_vector(store, graph, q, AskSettings())
    assert got.context and [c.span for c in got.context] == [c.span for c in before.context]


def test_store_setup_creates_the_extension_and_the_application_role_writes_and_searches(pgvector_url: str) -> None:
    from graphrag.access.identity import library_viewer
    from graphrag.store import setup_roles

    role = f"app_{pgvector_url.rsplit('_', 1)[1]}"
    report = setup_roles(pgvector_url, role, by=library_viewer())
    assert "searched by the database" in report.vector_search
    assert _sql(pgvector_url, "SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == [(1,)]
    with Store(report.app_url) as store:
        assert store.vector_search().in_database
        write_doc(store, 3, "public")
        assert {d for d, _, _ in store.nearest_sentences(halfvec_text(centres()[3]), 5, PUBLIC)} == {"d3"}
    assert _sql(pgvector_url, "SELECT count(embedding) FROM sentences") == [(20,)]


def test_an_owner_who_may_not_create_the_extension_is_told_how(pgvector_server, pgvector_url: str) -> None:
    owner = f"owner_{pgvector_url.rsplit('_', 1)[1]}"
    _sql(pgvector_url, f"CREATE ROLE {owner} LOGIN NOSUPERUSER")
    _sql(pgvector_url, f"GRANT CREATE ON SCHEMA public TO {owner}")
    url = pgvector_url.replace("//postgres@", f"//{owner}@")
    with Store(url) as store:
        found = store.vector_search()
    assert not found.in_database
    assert "available on this server but not enabled" in found.note and "CREATE EXTENSION vector" in found.note


@pytest.mark.parametrize("server", ["pgvector_url", "pg_url"])
def test_store_info_says_where_the_vectors_are_searched(server: str, request: pytest.FixtureRequest,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from graphrag.cli import main

    url = request.getfixturevalue(server)
    assert main(["store", "info", "--store", url, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    if server == "pgvector_url":
        assert info["vector_search"] == "database" and info["vector_encoder"] == f"all-MiniLM-L6-v2/{DIM}"
    else:
        assert info["vector_search"] == "process" and "install pgvector 0.8" in info["note"]
