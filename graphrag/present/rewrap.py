"""Printed lines cut out of a page picture and rewrapped to a narrow width, so they stay legible in a column.

A cited sentence's lines run the page's full width: drawn across a column a third of a laptop screen wide, a
10-point line is 8 screen pixels tall, too small to read. Scaling cannot help (the whole width must fit), so
the picture is rewrapped instead: each printed line is cut between words into pieces at most ``width_lines`` line
heights wide, and the pieces are stacked in reading order at the render's own scale: the first piece of a line, its
next piece, then the next line. The words are the page's own pixels, highlight included; only the line breaks
move. The whole page stays a toggle away for the layout as printed.

Where the lines and words are comes from the PDF's text layer when the page has one (``printed.page_lines``): the
ink cannot tell lines apart where a raised footnote mark and the underline of a link above fill the white rows
between them (two lines read as one were cut into halves stacked out of order, words split between them). Ink the
text layer does not cover (a picture, a formula drawn as lines) and a scanned page's print are found from the ink:
rows with dark pixels, a row as tall as two lines split where its ink is thinnest, cut at the widest word gaps.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphrag.present.printed import Line

if TYPE_CHECKING:
    from PIL.Image import Image

INK = 160  # grey level below which a pixel is print (the highlight's yellow and white paper are lighter)
WRAP_LINES = 20  # a rewrapped piece is at most this many line heights wide: about 40 characters of body text
SLACK = 1.25  # a picture up to this much wider is left as printed (drawn at 0.8 of the wrapped size, still legible)
INKED = 0.85  # a text line's inked height (ascenders to descenders) in its font's box (the text layer's line height)

Piece = tuple[int, int, int, int]  # left, top, right, bottom: a rectangle of the picture, in pixels


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of True in a 1-D mask."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def text_rows(ink: np.ndarray) -> list[tuple[int, int]]:
    """The printed lines of a picture as [top, bottom) pixel rows of ink: runs of inked rows, a run closer to the
    next than a fifth of a line (an accent, a dot, a sub- or superscript) joined to it, and a run holding two lines
    whose marks and underlines touch split where its ink is thinnest."""
    runs = _runs(np.asarray(ink.any(axis=1)))
    if not runs:
        return []
    height = float(np.median([b - a for a, b in runs]))
    rows = [runs[0]]
    for a, b in runs[1:]:
        if a - rows[-1][1] <= max(1.0, 0.2 * height):
            rows[-1] = (rows[-1][0], b)
        else:
            rows.append((a, b))
    return [part for a, b in rows for part in _split(ink, a, b)]


def _split(ink: np.ndarray, a: int, b: int) -> list[tuple[int, int]]:
    """Rows [a, b) as the lines they hold: each line's body (the rows where its letters are dense) apart from the
    next by at least half a body, cut at the thinnest row between them."""
    profile = ink[a:b].sum(axis=1)
    if b - a < 8 or not profile.any():
        return [(a, b)]
    cores = _runs(profile >= 0.4 * profile.max())
    joined: list[tuple[int, int]] = []
    for c in cores:  # a gap of a pixel or two inside a body (a thin stroke) does not part it
        if joined and c[0] - joined[-1][1] <= 2:
            joined[-1] = (joined[-1][0], c[1])
        else:
            joined.append(c)
    body = statistics.median(c[1] - c[0] for c in joined)
    out, top = [], a
    for (_, end), (start, _) in itertools.pairwise(joined):
        if start - end >= max(3.0, 0.5 * body):
            cut = a + end + int(np.argmin(profile[end:start]))
            out.append((top, cut))
            top = cut
    out.append((top, b))
    return out


def _cuts(cols: np.ndarray, width: int, gap: float) -> list[tuple[int, int]]:
    """A line's [left, right) pieces, each at most ``width`` pixels: cut in the middle of a word gap (blank columns
    at least ``gap`` wide) that fits, or at ``width`` where no gap does (a picture, a long URL)."""
    inked = np.flatnonzero(cols)
    if inked.size == 0:
        return []
    left, right = int(inked[0]), int(inked[-1]) + 1
    # as few pieces as fit, of about equal width: a line a little too wide splits in two halves, not one word
    pieces = -(-(right - left) // width)
    width = min(width, int(1.1 * (right - left) / pieces) + 1)
    out = []
    while right - left > width:
        # the widest gap in the window's last third: a space between words is wider than one between letters
        fits = [(b - a, left + (a + b) // 2) for a, b in _runs(~cols[left:left + width + 1]) if b - a >= gap]
        late = [f for f in fits if f[1] - left >= 0.66 * width]
        cut = max(late)[1] if late else fits[-1][1] if fits else left + width
        out.append((left, cut))
        rest = np.flatnonzero(cols[cut:right])
        if rest.size == 0:
            return out
        left = cut + int(rest[0])
    out.append((left, right))
    return out


def _word_cuts(words: Sequence[tuple[float, float]], width: int, pad: int) -> list[tuple[int, int]]:
    """A text line's [left, right) pieces, each at most ``width`` pixels where its words allow: whole words (a word
    wider than that is a piece of its own), parted in the middle of the gap between two, as few pieces as fit, of
    about equal width."""
    groups, start = [], 0
    while start < len(words):
        rest = words[-1][1] - words[start][0]
        if rest <= width:
            groups.append((start, len(words)))
            break
        # the break nearest an equal share of what is left, among those that keep the piece within the width
        share = rest / -(-int(np.ceil(rest)) // width)
        fits = [j for j in range(start + 1, len(words)) if words[j - 1][1] - words[start][0] <= width]
        end = min(fits, key=lambda j: abs(words[j - 1][1] - words[start][0] - share)) if fits else start + 1
        groups.append((start, end))
        start = end
    cuts = []
    for n, (i, j) in enumerate(groups):
        x0 = words[i][0] - pad if n == 0 else (words[i - 1][1] + words[i][0]) / 2
        x1 = words[j - 1][1] + pad if n == len(groups) - 1 else (words[j - 1][1] + words[j][0]) / 2
        cuts.append((int(x0), int(np.ceil(x1))))
    return cuts


def column_span(ink: np.ndarray, x0: int, x1: int, gutter: float) -> tuple[int, int]:
    """[x0, x1) widened to the printed column it lies in: out to either side while the next ink is nearer than
    ``gutter`` pixels, so neighbouring lines are not cut mid-word and the next column stays out."""
    cols = ink.any(axis=0)
    inked = np.flatnonzero(cols)
    left = inked[inked < x0]
    while left.size and x0 - left[-1] <= gutter:
        x0 = int(left[-1])
        left = left[left < x0]
    right = inked[inked >= x1]
    while right.size and right[0] - x1 <= gutter:
        x1 = int(right[0]) + 1
        right = right[right >= x1]
    return x0, x1


CELL_WORDS = 3  # a table's cell holds at most this many words: cells beside each other are read as one line
CELL_GAP = 3.0  # ... when they are at most this many line heights apart (a column of prose is further away)


class _Row:
    """A printed line of the picture: its ink's [top, bottom) rows, its body's rows (``core``), how far up and down
    its picture may reach (``room``), where it may be cut (its words, from the text layer; None: at its ink's word
    gaps), and the cells it was joined from (x0, x1, words)."""

    def __init__(self, top: float, bottom: float, x0: float, x1: float,
                 words: Sequence[tuple[float, float]] | None, core: tuple[float, float] | None = None,
                 room: tuple[float, float] = (float("-inf"), float("inf"))) -> None:
        self.top, self.bottom, self.x0, self.x1, self.words = top, bottom, x0, x1, words
        self.core = core or (top, bottom)
        self.room = room
        self.cells = [(x0, x1, len(words) if words else CELL_WORDS + 1)]
        self.block = 0

    def beside(self, other: _Row) -> bool:
        """Whether ``other`` is printed on the same line: their bodies share most rows."""
        a, b = self.core, other.core
        return min(a[1], b[1]) - max(a[0], b[0]) > 0.5 * min(a[1] - a[0], b[1] - b[0])

    def cell_of(self, other: _Row, height: float) -> bool:
        """Whether ``other`` is the next cell of a table row this row is (or begins): on the same line, near, and
        both cells that meet short."""
        if not (self.words and other.words and self.beside(other)):
            return False
        if other.x0 >= self.x1:
            gap, mine, theirs = other.x0 - self.x1, self.cells[-1][2], other.cells[0][2]
        elif self.x0 >= other.x1:
            gap, mine, theirs = self.x0 - other.x1, self.cells[0][2], other.cells[-1][2]
        else:
            return False
        return gap <= CELL_GAP * height and mine <= CELL_WORDS and theirs <= CELL_WORDS

    def join(self, other: _Row) -> None:
        """Take ``other`` (beside it) in: one line, its words left to right."""
        self.words = sorted([*(self.words or []), *(other.words or [])])
        self.top, self.bottom = min(self.top, other.top), max(self.bottom, other.bottom)
        self.x0, self.x1 = min(self.x0, other.x0), max(self.x1, other.x1)
        self.core = (min(self.core[0], other.core[0]), max(self.core[1], other.core[1]))
        self.room = (max(self.room[0], other.room[0]), min(self.room[1], other.room[1]))
        self.cells = sorted([*self.cells, *other.cells])

    def across(self, other: _Row) -> bool:
        """Whether the two share some of the picture's width."""
        return self.x0 < other.x1 and other.x0 < self.x1


