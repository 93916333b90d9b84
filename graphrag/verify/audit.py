"""The audit log as a file: one row per event, for an admin's download and `graphrag audit export`, holding only
the rows the admin's labels may read (``Sight``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphrag.access.rule import Access
from graphrag.language.sentences import spreadsheet_csv
from graphrag.model import AuditEvent
from graphrag.store.audit import AuditKind


@dataclass(frozen=True)
class Sight:
    """What one viewer may read of the audit log: a row that names a document or an answer (an ingest's paths, a
    relabel, a removal, a verdict) is shown only when the viewer's labels show what it names; the others (sign-ins,
    exports, settings, uploads counted only) to every admin."""

    access: Access  # the viewer's labels, superseded versions included
    versions: Mapping[tuple[str, int], Iterable[str]]  # every stored or removed version's labels
    answers: frozenset[int]  # the answers the viewer may see whole
    every_label: frozenset[str]  # every label a version has or had: an ingest row that did not record its own

    def shows(self, e: AuditEvent) -> bool:
        """Whether the row ``e`` is the viewer's to read."""
        d = e.detail
        if "answer_id" in d:
            return d["answer_id"] in self.answers
        if e.event == AuditKind.ESTIMATE_SAMPLE:  # its strata name documents: for whoever holds the labels it was drawn with
            return self.access.holds(d.get("labels") or self.every_label)
        if e.event == AuditKind.INGEST:
            if not (d.get("paths") or d.get("folder")):
                return True  # an upload's row: counts only
            labels = d.get("labels")
            return self.access.holds(self.every_label if labels is None else labels)
        doc = d.get("doc_id", d.get("document"))
        if doc is None:
            return True
        # A relabel records the labels it moved from and to: the viewer must see each.
        recorded = [x for x in (_access(d.get("from")), _access(d.get("to")),
                                *(_access(n.get("from")) for n in d.get("narrowed", ()) if isinstance(n, dict)))
                    if x is not None]
        if recorded:
            return all(self.access.sees(x) for x in recorded)
        # A removal, or another row naming a document: every version it names (else every version the id has or
        # had), by the labels the store keeps for it.
        versions = d.get("versions") or [v for (i, v) in self.versions if i == doc]
        labels = [self.versions.get((str(doc), int(v))) for v in versions]
        return bool(labels) and all(x is not None and self.access.sees(x) for x in labels)


def _access(part: Any) -> list[str] | None:
    return part.get("access") if isinstance(part, dict) and isinstance(part.get("access"), list) else None

AUDIT_FIELDS = ("id", "time", "event", "subject", "email", "detail")


def audit_rows(events: Sequence[AuditEvent]) -> list[dict[str, object]]:
    """Audit events as export rows, the detail as sorted JSON."""
    return [{"id": e.id, "time": e.at, "event": e.event, "subject": e.subject, "email": e.email,
             "detail": json.dumps(e.detail, ensure_ascii=False, sort_keys=True)} for e in events]


def audit_to_csv(events: Sequence[AuditEvent]) -> str:
    """Audit events as CSV, cells that a spreadsheet would run as formulas defused."""
    # names and emails come from the identity provider: never let a spreadsheet run them as formulas
    return spreadsheet_csv(audit_rows(events), AUDIT_FIELDS)


def audit_to_json(events: Sequence[AuditEvent]) -> str:
    """Audit events as a JSON array, each detail as an object."""
    return json.dumps([{**r, "detail": json.loads(str(r["detail"]))} for r in audit_rows(events)], indent=2,
                      ensure_ascii=False)
