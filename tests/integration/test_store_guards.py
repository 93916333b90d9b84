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
