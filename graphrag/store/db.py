"""Connections and transactions, one place per database: SQLAlchemy Core 2 engines.

SQLite (the stdlib driver) and PostgreSQL (psycopg 3) sit behind the same calls:

- ``write(fn)``: ``fn(connection)`` in one transaction, retried as a whole on the failures that
  mean "try again" (SQLite busy/locked, PostgreSQL serialisation failure or deadlock, a dropped
  connection or a server restarting), then translated into a StoreError a person can act on.
- ``read(fn)``: one read, retried when the server is unreachable.
- ``in_snapshot(fn)``: every read ``fn`` makes sees one committed state (a WAL read transaction on
  SQLite, REPEATABLE READ READ ONLY on PostgreSQL). A snapshot whose connection drops is run again
  whole, from its start, on a new connection: a snapshot is never resumed half read.

The pool, parameter binding and the dialects come from SQLAlchemy; the retry policy from
tenacity. Reads and writes inside ``in_snapshot()``/``write()`` on one thread join that
connection, so a nested call sees the outer transaction instead of waiting on it; a failure
inside is retried (or translated) once, by the outermost call, for the whole transaction.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

from sqlalchemy import Connection, Engine, TextClause, create_engine, event, text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.pool import QueuePool
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential_jitter

from graphrag.config import redact
from graphrag.errors import StoreError
from graphrag.store.schema import MIGRATIONS, SCHEMA_VERSION
from graphrag.store.url import StoreURL

log = logging.getLogger(__name__)
T = TypeVar("T")
_WRITE = "graphrag_write"  # execution option: this connection begins a write transaction
_SNAPSHOT = "graphrag_snapshot"  # execution option: this connection begins a read transaction
_MIGRATION_LOCK = 7_351_001  # pg_advisory_xact_lock key: one process migrates at a time
# hnsw.ef_search: candidates kept per step of the HNSW scan (pgvector's default 40); retrieval asks for 300 (more
# than this), which the iterative scan returns by going on. 300 measured no better than 100 (recall@10 under an 11%
# label filter at 50k and 100k rows) and costs more per search. max_scan_tuples: how far a filtered scan may go.
PGVECTOR_SETTINGS = {"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "100", "hnsw.max_scan_tuples": "50000"}


class StoreUnreachable(StoreError):
    """The database server cannot be reached (down, restarting, network). Retried first."""


@dataclass
class _Local(threading.local):
    conn: Connection | None = None
    writing: bool = False


class Database:
    """A connection to the store's database: transactions, retries on busy or lost connections, and errors
    translated to StoreError."""

    def __init__(self, url: StoreURL, *, readonly: bool = False, busy_timeout_s: float = 30.0,
                 retry_s: float = 15.0) -> None:
        self.url = url
        self.readonly = readonly
        self.version = SCHEMA_VERSION  # set by migrate(): the schema this handle reads
        self.retry_s = retry_s
        self._local = _Local()
        self._compiled_cache: dict[TextClause, tuple[str, list[str] | None]] = {}
        self.engine: Engine = _sqlite_engine(url, readonly, busy_timeout_s) if url.kind == "sqlite" \
            else _postgres_engine(url, readonly)
        # single reads need no transaction on PostgreSQL (saves a BEGIN and a ROLLBACK round trip);
        # on SQLite a read transaction is local and cheap, and keeps one isolation setting per connection
        self._reader = self.engine.execution_options(isolation_level="AUTOCOMMIT") \
            if url.kind == "postgresql" else self.engine
        self._retrying = Retrying(retry=retry_if_exception(self._retryable), stop=stop_after_delay(retry_s),
                                  wait=wait_exponential_jitter(initial=0.02, max=1.0), reraise=True,
                                  before_sleep=lambda rs: log.info("store busy or unreachable, retrying: %s",
                                                                   rs.outcome.exception() if rs.outcome else ""))

    @property
    def dialect(self) -> str:
        """"sqlite" or "postgresql"."""
        return self.url.kind

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    # --- transactions -------------------------------------------------------------------

    @contextmanager
    def begin(self, *, write: bool = True) -> Iterator[Connection]:
        """One transaction on a pooled connection: committed at the end, rolled back on error."""
        with self.engine.connect() as conn:
            if write:
                conn.execution_options(**{_WRITE: True})
                if self.readonly and self.dialect == "postgresql":
                    conn.execution_options(postgresql_readonly=True)
            with conn.begin():
                outer = self._local.conn, self._local.writing
                self._local.conn, self._local.writing = conn, write
                try:
                    yield conn
                finally:
                    self._local.conn, self._local.writing = outer

    def write(self, fn: Callable[[Connection], T]) -> T:
        """``fn`` in one write transaction, retried whole; failures become StoreError."""
        if self._local.conn is not None and self._local.writing:
            return fn(self._local.conn)  # part of the caller's transaction

        def once() -> T:
            with self.begin(write=True) as conn:
                return fn(conn)

        return self._run(once, writing=True)

    def write_one(self, fn: Callable[[Connection], T]) -> T:
        """A write that is a single statement (a verdict, a cached reply, a log line). On
        PostgreSQL it runs in autocommit, where one statement is its own transaction: one round
        trip instead of three (BEGIN, the statement, COMMIT), which is most of a verdict's
        latency when the server's processes wait for a busy CPU. SQLite has no round trips."""
        if self.dialect != "postgresql" or self.readonly or self._local.conn is not None:
            return self.write(fn)

        def once() -> T:
            with self._reader.connect() as conn:
                return fn(conn)

        return self._run(once, writing=True)

    def read(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` on a read connection (or inside the current transaction), retrying when the store is
        busy."""
        if self._local.conn is not None:
            return fn(self._local.conn)

        def once() -> T:
            with self._reader.connect() as conn:
                return fn(conn)

        return self._run(once, writing=False)

    def _run(self, once: Callable[[], T], *, writing: bool) -> T:
        try:
            try:
                return once()  # the common case, without the retry machinery's overhead
            except Exception as exc:
                if not self._retryable(exc):
                    raise
                log.info("store busy or unreachable, retrying: %s", _first_line(exc))
            return self._retrying(once)
        except Exception as exc:
            raise self._translate(exc, writing=writing) from exc

    def fetch(self, stmt: TextClause, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """Rows of one small hot read (asking reads a span and its labels per context item).

        SQLAlchemy compiles the statement once per dialect; the driver binds the parameters on
        a pooled connection, skipping the per-execution result bookkeeping, which cost ~10x
        the query itself on SQLite. Inside a snapshot or a write it joins that connection."""
        if self._local.conn is not None:
            return [tuple(r) for r in self._local.conn.execute(stmt, params)]
        sql, order = self._compiled(stmt)
        args: Any = [params[k] for k in order] if order is not None else params

        def once() -> list[tuple[Any, ...]]:
            raw = self.engine.raw_connection()
            try:
                if self.dialect == "postgresql":
                    driver = raw.driver_connection
                    assert driver is not None  # a checked-out connection always holds its driver's
                    driver.autocommit = True  # one statement, no BEGIN
                cur = raw.cursor()
                try:
                    cur.execute(sql, args)
                    return [tuple(r) for r in cur.fetchall()]
                finally:
                    cur.close()
            except Exception as exc:
                if _unreachable(exc):  # a connection that died with the server is not pooled again
                    raw.invalidate()
                raise
            finally:
                if self.dialect == "postgresql" and raw.driver_connection is not None and \
                        not raw.driver_connection.closed:
                    raw.driver_connection.autocommit = False
                raw.close()

        return self._run(once, writing=False)

    def _compiled(self, stmt: TextClause) -> tuple[str, list[str] | None]:
        hit = self._compiled_cache.get(stmt)
        if hit is None:
            c = stmt.compile(dialect=self.engine.dialect)
            hit = (c.string, list(c.positiontup) if c.positional and c.positiontup is not None else None)
            self._compiled_cache[stmt] = hit
        return hit

    def in_snapshot(self, fn: Callable[[], T]) -> T:
        """``fn()``, whose reads all see one consistent committed state. A dropped connection (or a
        busy SQLite file) runs ``fn`` again whole, from its start, on a new connection, within the
        retry bound; failures become StoreError. Inside a snapshot or a transaction it joins that
        one (whose outermost call retries)."""
        if self._local.conn is not None:
            return fn()

        def once() -> T:
            with self._snapshot_connection():
                return fn()

        return self._run(once, writing=False)

    @contextmanager
    def _snapshot_connection(self) -> Iterator[None]:
        conn = self.engine.connect()
        try:
            conn.execution_options(**{_SNAPSHOT: True})
            if self.dialect == "postgresql":
                conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
            trans = conn.begin()
        except BaseException:
            conn.close()
            raise
        self._local.conn, self._local.writing = conn, False
        try:
            yield
        finally:
            self._local.conn, self._local.writing = None, False
            try:
                trans.rollback()  # nothing was written: ending a read transaction
                conn.close()
            except SQLAlchemyError as exc:  # the connection may have dropped: the reads failed already, or not
                log.info("ending a snapshot failed: %s", _first_line(exc))

    # --- failures -----------------------------------------------------------------------

    def _retryable(self, exc: BaseException) -> bool:
        orig = exc.orig if isinstance(exc, DBAPIError) else exc
        if isinstance(orig, sqlite3.OperationalError):
            msg = str(orig)
            return "locked" in msg or "busy" in msg
        code = getattr(orig, "sqlstate", None)
        if code in ("40001", "40P01"):  # serialization_failure, deadlock_detected
            return True
        return _unreachable(exc)

    def _translate(self, exc: Exception, *, writing: bool) -> Exception:
        if isinstance(exc, StoreError):
            return exc
        orig = exc.orig if isinstance(exc, DBAPIError) else exc
        if not isinstance(orig, (sqlite3.Error, DBAPIError)) and type(orig).__module__.split(".")[0] != "psycopg":
            return exc  # not a database failure: let it through unchanged
        where = self.url.display
        tail = "; nothing was written" if writing else ""
        if _unreachable(exc):
            return StoreUnreachable(f"the store {where} is unreachable ({_first_line(orig)}){tail}; "
                                    f"tried for {self.retry_s:g} s: check that the server is running, then retry")
        msg = str(orig)
        code = getattr(orig, "sqlstate", None)
        if "readonly" in msg or "read-only" in msg or code == "25006":
            return StoreError(f"the store {where} is read-only: nothing was written")
        if " full" in msg or code == "53100":
            return StoreError(f"the disk holding {where} is full: nothing was written")
        verb = "write to" if writing else "read"
        return StoreError(f"could not {verb} {where}: {_first_line(orig)}{tail}")

    # --- schema -------------------------------------------------------------------------

    def migrate(self) -> None:
        """Bring the schema to SCHEMA_VERSION (all missing steps in one transaction), or
        refuse a store written by a newer version."""
        try:
            version = self.read(_schema_version)
            self._check_version(version)
            # What this handle can read: a read-only store keeps the schema it was written with.
            self.version = version
            if version == SCHEMA_VERSION or self.readonly:
                return

            if self.dialect == "postgresql":
                self.read(lambda c: _refuse_unless_owner(c, version, self.url.display))

            def run(c: Connection) -> None:
                if self.dialect == "postgresql":
                    c.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
                current = _schema_version(c)  # another process may have migrated meanwhile
                self._check_version(current)
                for step in range(current + 1, SCHEMA_VERSION + 1):
                    MIGRATIONS[step](c)
                    _set_schema_version(c, step)

            self.write(run)
            self.version = SCHEMA_VERSION
        except StoreError:
            raise
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open the store {self.url.display}: {_first_line(exc)}") from exc

    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.url.display} was written by a newer version (schema {version}, this one "
                             f"knows {SCHEMA_VERSION}); upgrade graphrag")


class SchemaBehind(StoreError):
    """The store's schema is older than this version of graphrag, and this role may not migrate it."""


def _refuse_unless_owner(c: Connection, version: int, where: str) -> None:
    """On PostgreSQL only the owner of the tables migrates (``graphrag store setup``). The
    application's role cannot, and must not try: it says so instead, and nothing is changed."""
    if version == 0:
        may = c.execute(text("SELECT has_schema_privilege(current_schema(), 'CREATE')")).scalar()
        owner = None
    else:
        owner = c.execute(text("SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() "
                               "AND tablename = 'meta'")).scalar()
        may = owner is not None and c.execute(text("SELECT pg_has_role(current_user, :o, 'USAGE')"),
                                              {"o": owner}).scalar()
    if may:
        return
    user = c.execute(text("SELECT current_user")).scalar()
    state = (f"has no graphrag schema yet (this version needs schema {SCHEMA_VERSION})" if version == 0 else
             f"has schema {version}, this version of graphrag needs {SCHEMA_VERSION}")
    whose = f", the tables belong to {owner}" if owner else ""
    raise SchemaBehind(f"the store {where} {state}, and the role {user} may not change the schema{whose}: "
                       f"run `graphrag store setup --owner-url <the owner's URL> --app-role {user}` once (it "
                       "migrates as the owner and grants this role what it needs), then start again; nothing was "
                       "changed")