def _table(columns: list[list[_Row]], height: float) -> bool:
    """Whether columns side by side are a table's: its cells are short (a column of prose is not, even where its
    lines are printed at the very heights of the next column's, as in a two-column paper), and most of them have
    one printed at their very height in another column (a caption beside a paragraph keeps its own line pitch)."""
    rows = [r for col in columns for r in col]
    if statistics.median(len(r.words) if r.words else CELL_WORDS + 1 for r in rows) > CELL_WORDS + 1:
        return False
    lines = [(k, sum(r.core) / 2) for k, col in enumerate(columns) for r in col]
    paired = sum(any(j != k and abs(m - n) < 0.2 * height for j, n in lines) for k, m in lines)
    return paired >= 0.6 * len(lines)


MAX_ROWS = 300  # lines in a picture past which they are read top to bottom only (telling columns apart costs more)


def _reading_order(rows: list[_Row], height: float) -> list[_Row]:
    """``rows`` in reading order. A table's short cells on one line are one line, left to right. The rest is read a
    column at a time: lines that share some width are one column, columns left to right, each top to bottom; a line
    across two columns (a heading, a paragraph under a picture with its caption beside) ends them, and what follows
    it is read after it. Each row's ``block`` tells its column apart from the others (a line's band reaches only
    to its neighbours in its column)."""
    if len(rows) > MAX_ROWS:  # a picture of hundreds of lines (a page of tiny print): top to bottom, in bounded time
        return sorted(rows, key=lambda r: (r.top, r.x0))
    joined: list[_Row] = []
    for r in sorted(rows, key=lambda r: (r.top, r.x0)):
        cell = next((o for o in joined if o.cell_of(r, height)), None)
        if cell is not None:
            cell.join(r)
        else:
            joined.append(r)
    # a line across: it shares width with two lines side by side (printed at one height, sharing no width)
    across = {id(r) for r in joined
              if any(a.across(r) and b.across(r) and not a.across(b) and a.top < b.bottom and b.top < a.bottom
                     for a in joined if a is not r for b in joined if b is not r and b is not a)}
    ordered: list[_Row] = []
    band: list[_Row] = []
    block = 0

    def flush() -> None:
        nonlocal block
        columns: list[list[_Row]] = []
        for r in sorted(band, key=lambda r: r.x0):
            if columns and any(r.across(o) for o in columns[-1]):
                columns[-1].append(r)
            else:
                columns.append([r])
        if len(columns) > 1 and _table(columns, height):  # a table: read row by row, each row's cells as one line
            rows: list[_Row] = []
            for r in sorted(band, key=lambda r: sum(r.core) / 2):
                if (rows and sum(r.core) / 2 - sum(rows[-1].core) / 2 < 0.5 * height
                        and not any(c[0] < r.x1 and r.x0 < c[1] for c in rows[-1].cells)):  # a cell's next line
                    rows[-1].join(r)
                else:
                    rows.append(r)
            columns = [rows]
        for col in columns:
            block += 1
            for r in sorted(col, key=lambda r: r.top):
                r.block = block
                ordered.append(r)
        band.clear()

    for r in sorted(joined, key=lambda r: r.top):
        if id(r) in across:
            flush()
            block += 1
            r.block = block
            ordered.append(r)
        else:
            band.append(r)
    flush()
    return ordered


