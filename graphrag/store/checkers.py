"""Versions of the embedded support checker's parameters, fitted from the team's verdicts.

Each refit that is adopted becomes a new numbered version and the active one; a rollback
makes an earlier version (or the shipped parameters: no active version) active again. No
version is ever deleted, so the record says which parameters scored what.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from graphrag.errors import InputError
from graphrag.store.codec import now


@dataclass(frozen=True)
class CheckerVersion:
    """A fitted version of the embedded checker's parameters, with where it came from and why it was adopted.
    """

    version: int
    created_at: str
    params: dict[str, Any]
    source: str  # what it was fitted from, e.g. "verdicts: 120 pairs from 31 answers"
    metrics: dict[str, Any]  # the cross-validated comparison that justified adopting it
    active: bool
    activated_at: str | None = None


def _version(r: Any, with_params: bool = True) -> CheckerVersion:
    return CheckerVersion(int(r["version"]), r["created_at"], json.loads(r["params"]) if with_params else {},
                          r["source"], json.loads(r["metrics"]), bool(r["active"]), r["activated_at"])


def add(c: Connection, params: dict[str, Any], source: str, metrics: dict[str, Any], activate: bool = True) -> int:
    """Store a new version (number = last + 1) and, by default, make it the active one."""
    version = int(c.execute(text("SELECT COALESCE(MAX(version), 0) FROM checker_versions")).scalar_one()) + 1
    at = now()
    if activate:
        c.execute(text("UPDATE checker_versions SET active=0 WHERE active=1"))
    c.execute(text("INSERT INTO checker_versions (version, created_at, params, source, metrics, active, activated_at) "
                   "VALUES (:v, :at, :p, :s, :m, :a, :aa)"),
              {"v": version, "at": at, "p": json.dumps(params), "s": source, "m": json.dumps(metrics, default=float),
               "a": int(activate), "aa": at if activate else None})
    return version


def active(c: Connection) -> CheckerVersion | None:
    """The active checker version, or None when the shipped parameters are in use."""
    r = c.execute(text("SELECT * FROM checker_versions WHERE active=1")).mappings().first()
    return _version(r) if r else None


def listing(c: Connection) -> list[CheckerVersion]:
    """Every version, oldest first, without the (large) parameters."""
    rows = c.execute(text("SELECT version, created_at, '{}' AS params, source, metrics, active, activated_at "
                          "FROM checker_versions ORDER BY version")).mappings()
    return [_version(r) for r in rows]


def rollback(c: Connection, to: int | None = None) -> int:
    """Make version ``to`` active (0: the shipped parameters). Without ``to``: the version
    before the active one, or shipped when it is the first. Returns the version now active."""
    current = c.execute(text("SELECT version FROM checker_versions WHERE active=1")).scalar()
    if to is None:
        if current is None:
            raise InputError("the shipped parameters are already active: nothing to roll back")
        to = int(c.execute(text("SELECT COALESCE(MAX(version), 0) FROM checker_versions WHERE version < :v"),
                           {"v": current}).scalar_one())
    if to != 0 and c.execute(text("SELECT 1 FROM checker_versions WHERE version=:v"), {"v": to}).scalar() is None:
        known = [r[0] for r in c.execute(text("SELECT version FROM checker_versions ORDER BY version"))]
        raise InputError(f"no checker version {to}; known: {', '.join(map(str, known)) or 'none'} (0 = shipped)")
    c.execute(text("UPDATE checker_versions SET active=0 WHERE active=1"))
    if to:
        c.execute(text("UPDATE checker_versions SET active=1, activated_at=:at WHERE version=:v"), {"v": to, "at": now()})
    return to
