"""What several commands share: the ``--store`` and ``--access`` options, the default store, writing an export, and
the terminal-safe output every command writes through.

What the CLI writes reaches a terminal: an entity name, a question or a note holding ``ESC[31m``, a C1 CSI (U+009B),
a BEL or a carriage return would recolour, ring, rewrite earlier lines or retitle the window of whoever reads it.
``main`` puts ``sys.stdout`` and ``sys.stderr`` behind ``SafeStream`` for the whole command, so every print, log line
and argparse message passes ``escape_controls`` in this one place. Escapes are written as ``\\u001b``: readable on a
terminal, and inside a JSON string they decode back to the original character, so ``--json`` output stays exact.
``--out FILE`` writes an export's bytes as they are.

The product's own layout is not escaped: a carriage return right before a newline (a CSV row's end, which rewrites
nothing on a terminal), so a CSV written to stdout is byte for byte the file ``--out`` writes; and the carriage return
with which a progress bar (tqdm's, the model-loading bars included) starts each redraw, passed only at the start of a
write made by tqdm's own bar printer, never in what a command prints.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias

from graphrag.access import VIA_CLI, Viewer, local_principal
from graphrag.config import Config, ConfigError
from graphrag.model import PUBLIC
from graphrag.store import DEFAULT_STORE, StoreURL, UnsupportedStore, parse_store, sqlite_file
from graphrag.workspace import Workspace

if TYPE_CHECKING:  # argparse's subparsers action is generic only to the type checker
    from graphrag.store import Store

    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def apply_config(args: argparse.Namespace, config: Config) -> None:
    """Give the parsed command its configuration (read once, in ``main``): ``args.config``, with the
    command's flags that name a setting (``--store``, ``--host``) recorded as such, ``args.store``
    filled from the configuration where the flag was not given, and ``args.workspace``, the command's one
    ``Workspace`` on them (its store opened by the first ``open_store``, its models loaded on first use)."""
    flags: dict[str, object] = {}
    if getattr(args, "store", None) is not None:
        flags["store"] = args.store.value
    if getattr(args, "host", None):
        flags["ollama_host"] = args.host
    args.config = config.override(**flags)
    if hasattr(args, "store") and args.store is None:
        try:
            args.store = parse_store(args.config.store)
        except UnsupportedStore as exc:  # GRAPHRAG_STORE names a database this product cannot use
            raise ConfigError([f"GRAPHRAG_STORE: {exc}"]) from None
    args.workspace = Workspace(args.config, where=getattr(args, "store", None))


def open_store(args: argparse.Namespace) -> Store:
    """The command's store (its workspace's), retried as long as the configuration says."""
    workspace: Workspace = args.workspace
    return workspace.store


def principal(args: argparse.Namespace) -> Viewer:
    """Who acts at the command line: local mode, every role, the ``--access`` labels given (public by
    default); the audit log says ``via: cli``."""
    return local_principal(getattr(args, "access", None) or [PUBLIC], via=VIA_CLI)


def store_value(value: str) -> StoreURL:
    """--store: a file path (SQLite), sqlite:///path or postgresql+psycopg://...; anything else refused."""
    try:
        return parse_store(value)
    except UnsupportedStore as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def sqlite_file_value(value: str) -> Path:
    """--store of a command that builds a store of its own as a SQLite file: a file path (or sqlite:///path); a
    PostgreSQL URL is refused with what to give instead, never taken for a file name."""
    try:
        return sqlite_file(value)
    except UnsupportedStore as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_store_arg(p: argparse.ArgumentParser) -> None:
    """Add ``--store`` (default: GRAPHRAG_STORE, else the default SQLite file)."""
    p.add_argument("--store", type=store_value, default=None,
                   help="the store: a SQLite file, sqlite:///path or postgresql+psycopg://user:password@host:port/db "
                        f"(default: the environment variable GRAPHRAG_STORE, else {DEFAULT_STORE})")


def add_access_arg(p: argparse.ArgumentParser) -> None:
    """Add ``--access LABEL...``: the labels the person at the command line may see (default: public)."""
    p.add_argument("--access", nargs="+", default=[PUBLIC], metavar="LABEL",
                   help="the asker's access labels (default: public)")


def add_me_arg(p: argparse.ArgumentParser) -> None:
    """Add ``--me NAME``: who the command runs for under blind review (the reviewer name they judge under)."""
    p.add_argument("--me", metavar="NAME",
                   help="you, as the reviewer name you judge under: under blind review, verdicts on a claim still "
                        "judged blind are shown (and counted) only once you have given yours; without it, none")


def add_json_arg(p: argparse.ArgumentParser) -> None:
    """Add ``--json``: print one JSON object instead of the readable report."""
    p.add_argument("--json", action="store_true", help="print JSON instead of the readable report")


def choices_help(table: dict[str, str], default: str) -> str:
    """Help text naming a backend registry's choices, so ``--help`` lists what is installed."""
    return f"one of {', '.join(table)} (default: {default})"


def write_out(text: str, out: str | None, what: str) -> int:
    """Write an export to ``out`` (saying so on stderr) or to stdout; the command's exit code."""
    if out:
        Path(out).write_text(text, encoding="utf-8")
        print(f"wrote {what} to {out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


# C0 controls but tab, newline and a carriage return ending a line, DEL, C1 controls (U+0080-U+009F: U+009B is a
# one-character CSI), and the bidirectional overrides and isolates that reorder what a terminal shows.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def escape_controls(text: str) -> str:
    """``text`` with every control character but tab, newline and a carriage return right before a newline (a line's
    end, as in a CSV row: it rewrites nothing) written as ``\\uXXXX``."""
    return _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# tqdm's functions that redraw or clear a bar (``tqdm.write``, which prints what it is handed, is not one)
_BAR_PRINTERS = frozenset({"fp_write", "clear"})


def _from_progress_bar(frame: FrameType | None) -> bool:
    """Whether ``frame`` (the caller of a stream's ``write``) is tqdm's bar printer (``fp_write`` or ``clear`` in
    ``tqdm.std``, maybe through the wrapper ``tqdm.utils`` puts around the stream)."""
    if frame is not None and frame.f_globals.get("__name__") == "tqdm.utils":
        frame = frame.f_back
    return (frame is not None and frame.f_code.co_name in _BAR_PRINTERS
            and frame.f_globals.get("__name__") == "tqdm.std")


class SafeStream:
    """A text stream that writes to ``raw`` with control characters escaped; everything else is ``raw``'s."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        """Write ``text`` escaped (but the carriage return a progress bar starts its redraw with); the count is of
        the characters given, as a text stream's is."""
        if text.startswith("\r") and _from_progress_bar(sys._getframe(1)):
            self.raw.write("\r" + escape_controls(text[1:]))
        else:
            self.raw.write(escape_controls(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding: the terminal's own
        return getattr(self.raw, name)


@contextmanager
def safe_terminal() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` escaping control characters until the block ends."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = out, err
