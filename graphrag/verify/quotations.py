"""Quotations in an answer, so that a quoted passage with its own full stops stays inside one claim.

Only closed double quotations count: typographic (“…”) pair by their shape, straight ones ("…") by what is on
either side of them. A quotation left open is ignored, so it cannot swallow the rest of the answer; single quotes
are left out because an apostrophe looks the same as a closing one.
"""

from __future__ import annotations

# Statements made of quotes, each named by its source: "Only Policy v2 says “…” [3]." (graphrag.answer.themes writes
# them for "what changed"), and "Theme Messi and Barcelona (in Lionel Messi and Zinedine Zidane): Lionel Messi says
# “…” [1]; Zinedine Zidane says “…” [2]." as theme answers were written before each theme became a block of quoted
# bullets (each a verbatim quote of its one cited sentence). The support check finds each quote in the sentence its
# marker cites.
THEME_OPENING = "Theme "
ONLY_OPENING = "Only "

# Longer than a sentence may be (graphrag.language.sentences caps sentences at 1200 characters): not a quotation a claim holds.
_MAX_QUOTATION_CHARS = 1200
_OPEN_BEFORE = " \t\n([{—–-"  # what may stand before an opening straight quote


def _straight_opens(text: str, i: int) -> bool:
    """A straight quote opens when it starts the text or follows a space or bracket, and a word follows it."""
    before_ok = i == 0 or text[i - 1] in _OPEN_BEFORE
    return before_ok and i + 1 < len(text) and not text[i + 1].isspace()


def quotation_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each closed double quotation in ``text``, ``end`` just past its closing mark."""
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None  # where the open quotation starts, and the mark that closes it
    for i, ch in enumerate(text):
        if ch == "“":
            opened = (i, "”")  # a second opening mark: the first was never closed
        elif ch == '"' and _straight_opens(text, i):
            opened = (i, '"')
        elif opened is not None and ch == opened[1] and (ch == "”" or not text[i - 1].isspace()):
            start = opened[0]
            if i + 1 - start <= _MAX_QUOTATION_CHARS and "\n\n" not in text[start:i]:
                spans.append((start, i + 1))
            opened = None
    return spans


def inside_quotation(spans: list[tuple[int, int]], pos: int) -> bool:
    """Whether a cut at ``pos`` would fall strictly inside one of ``spans``."""
    return any(start < pos < end for start, end in spans)
