"""Enabling the database's vector search (``vector_search``) on a store, in steps that never hold a lock for long
and that any interruption leaves resumable: the next run goes on where the last one stopped.

1. ``prepare``, one short transaction: the extension, the conversion and trigger functions, the ``embedding``
   columns (no default: no table rewrite) and the trigger, so every row written from its commit on carries its
   halfvec. Its ``ALTER TABLE`` takes each table's exclusive lock for milliseconds; ``lock_timeout`` keeps it from
   queueing behind a long reader (and every other session behind it) for more than a few seconds.
2. ``copy_batch``, the stored vectors copied into the columns a few thousand rows a transaction, in key order
   (a keyset walk: each batch reads only its own rows), ``WHERE embedding IS NULL AND vector IS NOT NULL``; row
   locks only, which readers never wait on and writers (who add rows, never rewrite these) never meet. The meta
   row ``vector_copy`` says how far it is (``<copied>/<to copy>``) for ``vector_search.status``. When every table
   is copied the encoder is recorded (meta ``vector_encoder``): from then on the database answers the searches.
3. ``build_indexes``, each HNSW index by ``CREATE INDEX CONCURRENTLY`` (reads and writes go on; until it is valid
   the searches are exact scans by the server, and say so). An index left INVALID by a killed build is dropped and
   built again.

One process enables at a time (a session advisory lock, ``_LOCK``): another that finds it held skips and keeps
the search the store has. Who runs it: the tables' owner opening a small store (below ``OPEN_BELOW`` rows with a
vector: seconds) does every step on open; on a larger store (minutes a million rows to copy, and about 12 minutes
an HNSW index per million rows here) an open does nothing and the note says to run ``graphrag store setup``, which does
the steps in the foreground, printing progress. Not a background thread of whichever process opened the store: a
``graphrag ask`` exits after seconds and a dashboard restarts, and a concurrent index build killed with its process
is INVALID and starts again from nothing, so builds could restart forever; a command an administrator starts and
watches ends, or says where it stopped, and running it again resumes.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

from graphrag.language.encoding import DIM, MODEL_NAME
from graphrag.store import vector_search as vs
from graphrag.store.db import Database

log = logging.getLogger(__name__)

_LOCK = 7_351_002  # pg_try_advisory_lock key: one process enables the database's vector search at a time
OPEN_BELOW = 20_000  # rows with a vector (sentences and entities) below which the owner's open enables it all
BATCH = 2_000  # rows copied a transaction: about 2 s of conversion, a row lock each
OPEN_INDEX_TIMEOUT_S = 60  # how long an open may spend building a small store's index (waits included)
LOCK_TIMEOUT = "5s"  # how long the columns' ALTER TABLE may wait for a table's lock before giving up
KEYS = {"sentences": (("doc_id", "text"), ("version", "integer"), ("idx", "integer")), "entities": (("key", "text"),)}


@dataclass(frozen=True)
class Enabled:
    """What one run of ``enable`` did."""

    copied: int  # rows whose halfvec this run copied
    indexes_built: tuple[str, ...]  # the HNSW indexes this run built
    status: vs.VectorSearch


def is_small(c: Connection) -> bool:
    """Whether the store holds fewer than ``OPEN_BELOW`` rows with a vector (counted no further than that)."""
    n = 0
    for table in vs.KINDS:
        n += int(c.execute(text(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE vector IS NOT NULL "
                                "LIMIT :n) AS r"), {"n": OPEN_BELOW}).scalar() or 0)
    return n < OPEN_BELOW


def check_vectors(c: Connection) -> None:
    """Refuse a store whose recorded encoder or stored vectors' dimension is not this version's."""
    recorded = c.execute(text("SELECT value FROM meta WHERE key = :k"), {"k": vs.ENCODER_KEY}).scalar()
    if recorded is not None and recorded != vs.encoder_id():
        raise vs.VectorsMismatch(vs.mismatch_message(str(recorded)))
    for table in vs.KINDS:
        stored = c.execute(text(f"SELECT length(vector) FROM {table} WHERE vector IS NOT NULL "
                                "AND length(vector) <> :n LIMIT 1"), {"n": 4 * DIM}).scalar()
        if stored is not None:
            raise vs.VectorsMismatch(f"the {table} of this store hold vectors of {int(stored) // 4} dimensions, this "
                                     f"version encodes {DIM} ({MODEL_NAME}): they were made by another encoder. "
                                     "Ingest the documents into a new store; the vector search was not enabled")


def prepare(c: Connection) -> None:
    """Step 1 (one short transaction): the extension, functions, columns and trigger."""
    c.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    c.execute(text(_CONVERT))
    c.execute(text(_TRIGGER_FUNCTION.replace("{dim}", str(DIM))))
    c.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
    for table in vs.KINDS:
        c.execute(text(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS embedding halfvec({DIM})"))
        c.execute(text(f"DROP TRIGGER IF EXISTS graphrag_embedding ON {table}"))
        c.execute(text(f"CREATE TRIGGER graphrag_embedding BEFORE INSERT OR UPDATE OF vector ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION graphrag_embedding()"))


def to_copy(c: Connection) -> int:
    """Rows whose stored vector has no halfvec yet (one scan of each table)."""
    return sum(int(c.execute(text(f"SELECT count(*) FROM {t} WHERE embedding IS NULL AND vector IS NOT NULL"))
                   .scalar() or 0) for t in vs.KINDS)


def copy_batch(c: Connection, table: str, after: tuple[object, ...] | None, n: int | None = None
               ) -> tuple[int, tuple[object, ...] | None]:
    """Step 2, one transaction: the halfvecs of the next ``n`` rows of ``table`` after key ``after`` (None: from
    the first) that lack one; (rows copied, the last key read, None once the table is done). Each vector is
    converted here (its exact float32 values as text, which the server rounds to half precision as the trigger's
    conversion does, at a fraction of its cost in SQL) and written by key."""
    n = BATCH if n is None else n
    names = [name for name, _ in KEYS[table]]
    key = ", ".join(names)
    after_sql = f"WHERE ({key}) > ({', '.join(f':a{i}' for i in range(len(names)))})" if after else ""
    rows = c.execute(text(f"SELECT {key}, CASE WHEN embedding IS NULL THEN vector END FROM {table} {after_sql} "
                          f"ORDER BY {key} LIMIT :n"), {**{f"a{i}": v for i, v in enumerate(after or ())}, "n": n}).all()
    if not rows:
        return 0, None
    todo = [r for r in rows if r[-1] is not None]
    if todo:
        params: dict[str, object] = {f"k{i}": [r[i] for r in todo] for i in range(len(names))}
        params["e"] = [vs.stored_halfvec_text(r[-1]) for r in todo]
        arrays = ", ".join(f"CAST(:k{i} AS {kind}[])" for i, (_, kind) in enumerate(KEYS[table]))
        copied = c.execute(text(
            f"UPDATE {table} t SET embedding = CAST(v.e AS halfvec) FROM unnest({arrays}, CAST(:e AS text[])) "
            f"AS v({', '.join(f'k{i}' for i in range(len(names)))}, e) "
            f"WHERE ({', '.join(f't.{k}' for k in names)}) = ({', '.join(f'v.k{i}' for i in range(len(names)))}) "
            "AND t.embedding IS NULL AND t.vector IS NOT NULL"), params).rowcount or 0
    else:
        copied = 0
    return copied, tuple(rows[-1][:-1])


def _batch(c: Connection, *, table: str, after: tuple[object, ...] | None, done: int, total: int
           ) -> tuple[int, tuple[object, ...] | None]:
    """One batch and the progress row, in one transaction."""
    n, last = copy_batch(c, table, after)
    _set_progress(c, done + n, max(total, done + n))
    return n, last


def _set_progress(c: Connection, copied: int, total: int) -> None:
    c.execute(text("INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE SET "
                   "value = excluded.value"), {"k": vs.COPY_KEY, "v": f"{copied}/{total}"})


def finish_copy(c: Connection) -> None:
    """The copy is complete: the encoder recorded (the database answers from now on), the progress row gone."""
    c.execute(text("INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE SET value = "
                   "excluded.value"), {"k": vs.ENCODER_KEY, "v": vs.encoder_id()})
    c.execute(text("DELETE FROM meta WHERE key = :k"), {"k": vs.COPY_KEY})


def build_indexes(c: Connection, say: Callable[[str], None] = log.info, timeout_s: int | None = None
                  ) -> tuple[str, ...]:
    """Step 3, on an autocommit connection: each HNSW index missing or invalid built concurrently; their names.
    ``timeout_s`` bounds each statement (a concurrent build also waits for every older transaction in the
    database: an open that finds one idle in a transaction gives up, leaving the index to the next)."""
    built = []
    c.execute(text("SET maintenance_work_mem = '512MB'"))  # the graph in memory while it is built
    if timeout_s is not None:
        c.execute(text(f"SET statement_timeout = '{int(timeout_s)}s'"))
    try:
        for table in vs.KINDS:
            name = f"{table}_embedding"
            valid = c.execute(text("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(:i)"),
                              {"i": name}).scalar()
            if valid:
                continue
            if valid is not None:  # left INVALID by a build that was killed: it holds nothing usable
                say(f"the {name} index was left invalid by an interrupted build: building it again")
                c.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))
            say(f"building the {name} index (CREATE INDEX CONCURRENTLY: reads and writes go on)")
            c.execute(text(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {table} "
                           "USING hnsw (embedding halfvec_cosine_ops)"))
            built.append(name)
    finally:
        c.execute(text("RESET maintenance_work_mem"))
        c.execute(text("RESET statement_timeout"))
    return tuple(built)


def enable(db: Database, progress: Callable[[str], None] | None = None, index_timeout_s: int | None = None
           ) -> Enabled | None:
    """Every step still to do, as the tables' owner (see ``vector_search.may_enable``), each in its own short
    transaction; None when another process is enabling it now. ``progress``: a line per stage and every tenth of
    the copy (default: the log); ``index_timeout_s``: see ``build_indexes``. Refuses another encoder's vectors
    (``VectorsMismatch``) before changing anything."""
    say = progress or (lambda line: log.info("store %s: %s", db.url.display, line))
    with db.engine.execution_options(isolation_level="AUTOCOMMIT").connect() as lock:
        if not lock.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": _LOCK}).scalar():
            return None
        try:
            found = db.read(vs.status)
            copied = 0
            if found.stage in (vs.Stage.PROCESS, vs.Stage.COPYING):
                db.read(check_vectors)
                if found.stage == vs.Stage.PROCESS:
                    db.write(prepare)
                    say("pgvector columns and trigger added: new rows carry their halfvec from now on")
                copied = _copy_all(db, say)
                db.write(finish_copy)
                say(f"{copied:,} stored vectors copied: the database searches them from now on (by an exact scan "
                    "until the HNSW indexes are built)")
            built = build_indexes(lock, say, index_timeout_s)
            if built:
                say(f"HNSW indexes built: {', '.join(built)}")
            return Enabled(copied, built, db.read(vs.status))
        finally:
            with contextlib.suppress(DBAPIError):  # a connection lost has released it already
                lock.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _LOCK})


def _copy_all(db: Database, say: Callable[[str], None]) -> int:
    """Step 2 over every table, from its first key (rows already copied cost a read each, no write)."""
    total = db.read(to_copy)
    done, told = 0, 0
    if not total:  # rows written since the columns were added carry theirs already
        return 0
    say(f"copying {total:,} stored vectors into pgvector columns, {BATCH:,} rows a transaction")
    for table in vs.KINDS:
        after: tuple[object, ...] | None = None
        while True:
            n, after = db.write(functools.partial(_batch, table=table, after=after, done=done, total=total))
            done += n
            if after is None:
                break
            if total and done * 10 // total > told:
                told = done * 10 // total
                say(f"copied {done:,} of {total:,} stored vectors")
    return done


# float32 little-endian bytes (the ``vector`` column) to halfvec, in SQL: sign, exponent and mantissa of each
# 4 bytes (a denormal, below 1e-38, is 0 in half precision anyway). About 1 ms a 384-dimension row.
_CONVERT = """
CREATE OR REPLACE FUNCTION graphrag_halfvec(b bytea) RETURNS halfvec LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
SELECT ('[' || string_agg(CASE WHEN e = 0 THEN '0' ELSE ((1 - 2 * sg) * (1 + m / 8388608.0::float8)
                                                         * power(2::float8, e - 127))::text END, ',' ORDER BY i)
        || ']')::halfvec
