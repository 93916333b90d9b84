"""The audit log: who signed in, ingested, exported, judged, removed or changed a setting, through
which surface (``via``: cli or dashboard), and when by the database's clock. Append-only (the
database refuses UPDATE and DELETE, see schema.append_only).

Every change of the record is audited by the store method that makes it, in the same transaction
(``event`` builds the row from the principal who acts), so no surface can change the record
without its row; exports are audited by the one function each surface calls (graphrag.verify.exports).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, text

from graphrag.access.identity import Viewer
from graphrag.model import AuditEvent

# The database's clock, not the writer's, in the store's timestamp format (codec.now):
# every process writing to one PostgreSQL store agrees on the order of its events.
_NOW = {
    "postgresql": "to_char(CURRENT_TIMESTAMP AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"+00:00\"')",
    "sqlite": "strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')",
}


class AuditKind(StrEnum):
    """The events the audit log holds: one name per kind of row, as stored in its ``event`` column (so the names never
    change: old rows keep theirs). ``EVENTS`` says when each is written, by what, and what its detail holds;
    docs/team.md's list is generated from it (``python scripts/audit_events_doc.py``)."""

    SIGN_IN = "sign-in"
    INGEST = "ingest"
    RELABEL = "relabel"
    VERDICT = "verdict"
    REMOVE = "remove"
    REVIEW_POLICY = "review-policy"
    CHECKER_REFIT = "checker-refit"
    CHECKER_ROLLBACK = "checker-rollback"
    EXPORT = "export"
    STORE_SETUP = "store-setup"
    ESTIMATE_SAMPLE = "estimate-sample"


@dataclass(frozen=True)
class EventSpec:
    """What one kind of audit row records: when it is written, which code writes it, the keys its detail may hold
    (beside ``via`` and ``mode``, which every row has). Plain text for docs/team.md's table."""

    when: str
    written_by: str
    detail: tuple[str, ...]


EVENTS: dict[AuditKind, EventSpec] = {
    AuditKind.SIGN_IN: EventSpec(
        "a team member's identity arrives from the provider (once per sign-in)",
        "verify.record_sign_in", ("role", "labels", "issued_at")),
    AuditKind.INGEST: EventSpec(
        "an ingest is submitted (command line, upload, server folder, facade), before any document is written",
        "ingest.ingest_paths / upload_work / folder_work", ("paths", "source", "files", "folder", "labels")),
    AuditKind.RELABEL: EventSpec(
        "a new version or an ingest changes a stored version's labels, title or date",
        "the store, in the document's transaction", ("doc_id", "version", "from", "to", "with_new_version", "narrowed", "also_narrowed", "kept_labels")),
    AuditKind.VERDICT: EventSpec(
        "a verdict is given, settles a dispute, or is taken back by an undo (then `corrects` names the row)",
        "the store, in the verdict's transaction",
        ("answer_id", "claim_index", "verdict", "reviewer", "role", "verdict_id", "corrects")),
    AuditKind.REMOVE: EventSpec(
        "document versions are removed", "the store, in the removal's transaction",
        ("document", "versions", "actor", "answers_withdrawn", "answers")),
    AuditKind.REVIEW_POLICY: EventSpec(
        "the review policy (verdicts required per claim; whether readers wait for verified answers) is set",
        "the store, in the setting's transaction; a change refused for want of the admin role by verify.set_review_policy "
        "(`refused` says why, `asked` what was asked; it sets nothing)", ("required", "held_until_verified", "refused", "asked")),
    AuditKind.CHECKER_REFIT: EventSpec(
        "the checker is refitted from the verdicts: adopted (a new version) or refused",
        "the store, in the new version's transaction; a refusal by verify.refit_checker",
        ("adopted", "version", "source", "reason")),
    AuditKind.CHECKER_ROLLBACK: EventSpec(
        "an earlier checker version is made active", "the store, in the rollback's transaction", ("active",)),
    AuditKind.EXPORT: EventSpec(
        "the verification record or the audit log is exported (this row is the log export's own last row)",
        "verify.export_record / export_audit_log / export_pack", ("what", "format", "rows", "since", "labels", "signer")),
    AuditKind.STORE_SETUP: EventSpec(
        "`graphrag store setup` creates or grants the application role (PostgreSQL)",
        "the store, in the setup's transaction", ("app_role", "owner", "created", "schema")),
    AuditKind.ESTIMATE_SAMPLE: EventSpec(
        "claims without a verdict are drawn for the estimate of what nobody reviewed (the latest row drawn with a "
        "set of labels is that set's sample in force)", "verify.draw_estimate_sample", ("labels", "size", "drawn", "strata")),
}


def event(by: Viewer, kind: AuditKind, **detail: Any) -> AuditEvent:
    """The audit row for ``kind`` done by ``by``: their identity (none in local mode), the surface and the mode."""
    who = by.identity
    return AuditEvent(kind, who.subject if who else None, who.email if who else None,
                      {"via": by.via, "mode": "team" if by.team else "local", **detail})


def add(c: Connection, e: AuditEvent) -> int:
    """Append an audit event stamped with the database's current time; returns its id."""
    return int(c.execute(text(
        f"INSERT INTO audit (at, event, subject, email, detail) VALUES ({_NOW[c.dialect.name]}, :event, :subject, "
        ":email, :detail) RETURNING id"),
        {"event": str(e.event), "subject": e.subject, "email": e.email,
         "detail": json.dumps(e.detail, ensure_ascii=False, sort_keys=True, default=str)}).scalar_one())


def rows(c: Connection, since: str | None = None) -> list[AuditEvent]:
    """Every event, oldest first (``since``: from that ISO time on)."""
    where = " WHERE at >= :since" if since else ""
    return [AuditEvent(r["event"], r["subject"], r["email"], json.loads(r["detail"]), r["at"], r["id"])
            for r in c.execute(text(f"SELECT * FROM audit{where} ORDER BY id"), {"since": since}).mappings()]


def of_event(c: Connection, event: str) -> list[AuditEvent]:
    """Every row of ``event``, oldest first."""
    return [AuditEvent(r["event"], r["subject"], r["email"], json.loads(r["detail"]), r["at"], r["id"])
            for r in c.execute(text("SELECT * FROM audit WHERE event=:event ORDER BY id"), {"event": event}).mappings()]


def latest(c: Connection, event: str) -> AuditEvent | None:
    """The newest row of ``event``, or None."""
    r = c.execute(text("SELECT * FROM audit WHERE event=:event ORDER BY id DESC LIMIT 1"), {"event": event}).mappings().first()
    return None if r is None else AuditEvent(r["event"], r["subject"], r["email"], json.loads(r["detail"]), r["at"], r["id"])
