"""The audit log: who signed in, ingested, exported, judged, removed or changed a setting, through
which surface (``via``: cli or dashboard), and when by the database's clock. Append-only (the
database refuses UPDATE and DELETE, see schema.append_only).

Every change of the record is audited by the store method that makes it, in the same transaction
(``event`` builds the row from the principal who acts), so no surface can change the record
without its row; exports are audited by the one function each surface calls (graphrag.verify.exports).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, text

from graphrag.access.identity import Principal
from graphrag.model import AuditEvent

# The database's clock, not the writer's, in the store's timestamp format (codec.now):
# every process writing to one PostgreSQL store agrees on the order of its events.
_NOW = {
    "postgresql": "to_char(CURRENT_TIMESTAMP AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"+00:00\"')",
    "sqlite": "strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')",
}


def event(by: Principal, name: str, **detail: Any) -> AuditEvent:
    """The audit row for ``name`` done by ``by``: their identity (none in local mode), the surface and the mode."""
    who = by.identity
    return AuditEvent(name, who.subject if who else None, who.email if who else None,
                      {"via": by.via, "mode": "team" if by.team else "local", **detail})


def add(c: Connection, e: AuditEvent) -> int:
    """Append an audit event stamped with the database's current time; returns its id."""
    return int(c.execute(text(
        f"INSERT INTO audit (at, event, subject, email, detail) VALUES ({_NOW[c.dialect.name]}, :event, :subject, "
        ":email, :detail) RETURNING id"),
        {"event": e.event, "subject": e.subject, "email": e.email,
         "detail": json.dumps(e.detail, ensure_ascii=False, sort_keys=True, default=str)}).scalar_one())


def rows(c: Connection, since: str | None = None) -> list[AuditEvent]:
    """Every event, oldest first (``since``: from that ISO time on)."""
    where = " WHERE at >= :since" if since else ""
    return [AuditEvent(r["event"], r["subject"], r["email"], json.loads(r["detail"]), r["at"], r["id"])
            for r in c.execute(text(f"SELECT * FROM audit{where} ORDER BY id"), {"since": since}).mappings()]


def latest(c: Connection, event: str) -> AuditEvent | None:
    """The newest row of ``event``, or None."""
    r = c.execute(text("SELECT * FROM audit WHERE event=:event ORDER BY id DESC LIMIT 1"), {"event": event}).mappings().first()
    return None if r is None else AuditEvent(r["event"], r["subject"], r["email"], json.loads(r["detail"]), r["at"], r["id"])
