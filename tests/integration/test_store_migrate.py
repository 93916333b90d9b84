"""`graphrag store migrate`: a SQLite store copied into PostgreSQL with its ids and times,
verified, and all or nothing."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import text

from graphrag.answer.retrieval.load import build_graph
from graphrag.cli import main
from graphrag.errors import StoreError
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import Ingestor
from graphrag.store import Store, transfer
from graphrag.verify.review import record_verdict
from graphrag.verify.status import keep_review_policy, review_policy
from helpers import ADMIN
from proc_helpers import HashEmbedder, PatternExtractor, doc_text, store_problems, store_snapshot

pytestmark = pytest.mark.unit


@pytest.fixture()
def sqlite_store(tmp_path, unparsed_questions):
    """A SQLite store with two versions of a document, an answer, verdicts (one changed mind),
    an ingest log and a cached model reply."""
    from seeds import scripted_answer as _answer

    path = tmp_path / "team.db"
    with Store(path) as s:
        ing = Ingestor(s, PatternExtractor(), HashEmbedder())
        ing.ingest([Source("one", "One", doc_text(1)), Source("two", "Two", doc_text(2))])
        ing.ingest([Source("one", "One", doc_text(1) + "Cobalt1 feeds Delta2.\n")])
        a = _answer(s)
        for i, verdict in enumerate(("supported", "unsupported", "partial")):
            cl = a.claims[i % len(a.claims)]
            record_verdict(s, a, cl, next((c for c in cl.citations if c.valid), None), verdict, "ana", f"n{i}")
        s.cache_put("ollama:chunk", '{"entities": []}')
    return path


def test_migrate_copies_everything_with_ids_and_times_and_verifies(sqlite_store, pg_url, capsys) -> None:
    assert main(["store", "migrate", "--from", str(sqlite_store), "--to", pg_url, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verified"] and "postgres@127.0.0.1" in report["target"]
    rows = {t["table"]: t["rows"] for t in report["tables"]}
    assert rows["documents"] == 3 and rows["verdicts"] == 3 and rows["reply_cache"] == 1 and rows["ingest_log"] == 3
    with Store(sqlite_store) as old, Store(pg_url) as new:
        assert new.counts() == old.counts() and new.generation() == old.generation()
        assert new.verdicts() == old.verdicts()  # ids, times, span hashes, staleness
        assert new.answer(1) == old.answer(1)
        assert new.cache_get("ollama:chunk") == old.cache_get("ollama:chunk")
        g_old, g_new = build_graph(old), build_graph(new)
        assert (g_old.keys, g_old.docs) == (g_new.keys, g_new.docs)
        assert (g_old.sentence_vectors == g_new.sentence_vectors).all()
        # new rows continue after the copied ids, and the record stays append-only
        a = new.answer(1)
        v = record_verdict(new, a, a.claims[0], None, "supported", "bo")
        assert v.id == 4
        with pytest.raises(Exception, match="append-only"), new.engine.begin() as c:
            c.execute(text("DELETE FROM verdicts"))
    assert store_snapshot(pg_url) == store_snapshot(sqlite_store) and store_problems(pg_url) == []


def test_migrate_into_a_store_that_holds_data_is_refused_and_changes_nothing(sqlite_store, pg_url, capsys) -> None:
    with Store(pg_url) as s:
        Ingestor(s, PatternExtractor(), HashEmbedder()).ingest([Source("mine", "Mine", doc_text(7))])
    before = store_snapshot(pg_url)
    assert main(["store", "migrate", "--from", str(sqlite_store), "--to", pg_url]) == 1
    assert "not empty (1 documents" in capsys.readouterr().err
    assert store_snapshot(pg_url) == before


def test_a_failure_mid_copy_leaves_the_target_untouched(sqlite_store, pg_url, monkeypatch) -> None:
    real = transfer._read_table

    def target_lost_a_verdict(c, t):  # as if a row went missing on the way
        rows = real(c, t)
        return rows[:-1] if c.dialect.name == "postgresql" and t.name == "verdicts" else rows

    monkeypatch.setattr(transfer, "_read_table", target_lost_a_verdict)
    with pytest.raises(transfer.CopyMismatch, match=r"verdicts: 3 rows expected, 2 copied.*rolled back"):
        transfer.copy_store(sqlite_store, pg_url)
    from sqlalchemy import create_engine

    engine = create_engine(pg_url)
    with engine.connect() as c:  # not even the schema was left behind
        assert c.execute(text("SELECT to_regclass('documents')")).scalar() is None
    engine.dispose()
    monkeypatch.undo()
    transfer.copy_store(sqlite_store, pg_url)  # and a second attempt then succeeds


def test_migrate_from_a_missing_file_says_so(tmp_path, pg_url) -> None:
    with pytest.raises(StoreError, match="no store at"):
        transfer.copy_store(tmp_path / "nope.db", pg_url)
    assert not (tmp_path / "nope.db").exists()


def test_migrate_keeps_the_teams_settings_and_checks_them(sqlite_store, store_url, capsys) -> None:
    """Blind double review once turned off silently on the way to PostgreSQL while the check said
    "equal": the review policy and every other setting are copied, and the check covers them."""
    from graphrag.verify.policy import ReviewPolicy

    with Store(sqlite_store) as s:
        keep_review_policy(s, ReviewPolicy(3), by=ADMIN)
        s.add_checker_version({"weights": [0.5, 1.5]}, "by hand", {"n": 40}, by=ADMIN)
        s.add_checker_version({"weights": [0.7, 1.2]}, "by hand", {"n": 60}, by=ADMIN)
        s.rollback_checker(by=ADMIN)
    assert main(["store", "migrate", "--from", str(sqlite_store), "--to", store_url, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    with Store(sqlite_store) as old, Store(store_url) as new:
        assert review_policy(new) == ReviewPolicy(3) and review_policy(new).blind
        assert new.checker_versions() == old.checker_versions()
        assert new.active_checker() == old.active_checker() and new.active_checker() is not None
    assert any(t["table"] == "meta" and t["rows"] >= 2 for t in report["tables"])  # the check covered them


def test_a_setting_lost_on_the_way_fails_the_check_and_rolls_back(sqlite_store, tmp_path, monkeypatch) -> None:
    from graphrag.verify.policy import ReviewPolicy

    with Store(sqlite_store) as s:
        keep_review_policy(s, ReviewPolicy(2), by=ADMIN)
    real, calls = transfer._settings, []

    def target_lost_the_policy(c):  # the first read is the source's, the second the copy's
        calls.append(1)
        rows = real(c)
        return rows if len(calls) == 1 else [r for r in rows if r[0] != "review_required_verdicts"]

    monkeypatch.setattr(transfer, "_settings", target_lost_the_policy)
    target = tmp_path / "copy.db"
    with pytest.raises(transfer.CopyMismatch, match=r"meta: (\d+) rows expected, (\d+) copied.*rolled back") as err:
        transfer.copy_store(sqlite_store, str(target))
    counts = re.search(r"meta: (\d+) rows expected, (\d+) copied", str(err.value))
    assert counts is not None and int(counts[1]) == int(counts[2]) + 1
    with Store(target) as copy:
        assert copy.counts()["documents"] == 0 and review_policy(copy) == ReviewPolicy(1)
