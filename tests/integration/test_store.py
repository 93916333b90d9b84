"""The store's guarantees, each checked on SQLite and on a real PostgreSQL server (the
``store_url`` fixture runs every test once per backend)."""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from sqlalchemy import text

from graphrag.access import library_viewer
from graphrag.answer.retrieval.load import build_graph, load_graph
from graphrag.errors import StoreError
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import Answer, AnswerStatus, Claim, Verdict, VerdictLabel
from graphrag.store import Store, sha256_text
from graphrag.store import graph as store_graph
from graphrag.store.codec import Row
from graphrag.store.documents import Written
from graphrag.verify.review import record_verdict, visible_answer, visible_to
from graphrag.verify.status import current_verdicts, load_answer
from helpers import VERDICT_BY_HAND
from proc_helpers import HashEmbedder, PatternExtractor, doc_text, store_problems, store_snapshot
from seeds import ingest_patterns as _ingest
from seeds import scripted_answer as _answer


@pytest.fixture(autouse=True)
def _questions_unparsed(unparsed_questions: None) -> None:
    """``_answer`` asks without spaCy: these tests are about what the store keeps, not about anchors."""


class _Collected:
    """A graph sink that keeps what it is handed."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.chunks: dict[str, list[list[tuple[object, ...]]]] = {}
        self.vectors: dict[str, np.ndarray] = {}

    def rows(self, table: str) -> list[tuple[object, ...]]:
        return [tuple(r) for chunk in self.chunks[table] for r in chunk]

    def _take(self, table: str, chunks: Iterator[list[tuple[object, ...]]]) -> None:
        self.calls.append(table)
        self.chunks[table] = list(chunks)

    def documents(self, rows: list[Row]) -> None:
        self.calls.append("documents")
        self.docs = rows

    def entities(self, chunks: Iterator[list[tuple[object, ...]]], vectors: np.ndarray) -> None:
        self._take("entities", chunks)
        self.vectors["entities"] = vectors

    def sentences(self, chunks: Iterator[list[tuple[object, ...]]], vectors: np.ndarray) -> None:
        self._take("sentences", chunks)
        self.vectors["sentences"] = vectors

    def mentions(self, chunks: Iterator[list[tuple[object, ...]]], last_id: int) -> None:
        self._take("mentions", chunks)
        self.last_mention = last_id

    def relations(self, chunks: Iterator[list[tuple[object, ...]]]) -> None:
        self._take("relations", chunks)


def _mapped(store: Store, sql: str) -> list[dict[str, object]]:
    with store.engine.connect() as c:
        return [dict(r) for r in c.execute(text(sql)).mappings()]


@pytest.mark.unit
def test_documents_spans_graph_and_vectors_round_trip(any_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _ingest(any_store, ("one", doc_text(1)), ("two", doc_text(2))) == ["ok", "ok"]
    assert _ingest(any_store, ("one", doc_text(1) + "Cobalt1 feeds Delta2.\n")) == ["ok"]  # a version 2
    assert store_problems(any_store.url) == []
    v1, v2 = any_store.document("one", 1), any_store.document("one", 2)
    assert v1 is not None and v1.superseded and v2 is not None and not v2.superseded
    for d in any_store.documents():
        spans = any_store.sentences(d.id, d.version)
        assert spans and all(d.text[s.start:s.end] == s.text for s in spans)
    ents, ments, rels, rows = (_mapped(any_store, sql) for sql in (
        "SELECT key, name, vector FROM entities ORDER BY key",
        "SELECT id, entity_key, doc_id, version, sentence_idx FROM mentions ORDER BY id",
        "SELECT id, source_key, target_key, type, doc_id, version, sentence_idx FROM relations ORDER BY id",
        "SELECT doc_id, version, idx, vector FROM sentences ORDER BY doc_id, version, idx"))
    vec = np.frombuffer(ents[0]["vector"], dtype=np.float32)  # BLOB / BYTEA: the same bytes back
    assert vec.shape == (384,) and abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5
    # the bulk read hands on the tables' rows as plain tuples, a chunk at a time (two rows here), and the vectors
    # as matrices with spare rows after them
    monkeypatch.setattr(store_graph, "CHUNK_ROWS", 2)
    got = _Collected()
    any_store.read_graph(got, lambda n: 2)
    assert got.calls == ["documents", "entities", "sentences", "mentions", "relations"]
    assert len(got.docs) == 3 and max(map(len, got.chunks["relations"])) == 2
    assert got.rows("entities") == [(e["key"], e["name"]) for e in ents]
    assert got.rows("mentions") == [(m["entity_key"], m["doc_id"], m["version"], m["sentence_idx"]) for m in ments]
    assert got.rows("relations") == [tuple(r.values()) for r in rels]
    assert got.rows("sentences") == [(r["doc_id"], r["version"], r["idx"]) for r in rows]
    for vectors, blobs in ((got.vectors["entities"], [e["vector"] for e in ents]),
                           (got.vectors["sentences"], [r["vector"] for r in rows])):
        assert np.array_equal(vectors, np.stack([np.frombuffer(b, dtype=np.float32) for b in blobs]))
        assert vectors.base is not None and vectors.base.shape[0] == len(blobs) + 2
    assert got.last_mention == max(m["id"] for m in ments)
    small = build_graph(any_store)  # built across chunk boundaries: the same graph
    monkeypatch.undo()
    assert np.allclose(np.frombuffer(rows[0]["vector"], dtype=np.float32),
                       HashEmbedder().encode([any_store.span(rows[0]["doc_id"], rows[0]["version"],
                                                             rows[0]["idx"]).text])[0])
    graph = load_graph(any_store)
    assert len(graph.docs) == 3 and graph.keys == sorted(graph.keys)
    assert small.keys == graph.keys and small.docs == graph.docs and small.edges.types == graph.edges.types
    for a, b in ((small.mentions.entity, graph.mentions.entity), (small.mentions.row, graph.mentions.row),
                 (small.sentence_doc, graph.sentence_doc), (small.edges.base.type, graph.edges.base.type),
                 (small.edges.base.row, graph.edges.base.row), (small.edges.base.src, graph.edges.base.src)):
        assert np.array_equal(a, b)
    counts = any_store.counts()
    assert counts["documents"] == 2 and counts["versions"] == 3 and counts["relations"] == len(rels)
    assert any_store.access_of("one", 1) == (("public",), True)
    assert any_store.entity(graph.keys[0]) is not None


@pytest.mark.unit
def test_answers_and_verdicts_round_trip_with_span_hashes(any_store: Store) -> None:
    _ingest(any_store, ("one", doc_text(1)))
    a = _answer(any_store)
    assert a.id is not None and a.claims
    again = any_store.answer(a.id)
    assert again is not None and again.claims == a.claims and again.context == a.context
    claim = a.claims[0]
    cit = next(c for c in claim.citations if c.valid)
    v = record_verdict(any_store, a, claim, cit, "supported", "ana", "fine")
    assert cit.item is not None and v.span_sha256 == sha256_text(cit.item.span.text)
    record_verdict(any_store, a, claim, cit, "unsupported", "ana", "changed my mind")
    assert [x.verdict for x in any_store.verdicts(a.id)] == [VerdictLabel.SUPPORTED, VerdictLabel.UNSUPPORTED]
    assert [x.note for x in current_verdicts(any_store, a.id)] == ["changed my mind"]
    for cl in a.claims[1:]:
        record_verdict(any_store, a, cl, next((c for c in cl.citations if c.valid), None), "partial", "ana")
    # the store keeps the status the answer was saved with; "reviewed" and "verified" are the review policy's
    # words: every claim judged, with one judged unsupported, is reviewed; every one judged supported, verified
    assert any_store.answer(a.id).status == a.status not in (AnswerStatus.VERIFIED, AnswerStatus.REVIEWED)
    assert load_answer(any_store, a.id).status == AnswerStatus.REVIEWED
    for cl in a.claims:
        record_verdict(any_store, a, cl, next((c for c in cl.citations if c.valid), None), "supported", "ana")
    assert load_answer(any_store, a.id).status == AnswerStatus.VERIFIED
    assert visible_answer(any_store, a.id, library_viewer(["public"])).status == AnswerStatus.VERIFIED  # the CLI, the exports
    claims = any_store.claim_summaries()
    assert {c["answer_id"] for c in claims} == {a.id} and any_store.answer_footprints()[a.id].documents == {("one", 1)}


@pytest.mark.unit
def test_verdicts_are_append_only_in_the_database_itself(any_store: Store, store_url: str) -> None:
    _ingest(any_store, ("one", doc_text(1)))
    a = _answer(any_store)
    record_verdict(any_store, a, a.claims[0], a.claims[0].citations[0], "supported", "ana")
    # through the store's own driver connection, and through a separate client of the database
    for sql in ("UPDATE verdicts SET note='edited'", "DELETE FROM verdicts", "UPDATE verdicts SET span_sha256='0'"):
        with pytest.raises(Exception, match="append-only"), any_store.transaction() as db:
            db.execute(sql)
        with pytest.raises(Exception, match="append-only"), any_store.engine.begin() as c:
            c.execute(text(sql))
    if any_store.url.kind == "postgresql":
        with pytest.raises(Exception, match="append-only"), any_store.engine.begin() as c:
            c.execute(text("TRUNCATE verdicts CASCADE"))
    assert [v.note for v in any_store.verdicts()] == [""] and len(any_store.verdicts()) == 1


@pytest.mark.unit
def test_a_failure_inside_a_document_write_leaves_nothing(any_store: Store, monkeypatch) -> None:
    from graphrag.store import documents

    _ingest(any_store, ("one", doc_text(1)))
    before, gen = store_snapshot(any_store.url), any_store.generation()
    real = documents.write

    def write_then_fail(c, w):
        real(c, w)  # every row of the new version is written (and v1 marked superseded) ...
        if c.dialect.name == "sqlite":  # ... then the database fails before COMMIT
            raise sqlite3.OperationalError("disk I/O error")
        import psycopg.errors

        raise psycopg.errors.DiskFull("could not extend file")

    monkeypatch.setattr(documents, "write", write_then_fail)
    report = Ingestor(any_store, PatternExtractor(), HashEmbedder()).ingest([Source("one", "One", doc_text(5))])
    assert report.documents[0].status == "failed" and "nothing was written" in (report.documents[0].error or "")
    assert store_snapshot(any_store.url) == before and any_store.generation() == gen
    assert not any_store.document("one", 1).superseded
    monkeypatch.undo()
    assert _ingest(any_store, ("one", doc_text(5))) == ["ok"] and store_problems(any_store.url) == []


@pytest.mark.unit
def test_the_generation_moves_with_every_document_and_other_handles_see_it(store_url: str) -> None:
    a, b = Store(store_url), Store(store_url)
    try:
        _ingest(a, ("one", doc_text(1)))
        g1 = load_graph(a)
        assert load_graph(b) is g1, "two handles on one store share one cached graph"
        gen = b.generation()
        _ingest(b, ("two", doc_text(2)))
        assert a.generation() == gen + 1
        g2 = load_graph(a)
        assert g2 is not g1 and {d.id for d in g2.docs} == {"one", "two"}
    finally:
        a.close()
        b.close()


@pytest.mark.unit
def test_concurrent_writers_lose_nothing_and_share_no_id(store_url: str) -> None:
    with Store(store_url) as s:
        _ingest(s, ("one", doc_text(1)))
        answer = _answer(s)
    errors: list[str] = []
    ids: dict[str, list[int]] = {}
    go = threading.Barrier(4)

    def review(who: str) -> None:
        with Store(store_url) as s:
            go.wait()
            got = []
            for i in range(40):
                cl = answer.claims[i % len(answer.claims)]
                try:
                    got.append(record_verdict(s, answer, cl, None, "supported", who, f"{who} {i}").id or 0)
                except StoreError as exc:
                    errors.append(str(exc))
            ids[who] = got

    threads = [threading.Thread(target=review, args=(f"r{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with Store(store_url) as s:
        rows = s.verdicts(answer.id)
    assert len(rows) == 160 and len({v.id for v in rows}) == 160
    assert Counter(v.reviewer for v in rows) == {f"r{i}": 40 for i in range(4)}
    assert sorted(i for got in ids.values() for i in got) == sorted(v.id for v in rows)


@pytest.mark.unit
def test_a_store_from_a_newer_version_is_refused(store_url: str) -> None:
    with Store(store_url) as s, s.engine.begin() as c:
        if s.url.kind == "sqlite":
            c.exec_driver_sql("PRAGMA user_version=99")
        else:
            c.execute(text("UPDATE meta SET value='99' WHERE key='schema_version'"))
    with pytest.raises(StoreError, match="newer version"):
        Store(store_url)


# --- PostgreSQL only: what SQLite's single writer never meets --------------------------------


@pytest.mark.unit
def test_a_deadlock_is_retried_and_both_writers_succeed(pg_url: str) -> None:
    """Two transactions lock two rows in opposite orders: PostgreSQL aborts one (40P01); the
    store retries it whole and neither caller sees an error."""
    with Store(pg_url) as s:
        s.cache_put("a", "0")
        s.cache_put("b", "0")
    both_hold_one = threading.Barrier(2)
    attempts: Counter[str] = Counter()
    errors: list[BaseException] = []

    def writer(first: str, second: str) -> None:
        with Store(pg_url) as s:
            def run(c):
                attempts[first] += 1
                c.execute(text("UPDATE reply_cache SET value=value || 'x' WHERE key=:k"), {"k": first})
                if attempts[first] == 1:
                    both_hold_one.wait(timeout=10)
                c.execute(text("UPDATE reply_cache SET value=value || 'y' WHERE key=:k"), {"k": second})
            try:
                s._write(run)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    threads = [threading.Thread(target=writer, args=ab) for ab in (("a", "b"), ("b", "a"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # At least one was aborted and run again; on a busy machine the loser's retry can take the first
    # row back before the winner does and deadlock once more (seen as 3 + 1 attempts), retried as well.
    assert sum(attempts.values()) >= 3, "neither writer was aborted: no deadlock happened"
    with Store(pg_url) as s:
        # the winner appended x then y to its pair; the retried loser's first attempt left no trace
        assert sorted([s.cache_get("a"), s.cache_get("b")]) == ["0xy", "0yx"]


@pytest.mark.slow  # waits out the connection retries: seconds
def test_an_unreachable_server_is_a_clear_error_then_recovers(pg_server) -> None:
    url = pg_server.new_database()
    s = Store(url, retry_s=1.0)
    _ingest(s, ("one", doc_text(1)))
    pg_server.stop()
    try:
        with pytest.raises(StoreError, match="unreachable") as err:
            s.counts()
        assert "postgres@127.0.0.1" in str(err.value) and "tried for 1 s" in str(err.value)
        with pytest.raises(StoreError, match=r"unreachable.*nothing was written"):
            s.cache_put("k", "v")
    finally:
        pg_server.start()
    assert s.counts()["documents"] == 1  # the pool reconnects by itself
    s.cache_put("k", "v")
    assert s.cache_get("k") == "v"
    s.close()


@pytest.mark.unit
def test_a_connection_dropped_mid_ingest_retries_the_document_whole(pg_url: str) -> None:
    """The server ends the ingest's connection just before COMMIT: the transaction is rolled back
    by the server and the store writes the whole document again on a new connection."""
    import psycopg
    from sqlalchemy import event

    s = Store(pg_url)
    _ingest(s, ("one", doc_text(1)))
    admin = psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql"), autocommit=True)
    dropped: list[int] = []

    @event.listens_for(s.engine, "commit")
    def drop_before_commit(conn) -> None:
        if not dropped:
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            dropped.append(pid)

    assert _ingest(s, ("two", doc_text(2))) == ["ok"]
    assert dropped, "the connection was dropped once"
    event.remove(s.engine, "commit", drop_before_commit)
    assert [d.id for d in s.documents()] == ["one", "two"]
    assert store_problems(s.url) == [] and len(s.sentences("two", 1)) == len(s.sentences("one", 1))
    admin.close()
    s.close()


@pytest.mark.unit
def test_a_snapshot_whose_connection_drops_is_read_again_whole(pg_url: str) -> None:
    """The server ends a snapshot's connection between two of its reads, after another handle committed: the
    store runs the snapshot again from its start on a new connection (both reads then see the new commit), never
    the second read alone (which would pair a state before the commit with one after), and no error reaches the
    caller."""
    import psycopg

    s, other = Store(pg_url), Store(pg_url)
    _ingest(s, ("one", doc_text(1)))
    admin = psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql"), autocommit=True)
    attempts = 0

    def reads() -> tuple[int, list[str]]:
        nonlocal attempts
        attempts += 1
        counted = s.counts()["documents"]
        if attempts == 1:
            assert _ingest(other, ("two", doc_text(2))) == ["ok"]
            pid = s._read(lambda c: c.exec_driver_sql("SELECT pg_backend_pid()").scalar())
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        return counted, [d.id for d in s.documents()]

    try:
        counted, ids = s.in_snapshot(reads)
        assert attempts == 2, "the snapshot was run again after its connection dropped"
        assert (counted, ids) == (2, ["one", "two"]), "both reads come from one state of the store"
        # the same for the snapshot the Review page read through when a server restart left the pool's connections
        # dead: the sources that decide what a viewer may see
        answer = _answer(s)
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                      "AND pid <> pg_backend_pid()")
        assert visible_to(answer, library_viewer(["public"]), s)
    finally:
        admin.close()
        other.close()
        s.close()


@pytest.mark.unit
def test_claim_objects_are_unchanged_by_the_round_trip(any_store: Store) -> None:
    _ingest(any_store, ("one", doc_text(1)))
    a = _answer(any_store)
    loaded = any_store.answer(a.id)
    assert loaded is not None and isinstance(loaded.claims[0], Claim)
    v = Verdict(a.id, 0, VerdictLabel.SUPPORTED, "ana", "0" * 64)
    vid = any_store.add_verdict(v, VERDICT_BY_HAND)
    assert any_store.verdicts(a.id)[0].id == vid


@pytest.mark.unit
def test_a_nul_character_is_kept_on_sqlite_and_refused_clearly_on_postgresql(any_store: Store) -> None:
    """PostgreSQL's text type cannot hold U+0000; the document fails with the server's reason and
    nothing of it is written (SQLite stores it exactly)."""
    text_ = "Alpha1 uses Beacon2.\x00 Cobalt3 uses Delta4."
    report = Ingestor(any_store, PatternExtractor(), HashEmbedder()).ingest([Source("nul", "NUL", text_)])
    d = report.documents[0]
    if any_store.url.kind == "sqlite":
        assert d.status == "ok" and any_store.current_document("nul").text == text_
    else:
        assert d.status == "failed" and "NUL" in (d.error or "") and "nothing was written" in (d.error or "")
        assert any_store.counts()["versions"] == 0


@pytest.mark.unit
def test_a_snapshot_sees_one_state_while_another_handle_commits(store_url: str) -> None:
    """What the graph build relies on: reads inside ``in_snapshot()`` ignore commits made meanwhile
    (REPEATABLE READ READ ONLY on PostgreSQL, a WAL read transaction on SQLite)."""
    a, b = Store(store_url), Store(store_url)
    try:
        _ingest(a, ("one", doc_text(1)))

        def reads() -> None:
            assert a.counts()["versions"] == 1
            assert _ingest(b, ("two", doc_text(2))) == ["ok"]
            assert a.counts()["versions"] == 1 and a.document("two", 1) is None and a.generation() == 1
            if a.url.kind == "postgresql":
                assert a._read(lambda c: c.exec_driver_sql("SHOW transaction_read_only").scalar()) == "on"

        a.in_snapshot(reads)
        assert a.counts()["versions"] == 2 and a.generation() == 2
    finally:
        a.close()
        b.close()


@pytest.mark.unit
def test_a_new_table_is_one_migration_step_on_both_backends(store_url: str, monkeypatch) -> None:
    """How a new schema version is added (a Table and a step in schema.py): an existing store with
    data migrates on open, on either database, and this release then refuses the newer store."""
    from sqlalchemy import Column, Integer, Table, Text

    from graphrag.store import db, schema

    known = schema.SCHEMA_VERSION
    nxt = known + 1
    with Store(store_url) as s:
        _ingest(s, ("one", doc_text(1)))
    layout = Table("layout_probe", schema.metadata, Column("doc_id", Text, primary_key=True), Column("page", Integer))
    try:
        monkeypatch.setitem(schema.MIGRATIONS, nxt, lambda c: schema.create_tables(c, layout))
        monkeypatch.setattr(db, "SCHEMA_VERSION", nxt)
        with Store(store_url) as s:
            s._write(lambda c: c.execute(layout.insert(), {"doc_id": "one", "page": 3}))
            version = s._read(lambda c: c.execute(text("SELECT value FROM meta WHERE key='schema_version'")).scalar())
            assert version == str(nxt)
            assert s.counts()["versions"] == 1 and s._read(lambda c: c.execute(layout.select()).all()) == [("one", 3)]
    finally:
        schema.metadata.remove(layout)
    monkeypatch.undo()
    with pytest.raises(StoreError, match=rf"newer version \(schema {nxt}, this one knows {known}\)"):
        Store(store_url)


@pytest.mark.unit
def test_two_instances_ingesting_the_same_file_at_once_store_one_version(store_url: str) -> None:
    """Each instance checks for identical content before extracting; both may pass that check.
    The store checks again inside the write, after the lock that orders writers."""
    a, b = Store(store_url), Store(store_url)
    try:
        writes: list[object] = []
        for s in (a, b):  # both prepared the write before either committed
            s.write_document = lambda w: writes.append(w) or Written(1)  # held back
            Ingestor(s, PatternExtractor(), HashEmbedder()).ingest([Source("one", "One", doc_text(1))])
            del s.write_document
        assert len(writes) == 2
        assert a.write_document(writes[0]) == 1
        assert b.write_document(writes[1]) == 1, "the second instance's identical write is a no-op"
        assert [(d.id, d.version) for d in a.documents()] == [("one", 1)]
        assert store_problems(a.url) == []
    finally:
        a.close()
        b.close()


@pytest.mark.unit
def test_a_verdict_whose_reply_was_lost_is_stored_once(pg_url: str) -> None:
    """The server committed the INSERT, then the connection died before the reply reached the
    client: the retry finds that row instead of writing the verdict a second time."""
    import psycopg
    from sqlalchemy import event

    s = Store(pg_url)
    _ingest(s, ("one", doc_text(1)))
    a = _answer(s)
    lost: list[str] = []

    @event.listens_for(s.engine, "after_cursor_execute")
    def lose_the_reply(conn, cursor, statement, *rest) -> None:
        if statement.startswith("INSERT INTO verdicts") and not lost:
            lost.append(statement)
            raise psycopg.OperationalError("server closed the connection unexpectedly")

    v = record_verdict(s, a, a.claims[0], None, "supported", "ana", "once")
    event.remove(s.engine, "after_cursor_execute", lose_the_reply)
    assert lost, "the reply of the first INSERT was lost"
    assert [(x.id, x.note) for x in s.verdicts(a.id)] == [(v.id, "once")]
    record_verdict(s, a, a.claims[0], None, "supported", "ana", "once")  # a deliberate second one is kept
    assert len(s.verdicts(a.id)) == 2
    s.close()


def _disagreeing(a: Answer) -> Answer:
    from dataclasses import replace

    from graphrag.model import Disagreement, DisagreementSide

    sides = (DisagreementSide(1, "one", 1, "One", "2025-06-01", False, "35 days", "Kept for 35 days."),
             DisagreementSide(2, "two", 1, "Two", None, False, "14 days", "Kept for 14 days."))
    return replace(a, id=None, disagreements=(Disagreement(sides),))


@pytest.mark.unit
def test_an_answers_disagreements_are_stored_and_read_back(any_store: Store) -> None:
    _ingest(any_store, ("one", doc_text(1)), ("two", doc_text(2)))
    a = _disagreeing(_answer(any_store))
    stored = any_store.answer(any_store.save_answer(a))
    assert stored is not None and stored.disagreements == a.disagreements
    assert any_store.answer(_answer(any_store).id).disagreements == ()  # none found: none recorded


@pytest.mark.unit
def test_a_schema_6_store_gains_the_disagreements_column_and_keeps_its_answers(store_url: str) -> None:
    from graphrag.store import db, schema

    with Store(store_url) as old:
        _ingest(old, ("one", doc_text(1)), ("two", doc_text(2)))
        aid = _answer(old).id

        def downgrade(c) -> None:  # type: ignore[no-untyped-def]
            c.exec_driver_sql("ALTER TABLE answers DROP COLUMN disagreements")
            db._set_schema_version(c, 6)

        old._write(downgrade)
    with Store(store_url) as s:
        assert s.database.version == schema.SCHEMA_VERSION
        assert s.answer(aid).disagreements == ()
        new = s.answer(s.save_answer(_disagreeing(s.answer(aid))))
        assert new.disagreements and new.disagreements[0].sides[0].says == "35 days"


@pytest.mark.unit
def test_a_schema_14_store_gains_the_audit_index_and_keeps_its_policy(store_url: str) -> None:
    """The review policy in force is read from the audit log by event on every held ask; a store from before the
    index gets it on opening, and reads the same policy."""
    from sqlalchemy import inspect

    from graphrag.store import db, schema
    from graphrag.verify.policy import ReviewPolicy
    from graphrag.verify.status import held_until_verified, keep_review_policy, review_policy
    from helpers import ADMIN

    with Store(store_url) as old:
        keep_review_policy(old, ReviewPolicy(2), by=ADMIN, held=True)

        def downgrade(c) -> None:  # type: ignore[no-untyped-def]
            c.exec_driver_sql("DROP INDEX audit_event")
            db._set_schema_version(c, 14)

        old._write(downgrade)
        assert "audit_event" not in {i["name"] for i in old._read(lambda c: inspect(c).get_indexes("audit"))}
    with Store(store_url) as s:
        assert s.database.version == schema.SCHEMA_VERSION
        assert "audit_event" in {i["name"] for i in s._read(lambda c: inspect(c).get_indexes("audit"))}
        assert review_policy(s).required == 2 and held_until_verified(s)


def test_a_removed_documents_words_leave_the_disagreement_too(store: Store) -> None:
    """A withdrawn answer keeps no text of the removed document: the disagreement quotes it."""
    from graphrag.ingest.removal import remove_document
    from helpers import ADMIN

    _ingest(store, ("one", doc_text(1)), ("two", doc_text(2)))
    aid = store.save_answer(_disagreeing(_answer(store)))
    remove_document(store, "one", actor="admin", by=ADMIN)
    assert store.answer(aid).disagreements == ()
    raw = store._read(lambda c: c.execute(text("SELECT disagreements FROM answers WHERE id=:a"), {"a": aid}).scalar())
    assert raw is None


def test_the_second_view_is_kept_per_sentence_and_goes_with_its_document(any_store: Store) -> None:
    """The reader's passage vectors on both backends: written with the document, read back by key, a question's
    late additions kept once (a second writer's copy is ignored), and removed with the version."""
    from doubles.reader import ScriptedPassages
    from helpers import ADMIN

    view = ScriptedPassages("alpha1")
    Ingestor(any_store, PatternExtractor(), HashEmbedder(), passage_encoder=view).ingest(
        [Source("one", "One", doc_text(1)), Source("two", "Two", doc_text(2))])
    n = len(any_store.sentences("one", 1))
    keys = [("one", 1, i) for i in range(n)]
    got = any_store.passage_vectors(view.name, keys)
    assert sorted(got) == keys and all(v.shape == (view.dim,) and v.dtype == np.float32 for v in got.values())
    assert any_store.passage_vectors("another-model", keys) == {}
    # a question's late vectors: kept, and a second save of the same key keeps the first
    late = [(("two", 1, 0), np.full(view.dim, 0.5, dtype=np.float32))]
    assert any_store.save_passage_vectors("late-model", late)
    assert any_store.save_passage_vectors("late-model", [(("two", 1, 0), np.zeros(view.dim, dtype=np.float32))])
    assert np.allclose(any_store.passage_vectors("late-model", [("two", 1, 0)])[("two", 1, 0)], 0.5)
    any_store.remove_document("one", actor="admin", by=ADMIN)
    assert any_store.passage_vectors(view.name, keys) == {}
    assert any_store.passage_vectors(view.name, [("two", 1, 0)])  # the other document's stay


def test_a_refitted_models_vectors_supersede_its_earlier_weights(any_store: Store) -> None:
    """Vectors kept under ``family@digest``: filling for new weights deletes the family's other digests' rows (no
    reader asks for them again) and leaves every other model's, including a name that only looks alike."""
    Ingestor(any_store, PatternExtractor(), HashEmbedder()).ingest([Source("one", "One", doc_text(1))])
    key, vec = ("one", 1, 0), np.ones(4, dtype=np.float32)
    for model in ("scorer@old", "scorer@new", "scorer-large@old", "scorer_x@old", "e5"):
        assert any_store.save_passage_vectors(model, [(key, vec)])
    assert any_store.drop_superseded_passage_vectors("scorer@new") == 1
    assert any_store.passage_vectors("scorer@old", [key]) == {}
    assert all(any_store.passage_vectors(m, [key]) for m in ("scorer@new", "scorer-large@old", "scorer_x@old", "e5"))
    assert any_store.drop_superseded_passage_vectors("e5") == 0  # a name without a digest supersedes nothing
