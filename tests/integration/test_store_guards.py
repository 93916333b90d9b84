"""What the application role (``graphrag store setup``) may change, tried as that role on a real
PostgreSQL: every statement that would change what the record means is refused, stamped with the
server's time and digests, or shown as tampering; and the product's own paths (relabel, review
policy, verdicts, removal) still work through it, each with its audit row."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest

from graphrag.access import library_viewer
from graphrag.access.identity import VIA_CLI, local_principal
from graphrag.cli import main
from graphrag.model import AnswerStatus, ClaimFlag
from graphrag.store import Store, sha256_text
from graphrag.store.audit import event as audit_event
from graphrag.store.roles import setup_roles
from graphrag.store.verdicts import CLAIM_TAMPERED, SPAN_TAMPERED
from graphrag.verify.policy import ReviewPolicy
from graphrag.verify.record import record_stats
from graphrag.verify.review import export_rows, mark_claim, review_queue, review_viewer
from graphrag.verify.status import keep_review_policy, review_policy
from helpers import INTERNAL_TEXT, PUBLIC_TEXT, internal_route_answer, write_document_rows

LABELS = ("internal", "public")
ADMIN = local_principal(LABELS, via=VIA_CLI)  # an admin who sees the internal route
ADMIN_RELABEL = audit_event(ADMIN, "relabel")
FORGED_TIME = "2001-01-01T00:00:00+00:00"


def _sql(pg_server: Any, database: str, statement: str, user: str = "postgres") -> None:
    with psycopg.connect(host="127.0.0.1", port=pg_server.port, user=user, dbname=database, autocommit=True) as c:
        c.execute(statement)


@pytest.fixture()
def two_roles(pg_server: Any, pg_url: str) -> tuple[str, str, str, str]:
    """(owner URL, app URL, app role, database) after ``store setup``, with one answer (public sentence reached
    through an internal relation), one verdict on it by ada, written through the application role."""
    database = pg_url.rsplit("/", 1)[1]
    owner, app = f"{database}_owner".lower(), f"{database}_app".lower()
    _sql(pg_server, "postgres", f'CREATE ROLE "{owner}" LOGIN CREATEROLE')
    _sql(pg_server, "postgres", f'ALTER DATABASE "{database}" OWNER TO "{owner}"')
    owner_url = f"postgresql+psycopg://{owner}@127.0.0.1:{pg_server.port}/{database}"
    setup_roles(owner_url, app, by=ADMIN)
    app_url = f"postgresql+psycopg://{app}@127.0.0.1:{pg_server.port}/{database}"
    with Store(app_url) as s:
        answer = internal_route_answer(s)
        assert answer.id is not None
        mark_claim(s, answer.id, 0, "supported", "ada", LABELS, by=ADMIN)
    return owner_url, app_url, app, database


def _as(pg_server: Any, user: str, database: str) -> psycopg.Connection[Any]:
    return psycopg.connect(host="127.0.0.1", port=pg_server.port, user=user, dbname=database, autocommit=True)


def test_the_application_role_cannot_relabel_change_settings_or_rewrite_answers_bare(pg_server, two_roles) -> None:
    _, app_url, app, database = two_roles
    with Store(app_url) as s:
        keep_review_policy(s, ReviewPolicy(2), by=ADMIN)  # blind review on, through the product: audited
        write_document_rows(s, "ops", "Exports are signed.", ("public",), [], [])  # v2 supersedes ops v1
    refused = [
        "UPDATE documents SET access='[\"public\"]' WHERE doc_id='ops'",  # relabel to public
        "UPDATE documents SET title='Public notes' WHERE doc_id='ops'",
        "UPDATE documents SET text='rewritten', sha256='x' WHERE doc_id='policy'",  # a document's words
        "UPDATE sentences SET text='rewritten' WHERE doc_id='policy'",
        "UPDATE meta SET value='1' WHERE key='review_required_verdicts'",  # blind review off
        "INSERT INTO meta (key, value) VALUES ('review_required_verdicts', '1') ON CONFLICT (key) DO UPDATE "
        "SET value=excluded.value",
        "DELETE FROM meta WHERE key='review_required_verdicts'",
        "INSERT INTO meta (key, value) VALUES ('some_new_setting', 'x')",
        "UPDATE claims SET text='Exports are kept forever.'",  # a judged claim's words
        "UPDATE answers SET text='Exports are kept forever. [1]'",
        "UPDATE citations SET valid=0", "UPDATE context_items SET score=1",
        "DELETE FROM citations", "DELETE FROM context_items", "DELETE FROM claims", "DELETE FROM answers",
        "DELETE FROM documents WHERE doc_id='ops'", "DELETE FROM sentences WHERE doc_id='ops'",
        "DELETE FROM relations WHERE doc_id='ops'",  # hides the internal route: the answer would look public
        "INSERT INTO removals (doc_id, version, sha256, access, removed_at, actor, reason) "
        "VALUES ('policy', 1, 'x', '[\"public\"]', '2001-01-01', 'nobody', '')",  # "source removed" with no row
        "SELECT graphrag_withdraw_answer(1)",
        "UPDATE documents SET superseded=0 WHERE doc_id='ops' AND version=1",  # the old version current again
    ]
    with _as(pg_server, app, database) as c:
        for statement in refused:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute(statement)
        # an audit row written in another transaction does not open the door
        c.execute("INSERT INTO audit (at, event, detail) VALUES (%s, 'relabel', %s)",
                  (FORGED_TIME, json.dumps({"doc_id": "ops", "to": {"access": ["public"]}})))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            c.execute("UPDATE documents SET access='[\"public\"]' WHERE doc_id='ops'")
        # nor does a session's own table named audit standing in for the real one
        with c.transaction(force_rollback=True):
            c.execute("CREATE TEMP TABLE audit (id serial, at text, event text, subject text, email text, "
                      "detail text)")
            c.execute("INSERT INTO audit (at, event, detail) VALUES ('x', 'relabel', %s)",
                      (json.dumps({"doc_id": "ops", "to": {"access": ["public"]}}),))
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute("UPDATE documents SET access='[\"public\"]' WHERE doc_id='ops'")
    with Store(app_url) as s:
        ops = s.document("ops", 1)
        assert ops is not None and ops.access == ("internal",) and ops.superseded
        assert review_policy(s).required == 2 and review_policy(s).blind
        answer = s.answer(1)
        assert answer is not None and answer.claims[0].text == PUBLIC_TEXT and answer.context
        assert s.removal_records() == [] and s.span("ops", 1, 0).text == INTERNAL_TEXT  # type: ignore[union-attr]
        # the forged audit row is there, but at the server's time, not the one it gave
        forged = [e for e in s.audit() if e.event == "relabel"]
        assert len(forged) == 1 and forged[0].at is not None and forged[0].at > "2026"


def test_verdicts_and_audit_rows_take_the_servers_time_and_digests(pg_server, two_roles) -> None:
    _, app_url, app, database = two_roles
    with _as(pg_server, app, database) as c:
        c.execute("INSERT INTO verdicts (answer_id, claim_idx, marker, doc_id, version, start, \"end\", span_sha256, "
                  "verdict, reviewer, note, created_at, role, claim_sha256) VALUES (1, 0, '1', 'policy', 1, 0, %s, "
                  "'forged', 'unsupported', 'grace', '', %s, 'reviewer', 'forged')",
                  (len(PUBLIC_TEXT), FORGED_TIME))
        c.execute("INSERT INTO audit (at, event, detail) VALUES (%s, 'sign-in', '{}')", (FORGED_TIME,))
        (now,) = c.execute("SELECT to_char(CURRENT_TIMESTAMP AT TIME ZONE 'UTC', 'YYYY-MM-DD')").fetchone()
    with Store(app_url) as s:
        grace = [v for v in s.verdicts() if v.reviewer == "grace"]
        assert len(grace) == 1 and grace[0].created_at.startswith(now)  # type: ignore[union-attr]
        assert grace[0].claim_sha256 == sha256_text(PUBLIC_TEXT) and grace[0].span_sha256 == sha256_text(PUBLIC_TEXT)
        assert not grace[0].tampered
        assert all(e.at.startswith(now) for e in s.audit())  # type: ignore[union-attr]
        ada = [v for v in s.verdicts() if v.reviewer == "ada"]  # the product's own verdict: the same digests
        assert ada[0].claim_sha256 == sha256_text(PUBLIC_TEXT) and ada[0].created_at.startswith(now)  # type: ignore[union-attr]


def test_a_claim_whose_words_changed_after_its_verdict_shows_as_tampered(any_store: Store, store_url: str,
                                                                          capsys) -> None:
    """On either engine, whoever changed the words (on PostgreSQL only the owner may): the review queue, the
    history, the record's export and the claim's state all say so, and the verdict no longer counts."""
    answer = internal_route_answer(any_store)
    assert answer.id is not None
    mark_claim(any_store, answer.id, 0, "supported", "ada", LABELS, by=ADMIN)
    (before,) = any_store.verdicts()
    assert before.tampered == "" and before.claim_sha256 == sha256_text(PUBLIC_TEXT)
    any_store._write(lambda c: c.exec_driver_sql("UPDATE claims SET text='Exports are kept forever.'"))
    (v,) = any_store.verdicts()
    assert v.tampered == CLAIM_TAMPERED == "tampered: the claim's words changed after this verdict"
    (item,) = review_queue(any_store, library_viewer(LABELS), viewer=review_viewer(ADMIN, "ada"))
    assert item.verdicts[0].tampered == CLAIM_TAMPERED and item.state.status.value != "verified"
    (row,) = export_rows(any_store, LABELS, review_viewer(ADMIN, "ada"))
    assert row["tampered"] == CLAIM_TAMPERED
    stats = record_stats(any_store, library_viewer(LABELS), viewer=review_viewer(ADMIN, "ada"))
    assert (stats.tampered, stats.verified) == (1, 0)
    assert main(["review", "list", "--reviewer", "ada", "--access", *LABELS, "--store", store_url]) == 0
    assert CLAIM_TAMPERED in capsys.readouterr().out


def test_the_cited_sentence_changed_after_its_verdict_shows_as_tampered(any_store: Store) -> None:
    answer = internal_route_answer(any_store)
    assert answer.id is not None
    mark_claim(any_store, answer.id, 0, "supported", "ada", LABELS, by=ADMIN)
    rewritten = "Snapshot exports remain available for 90 days."
    any_store._write(lambda c: c.exec_driver_sql(f"UPDATE sentences SET text='{rewritten}' WHERE doc_id='policy'"))
    (v,) = any_store.verdicts()
    assert v.tampered == SPAN_TAMPERED == "tampered: the cited sentence's words changed after this verdict"
    (item,) = review_queue(any_store, library_viewer(LABELS), viewer=review_viewer(ADMIN, "ada"))
    assert item.verdicts[0].tampered == SPAN_TAMPERED
    # the document's text, which the export quotes the span from, is checked there too
    any_store._write(lambda c: c.exec_driver_sql(f"UPDATE sentences SET text='{PUBLIC_TEXT}' WHERE doc_id='policy'"))
    any_store._write(lambda c: c.exec_driver_sql(f"UPDATE documents SET text='{rewritten}' WHERE doc_id='policy'"))
    assert any_store.verdicts()[0].tampered == ""
    (row,) = export_rows(any_store, LABELS, review_viewer(ADMIN, "ada"))
    assert row["tampered"] == SPAN_TAMPERED


def test_relabel_policy_verdicts_and_removal_still_work_through_the_application_role(pg_server, two_roles) -> None:
    _, app_url, _, _ = two_roles
    with Store(app_url) as s:
        ops = s.document("ops", 1)
        assert ops is not None
        done = s.relabel_document("ops", ops.sha256, "Ops runbook", None, ["internal", "ops"], ADMIN_RELABEL)
        assert done is not None and s.document("ops", 1).access == ("internal", "ops")  # type: ignore[union-attr]
        keep_review_policy(s, ReviewPolicy(2), by=ADMIN)
        keep_review_policy(s, ReviewPolicy(1), by=ADMIN)
        assert review_policy(s).required == 1
        preview = s.preview_removal("ops")
        removed = s.remove_document("ops", actor="admin", reason="wrong folder", by=ADMIN)
        assert preview.answers_withdrawn == removed.answers_withdrawn == 1
        answer = s.answer(1)
        assert answer is not None and answer.status == AnswerStatus.WITHDRAWN and answer.context == ()
        assert answer.claims[0].text == "" and ClaimFlag.SOURCE_REMOVED in answer.claims[0].flags
        assert s.document("ops", 1) is None and [r.document_id for r in s.removal_records()] == ["ops"]
        (ada,) = s.verdicts()
        assert not ada.tampered  # a withdrawn claim's words were blanked by design, not tampered with
        events = [e.event for e in s.audit()]
        assert events == ["store-setup", "verdict", "relabel", "review-policy", "review-policy", "remove"]
        assert s.audit()[-1].detail["answers"] == [1]


# --- schema 14: children only with their parent, superseded and withdrawn only for real (issue 58, MEDIUM 2) ----------

FORGED_SENTENCE = "Snapshot exports are kept forever."


def _refused(c: psycopg.Connection[Any], *statements: str) -> None:
    """Every statement (each its own transaction, checked at its commit too) refused as insufficient privilege."""
    for statement in statements:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            c.execute(statement)


def _refused_together(c: psycopg.Connection[Any], *statements: str) -> None:
    """These statements in one transaction: one of them, or its commit, is refused; nothing of it stays."""
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        with c.transaction():
            for statement in statements:
                c.execute(statement)


def _remove_audit(doc_id: str, answers: list[int]) -> str:
    detail = json.dumps({"document": doc_id, "versions": [1], "answers": answers}).replace("'", "''")
    return f"INSERT INTO audit (at, event, detail) VALUES ('x', 'remove', '{detail}')"


def _removal_row(doc_id: str, version: int = 1) -> str:
    return (f"INSERT INTO removals (doc_id, version, sha256, access, removed_at, actor, reason) "
            f"VALUES ('{doc_id}', {version}, 'x', '[\"public\"]', 'x', 'admin', '')")


_NEW_SENTENCE = ('INSERT INTO sentences (doc_id, version, idx, start, "end", text) '
                 f"VALUES ('policy', 1, 1, 0, {len(FORGED_SENTENCE)}, '{FORGED_SENTENCE}')")
_NEW_ANSWER = ("INSERT INTO answers (question, settings, text, status, generator, seeds, reached, created_at) "
               "VALUES ('q', '{}', '', 'cited', 'extractive', '[]', '[]', 'x')")
_NEW_DOCUMENT = ("INSERT INTO documents (doc_id, version, title, access, sha256, text, status, extractor, ingested_at) "
                 "VALUES ('{d}', {v}, 'T', '[\"public\"]', 'h', 't', 'ok', 'x', 'x')")


def test_a_stored_document_version_gets_no_row_added_or_changed(pg_server, two_roles) -> None:
    """The review's first attack: a sentence added to a stored version is quoted to every asker as its words; so is
    anything else of a version (file, layout, page sizes, mentions, relations), added or rewritten afterwards."""
    _, app_url, app, database = two_roles
    with _as(pg_server, app, database) as c:
        _refused(c, _NEW_SENTENCE,
                 "INSERT INTO sentences (doc_id, version, idx, start, \"end\", text) VALUES ('policy', 7, 0, 0, 4, "
                 "'Orphan')",  # a version that does not exist
                 "INSERT INTO document_files (doc_id, version, media_type, data) VALUES ('policy', 1, 'text/plain', "
                 "'\\x00')",
                 "INSERT INTO span_layout (doc_id, version, idx, boxes) VALUES ('policy', 1, 1, '[]')",
                 "INSERT INTO page_sizes (doc_id, version, page, width, height) VALUES ('policy', 1, 1, 1, 1)",
                 "INSERT INTO mentions (entity_key, doc_id, version, sentence_idx, description, extractor) "
                 "VALUES ('export', 'policy', 1, 0, '', 'x')",
                 "INSERT INTO relations (source_key, target_key, type, description, doc_id, version, sentence_idx, "
                 "extractor) VALUES ('export', 'snapshot', 'deletes', '', 'policy', 1, 0, 'x')",
                 "UPDATE mentions SET description='forged' WHERE doc_id='policy'",
                 "UPDATE relations SET type='forged' WHERE doc_id='ops'",
                 "UPDATE mentions SET doc_id='policy' WHERE doc_id='ops'",
                 _NEW_DOCUMENT.format(d="policy", v=0))  # a version numbered before the stored one
        # a row merely updated in this transaction (a fresh xmin) is no new version
        _refused_together(c, "UPDATE documents SET superseded=superseded WHERE doc_id='policy'", _NEW_SENTENCE)
        # nor is another document's new version, nor a new version inserted inside a savepoint
        _refused_together(c, _NEW_DOCUMENT.format(d="other", v=1), _NEW_SENTENCE)
        with pytest.raises(psycopg.errors.InsufficientPrivilege), c.transaction():
            with c.transaction():  # a savepoint
                c.execute(_NEW_DOCUMENT.format(d="other", v=1))
            c.execute(_NEW_SENTENCE)
        # nor may the role switch the triggers off for its session, nor a session's own table, with the owner's
        # marking trigger on it, stand in for documents
        _refused(c, "SET session_replication_role = replica")
        _refused_together(c, "CREATE TEMP TABLE documents (doc_id text, version int)",
                          "CREATE TRIGGER t AFTER INSERT ON pg_temp.documents FOR EACH ROW EXECUTE FUNCTION "
                          "graphrag_mark()")
        # a new version with its own rows, in one transaction (what an ingest does, savepoint or not), is stored
        with c.transaction():
            with c.transaction():
                c.execute(_NEW_DOCUMENT.format(d="other", v=1))
            c.execute("INSERT INTO sentences (doc_id, version, idx, start, \"end\", text) "
                      "VALUES ('other', 1, 0, 0, 4, 'Mine')")
            c.execute("INSERT INTO span_layout (doc_id, version, idx, boxes) VALUES ('other', 1, 0, '[]')")
        _refused(c, "INSERT INTO sentences (doc_id, version, idx, start, \"end\", text) "
                    "VALUES ('other', 1, 1, 0, 5, 'Later')")  # once committed, it is a stored version too
    with Store(app_url) as s:
        assert [x.text for x in s.sentences("policy", 1)] == [PUBLIC_TEXT]
        assert [x.text for x in s.sentences("other", 1)] == ["Mine"]
        answer = s.answer(1)
        assert answer is not None and [x.span.text for x in answer.context] == [PUBLIC_TEXT]


def test_a_stored_answer_gets_no_claim_citation_context_or_verdict_added(pg_server, two_roles) -> None:
    """The second attack: a claim, its citation and a verdict added to an answer already shown and judged."""
    _, app_url, app, database = two_roles
    claim = ('INSERT INTO claims (answer_id, idx, text, start, "end", flags) '
             f"VALUES (1, 1, '{FORGED_SENTENCE}', 0, 10, '[]')")
    verdict = ('INSERT INTO verdicts (answer_id, claim_idx, marker, doc_id, version, start, "end", span_sha256, '
               "verdict, reviewer, note, created_at, role) VALUES (1, {i}, '1', 'policy', 1, 0, "
               f"{len(PUBLIC_TEXT)}, 'x', 'supported', 'grace', '', 'x', 'reviewer')")
    with _as(pg_server, app, database) as c:
        _refused(c, claim, "INSERT INTO citations (answer_id, claim_idx, pos, marker, valid) VALUES (1, 0, 1, '2', 1)",
                 "INSERT INTO context_items (answer_id, n, doc_id, version, sentence_idx, route, score, via) "
                 "VALUES (1, 2, 'ops', 1, 0, '{\"seed\": \"x\", \"steps\": []}', 1, 'x')",
                 verdict.format(i=1))  # a verdict on a claim the answer does not have
        _refused_together(c, _NEW_ANSWER, claim)  # another answer inserted in the transaction opens nothing
        with pytest.raises(psycopg.errors.InsufficientPrivilege), c.transaction():
            with c.transaction():
                c.execute(_NEW_ANSWER)
            c.execute(claim)
        # what the product does: a new answer with its claims in one transaction, a verdict on a stored claim later
        with c.transaction():
            (aid,) = c.execute(_NEW_ANSWER + " RETURNING id").fetchone()
            c.execute('INSERT INTO claims (answer_id, idx, text, start, "end", flags) '
                      f"VALUES ({aid}, 0, 'Mine.', 0, 5, '[]')")
        c.execute(verdict.format(i=0))
    with Store(app_url) as s:
        answer = s.answer(1)
        assert answer is not None and [x.text for x in answer.claims] == [PUBLIC_TEXT] and len(answer.context) == 1
        assert len(answer.claims[0].citations) == 1
        assert sorted(v.reviewer for v in s.verdicts()) == ["ada", "grace"]


def test_a_current_version_is_superseded_only_by_a_newer_one_stored_with_it(pg_server, two_roles) -> None:
    """The third attack: the current version marked superseded with no audit row, every verdict on it stale."""
    _, app_url, app, database = two_roles
    supersede = "UPDATE documents SET superseded=1 WHERE doc_id='policy'"
    with _as(pg_server, app, database) as c:
        _refused(c, supersede)
        _refused_together(c, _NEW_ANSWER, supersede)
        _refused_together(c, _NEW_DOCUMENT.format(d="other", v=1), supersede)  # another document's version
        _refused_together(c, supersede, _NEW_DOCUMENT.format(d="policy", v=2),  # a newer one, superseded itself
                          "UPDATE documents SET superseded=1 WHERE doc_id='policy' AND version=2")
        with c.transaction():  # what an ingest does: the old one superseded, then the new one
            c.execute(supersede)
            c.execute(_NEW_DOCUMENT.format(d="policy", v=2))
    with Store(app_url) as s:
        assert s.document("policy", 1).superseded and not s.document("policy", 2).superseded  # type: ignore[union-attr]
        assert not s.document("ops", 1).superseded  # type: ignore[union-attr]


def test_a_withdrawal_needs_a_version_its_transaction_really_removes(pg_server, two_roles) -> None:
    """The fourth attack: the `remove` audit row written by hand, then the withdrawal function, erasing a judged
    answer with no document removed; nor does a removals row that removes nothing, or a real removal of a document
    the answer never drew on, open the door."""
    _, app_url, app, database = two_roles
    with Store(app_url) as s:
        write_document_rows(s, "misc", "Nothing here.", ("public",), [], [])
    withdraw = "SELECT graphrag_withdraw_answer(1)"
    with _as(pg_server, app, database) as c:
        _refused_together(c, _remove_audit("policy", [1]), withdraw)
        _refused_together(c, _remove_audit("policy", [1]), _removal_row("policy"), withdraw)  # refused at commit
        _refused_together(c, _remove_audit("policy", []), _removal_row("policy", 9))  # no such version
        _refused_together(c, _remove_audit("misc", [1]), _removal_row("misc"),
                          "DELETE FROM sentences WHERE doc_id='misc'", "DELETE FROM documents WHERE doc_id='misc'",
                          withdraw)  # a real removal, of a document the answer did not draw on
        # a version removed and stored again under its number, other words in place of the judged ones
        _refused_together(c, _remove_audit("policy", []), _removal_row("policy"),
                          "DELETE FROM sentences WHERE doc_id='policy'", "DELETE FROM documents WHERE doc_id='policy'",
                          _NEW_DOCUMENT.format(d="policy", v=1))
    with Store(app_url) as s:
        answer = s.answer(1)
        assert answer is not None and answer.status != AnswerStatus.WITHDRAWN
        assert [x.text for x in answer.claims] == [PUBLIC_TEXT] and answer.context
        assert s.removal_records() == [] and s.document("misc", 1) is not None
        assert [x.text for x in s.sentences("policy", 1)] == [PUBLIC_TEXT]


def test_ingest_ask_review_new_version_and_removal_still_work_through_the_application_role(pg_server,
                                                                                         two_roles) -> None:
    from graphrag.ingest.documents import Source
    from graphrag.model import PageSize, SpanLayout
    from graphrag.store import DocumentWrite
    from graphrag.store.layout import LayoutWrite

    _, app_url, _, _ = two_roles
    with Store(app_url) as s:
        text = "Refunds take 14 days."
        doc = Source("refunds", "Refunds", text, access=("public",)).as_document()
        s.write_document(DocumentWrite(doc, "scripted", "ok", [(0, len(text), text)], None, [], {}, [], [],
                                       LayoutWrite("application/pdf", [SpanLayout(1, boxes=((1, 0, 0, 1, 1),))],
                                                   [PageSize(1, 612, 792)], b"%PDF-1.4")))
        assert s.span("refunds", 1, 0) is not None
        write_document_rows(s, "policy", "Snapshot exports remain available for 60 days.", ("public",), [], [])
        assert s.document("policy", 1).superseded and not s.document("policy", 2).superseded  # type: ignore[union-attr]
        again = internal_route_answer(s)  # an ask: a new answer with its claims, citations and context
        assert again.id == 2 and again.claims and again.context
        mark_claim(s, 2, 0, "unsupported", "bo", LABELS, by=ADMIN)
        assert sorted(v.reviewer for v in s.verdicts()) == ["ada", "bo"]
        removed = s.remove_document("policy", [2], actor="admin", reason="wrong", by=ADMIN)
        assert removed.current_version == 1 and not s.document("policy", 1).superseded  # type: ignore[union-attr]
        removed = s.remove_document("ops", actor="admin", reason="wrong folder", by=ADMIN)
        assert removed.answers_withdrawn == 2
        assert all(s.answer(i).status == AnswerStatus.WITHDRAWN for i in (1, 2))  # type: ignore[union-attr]
        s.remove_document("refunds", actor="admin", reason="old", by=ADMIN)
        assert [r.document_id for r in s.removal_records()] == ["policy", "ops", "refunds"]
        write_document_rows(s, "refunds", "Refunds take 30 days.", ("public",), [], [])  # a new id's next version
        assert s.document("refunds", 2) is not None and s.document("refunds", 1) is None


def test_a_store_at_schema_13_gets_the_new_guards_when_the_owner_opens_it(pg_server, two_roles) -> None:
    owner_url, _, app, database = two_roles
    owner = owner_url.split("//")[1].split("@")[0]
    with _as(pg_server, owner, database) as c:  # as schema 13 left it: no guard on a version's new rows
        c.execute("DROP TRIGGER graphrag_sentences_with_version ON sentences")
        c.execute("UPDATE meta SET value='13' WHERE key='schema_version'")
    with Store(owner_url) as s:
        assert s.database.version >= 14
    with _as(pg_server, app, database) as c:
        _refused(c, _NEW_SENTENCE)
