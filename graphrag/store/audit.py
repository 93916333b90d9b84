"""The audit log: who signed in, ingested, exported, judged or changed a setting, and when.
Append-only (the database refuses UPDATE and DELETE, see schema.append_only)."""

from __future__ import annotations

import json

from sqlalchemy import Connection, text

from graphrag.model import AuditEvent
from graphrag.store.codec import now


def add(c: Connection, e: AuditEvent) -> int:
    """Append an audit event; returns its id."""
    return int(c.execute(text(
        "INSERT INTO audit (at, event, subject, email, detail) VALUES (:at, :event, :subject, :email, :detail) "
        "RETURNING id"),
        {"at": e.at or now(), "event": e.event, "subject": e.subject, "email": e.email,
         "detail": json.dumps(e.detail, ensure_ascii=False, sort_keys=True)}).scalar_one())


def rows(c: Connection, since: str | None = None) -> list[AuditEvent]:
    """Every event, oldest first (``since``: from that ISO time on)."""
    where = " WHERE at >= :since" if since else ""
    return [AuditEvent(r["event"], r["subject"], r["email"], json.loads(r["detail"]), r["at"], r["id"])
            for r in c.execute(text(f"SELECT * FROM audit{where} ORDER BY id"), {"since": since}).mappings()]
