"""A PDF page's printed lines as its text layer places them: each line's band and its words' extents, in points
from the page's top-left corner, for rewrapping a page picture (``rewrap``) line by line and word by word.

The ink alone cannot tell lines apart on a page set as tightly as a printed web page: a footnote mark raised over a
line and a link's underline under the one above fill the white rows between them, and two lines read as one row,
whose halves were then stacked in the wrong order with words cut between them. The text layer says which glyph
belongs to which line: glyphs are read in the PDF's order, a line ends where the text goes back to the left or
jumps to another height, and a raised mark stays with the line it follows. A page with no text layer (a scan)
has no lines here: its picture is rewrapped from the ink.
"""

from __future__ import annotations

import ctypes
import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pypdfium2 as pdfium

WORD_GAP = 0.25  # a gap wider than this share of the line's height is a space between words, whatever the PDF says
LEAP = 12.0  # a run read on to the right further than this many line heights: another column's text
MAX_RUNS = 3000  # pieces of text read in one picture's band at most: joining them costs their number squared
COLUMN_GAP = 1.0  # pieces of one height further apart than a line height are in different columns or cells (a gutter)


@dataclass
class Line:
    """One printed line: ``top`` and ``bottom`` reach from its highest glyph (a raised mark included) to the
    font's descent under its baseline; ``core`` is the band of its body glyphs (the font's ascent to descent);
    ``words`` the [x0, x1) extents of its words, left to right. Points, origin at the page's top-left corner."""

    top: float
    bottom: float
    core: tuple[float, float]
    words: list[tuple[float, float]] = field(default_factory=list)
    # how far a picture of it may reach up and down without taking in a line left out of it (``crop_lines``)
    ceiling: float = float("-inf")
    floor: float = float("inf")

    @property
    def height(self) -> float:
        """The line's body height: its font's ascent to descent."""
        return self.core[1] - self.core[0]

    @property
    def x0(self) -> float:
        """Where its first word begins."""
        return self.words[0][0]

    @property
    def x1(self) -> float:
        """Where its last word ends."""
        return self.words[-1][1]


@dataclass
class _Glyph:
    x0: float
    x1: float
    top: float  # the glyph's own ink
    bottom: float  # the font's descent (where an underline is drawn)
    loose: tuple[float, float]  # the font's ascent to descent
    space_before: bool


def page_lines(page: pdfium.PdfPage, band: tuple[float, float] | None = None) -> list[Line]:
    """The printed lines of ``page`` (upright text only), in no particular order; empty for a page with no text, and
    for one whose text is too scattered to be lines (over ``MAX_RUNS`` pieces: its picture is then rewrapped from
    the ink, in bounded time). ``band``: only the glyphs whose middle lies between these two heights (points from
    the page's top): a picture of a few lines reads only theirs."""
    import pypdfium2.raw as pdfium_c

    left, _bottom, _right, top = page.get_cropbox()
    textpage = page.get_textpage()
    try:
        raw = textpage.raw
        n = pdfium_c.FPDFText_CountChars(raw)
        rect = pdfium_c.FS_RECTF()
        gl, gr, gb, gt = (ctypes.c_double() for _ in range(4))
        runs: list[list[_Glyph]] = []
        space = False
        for i in range(n):
            u = pdfium_c.FPDFText_GetUnicode(raw, i)
            ch = chr(u) if 0 < u < 0x110000 else ""
            if not ch or ch in "\r\n":
                runs.append([])
                space = False
                continue
            if ch.isspace() or pdfium_c.FPDFText_IsGenerated(raw, i):
                space = True
                continue
            if not pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect):
                continue
            x0, x1, ly0, ly1 = rect.left - left, rect.right - left, top - rect.top, top - rect.bottom
            h = ly1 - ly0
            if h <= 0 or x1 < x0 or (band is not None and not band[0] <= (ly0 + ly1) / 2 < band[1]):
                continue
            ink_top = ly0
            if pdfium_c.FPDFText_GetCharBox(raw, i, gl, gr, gb, gt) and gt.value > gb.value:
                ink_top = min(ly0, top - gt.value)
            g = _Glyph(x0, x1, ink_top, ly1, (ly0, ly1), space)
            space = False
            if runs and runs[-1]:
                last = runs[-1][-1]
                mid, last_mid = (ly0 + ly1) / 2, (last.loose[0] + last.loose[1]) / 2
                size = max(h, last.loose[1] - last.loose[0])
                # a new run where the text goes back to the left or jumps to another height (a raised mark moves
                # less than half its line); text read on to the right on its line stays one run however far it
                # goes (a table's row, read cell after cell), unless it leaps most of a page
                if x0 < last.x0 - 0.5 * size or abs(mid - last_mid) > 0.6 * size or x0 - last.x1 > LEAP * size:
                    runs.append([])
            elif not runs:
                runs.append([])
            runs[-1].append(g)
            if len(runs) > MAX_RUNS:  # glyphs scattered one by one (or a page built to be): no lines to find
                return []
    finally:
        textpage.close()
    return _join([r for r in runs if r])


def _core(run: list[_Glyph]) -> tuple[float, float]:
    """The band most of the run's glyphs share: a raised or lowered mark does not move it."""
    return statistics.median(g.loose[0] for g in run), statistics.median(g.loose[1] for g in run)


def _join(runs: list[list[_Glyph]]) -> list[Line]:
    """Runs on one height and close enough (a change of font, a raised mark the PDF reads as a line of its own) made
    one line, through any chain of them."""
    runs = sorted(runs, key=lambda r: sum(_core(r)) / 2)
    cores = [_core(r) for r in runs]
    spans = [(min(g.x0 for g in r), max(g.x1 for g in r)) for r in runs]
    parent = list(range(len(runs)))
    tallest = max((b - a for a, b in cores), default=0.0)

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (a, b) in enumerate(cores):
        for j in range(i + 1, len(runs)):
            c, d = cores[j]
            if (c + d) / 2 - (a + b) / 2 > tallest:  # sorted by middle: no later run shares this one's height
                break
            size = max(b - a, d - c)
            overlap = min(b, d) - max(a, c)
            gap = max(spans[j][0] - spans[i][1], spans[i][0] - spans[j][1])
            if overlap > 0.5 * min(b - a, d - c) and gap <= COLUMN_GAP * size:  # beside it, not across a gutter
                parent[root(j)] = root(i)
    groups: dict[int, list[_Glyph]] = {}
    for i, r in enumerate(runs):
        groups.setdefault(root(i), []).extend(r)
    return [_line(_core(glyphs), glyphs) for glyphs in groups.values()]


def _line(core: tuple[float, float], glyphs: list[_Glyph]) -> Line:
    glyphs = sorted(glyphs, key=lambda g: g.x0)
    height = core[1] - core[0]
    words: list[tuple[float, float]] = []
    for g in glyphs:
        if words and not g.space_before and g.x0 - words[-1][1] <= WORD_GAP * height:
            words[-1] = (words[-1][0], max(words[-1][1], g.x1))
        else:
            words.append((g.x0, g.x1))
    # a word whose glyphs overlap the next (a space the PDF gave no width) is one cut apart, never inside a glyph
    merged: list[tuple[float, float]] = []
    for w in words:
        if merged and w[0] < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], w[1]))
        else:
            merged.append(w)
    return Line(min(g.top for g in glyphs), max(g.bottom for g in glyphs), core, merged)
