"""The audit log holds a row for every command that changes or exports the record, written by
the one function the CLI and the dashboard both call, each row saying through which surface
(``via``) and stamped by the database's clock."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphrag.access.identity import VIA_DASHBOARD, local_principal
from graphrag.cli import build_parser, main
from graphrag.model import AuditEvent
from graphrag.store import Store
from graphrag.verify.policy import ReviewPolicy
from helpers import ADMIN

# Commands that change or export the record, with the audit event each must write ...
AUDITED = {
    "ingest": "ingest", "review mark": "verdict", "review policy": "review-policy", "export": "export",
    "audit export": "export", "checker fit": "checker-refit", "checker rollback": "checker-rollback",
    "delete": "remove",
}
# ... (this one on PostgreSQL only: tests/integration/test_store_roles.py) ...
AUDITED_ON_POSTGRESQL = {"store setup": "store-setup"}
# ... and every other command, with why it writes no audit row. A new command fails the walk below
# until it is put in one of the two.
NOT_AUDITED = {
    "ask": "asks; the answer it stores is not yet part of the verification record (a verdict on it is)",
    "entity": "reads the graph", "review list": "reads the queue", "review disputes": "reads the queue",
    "record stats": "reads the record", "checker list": "reads the checker versions",
    "eval retrieval": "reads a benchmark file", "eval answers": "asks benchmark questions in its own stores", "eval support": "reads a benchmark file",
    "bench ask": "a throwaway store", "bench documents": "a throwaway store", "bench ingest": "a throwaway store",
    "bench load": "a throwaway store", "bench review": "a throwaway store", "bench scale": "a throwaway store",
    "bench support": "a throwaway store",
    "store migrate": "copies into an empty database; meta 'copied_from' names the source, the audit rows come along",
}


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(found[0].choices) if found else {}


def _commands() -> set[str]:
    """Every command, as "review mark" for one with subcommands and "ask" for one without."""
    return {f"{name} {sub}" if sub else name for name, parser in _subcommands(build_parser()).items()
            for sub in (_subcommands(parser) or [""])}


@pytest.mark.unit
def test_every_command_is_either_audited_or_says_why_not() -> None:
    assert not set(AUDITED) & set(NOT_AUDITED) and not set(AUDITED_ON_POSTGRESQL) & (set(AUDITED) | set(NOT_AUDITED))
    assert _commands() == set(AUDITED) | set(AUDITED_ON_POSTGRESQL) | set(NOT_AUDITED), \
        "a new command: add it to AUDITED or NOT_AUDITED"


@pytest.mark.model
def test_every_command_that_changes_or_exports_the_record_writes_an_audit_row_via_cli(tiny_store: Path,
                                                                                     tmp_path: Path) -> None:
    from app_helpers import copy_store

    db = str(copy_store(tiny_store, tmp_path / "s.db"))
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "notes.md").write_text("# Notes\n\nBackups are kept for 30 days.\n", encoding="utf-8")
    s = ["--store", db]
    assert main(["ask", "How long do snapshot exports remain available?", *s]) == 0
    with Store(db) as store:
        (answer_id,) = [a["id"] for a in store.answer_ids()]
    runs = {
        "ingest": ["ingest", str(tmp_path / "more"), *s],
        "review mark": ["review", "mark", "--answer", str(answer_id), "--claim", "0", "--verdict", "supported",
                        "--reviewer", "ada", *s],
        "review policy": ["review", "policy", "--required", "2", *s],
        "export": ["export", "--out", str(tmp_path / "record.csv"), *s],
        "audit export": ["audit", "export", "--out", str(tmp_path / "audit.csv"), *s],
        "checker fit": ["checker", "fit", "--from-verdicts", *s],  # refused (one verdict): audited all the same
        "checker rollback": ["checker", "rollback", "--to", "0", *s],
        "delete": ["delete", "notes", "--yes", *s],
    }
    assert set(runs) == set(AUDITED)
    for command, argv in runs.items():
        with Store(db) as store:
            before = len(store.audit())
        code = main(argv)
        assert code == (2 if command == "checker fit" else 0), command  # a refused refit exits 2
        with Store(db) as store:
            new = store.audit()[before:]
        assert [(e.event, e.detail.get("via")) for e in new] == [(AUDITED[command], "cli")], command
        assert new[0].subject is None and new[0].detail["mode"] == "local"
        assert datetime.fromisoformat(str(new[0].at)).tzinfo is not None  # the store's one time format


@pytest.mark.unit
def test_a_change_of_the_record_cannot_be_made_without_its_audit_row(any_store: Store) -> None:
    """The store methods that change the record take who acts and write the row in their own
    transaction, via the surface the principal names."""
    page = local_principal(["public"], via=VIA_DASHBOARD)
    any_store.set_review_policy(ReviewPolicy(2), by=page)
    any_store.add_checker_version({"kind": "x"}, "by hand", {}, by=ADMIN)
    any_store.rollback_checker(by=page)
    assert [(e.event, e.detail["via"]) for e in any_store.audit()] == [
        ("review-policy", "dashboard"), ("checker-refit", "cli"), ("checker-rollback", "dashboard")]
    assert any_store.audit()[0].detail["required"] == 2 and any_store.audit()[2].detail["active"] == 0
    with pytest.raises(TypeError):
        any_store.set_review_policy(ReviewPolicy(1))  # type: ignore[call-arg]  # no one: refused


@pytest.mark.unit
def test_audit_times_come_from_the_database_not_the_writer(any_store: Store, monkeypatch) -> None:
    # A writer whose clock is a year off (or who says when) cannot date an event.
    import graphrag.store.audit as store_audit
    import graphrag.store.codec as codec

    monkeypatch.setattr(codec, "now", lambda: "1999-01-01T00:00:00+00:00")
    monkeypatch.setattr(store_audit, "now", codec.now, raising=False)
    any_store.add_audit(AuditEvent("sign-in", "sub-ana", None, {}, at="1999-01-01T00:00:00+00:00"))
    (row,) = any_store.audit()
    at = datetime.fromisoformat(str(row.at))
    assert abs((at - datetime.now(UTC)).total_seconds()) < 120
    assert str(row.at).endswith("+00:00") and len(str(row.at)) == len("2026-01-01T00:00:00+00:00")
    assert any_store.audit(since=str(row.at)) == [row]


@pytest.mark.unit
def test_an_export_is_refused_to_a_viewer_and_audited_for_an_admin(store: Store) -> None:
    """The one export function both surfaces call: the role is checked there, and the row written there."""
    from graphrag.access.identity import Forbidden, Identity, Principal
    from graphrag.verify.exports import export_audit_log, export_record

    ana = Identity("sub-ana", "ana@example.com", frozenset(), "https://login.example.com")
    viewer = Principal(ana, frozenset({"public"}), "viewer", team=True)
    for export in (export_record, export_audit_log):
        with pytest.raises(Forbidden):
            export(store, "csv", by=viewer)
    assert store.audit() == []
    admin = Principal(ana, frozenset({"public"}), "admin", team=True)
    assert export_record(store, "json", by=admin).rows == 0
    done = export_audit_log(store, "csv", by=admin)
    assert done.rows == 2 and "sub-ana" in done.text
    assert [(e.event, e.subject, e.detail["what"], e.detail["via"]) for e in store.audit()] == [
        ("export", "sub-ana", "verification record", "dashboard"), ("export", "sub-ana", "audit log", "dashboard")]