def _rows(ink: np.ndarray, lines: Sequence[Line] | None) -> tuple[list[_Row], float]:
    """The picture's printed lines in reading order (a column at a time, top to bottom in each), and a line's
    height in pixels."""
    if lines:
        rows = [_Row(ln.top, ln.bottom, ln.x0, ln.x1, ln.words, ln.core, (ln.ceiling, ln.floor))
                for ln in lines if ln.words]
        # the print's height, ascenders to descenders, as the ink measures a line: about 0.85 of the font's box
        height = INKED * statistics.median(ln.height for ln in lines)
        # ink no text line covers (a picture, a rule, a formula drawn as lines): its own rows, cut at its gaps
        left = ink.copy()
        for ln in lines:  # each line's own rectangle: a picture beside it is still found
            left[max(0, int(ln.top) - 1):max(0, int(np.ceil(ln.bottom)) + 1),
                 max(0, int(ln.x0) - 2):max(0, int(np.ceil(ln.x1)) + 2)] = False
        for a, b in text_rows(left):
            cols = np.flatnonzero(left[a:b].any(axis=0))
            # not the tip of a glyph the text layer's band left out, nor a line the crop's edge cuts through
            if b - a >= 0.3 * height and a > 0 and b < ink.shape[0]:
                rows.append(_Row(a, b, cols[0], cols[-1] + 1, None))
    else:
        found = text_rows(ink)
        # a line cut by the picture's top or bottom edge is a sliver, not a line to read
        found = [r for r in found if r[0] > 0 and r[1] < ink.shape[0]] or found
        rows = []
        for a, b in found:
            cols = np.flatnonzero(ink[a:b].any(axis=0))
            rows.append(_Row(a, b, cols[0], cols[-1] + 1, None))
        height = float(np.median([b - a for a, b in found])) if found else 0.0
    return _reading_order(rows, height), height


