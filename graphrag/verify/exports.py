"""Exports of the record, behind the verify door's use cases (``actions.export_record``, ``export_audit_log``,
which check the role): each writes its audit row (what, which format, how many rows, through which surface) and
returns the text. The verification record shows only what ``by``'s access labels can see."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from graphrag.access.identity import Viewer
from graphrag.access.rule import Access
from graphrag.errors import InputError
from graphrag.store import Store
from graphrag.store.audit import AuditKind, event
from graphrag.verify.audit import Sight, audit_to_csv, audit_to_json

FORMATS = ("csv", "json")
PACK = "pack"  # the signed evidence pack (graphrag.verify.pack): bytes, not text


@dataclass(frozen=True)
class Export:
    """An export's text and how many rows it holds."""

    text: str
    rows: int
    withheld: int = 0  # rows left out: they name documents or answers the exporter's labels do not show


def _format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InputError(f"export format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def export_record(store: Store, fmt: str, *, by: Viewer, me: str | None = None) -> Export:
    """The verification record ``by`` may see (one row per verdict), as CSV or JSON; audited. Blind
    review applies: ``me`` is the reviewer name a local user judges under (team mode: the identity)."""
    from graphrag.verify.review import export_rows, review_viewer, rows_to_csv, rows_to_json

    rows = export_rows(store, sorted(by.labels), review_viewer(by, me))
    store.add_audit(event(by, AuditKind.EXPORT, what="verification record", format=_format(fmt), rows=len(rows)))
    return Export(rows_to_csv(rows) if fmt == "csv" else rows_to_json(rows), len(rows))


def audit_sight(store: Store, labels: Iterable[str]) -> Sight:
    """What a viewer holding ``labels`` may read of the audit log, from the store as it is now."""
    from graphrag.verify.sight import claims_seen

    versions = store.version_labels()
    return Sight(Access.of(labels, include_superseded=True), versions,
                 frozenset(c["answer_id"] for c in claims_seen(store, labels)),
                 frozenset(label for v in versions.values() for label in v))


def export_audit_log(store: Store, fmt: str, *, by: Viewer, since: str | None = None) -> Export:
    """The audit log (from ``since`` on), oldest first, as CSV or JSON; the export is its own last row. Rows that
    name a document or an answer ``by``'s labels do not show are left out (counted in ``withheld``)."""
    store.add_audit(event(by, AuditKind.EXPORT, what="audit log", format=_format(fmt), since=since))
    sight = audit_sight(store, by.labels)
    every = store.audit(since)
    events = [e for e in every if sight.shows(e)]
    return Export(audit_to_csv(events) if fmt == "csv" else audit_to_json(events), len(events),
                  len(every) - len(events))


@dataclass(frozen=True)
class PackExport:
    """A signed evidence pack's bytes, what it holds and the public key that checks it."""

    data: bytes
    answers: int
    verdicts: int
    signer: str
    labels: tuple[str, ...]


def export_pack(store: Store, *, by: Viewer, whole_record: bool = False, config_home: Path | None = None,
                access_policy: Path | None = None) -> PackExport:
    """The record ``by``'s labels may see, every verdict on it included, as a signed evidence pack; audited (the
    pack's log holds that row). Under blind review it needs a team admin or, in local mode, ``whole_record`` (the
    exporter reads every verdict): else ``PackRefused``, nothing written (graphrag.verify.pack.check_pack_allowed). The store's signing key is made on first use
    (graphrag.verify.signing). ``access_policy``: the team's policy file, for the oversight report's "who may review"."""
    from graphrag.store import now
    from graphrag.verify.pack import build_pack, check_pack_allowed, gather
    from graphrag.verify.signing import store_key

    blind = check_pack_allowed(store, by, whole_record)
    key = store_key(store.url, config_home)
    store.add_audit(event(by, AuditKind.EXPORT, what="evidence pack", format=PACK, labels=sorted(by.labels),
                          signer=key.public_text))
    contents = gather(store, by, now(), store.url.label, audit_sight(store, by.labels), blind, access_policy)
    return PackExport(build_pack(contents, key), len(contents.answers), len(contents.verdicts), key.public_text,
                      tuple(sorted(by.labels)))


def public_key(store: Store, *, config_home: Path | None = None) -> str:
    """The store's public signing key (``ed25519:<hex>``), made with its private half on first use."""
    from graphrag.verify.signing import store_key

    return store_key(store.url, config_home).public_text