def _schema_version(c: Connection) -> int:
    if c.dialect.name == "sqlite":
        return int(c.exec_driver_sql("PRAGMA user_version").scalar() or 0)
    has_meta = c.execute(text("SELECT to_regclass('meta') IS NOT NULL")).scalar()
    if not has_meta:
        return 0
    v = c.execute(text("SELECT value FROM meta WHERE key='schema_version'")).scalar()
    return int(v or 0)


def _set_schema_version(c: Connection, version: int) -> None:
    """The version is the meta row 'schema_version' on both databases. A SQLite file also keeps it
    in PRAGMA user_version, which is what it is read from there: stores from before the meta row
    have only that, and releases before this one refuse a newer file by it."""
    c.execute(text("INSERT INTO meta (key, value) VALUES ('schema_version', :v) "
                   "ON CONFLICT (key) DO UPDATE SET value=excluded.value"), {"v": str(version)})
    if c.dialect.name == "sqlite":
        c.exec_driver_sql(f"PRAGMA user_version={int(version)}")


def _unreachable(exc: BaseException) -> bool:
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    if type(orig).__module__.split(".")[0] != "psycopg":
        return False
    code = getattr(orig, "sqlstate", None) or ""
    # no code: the connection attempt or the socket failed; 08: connection exception;
    # 57P01-57P03: the server is shutting down, crashed, or is not yet accepting connections
    import psycopg

    return (isinstance(orig, psycopg.OperationalError) and not code) or code.startswith("08") \
        or code in ("57P01", "57P02", "57P03")


