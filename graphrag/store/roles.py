"""``graphrag store setup``: two PostgreSQL roles, so the dashboards cannot rewrite the record.

The **owner** owns the tables and migrates them; only it could disable the append-only
triggers. The **application** role (the URL the dashboard and the CLI use) may read every table,
only read and insert the record tables (``schema.RECORD_TABLES``: verdicts, audit, removals) and
the answers with their claims, citations and context (``APPEND_TABLES``), read, insert and delete
(never rewrite) sentences and original files, update only a document's labels, title, date and
superseded mark, and read and write the rest (entities, the cache, ...). What it may change is
bounded further by the owner's triggers (``guards.py``: server times, digests, audit rows first).
It owns nothing, so it cannot ALTER, DISABLE TRIGGER, TRUNCATE, UPDATE or DELETE the record; and it
never migrates (``db._refuse_unless_owner`` says to run this command instead).

Run again after upgrading graphrag: it migrates as the owner and grants on new tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.engine import URL

from graphrag.access.identity import Viewer
from graphrag.config import is_secret_key, redact
from graphrag.errors import InputError
from graphrag.store import audit, vector_enable, vector_search
from graphrag.store.db import Database
from graphrag.store.schema import RECORD_TABLES, SCHEMA_VERSION, metadata
from graphrag.store.url import StoreURL, parse_store

_ROLE = re.compile(r"[a-z_][a-z0-9_]{0,62}")
RECORD_PRIVILEGES = "SELECT, INSERT"
OTHER_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE"
# What an answer showed when it was judged: appended, never rewritten (a removal withdraws an answer
# through the owner's graphrag_withdraw_answer, see guards.py).
APPEND_TABLES = ("answers", "context_items", "claims", "citations")
# Tables the application role may not use with OTHER_PRIVILEGES: their own grant.
SPECIAL_PRIVILEGES = {
    **dict.fromkeys(APPEND_TABLES, RECORD_PRIVILEGES),
    # a document's words are never rewritten: a new version is a new row, a removal deletes rows
    "sentences": "SELECT, INSERT, DELETE", "document_files": "SELECT, INSERT, DELETE",
    "documents": "SELECT, INSERT, DELETE, UPDATE (superseded, title, effective_date, access)",
}


@dataclass(frozen=True)
class RolesReport:
    """What ``setup_roles`` did."""

    owner: str
    app_role: str
    created: bool  # the application role did not exist and was created
    schema: int
    record_tables: tuple[str, ...]
    other_tables: tuple[str, ...]
    app_url: str  # the owner's URL with the application role (no password): for the dashboard and the CLI
    append_tables: tuple[str, ...] = APPEND_TABLES  # among other_tables: read and insert only
    vector_search: str = ""  # where the store's vectors are searched (vector_search.status), for people

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {"owner": self.owner, "app_role": self.app_role, "created": self.created, "schema": self.schema,
                "record_tables": {"tables": list(self.record_tables), "app_may": RECORD_PRIVILEGES},
                "other_tables": {"tables": list(self.other_tables), "app_may": OTHER_PRIVILEGES,
                                 "except": {t: SPECIAL_PRIVILEGES[t] for t in self.other_tables
                                            if t in SPECIAL_PRIVILEGES}},
                "app_url": self.app_url, "vector_search": self.vector_search}


def setup_roles(owner_url: str | StoreURL, app_role: str, password: str | None = None, *,
                by: Viewer, progress: Callable[[str], None] | None = None) -> RolesReport:
    """Migrate the store as its owner, enable the database's vector search where the server offers pgvector
    (``vector_enable``: in short steps, ``progress`` told of each; resumed where an earlier run stopped), then
    create ``app_role`` (if missing) and grant it exactly what the product needs, in one transaction with its
    audit row (``by``). ``password``: for a new role (none: the server's other authentication applies, e.g. peer
    or a certificate)."""
    url = parse_store(owner_url)
    if url.kind != "postgresql":
        raise InputError(f"store setup is for PostgreSQL (a SQLite file has no roles): {url.display}")
    if not _ROLE.fullmatch(app_role):
        raise InputError(f"--app-role must be a plain lower-case role name (letters, digits, _), got {app_role!r}")
    db = Database(url)
    try:
        db.migrate()  # as the owner: refused with SchemaBehind when this URL is not the owner's
        # the database's vector search (pgvector), enabled here when the server offers it and this owner may
        if (db.read(vector_search.status).stage != vector_search.Stage.READY and db.read(vector_search.may_enable)
                and vector_enable.enable(db, progress) is None and progress is not None):
                progress("another process is enabling the database's vector search now: run this again later "
                         "to see it finished")

        def run(c: Connection) -> RolesReport:
            report = replace(_grant(c, app_role, password, url), vector_search=vector_search.status(c).note)
            audit.add(c, audit.event(by, audit.AuditKind.STORE_SETUP, app_role=report.app_role, owner=report.owner,
                                     created=report.created, schema=report.schema))
            return report

        return db.write(run)
    finally:
        db.close()


def _grant(c: Connection, app: str, password: str | None, url: StoreURL) -> RolesReport:
    owner = str(c.execute(text("SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() "
                               "AND tablename = 'meta'")).scalar())
    user = str(c.execute(text("SELECT current_user")).scalar())
    if not c.execute(text("SELECT pg_has_role(current_user, :o, 'USAGE')"), {"o": owner}).scalar():
        raise InputError(f"--owner-url connects as {user}, but the tables belong to {owner}: give the owner's URL")
    if app == owner:
        raise InputError(f"--app-role {app} owns the tables: the application role must be another role")
    role = c.execute(text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = :r"), {"r": app}).first()
    created = role is None
    if role is None:
        # a utility statement takes no bound parameters: the password is quoted as a literal by the driver
        from psycopg import sql

        secret = f" PASSWORD {sql.Literal(password).as_string(c.connection.driver_connection)}" if password else ""
        c.exec_driver_sql(f'CREATE ROLE "{app}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT{secret}')
    elif role[0]:
        raise InputError(f"the role {app} is a superuser: it could do anything the owner can; use another role")
    elif c.execute(text("SELECT pg_has_role(:a, :o, 'USAGE')"), {"a": app, "o": owner}).scalar():
        raise InputError(f"the role {app} is a member of the owner {owner} and would act as it; use another role")
    schema = str(c.execute(text("SELECT current_schema()")).scalar())
    database = str(c.execute(text("SELECT current_database()")).scalar())
    c.exec_driver_sql(f'GRANT CONNECT ON DATABASE "{database}" TO "{app}"')
    c.exec_driver_sql(f'GRANT USAGE ON SCHEMA "{schema}" TO "{app}"')
    c.exec_driver_sql(f'REVOKE CREATE ON SCHEMA "{schema}" FROM "{app}"')
    tables = [t.name for t in metadata.sorted_tables]
    for name in tables:
        # everything first (TRUNCATE, TRIGGER, REFERENCES, an earlier grant), then exactly what it needs
        c.exec_driver_sql(f'REVOKE ALL ON TABLE "{name}" FROM "{app}"')
        privileges = RECORD_PRIVILEGES if name in RECORD_TABLES else SPECIAL_PRIVILEGES.get(name, OTHER_PRIVILEGES)
        c.exec_driver_sql(f'GRANT {privileges} ON TABLE "{name}" TO "{app}"')
    c.exec_driver_sql(f'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{app}"')
    c.exec_driver_sql(f'GRANT EXECUTE ON FUNCTION graphrag_withdraw_answer(bigint) TO "{app}"')
    assert url.url is not None
    app_url = redact(role_url(url.url, app).render_as_string(hide_password=False))
    return RolesReport(owner, app, created, SCHEMA_VERSION, tuple(t for t in tables if t in RECORD_TABLES),
                       tuple(t for t in tables if t not in RECORD_TABLES), app_url)


# Query keys that say who connects: the driver takes a query's ``user`` over the URL's user name, so
# ``...@host/db?user=owner`` connects as the owner whatever name stands before the ``@``.
_IDENTITY_KEYS = frozenset({"user"})


def role_url(owner_url: URL, app: str) -> URL:
    """The owner's URL made the application role's: its host, port, database and options, with ``app`` as the user,
    and nothing of the owner's identity or secrets (no password, no ``?user=``, ``password=``, ``sslpassword=``,
    ``passfile=``: dropped, not masked). Checked against the connection arguments the driver would be given, so the
    URL printed for the dashboard can only connect as ``app``."""
    # URL.set(password=None) keeps the password (None means "unchanged" there): _replace clears it.
    url = owner_url._replace(username=app, password=None).difference_update_query(
        [k for k in owner_url.query if is_secret_key(k) or k.strip().lower() in _IDENTITY_KEYS])
    from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg

    # what the driver is handed (SQLAlchemy's dialect is untyped: its own word, not a copy of its rules)
    dialect: Any = PGDialect_psycopg
    _, params = dialect().create_connect_args(url)
    if params.get("user") != app or any(is_secret_key(k) for k in params):
        raise InputError(f"the application role's URL would not connect as {app}: {redact(str(url))}")
    return url


__all__ = ["RolesReport", "role_url", "setup_roles"]
