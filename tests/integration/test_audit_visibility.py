"""The audit log an admin downloads holds only the rows their labels may read.

Before: the Record page's download and `graphrag audit export` handed every admin the ids, titles and folder paths
of documents their labels hide (relabel, remove and ingest rows) and the verdicts on answers they cannot see.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag.access import Viewer
from graphrag.access.identity import Identity
from graphrag.cli import main
from graphrag.model import AuditEvent
from graphrag.store import Store
from graphrag.store.audit import event
from graphrag.verify.exports import export_audit_log
from helpers import internal_route_answer

pytestmark = pytest.mark.unit

ANA = Identity("sub-ana", "ana@example.com", frozenset(), "https://login.example.com")
BOB = Identity("sub-bob", "bob@example.com", frozenset(), "https://login.example.com")
HIDDEN = ("ops", "Qzc", "hr-layoffs", "Ops runbook")


def internal_admin() -> Viewer:
    return Viewer(ANA, frozenset({"public", "internal"}), "admin", team=True)


def public_admin() -> Viewer:
    return Viewer(BOB, frozenset({"public"}), "admin", team=True)


def history(store: Store) -> int:
    """What an internal admin did: a folder ingest, a relabel and a removal of the internal document, a verdict
    on an answer that runs through it; and what anyone may read: a sign-in, a relabel of the public document."""
    answer = internal_route_answer(store)  # "policy" public, "ops" internal; the answer's route runs through ops
    ana = internal_admin()
    store.add_audit(event(ana, "sign-in", role="admin", labels=["internal", "public"]))
    store.add_audit(event(ana, "ingest", source="folder", files=None, folder="/srv/hr-layoffs",
                          labels=["internal", "public"]))
    store.add_audit(event(ana, "verdict", verdict_id=1, answer_id=answer.id, claim_index=0, verdict="supported"))
    ops = store.current_document("ops")
    policy = store.current_document("policy")
    assert ops is not None and policy is not None
    store.relabel_document("ops", ops.sha256, "Qzc merger", None, ["internal"], event(ana, "relabel"))
    store.relabel_document("policy", policy.sha256, "Export policy", None, ["public"], event(ana, "relabel"))
    store.remove_document("ops", actor="ana", by=ana)
    return len(store.audit())


def test_a_narrower_admin_downloads_no_row_naming_what_their_labels_hide(any_store: Store) -> None:
    rows = history(any_store)
    done = export_audit_log(any_store, "json", by=public_admin())
    events = json.loads(done.text)
    assert [e["event"] for e in events] == ["sign-in", "relabel", "export"]
    assert events[1]["detail"]["doc_id"] == "policy"
    assert done.withheld == 4 and done.rows == 3 and rows + 1 == done.rows + done.withheld
    assert not any(word in done.text for word in HIDDEN)
    assert "hr-layoffs" not in export_audit_log(any_store, "csv", by=public_admin()).text

    whole = export_audit_log(any_store, "json", by=internal_admin())
    assert whole.withheld == 0 and "hr-layoffs" in whole.text and "Qzc merger" in whole.text


def test_an_ingest_row_that_did_not_record_its_labels_shows_only_to_who_holds_every_label(store: Store) -> None:
    internal_route_answer(store)
    store.add_audit(AuditEvent("ingest", None, None, {"via": "cli", "paths": ["/srv/hr-layoffs"], "documents": 1}))
    assert "hr-layoffs" not in export_audit_log(store, "csv", by=public_admin()).text
    assert "hr-layoffs" in export_audit_log(store, "csv", by=internal_admin()).text


def test_the_command_filters_by_its_access_labels(store: Store, capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    history(store)
    out = tmp_path / "audit.json"
    assert main(["audit", "export", "--store", str(store.path), "--format", "json", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert not any(word in text for word in HIDDEN)
    assert "4 audit events left out" in capsys.readouterr().err
    assert main(["audit", "export", "--store", str(store.path), "--format", "json", "--access", "public",
                 "internal", "--out", str(out)]) == 0
    assert "hr-layoffs" in out.read_text(encoding="utf-8")
