"""Where the store lives: one value, a file path or a URL, parsed and checked in one place.

Accepted: a file path (SQLite), ``sqlite:///relative/path.db`` or ``sqlite:////absolute/path.db``,
and ``postgresql+psycopg://user:password@host:port/db`` (SQLAlchemy's URL form, driver named).
Anything else that looks like a URL is refused: taking ``postgres://...`` as a file name used to
create a folder named ``postgres:`` and a SQLite file inside it, and every command "succeeded".
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from graphrag.config import redact
from graphrag.errors import StoreError

FORMS = ("a file path (SQLite), sqlite:///path/to/file.db, or "
         "postgresql+psycopg://user:password@host:port/database")
# scheme ":" at the start of the value, as in RFC 3986 (two letters or more, so "C:" is not one)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")


class UnsupportedStore(StoreError):
    """A store value that names a database this product cannot use (or a malformed URL)."""


@dataclass(frozen=True)
class StoreURL:
    """A parsed store location. ``value`` is what to hand another process (it may hold a
    password); ``display`` is what to show a person (never the password)."""

    kind: Literal["sqlite", "postgresql"]
    value: str
    path: Path | None = None  # SQLite only
    url: URL | None = None  # PostgreSQL only

    @property
    def display(self) -> str:
        """The store's location for people: a file path, or a URL with the password hidden."""
        if self.kind == "sqlite":
            return self.path.as_posix() if self.path else ""
        assert self.url is not None
        return redact(self.url.render_as_string(hide_password=True))  # a ?password= too

    @property
    def key(self) -> str:
        """Identity of the store for caches shared inside one process (no password)."""
        if self.kind == "sqlite":
            assert self.path is not None
            return "sqlite:" + str(self.path.resolve())
        assert self.url is not None
        return redact(self.url._replace(password=None).render_as_string(hide_password=True))

    @property
    def label(self) -> str:
        """"SQLite file" or "PostgreSQL", for messages."""
        return "SQLite file" if self.kind == "sqlite" else "PostgreSQL"

    def __str__(self) -> str:
        return self.display


def parse_store(value: str | os.PathLike[str] | StoreURL) -> StoreURL:
    """The store a value names, or UnsupportedStore with the accepted forms."""
    if isinstance(value, StoreURL):
        return value
    if isinstance(value, os.PathLike):
        return StoreURL("sqlite", os.fspath(value), path=Path(value))
    text = str(value).strip()
    if not text:
        raise UnsupportedStore(f"the store is empty: give {FORMS}")
    m = _SCHEME.match(text)
    if not m:
        return StoreURL("sqlite", text, path=Path(text))
    scheme = m.group(1).lower()
    if scheme == "sqlite":
        if not text.lower().startswith("sqlite:///") or len(text) <= len("sqlite:///"):
            raise UnsupportedStore(f"a SQLite URL names a file: sqlite:///relative/path.db or "
                                   f"sqlite:////absolute/path.db (got {text!r})")
        path = text[len("sqlite:///"):].split("?", 1)[0]
        return StoreURL("sqlite", text, path=Path(path))
    if scheme == "postgresql+psycopg":
        try:
            url = make_url(text)
        except ArgumentError as exc:
            raise UnsupportedStore(f"malformed PostgreSQL URL: {exc}; expected "
                                   "postgresql+psycopg://user:password@host:port/database") from None
        if not url.database:
            raise UnsupportedStore("the PostgreSQL URL names no database: "
                                   "postgresql+psycopg://user:password@host:port/database")
        return StoreURL("postgresql", text, url=url)
    if scheme in ("postgresql", "postgres") or scheme.startswith("postgresql+"):
        raise UnsupportedStore(f"name the driver in the URL: postgresql+psycopg://... (got {scheme}://; "
                               "psycopg 3 is the PostgreSQL driver this product ships with)")
    raise UnsupportedStore(f"unsupported store {scheme}://...: give {FORMS} "
                           "(a file whose name starts with 'word:' is written ./word:...)")


def sqlite_file(value: str | os.PathLike[str]) -> Path:
    """The SQLite file a command that builds a store of its own writes: a file path (or sqlite:///path); a
    PostgreSQL URL is refused with what to give instead, never taken for a file name."""
    store = parse_store(value)
    if store.kind != "sqlite" or store.path is None:
        raise UnsupportedStore(f"this command builds its store as a SQLite file: give a file path, not a "
                               f"{store.label} URL ({store.display})")
    return store.path
