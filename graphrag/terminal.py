"""What the CLI writes reaches a terminal: documents' and questions' control characters must not.

An entity name, a question or a note holding ``ESC[31m``, a C1 CSI (U+009B), a BEL or a carriage return
would recolour, ring, rewrite earlier lines or retitle the window of whoever reads the output. ``main``
puts ``sys.stdout`` and ``sys.stderr`` behind ``SafeStream`` for the whole command, so every print, log
line and argparse message passes ``escape_controls`` in this one place. Escapes are written as
``\\u001b``: readable on a terminal, and inside a JSON string they decode back to the original character,
so ``--json`` output stays exact. ``--out FILE`` writes an export's bytes as they are.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

# C0 controls but tab and newline, DEL, C1 controls (U+0080-U+009F: U+009B is a one-character CSI), and the
# bidirectional overrides and isolates that reorder what a terminal shows.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str) -> str:
    """``text`` with every control character but tab and newline written as ``\\uXXXX``."""
    return _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class SafeStream:
    """A text stream that writes to ``raw`` with control characters escaped; everything else is ``raw``'s."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        """Write ``text`` escaped; the count is of the characters given, as a text stream's is."""
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


__all__ = ["SafeStream", "escape_controls", "safe_terminal"]
