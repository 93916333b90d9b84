"""PostgreSQL with two roles (`graphrag store setup`): the owner migrates; the application role the
dashboard and the CLI use can read and insert the verification record but never change it, not
even by switching the append-only triggers off first; and the product works through it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from graphrag.cli import main
from graphrag.store import SCHEMA_VERSION, Store
from graphrag.store.db import SchemaBehind
from graphrag.store.schema import RECORD_TABLES
from graphrag.verify.policy import ReviewPolicy
from graphrag.verify.status import keep_review_policy, review_policy
from helpers import ADMIN


def _sql(pg_server: Any, database: str, statement: str, user: str = "postgres") -> None:
    with psycopg.connect(host="127.0.0.1", port=pg_server.port, user=user, dbname=database, autocommit=True) as c:
        c.execute(statement)


@pytest.fixture()
def roles(pg_server: Any, pg_url: str) -> tuple[str, str, str]:
    """(the owner's URL, the application role's name, the database): the owner owns the database
    (so its schema) and may create roles, as a DBA would set it up; the application role does not exist yet."""
    database = pg_url.rsplit("/", 1)[1]
    owner, app = f"{database}_owner".lower(), f"{database}_app".lower()
    _sql(pg_server, "postgres", f'CREATE ROLE "{owner}" LOGIN CREATEROLE')
    _sql(pg_server, "postgres", f'ALTER DATABASE "{database}" OWNER TO "{owner}"')
    return f"postgresql+psycopg://{owner}@127.0.0.1:{pg_server.port}/{database}", app, database


def _app_url(pg_server: Any, app: str, database: str) -> str:
    return f"postgresql+psycopg://{app}@127.0.0.1:{pg_server.port}/{database}"


def test_the_application_role_cannot_switch_off_or_rewrite_the_record(pg_server, roles, capsys, tmp_path) -> None:
    owner_url, app, database = roles
    secret = tmp_path / "app-password"
    secret.write_text("it's s3cret\n", encoding="utf-8")  # a quote: the password is quoted as a literal
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", app, "--app-password-file",
                 str(secret)]) == 0
    with psycopg.connect(host="127.0.0.1", port=pg_server.port, user="postgres", dbname="postgres") as c:
        (stored,) = c.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (app,)).fetchone()
    assert stored.startswith("SCRAM-SHA-256$")  # the server keeps its hash, never the password
    out = capsys.readouterr().out
    assert f"role {app} created" in out and all(t in out for t in RECORD_TABLES)
    with Store(_app_url(pg_server, app, database)) as s:  # opens: the schema is current, nothing to migrate
        (setup,) = s.audit()
        assert (setup.event, setup.detail["via"], setup.detail["app_role"]) == ("store-setup", "cli", app)
    with psycopg.connect(host="127.0.0.1", port=pg_server.port, user=app, dbname=database, autocommit=True) as c:
        c.execute("INSERT INTO audit (at, event, detail) VALUES ('2026-01-01T00:00:00+00:00', 'x', '{}')")
        for table in RECORD_TABLES:
            for attack in (f"ALTER TABLE {table} DISABLE TRIGGER ALL",
                           f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only",
                           f"DROP TRIGGER {table}_append_only ON {table}",
                           f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql "
                           "AS $$ BEGIN RETURN NULL; END $$",
                           f"UPDATE {table} SET id = id", f"DELETE FROM {table}", f"TRUNCATE {table}",
                           f"DROP TABLE {table} CASCADE", f"ALTER TABLE {table} RENAME TO {table}_old"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    c.execute(attack)
            for privilege in ("UPDATE", "DELETE", "TRUNCATE", "TRIGGER"):  # nor held, nor grantable to itself
                c.execute(f"GRANT {privilege} ON {table} TO {app}")  # a warning: no privileges were granted
                assert c.execute(f"SELECT has_table_privilege('{table}', '{privilege}')").fetchone() == (False,)
        c.execute("CREATE TEMP TABLE scratch (x int)")  # a session's own temp table is not the record
        assert c.execute("SELECT count(*) FROM audit").fetchone() == (2,)
    # what the application role is denied, the owner could do: the split is what protects the record
    with psycopg.connect(host="127.0.0.1", port=pg_server.port, user=owner_url.split("//")[1].split("@")[0],
                         dbname=database) as c:
        c.execute("ALTER TABLE audit DISABLE TRIGGER ALL")
        c.rollback()


def test_the_application_role_never_migrates_and_says_the_schema_is_behind(pg_server, roles, capsys) -> None:
    owner_url, app, database = roles
    app_url = _app_url(pg_server, app, database)
    _sql(pg_server, "postgres", f'CREATE ROLE "{app}" LOGIN')
    with pytest.raises(SchemaBehind, match=rf"no graphrag schema yet .* role {app} may not change the schema.*"
                                           rf"graphrag store setup --owner-url .* --app-role {app}"):
        Store(app_url)
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", app, "--json"]) == 0
    assert '"created": false' in capsys.readouterr().out
    # an upgrade of graphrag on a store the owner has not migrated yet: the app says so, changes nothing
    _sql(pg_server, database, f"UPDATE meta SET value='{SCHEMA_VERSION - 1}' WHERE key='schema_version'",
         user=owner_url.split("//")[1].split("@")[0])
    with pytest.raises(SchemaBehind, match=f"has schema {SCHEMA_VERSION - 1}, this version of graphrag needs "
                                           f"{SCHEMA_VERSION}.* tables belong to {database}_owner"):
        Store(app_url)
    assert main(["ingest", "/nonexistent", "--store", app_url]) == 1  # the CLI: the same message, exit 1
    assert "store setup --owner-url" in capsys.readouterr().err
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", app]) == 0  # the owner migrates
    with Store(app_url) as s:
        assert s.database.version == SCHEMA_VERSION


def test_setup_refuses_an_application_role_that_could_act_as_the_owner(pg_server, roles, capsys) -> None:
    owner_url, app, database = roles
    owner, other = owner_url.split("//")[1].split("@")[0], f"{database}_other"
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", owner]) == 2
    _sql(pg_server, "postgres", f'CREATE ROLE "{app}" LOGIN IN ROLE "{owner}"')
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", app]) == 2
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", "Robert'); DROP"]) == 2
    # the application's own URL given as the owner's: refused, not a run of grants that grant nothing
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", other]) == 0
    assert main(["store", "setup", "--owner-url", owner_url.replace(owner, other), "--app-role", app]) == 2
    assert "the tables belong to" in capsys.readouterr().err


@pytest.mark.model
def test_the_product_works_end_to_end_through_the_application_role(pg_server, roles, tmp_path: Path) -> None:
    from app_helpers import write_corpus

    owner_url, app, database = roles
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", app]) == 0
    s = ["--store", _app_url(pg_server, app, database)]
    assert main(["ingest", str(write_corpus(tmp_path / "corpus")), *s]) == 0
    assert main(["ask", "How long do snapshot exports remain available?", *s]) == 0
    with Store(_app_url(pg_server, app, database)) as store:
        (answer_id,) = [a["id"] for a in store.answer_ids()]
    assert main(["review", "mark", "--answer", str(answer_id), "--claim", "1", "--verdict", "supported",
                 "--reviewer", "ada", *s]) == 0
    assert main(["review", "policy", "--required", "2", *s]) == 0
    assert main(["export", "--out", str(tmp_path / "record.csv"), "--me", "ada", *s]) == 0  # blind: ada sees her own
    assert main(["delete", "faq", "--yes", *s]) == 0  # removal deletes spans, keeps and adds record rows
    assert main(["audit", "export", "--format", "json", "--out", str(tmp_path / "audit.json"), *s]) == 0
    with Store(_app_url(pg_server, app, database)) as store:
        assert [e.event for e in store.audit()] == ["store-setup", "ingest", "verdict", "review-policy", "export",
                                                    "remove", "export"]
        assert len(store.verdicts()) == 1 and [r.document_id for r in store.removal_records()] == ["faq"]
    assert "ada" in (tmp_path / "record.csv").read_text(encoding="utf-8")


def test_a_store_one_role_owns_today_moves_to_two_roles_keeping_its_rows(pg_server, roles) -> None:
    """The upgrade path the README gives: the role the dashboard used, which owns the tables, hands them
    to an owner (REASSIGN OWNED), and store setup makes it the application role."""
    owner_url, app, database = roles
    owner = owner_url.split("//")[1].split("@")[0]
    _sql(pg_server, "postgres", f'CREATE ROLE "{app}" LOGIN')
    _sql(pg_server, database, f'GRANT CREATE ON SCHEMA public TO "{app}"')
    with Store(_app_url(pg_server, app, database)) as s:  # as today: the dashboard's role creates and owns all
        keep_review_policy(s, ReviewPolicy(2), by=ADMIN)
    _sql(pg_server, database, f'REASSIGN OWNED BY "{app}" TO "{owner}"')
    _sql(pg_server, database, f'REVOKE CREATE ON SCHEMA public FROM "{app}"')
    assert main(["store", "setup", "--owner-url", owner_url, "--app-role", app]) == 0
    with Store(_app_url(pg_server, app, database)) as s:
        assert review_policy(s).required == 2 and [e.event for e in s.audit()] == ["review-policy", "store-setup"]
    with psycopg.connect(host="127.0.0.1", port=pg_server.port, user=app, dbname=database, autocommit=True) as c:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            c.execute("ALTER TABLE audit DISABLE TRIGGER ALL")


@pytest.mark.parametrize("form", ["userinfo", "query"])
def test_store_setup_never_prints_the_owners_password(pg_server, roles, capsys, form: str) -> None:
    owner_url, app, database = roles
    owner = owner_url.split("//")[1].split("@")[0]
    _sql(pg_server, "postgres", f"ALTER ROLE \"{owner}\" PASSWORD 'Own3r-pw'")
    given = (owner_url.replace(f"//{owner}@", f"//{owner}:Own3r-pw@") if form == "userinfo"
             else f"{owner_url}?password=Own3r-pw&sslpassword=Own3r-pw")
    assert main(["store", "setup", "--owner-url", given, "--app-role", app]) == 0
    assert main(["store", "setup", "--owner-url", given, "--app-role", app, "--json"]) == 0
    assert main(["store", "setup", "--owner-url", given, "--app-role", "postgres"]) != 0  # an error names the URL
    shown = capsys.readouterr()
    assert "Own3r-pw" not in shown.out + shown.err
    assert f"GRAPHRAG_STORE=postgresql+psycopg://{app}@127.0.0.1:{pg_server.port}/{database}" in shown.out
    with Store(_app_url(pg_server, app, database)) as s:
        assert "Own3r-pw" not in repr([a.detail for a in s.audit()])


@pytest.mark.parametrize("form", ["query", "query and userinfo"])
def test_the_printed_application_url_connects_as_the_application_role(pg_server, roles, capsys, form: str) -> None:
    """The driver takes a query's ``user=`` over the name before the ``@``: an owner URL naming its user there
    printed an "app" URL that still connected as the owner."""
    owner_url, app, database = roles
    owner = owner_url.split("//")[1].split("@")[0]
    bare = f"postgresql+psycopg://127.0.0.1:{pg_server.port}/{database}"
    given = {"query": f"{bare}?user={owner}&application_name=setup",
             "query and userinfo": owner_url.replace(f"//{owner}@", f"//{app}@") + f"?user={owner}"}[form]
    assert main(["store", "setup", "--owner-url", given, "--app-role", app, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["app_url"]
    assert "user=" not in printed and printed.startswith(f"postgresql+psycopg://{app}@127.0.0.1:{pg_server.port}/")
    with Store(printed) as s, s.database.engine.connect() as c:
        assert c.exec_driver_sql("SELECT current_user").scalar() == app
    assert main(["store", "setup", "--owner-url", given, "--app-role", app]) == 0
    assert f"GRAPHRAG_STORE={printed} " in capsys.readouterr().out
