"""One bound on a document's total text, counted while it is read, and one on its words.

A small file can hold a lot of text (PDF pages that share one content stream, a DOCX whose XML
compresses a thousandfold), so the bound is on characters, not bytes, and every reader adds each
page or paragraph to a ``CharBudget`` as it goes: the file is refused as soon as the count passes
the limit, before the rest is read, with the count so far and the limit. The parser's work is per word,
so the words of the text that was kept are bounded too (``check_words``), whatever the format.
"""

from __future__ import annotations

import re

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.limits import LIMITS, ReadLimits


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


class TooManyWords(ReadError):
    """The document's text splits into more words than the parser's work is bounded to."""


_WORD = re.compile(r"\S+")


def check_words(text: str, max_chars: int = MAX_DOCUMENT_CHARS, limits: ReadLimits = LIMITS) -> None:
    """Refuse a text whose words (what the parser works through, one token or more each) pass the bound: a
    share of the character limit (``limits.chars_per_word``), so a run of one glyph and a space costs no more
    than a document at the limit."""
    limit = max_chars // limits.chars_per_word
    for words, _ in enumerate(_WORD.finditer(text), 1):
        if words > limit:
            raise TooManyWords(words_message(words, max_chars, limits, f"in {len(text):,} characters"))


def words_message(words: int, max_chars: int, limits: ReadLimits, where: str) -> str:
    """The message for a text past the word bound: the count so far, where, and the limit."""
    return (f"the document's text splits into more than {max_chars // limits.chars_per_word:,} words ({words:,} "
            f"{where}; prose has a word every 6 characters); the limit is one word for {limits.chars_per_word} "
            f"characters of the {max_chars:,}-character limit (GRAPHRAG_MAX_DOCUMENT_CHARS): it is runs of "
            "single glyphs, not text to read")
