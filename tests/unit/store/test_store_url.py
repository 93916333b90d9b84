"""Which store a value names: file paths and sqlite:/// URLs are SQLite, postgresql+psycopg://
is PostgreSQL, and anything else that looks like a URL is refused instead of becoming a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.cli import main
from graphrag.store import Store, UnsupportedStore, parse_store

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("value,path", [
    ("data/graphrag.db", "data/graphrag.db"),
    ("./odd:name.db", "odd:name.db"),
    ("sqlite:///rel/dir/x.db", "rel/dir/x.db"),
    ("sqlite:////abs/x.db", "/abs/x.db"),
])
def test_paths_and_sqlite_urls_name_a_sqlite_file(value: str, path: str) -> None:
    u = parse_store(value)
    assert u.kind == "sqlite" and u.path == Path(path)


def test_a_postgresql_url_is_parsed_and_its_password_never_shown() -> None:
    u = parse_store("postgresql+psycopg://ana:s3cret@db.example:5433/graphrag")
    assert u.kind == "postgresql" and u.url is not None
    assert (u.url.host, u.url.port, u.url.database, u.url.password) == ("db.example", 5433, "graphrag", "s3cret")
    for shown in (u.display, str(u), u.key):
        assert "s3cret" not in shown and "db.example:5433/graphrag" in shown
    assert u.value.endswith("ana:s3cret@db.example:5433/graphrag")  # handed to child processes intact


@pytest.mark.parametrize("value,message", [
    ("postgresql://u@h:5432/db", "name the driver"),
    ("postgres://u@h/db", "name the driver"),
    ("postgresql+psycopg2://u@h/db", "name the driver"),
    ("mysql://u@h/db", "unsupported store mysql"),
    ("postgresql+psycopg:", "malformed PostgreSQL URL"),
    ("postgresql+psycopg://u:p@h:5432", "names no database"),
    ("http://example/x.db", "unsupported store http"),
    ("sqlite://", "SQLite URL names a file"),
])
def test_unsupported_or_malformed_urls_are_refused(value: str, message: str) -> None:
    with pytest.raises(UnsupportedStore, match=message):
        parse_store(value)


def test_the_cli_refuses_a_url_it_cannot_use_and_creates_nothing(tmp_path, monkeypatch, capsys) -> None:
    """Before: --store postgresql+psycopg:... was taken as a file path; a folder 'postgresql+psycopg:'
    and a SQLite file appeared, and the command 'succeeded'."""
    monkeypatch.chdir(tmp_path)
    for value in ("postgresql://user@localhost:5432/db", "postgresql+psycopg:/user@localhost/db"):
        with pytest.raises(SystemExit) as exit_:
            main(["review", "list", "--store", value])
        assert exit_.value.code == 2
        assert "--store" in capsys.readouterr().err
    monkeypatch.setenv("GRAPHRAG_STORE", "mongodb://h/db")
    assert main(["export"]) == 2
    assert "unsupported store mongodb" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_sqlite_url_opens_the_same_store_as_its_path(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with Store("sqlite:///s.db") as s:
        s.cache_put("k", "v")
    with Store(tmp_path / "s.db") as s:
        assert s.cache_get("k") == "v" and s.url.label == "SQLite file"
