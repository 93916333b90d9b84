"""One bound on a document's total text, counted while it is read.

A small file can hold a lot of text (PDF pages that share one content stream, a DOCX whose XML
compresses a thousandfold), so the bound is on characters, not bytes, and every reader adds each
page or paragraph to a ``CharBudget`` as it goes: the file is refused as soon as the count passes
the limit, before the rest is read, with the count so far and the limit.
"""

from __future__ import annotations

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.errors import ReadError


class TooMuchText(ReadError):
    """The document's text passes the character limit."""


class CharBudget:
    """Characters read so far against the limit; ``add`` raises TooMuchText once it is passed."""

    def __init__(self, limit: int = MAX_DOCUMENT_CHARS) -> None:
        self.limit = limit
        self.used = 0

    def add(self, n: int, where: str) -> None:
        """Count ``n`` more characters, read from ``where`` ("page 12 of 300", "paragraph 4,100")."""
        self.used += n
        if self.used > self.limit:
            raise TooMuchText(too_much_text(self.used, self.limit, where))


def too_much_text(count: int, limit: int, where: str = "") -> str:
    """The message for a document over the limit: the count (so far), where, and the limit."""
    held = f"more than {limit:,} characters of text ({count:,} by {where})" if where else f"{count:,} characters of text"
    return (f"the document holds {held}; the limit is {limit:,} characters a document "
            "(GRAPHRAG_MAX_DOCUMENT_CHARS): split it, or raise the limit")
