"""The audit log as a file: one row per event, for an admin's download and `graphrag audit export`."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from graphrag.model import AuditEvent
from graphrag.text import spreadsheet_safe

AUDIT_FIELDS = ("id", "time", "event", "subject", "email", "detail")


def audit_rows(events: Sequence[AuditEvent]) -> list[dict[str, object]]:
    """Audit events as export rows, the detail as sorted JSON."""
    return [{"id": e.id, "time": e.at, "event": e.event, "subject": e.subject, "email": e.email,
             "detail": json.dumps(e.detail, ensure_ascii=False, sort_keys=True)} for e in events]


def audit_to_csv(events: Sequence[AuditEvent]) -> str:
    """Audit events as CSV, cells that a spreadsheet would run as formulas defused."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=AUDIT_FIELDS)
    w.writeheader()
    for r in audit_rows(events):
        # names and emails come from the identity provider: never let a spreadsheet run them as formulas
        w.writerow({k: spreadsheet_safe(v) for k, v in r.items()})
    return buf.getvalue()


def audit_to_json(events: Sequence[AuditEvent]) -> str:
    """Audit events as a JSON array, each detail as an object."""
    return json.dumps([{**r, "detail": json.loads(str(r["detail"]))} for r in audit_rows(events)], indent=2,
                      ensure_ascii=False)