FROM (SELECT i, get_byte(b, 4 * i + 3) >> 7 AS sg,
             ((get_byte(b, 4 * i + 3) & 127) << 1) | (get_byte(b, 4 * i + 2) >> 7) AS e,
             ((get_byte(b, 4 * i + 2) & 127) << 16) | (get_byte(b, 4 * i + 1) << 8) | get_byte(b, 4 * i) AS m
      FROM generate_series(0, length(b) / 4 - 1) AS i) AS parts $$"""

# The embedding follows the float32 vector in the same statement; a writer may give it already (a bulk load).
_TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION graphrag_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.vector IS NULL THEN
    NEW.embedding := NULL;
  ELSIF length(NEW.vector) <> 4 * {dim} THEN
    RAISE EXCEPTION 'a vector of % dimensions: this store holds vectors of {dim} (%); they were made by another '
                    'encoder, so the row was not written', length(NEW.vector) / 4, TG_TABLE_NAME
      USING ERRCODE = 'data_exception';
  ELSIF NEW.embedding IS NULL OR (TG_OP = 'UPDATE' AND NEW.vector IS DISTINCT FROM OLD.vector) THEN
    NEW.embedding := graphrag_halfvec(NEW.vector);
  END IF;
  RETURN NEW;
END $$"""
