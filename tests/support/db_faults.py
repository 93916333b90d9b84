"""A database fault at an exact point: the first statement a store sends that matches, waits first for something
(a PostgreSQL restart, a stop) and is then sent on the connection it was meant for, which that restart ended.

In the test's own process (AppTest): ``with before_statement(in_snapshot, pg_server.restart): ...``.
For a command in a child process: ``python db_faults.py ARGS...`` runs ``graphrag ARGS...`` with its first snapshot
statement held back: it prints ``paused`` on stdout and goes on once a line comes on stdin (the test restarts the
server in between), so the restart lands inside the command's snapshot, where it once bypassed the retry.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, event

from graphrag.store.db import _SNAPSHOT


def in_snapshot(conn: Connection, statement: str) -> bool:
    """A statement read inside a store's snapshot (``Store.in_snapshot``)."""
    return bool(conn.get_execution_options().get(_SNAPSHOT))


def any_statement(conn: Connection, statement: str) -> bool:
    """Every statement."""
    return True


@contextmanager
def before_statement(when: Callable[[Connection, str], bool], do: Callable[[], None]) -> Iterator[list[str]]:
    """While inside, the first statement of any store for which ``when`` holds runs ``do()`` just before it is
    sent. Yields a list that receives that statement (empty: none matched)."""
    hit: list[str] = []

    def hook(conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        if not hit and when(conn, statement):
            hit.append(statement)
            do()

    event.listen(Engine, "before_cursor_execute", hook)
    try:
        yield hit
    finally:
        event.remove(Engine, "before_cursor_execute", hook)


def _pause() -> None:
    print("paused", flush=True)
    sys.stdin.readline()


if __name__ == "__main__":
    from graphrag.cli import main

    with before_statement(in_snapshot, _pause):
        code = main(sys.argv[1:])
    raise SystemExit(code)