def _first_line(exc: BaseException | None) -> str:
    """The driver's message, for messages and logs: its first line, any connection secret in it hidden."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    return redact((str(orig).strip().splitlines() or [type(orig).__name__])[0])


# --- engines ------------------------------------------------------------------------------


def _sqlite_engine(url: StoreURL, readonly: bool, busy_timeout_s: float) -> Engine:
    assert url.path is not None
    path = url.path
    if not readonly:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the store {path}: {exc}") from exc
    uri = f"file:{quote(str(path))}" + ("?mode=ro" if readonly else "")

    def connect() -> sqlite3.Connection:
        # isolation_level=None: the driver never opens transactions itself; _begin below does,
        # so a write takes the lock up front (BEGIN IMMEDIATE) instead of failing to upgrade later
        db = sqlite3.connect(uri, uri=True, timeout=busy_timeout_s, check_same_thread=False, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        if not readonly:
            db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed verdict survives a power cut too, not only a crashed process
            db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    engine = create_engine("sqlite://", creator=connect, poolclass=QueuePool, pool_size=4, max_overflow=8)

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        opts = conn.get_execution_options()
        if opts.get(_WRITE):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif opts.get(_SNAPSHOT):
            conn.exec_driver_sql("BEGIN")
        # else: a single read; one SELECT is atomic by itself in autocommit mode

    return engine


def _postgres_engine(url: StoreURL, readonly: bool) -> Engine:
    assert url.url is not None
    args: dict[str, Any] = {"connect_timeout": 5, "application_name": "graphrag"}
    # No pre-ping: it costs a round trip per checkout; a connection that died with a server
    # restart fails its first statement, SQLAlchemy invalidates the pool, and write()/read() retry.
    engine = create_engine(url.url, pool_size=5, max_overflow=10, connect_args=args)

    @event.listens_for(engine, "connect")
    def _pgvector_settings(dbapi_conn: Any, record: Any) -> None:
        # pgvector's search settings, once per new connection (a pooled one keeps them), not per query: an
        # iterative scan goes on until enough rows pass the asker's filter (graphrag/store/vector_search.py). Not
        # in the startup options: a pooler may refuse those, and a server preloading an older pgvector refuses the
        # names, which here only leaves its defaults. A server without pgvector keeps them as unused placeholders.
        try:
            for key, value in PGVECTOR_SETTINGS.items():
                dbapi_conn.execute(f"SET {key} = {value}")
            dbapi_conn.commit()
        except Exception as exc:  # noqa: BLE001 - any refusal leaves pgvector's defaults, never a failed connect
            dbapi_conn.rollback()
            log.info("pgvector settings not applied (%s): its defaults apply", _first_line(exc))

    return engine
