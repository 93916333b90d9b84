"""The `graphrag` command: one module per command, each with ``register(subparsers)`` and ``run(args)``.

Every command prints a readable report, or one JSON object with --json. Errors a user can
act on are printed as one line on stderr with exit code 2 (bad input) or 1 (backend/store).
Adding a command is one module here and one entry in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from graphrag.cli import (
    ask,
    audit,
    bench,
    checker,
    delete,
    entity,
    evaluate,
    export,
    ingest,
    pack,
    record,
    review,
    store,
)
from graphrag.cli.common import apply_config, safe_terminal
from graphrag.config import Config
from graphrag.errors import GraphRAGError, InputError

# In the order ``graphrag --help`` lists them.
COMMANDS = (ingest, entity, ask, review, delete, export, pack, audit, record, evaluate, store, checker, bench)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every ``graphrag`` command."""
    p = argparse.ArgumentParser(prog="graphrag", description="Local GraphRAG with source attribution")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return p


def _not_utf8(argv: Sequence[str]) -> str | None:
    """The first argument holding bytes that are not UTF-8 (Python surrogate-escapes them), shown safely."""
    from graphrag.ingest import printable

    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return printable(arg)
    return None


# A reader that stopped reading (``graphrag export | head``): 128 + SIGPIPE, the status a shell shows for a
# command the closed pipe ended.
CLOSED_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit code is 0 on success, 2 for bad input, 1 for other failures, 130 when
    interrupted, 141 when what reads its output closed the pipe (quietly: no traceback). Everything it writes to
    stdout and stderr has its control characters escaped."""
    try:
        with safe_terminal():  # it flushes both streams as it ends: a closed pipe shows there at the latest
            return _main(argv)
    except BrokenPipeError:
        _silence_closed_pipes()
        return CLOSED_PIPE


def _silence_closed_pipes() -> None:
    """Point stdout and stderr, where their reader is gone, at /dev/null: what is still buffered would raise again
    when Python flushes them at exit ("Exception ignored ... BrokenPipeError")."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, stream.fileno())
            finally:
                os.close(devnull)
        except (OSError, ValueError):  # not a real file (a test's capture), or closed: nothing to flush at exit
            pass


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    bad = _not_utf8(argv)
    if bad is not None:
        # Paths, questions and names are stored and printed as UTF-8: say which argument, once.
        print(f"error: an argument is not valid UTF-8 text: '{bad}'; use UTF-8 (e.g. rename the file, "
              "or convert the text with iconv)", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        apply_config(args, Config.from_env())  # the one read of the environment; a bad setting is bad input
        with args.workspace:  # the command's settings, store and models; its store closed at the end
            return int(args.run(args))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except GraphRAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: documents already written are kept; re-run to resume", file=sys.stderr)
        return 130


__all__ = ["CLOSED_PIPE", "COMMANDS", "build_parser", "main"]
