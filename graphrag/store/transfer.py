"""``graphrag store migrate``: copy a store (a SQLite file) into an empty database, usually
PostgreSQL, with every row's original id and time, then prove the copy.

Everything on the target happens in one transaction: the schema, every table, the team's
settings, the id sequences moved past the copied ids, and the check (row counts and a sha256 over
every table's rows, and over the settings, on both sides). A failure anywhere, the check
included, rolls the target back to exactly what it was; there is no half-copied store to clean up.

The settings are the rows of the ``meta`` table (the review policy, the generation counter and its
marks, and any setting added later), all copied and checked but the two that describe one store
rather than the team's data: its schema version (the target's migrations write it) and where a
copy came from.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, func, inspect, select, text

from graphrag.config import STORE_RETRY_S
from graphrag.errors import StoreError
from graphrag.model import Progress
from graphrag.store.codec import now
from graphrag.store.core import Store
from graphrag.store.db import _MIGRATION_LOCK, Database, _schema_version, _set_schema_version
from graphrag.store.schema import MIGRATIONS, SCHEMA_VERSION, meta, metadata
from graphrag.store.url import StoreURL, parse_store

_BATCH = 2000


@dataclass(frozen=True)
class TableCopy:
    """One table's copy: its row count and a digest of its rows."""

    table: str
    rows: int
    sha256: str  # over the rows, order-free; equal on both sides


@dataclass(frozen=True)
class CopyReport:
    """A finished, verified copy of one store into another."""

    source: str
    target: str
    tables: tuple[TableCopy, ...]
    generation: int

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {"source": self.source, "target": self.target, "generation": self.generation, "verified": True,
                "tables": [{"table": t.table, "rows": t.rows, "sha256": t.sha256} for t in self.tables]}


class CopyMismatch(StoreError):
    """The target's rows differ from the source's after the copy (it was rolled back)."""


SETTINGS = "meta"  # the report's name for the settings rows
# meta rows about one store, not the team's settings (vector_encoder: which encoder fills its pgvector columns)
_STORE_OWN = frozenset({"schema_version", "copied_from", "vector_encoder"})


def _tables() -> list[Table]:
    return [t for t in metadata.sorted_tables if t is not meta]  # parents first


def _settings(c: Connection) -> list[tuple[Any, ...]]:
    """The team's settings: every meta row but the store's own (a new setting is copied without a change here)."""
    return [(k, v) for k, v in c.execute(select(meta.c.key, meta.c.value)) if k not in _STORE_OWN]


def _norm(v: Any) -> Any:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, float):
        return repr(v)
    return v


def _digest(rows: Sequence[Sequence[Any]]) -> str:
    lines = sorted(json.dumps([_norm(v) for v in r], ensure_ascii=False) for r in rows)
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def _read_table(c: Connection, t: Table) -> list[tuple[Any, ...]]:
    if not inspect(c).has_table(t.name):  # a table newer than the source store: nothing to copy
        return []
    return [tuple(r) for r in c.execute(select(*t.columns))]


def copy_store(source: str | os.PathLike[str] | StoreURL, target: str | StoreURL,
               progress: Callable[[Progress], None] | None = None, *, retry_s: float = STORE_RETRY_S) -> CopyReport:
    """Copy every table of ``source`` into the empty store ``target`` in one transaction, and check the copy
    row for row; a mismatch rolls it back. ``retry_s``: how long a busy or unreachable source is retried."""
    src_url, dst_url = parse_store(source), parse_store(target)
    if src_url.kind == "sqlite" and not (src_url.path and src_url.path.is_file()):
        raise StoreError(f"no store at {src_url.display}: --from names an existing SQLite file")
    if src_url.key == dst_url.key:
        raise StoreError("--from and --to name the same store")
    tables = _tables()
    def read_source() -> tuple[dict[str, list[Any]], int, list[Any]]:
        data = {t.name: src._read(functools.partial(_read_table, t=t)) for t in tables}
        generation = src.generation()
        # the generation as the copy writes it (a store from before the meta row has none to read)
        settings = [r for r in src._read(_settings) if r[0] != "generation"] + [("generation", str(generation))]
        return data, generation, settings

    with Store(src_url, readonly=True, retry_s=retry_s) as src:
        data, generation, settings = src.in_snapshot(read_source)  # one consistent state of the source
    expected = (*(TableCopy(t.name, len(data[t.name]), _digest(data[t.name])) for t in tables),
                TableCopy(SETTINGS, len(settings), _digest(settings)))
    db = Database(dst_url)
    try:
        def run(c: Connection) -> None:
            if c.dialect.name == "postgresql":
                c.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
            held = {t.name: c.execute(select(func.count()).select_from(t)).scalar()
                    for t in tables if inspect(c).has_table(t.name)}
            if any(held.values()):
                raise StoreError(f"the target {dst_url.display} is not empty ("
                                 + ", ".join(f"{n} {k}" for k, n in held.items() if n)
                                 + "): migrate copies into an empty database only; nothing was changed")
            for step in range(_schema_version(c) + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[step](c)
                _set_schema_version(c, step)
            for i, t in enumerate(tables):
                rows = data[t.name]
                keys = [col.name for col in t.columns]
                for j in range(0, len(rows), _BATCH):
                    c.execute(t.insert(), [dict(zip(keys, r)) for r in rows[j:j + _BATCH]])
                if progress:
                    progress(Progress(i + 1, len(tables), f"{t.name}: {len(rows)} rows"))
            if c.dialect.name == "postgresql":  # new rows continue after the copied ids
                for t in tables:
                    if "id" in t.c and t.c.id.primary_key:
                        c.execute(text(f"SELECT setval(pg_get_serial_sequence('{t.name}', 'id'), "
                                       f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {t.name}), false)"))
            put = text("INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE "
                       "SET value=excluded.value")
            for key, value in settings:  # the review policy among them: blind review stays on
                c.execute(put, {"k": key, "v": value})
            c.execute(put, {"k": "copied_from", "v": json.dumps({"source": src_url.display, "at": now()})})
            # the check, inside the transaction: a mismatch rolls everything back
            got = (*(TableCopy(t.name, len(r := _read_table(c, t)), _digest(r)) for t in tables),
                   TableCopy(SETTINGS, len(r := _settings(c)), _digest(r)))
            bad = [f"{e.table}: {e.rows} rows expected, {g.rows} copied" if e.rows != g.rows
                   else f"{e.table}: rows differ (sha256)" for e, g in zip(expected, got) if e != g]
            if bad:
                raise CopyMismatch("the copy does not match its source (" + "; ".join(bad)
                                   + "); the target was rolled back and is unchanged")

        db.write(run)
    finally:
        db.close()
    return CopyReport(src_url.display, dst_url.display, expected, generation)