def plan(ink: np.ndarray, width_lines: float = WRAP_LINES, lines: Sequence[Line] | None = None) -> list[Piece] | None:
    """The rectangles of a picture whose print is ``ink`` that, stacked top to bottom, read as its lines rewrapped
    to ``width_lines`` line heights: each line's pieces left to right, then the next line. ``lines``: the picture's
    printed lines from the text layer, in its pixels (None or empty: found from the ink). None when the picture is
    narrow enough to read as printed, or holds no print."""
    rows, line = _rows(ink, lines)
    if not rows or line <= 0:
        return None
    width = max(int(width_lines * line), 1)
    if ink.shape[1] <= SLACK * width:  # narrow enough: a column's lines are read best as printed
        return None
    pieces: list[Piece] = []
    reach = int(0.3 * line)  # past the first and last line of a column: their highlight, not the line beyond
    pad = max(2, int(0.1 * line))
    for i, r in enumerate(rows):
        # each line's band reaches halfway to the lines over and under it (in whatever column), so the highlight
        # around its words comes with it and no other line's print does
        mid = sum(r.core) / 2
        near = rows if len(rows) <= MAX_ROWS else rows[max(0, i - 1):i + 2]  # bounded: the lines stacked beside it
        over = [o.bottom for o in near if o is not r and o.across(r) and sum(o.core) / 2 < mid]
        under = [o.top for o in near if o is not r and o.across(r) and sum(o.core) / 2 > mid]
        top = int(max(0, r.top - reach, r.room[0], *((b + r.top) / 2 for b in over)))
        bottom = int(min(ink.shape[0], np.ceil(r.bottom) + reach, r.room[1], *((r.bottom + t) / 2 for t in under)))
        if bottom <= top:
            continue
        if r.words:
            cuts = []
            for x0, x1 in _word_cuts(r.words, width, pad):
                if x1 - x0 <= width + 2 * pad:
                    cuts.append((x0, x1))
                    continue
                # a word wider than a piece (a long web address): cut between its letters
                cols = np.zeros(ink.shape[1], dtype=bool)
                cols[max(0, x0):x1] = ink[int(r.top):int(np.ceil(r.bottom)), max(0, x0):x1].any(axis=0)
                cuts.extend(_cuts(cols, width, 1.0))
        else:  # its own ink only: not a line of another column printed beside it
            cols = np.zeros(ink.shape[1], dtype=bool)
            x0, x1 = max(0, int(r.x0)), int(np.ceil(r.x1))
            cols[x0:x1] = ink[int(r.top):int(np.ceil(r.bottom)), x0:x1].any(axis=0)
            cuts = [(x0 - pad, x1 + pad) for x0, x1 in _cuts(cols, width, max(2.0, 0.18 * line))]
        pieces.extend((max(0, x0), top, min(ink.shape[1], x1), bottom) for x0, x1 in cuts if x1 > x0)
    return pieces or None


def rewrap(plain: Image, shown: Image, width_lines: float = WRAP_LINES, lines: Sequence[Line] | None = None) -> Image:
    """``shown`` (the picture with its highlight) with its printed lines rewrapped to ``width_lines`` line heights;
    ``plain`` is the same picture without the highlight, where the ink is found; ``lines``: its printed lines from
    the PDF's text layer, in its pixels (see ``plan``). Returned unchanged when it is narrow enough already or holds
    no print."""
    from PIL import Image as PILImage

    ink = np.asarray(plain.convert("L")) < INK
    pieces = plan(ink, width_lines, lines)
    if pieces is None:
        return shown
    crops = [shown.crop(p) for p in pieces]
    out = PILImage.new("RGB", (max(c.width for c in crops), sum(c.height for c in crops)), "white")
    y = 0
    for c in crops:
        out.paste(c, (0, y))
        y += c.height
    return out
