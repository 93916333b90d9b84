"""Schema 5 on SQLite and PostgreSQL: verdicts carry the signed-in identity, the audit log is
append-only, a store from schema 4 migrates with its verdicts, and the role check sits in the
use case that records a verdict (not only in the page's buttons)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from graphrag.access.identity import Forbidden, Identity, Viewer, local_principal
from graphrag.model import AuditEvent
from graphrag.store import Store
from graphrag.verify.review import export_rows, record_verdict
from helpers import store_of_release
from proc_helpers import doc_text
from seeds import ingest_patterns as _ingest
from seeds import scripted_answer as _answer


@pytest.fixture(autouse=True)
def _questions_unparsed(unparsed_questions: None) -> None:
    """``_answer`` asks without spaCy: these tests are about who judged, not about anchors."""


ANA = Identity("sub-ana", "ana@example.com", frozenset({"finance"}), "https://idp.example")


def team(role: str | None, labels: tuple[str, ...] = ("public",), who: Identity = ANA) -> Viewer:
    return Viewer(who, frozenset(labels), role, team=True)


@pytest.mark.unit
def test_a_team_verdict_names_the_signed_in_identity_and_is_audited(any_store: Store) -> None:
    _ingest(any_store, ("one", doc_text(1)))
    a = _answer(any_store)
    claim = a.claims[0]
    # the typed name is ignored: the verdict names who signed in
    v = record_verdict(any_store, a, claim, claim.citations[0], "supported", "someone else", by=team("reviewer"))
    assert (v.reviewer, v.subject, v.email) == ("ana@example.com", "sub-ana", "ana@example.com")
    stored = any_store.verdicts(a.id)[-1]
    assert (stored.reviewer, stored.subject, stored.email) == ("ana@example.com", "sub-ana", "ana@example.com")
    row = export_rows(any_store, ["public"])[-1]
    assert row["reviewer_subject"] == "sub-ana" and row["reviewer_email"] == "ana@example.com"
    events = any_store.audit()
    assert [(e.event, e.subject, e.email) for e in events] == [("verdict", "sub-ana", "ana@example.com")]
    assert events[0].detail["verdict_id"] == v.id and events[0].at
    # local mode keeps the typed name and stores no identity
    local = record_verdict(any_store, a, claim, claim.citations[0], "partial", "ada", by=local_principal(["public"], via="cli"))
    assert (local.reviewer, local.subject, local.email) == ("ada", None, None)


@pytest.mark.unit
def test_a_viewer_cannot_record_a_verdict_even_calling_the_use_case(any_store: Store) -> None:
    from graphrag.config import Config
    from graphrag.verify import mark_verdict

    _ingest(any_store, ("one", doc_text(1)))
    a = _answer(any_store)
    claim = a.claims[0]
    config = Config.from_env({})
    for who in (team("viewer"), team(None)):
        with pytest.raises(Forbidden, match="needs the reviewer role"):
            mark_verdict(any_store, who, config, a.id, claim.index, "supported", "x")
    with pytest.raises(Exception, match="no answer"):  # a reviewer who cannot see the answer
        mark_verdict(any_store, team("reviewer", ("other",)), config, a.id, claim.index, "supported", "x")
    assert any_store.verdicts() == [] and any_store.audit() == []


@pytest.mark.unit
def test_the_audit_log_is_append_only(any_store: Store) -> None:
    any_store.add_audit(AuditEvent("sign-in", "sub-ana", "ana@example.com", {"labels": ["public"]}))
    for sql in ("UPDATE audit SET email='x'", "DELETE FROM audit"):
        with pytest.raises(Exception, match="append-only"), any_store.engine.begin() as c:
            c.execute(text(sql))
    if any_store.url.kind == "postgresql":
        with pytest.raises(Exception, match="append-only"), any_store.engine.begin() as c:
            c.execute(text("TRUNCATE audit"))
    assert [(e.event, e.email, e.detail) for e in any_store.audit()] == [
        ("sign-in", "ana@example.com", {"labels": ["public"]})]


@pytest.mark.unit
def test_a_schema_4_store_migrates_to_5_with_its_verdicts(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with store_of_release(store_url, 4, monkeypatch) as s:
        assert not s._read(lambda c: c.exec_driver_sql(
            "SELECT count(*) FROM meta WHERE key='schema_version' AND value='5'").scalar())
    with Store(store_url) as s:
        old = s.verdicts()
        assert [(v.reviewer, v.subject, v.email) for v in old] == [("old", None, None)]
        _ingest(s, ("one", doc_text(1)))
        a = _answer(s)
        record_verdict(s, a, a.claims[0], a.claims[0].citations[0], "supported", "x", by=team("admin"))
        assert [v.subject for v in s.verdicts()] == [None, "sub-ana"]
        assert [e.event for e in s.audit()] == ["verdict"]


@pytest.mark.unit
def test_graphrag_audit_export_writes_every_event(tmp_path) -> None:
    import csv
    import json

    from graphrag.cli import main

    db = tmp_path / "s.db"
    with Store(db) as s:
        s.add_audit(AuditEvent("sign-in", "sub-ana", "ana@example.com", {"role": "admin"}))
        s.add_audit(AuditEvent("export", "sub-bob", "=cmd@example.com", {"what": "verification record"}))
    out = tmp_path / "audit.csv"
    assert main(["audit", "export", "--store", str(db), "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    # ... and the export itself, audited before it is read: the log says who took a copy of it
    assert [(r["event"], r["subject"]) for r in rows] == [("sign-in", "sub-ana"), ("export", "sub-bob"), ("export", "")]
    assert rows[1]["email"] == "'=cmd@example.com"  # never a spreadsheet formula
    assert json.loads(rows[0]["detail"]) == {"role": "admin"}
    assert json.loads(rows[2]["detail"]) == {"via": "cli", "mode": "local", "what": "audit log", "format": "csv",
                                             "since": None}
    assert main(["audit", "export", "--store", str(db), "--format", "json", "--out", str(tmp_path / "a.json")]) == 0
    assert [e["email"] for e in json.loads((tmp_path / "a.json").read_text())] == ["ana@example.com",
                                                                                  "=cmd@example.com", None, None]


@pytest.mark.model
def test_the_command_line_audits_its_ingests_exports_and_verdicts(tmp_path) -> None:
    from app_helpers import write_corpus
    from graphrag.cli import main

    db = tmp_path / "s.db"
    corpus = write_corpus(tmp_path / "corpus")
    assert main(["ingest", str(corpus), "--store", str(db)]) == 0
    assert main(["export", "--store", str(db), "--out", str(tmp_path / "r.csv")]) == 0
    with Store(db) as s:
        events = s.audit()
    assert [(e.event, e.subject, e.detail["via"]) for e in events] == [("ingest", None, "cli"), ("export", None, "cli")]
    # audited before anything is written (a refused audit row stops the ingest); the totals are the report's
    assert events[0].detail["paths"] == [str(corpus)] and s.counts()["documents"] == 3
