"""The PDF reader's first steps, lines and columns: PDFium's characters with their loose boxes (font ascent to
descent, so every line of one font has the same height) -> line fragments (a new fragment at a line break, a
baseline change or a wide horizontal gap; text turned against the page's own direction set aside) -> reading order
by recursive XY-cut (columns first where a gutter splits the region into two wide parts, else rows at the widest
vertical gaps) -> the fragments of one region merged into printed lines. The records every later step reads
(``Fragment``, ``Line``, ``PageRead``) are defined here."""

from __future__ import annotations

import ctypes
import functools
import itertools
import statistics
import unicodedata
from dataclasses import dataclass, field

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from graphrag.ingest.readers.ocr import OcrLine

_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
              "\ufb06": "st"}


TERMINAL = ".!?:;\"'”’)]"


class _Extent:
    """What fragments and lines share: their characters and where they sit."""

    chars: list[str]
    x0s: list[float]
    x1s: list[float]
    y0: float
    y1: float

    # Read only once the characters are all in (the reading order asks tens of thousands of times).
    @functools.cached_property
    def x0(self) -> float:
        return float(np.nanmin(self.x0s))

    @functools.cached_property
    def x1(self) -> float:
        return float(np.nanmax(self.x1s))

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def text(self) -> str:
        return "".join(self.chars)


@dataclass
class Fragment(_Extent):
    """Characters that PDFium placed on one baseline without a wide gap."""

    chars: list[str]
    x0s: list[float]
    x1s: list[float]
    y0: float  # loose extent (font ascent to descent): groups characters into lines
    y1: float
    gy0: float = np.inf  # what is drawn: glyph extent, at least the usual ascender-descender band
    gy1: float = -np.inf
    ly0s: list[float] = field(default_factory=list)  # each character's loose extent
    ly1s: list[float] = field(default_factory=list)
    plain: int = 0  # words not set in a bold face (judged by their first character)


@dataclass
class Line(_Extent):
    """A printed line of one page: its characters left to right, where each is drawn, and what the reading steps
    learn of it (size, weight, cells; OCR's box and confidence)."""

    page: int
    chars: list[str]
    x0s: list[float]
    x1s: list[float]
    y0: float
    y1: float
    # The median character extent: superscripts ("[2]", "km2") must not make a line look taller
    # or closer to its neighbours than its body text is.
    core_y0: float = 0.0
    core_y1: float = 0.0
    bold: bool = False  # every character in a bold face
    cells: int = 1  # fragments: parts of the line set apart by wide gaps (a table's cells)
    joins: list[int] = field(default_factory=list)  # where in ``chars`` one fragment meets the next
    frame: tuple[float, float, float, float] | None = None  # OCR on a turned page: the box as the page lies
    confidence: float | None = None  # OCR: the recogniser's confidence in the line

    @property
    def size(self) -> float:
        """The line's body text height (its median character extent)."""
        return self.core_y1 - self.core_y0


ANGLE_TOLERANCE = 0.05  # radians: text this far from the page's own direction is turned against it


def _turned(raw: object, n: int) -> tuple[np.ndarray, bool]:
    """Which characters run in another direction than most of the page's text, and whether that
    direction is upright.

    Judged against the page's own direction, not against upright: a page whose content was turned
    to print in landscape has all its text at 90 degrees, and none of it is a margin stamp."""
    angles = np.array([pdfium_c.FPDFText_GetCharAngle(raw, i) for i in range(n)], dtype=float)
    drawn = angles >= 0  # PDFium gives -1 for characters it placed itself (spaces, line breaks)
    if not drawn.any():
        return np.zeros(n, dtype=bool), True
    steps = np.round(angles[drawn] / ANGLE_TOLERANCE).astype(int)
    values, counts = np.unique(steps, return_counts=True)
    own = values[np.argmax(counts)] * ANGLE_TOLERANCE
    off = np.abs((angles - own + np.pi) % (2 * np.pi) - np.pi)
    turned: np.ndarray = drawn & (off > 2 * ANGLE_TOLERANCE)
    return turned, bool(abs((own + np.pi) % (2 * np.pi) - np.pi) <= 2 * ANGLE_TOLERANCE)


@dataclass
class PageRead:
    """One page's fragments, and the turned text set aside from it."""

    fragments: list[Fragment]
    turned: str = ""
    turned_box: tuple[float, float, float, float] | None = None  # around the turned text (x0, y0, x1, y1)
    upright: bool = True  # the page's own direction; a sideways page's lines are not yet put in reading order
    ocr: list[Line] = field(default_factory=list)  # a page without a text layer: its lines read by OCR, in order
    ocr_low: list[OcrLine] = field(default_factory=list)  # OCR lines under the confidence floor (not in the text)
    scanned: bool = False  # no text layer but a picture: read by OCR


_FORCE_BOLD = 0x40000  # the font descriptor's ForceBold flag


def _bold(raw: object, i: int, font: tuple[ctypes.Array[ctypes.c_char], ctypes.c_int]) -> bool:
    """Whether character ``i`` is set in a bold face: by the font's name ("Helvetica-Bold",
    "LiberationSerif-Bold"; the descriptor's weight is unreliable: italics report 495, bold 415) or its
    ForceBold flag."""
    name, flags = font
    pdfium_c.FPDFText_GetFontInfo(raw, i, name, len(name), ctypes.byref(flags))
    face = name.value.lower()
    return b"bold" in face or b"black" in face or b"heavy" in face or bool(flags.value & _FORCE_BOLD)


def page_fragments(textpage: pdfium.PdfTextPage, n: int, left: float, top: float) -> PageRead:
    """Line fragments in the page's own (unrotated) space, origin at the crop box's top-left corner;
    text turned against the page's direction is set aside (its characters in stream order)."""
    raw = textpage.raw
    turned, upright = _turned(raw, n)
    font = (ctypes.create_string_buffer(96), ctypes.c_int())
    aside: list[str] = []
    xs: list[float] = []
    ys: list[float] = []
    rect = pdfium_c.FS_RECTF()
    gleft, gright, gbottom, gtop = (ctypes.c_double() for _ in range(4))
    ox, oy = ctypes.c_double(), ctypes.c_double()
    out: list[Fragment] = []
    cur: Fragment | None = None
    last_x0 = last_x1 = 0.0
    for i in range(n):
        u = pdfium_c.FPDFText_GetUnicode(raw, i)
        ch = chr(u) if 0 < u < 0x110000 else ""
        if ch in ("\r", "\n") or not ch:
            cur = None
            continue
        if turned[i]:
            aside.append(ch)
            pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect)
            xs.extend((rect.left - left, rect.right - left))
            ys.extend((top - rect.top, top - rect.bottom))
            continue
        if ch in ("\x02", "\u00ad"):  # PDFium's mark for a hyphen that ends a line, a drawn soft hyphen
            ch = "-"
        elif (unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") and not ch.isspace()) or ch == "\ufffe":
            continue  # control and private-use code points carry no text
        if ch.isspace() or pdfium_c.FPDFText_IsGenerated(raw, i):
            if cur is not None and cur.chars and cur.chars[-1] != " ":
                cur.chars.append(" ")
                cur.x0s.append(np.nan)
                cur.x1s.append(np.nan)
            continue
        pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect)
        x0, x1 = rect.left, rect.right
        x0, x1 = x0 - left, x1 - left
        y0, y1 = top - rect.top, top - rect.bottom
        h = y1 - y0
        if h <= 0:
            continue
        new = False
        if cur is not None:
            mid, cmid = (y0 + y1) / 2, (cur.y0 + cur.y1) / 2
            # A new fragment when the baseline moves, the text goes back (a new line or column),
            # or jumps ahead by a wide gap. PDFium gives a ligature's letters one shared box.
            new = abs(mid - cmid) > 0.5 * min(h, cur.height) or x0 < last_x0 - 0.5 * h or x0 - last_x1 > 0.9 * h
        if cur is None or new:
            if cur is not None and cur.chars and cur.chars[-1] == " ":
                cur.chars.pop(), cur.x0s.pop(), cur.x1s.pop()
            cur = Fragment([], [], [], y0, y1)
            out.append(cur)
        # A ligature glyph ("ﬁ") becomes its letters, which share the glyph's width, so the text
        # reads as typed ("financial", not "ﬁnancial") and the box still covers the glyph.
        # The face is read at each word's start (once a character, it took a third of the time reading took).
        if not cur.chars or cur.chars[-1] == " ":
            cur.plain += not _bold(raw, i, font)
        letters = _LIGATURES.get(ch, ch)
        step = (x1 - x0) / len(letters)
        for k, letter in enumerate(letters):
            cur.chars.append(letter)
            cur.x0s.append(x0 + k * step)
            cur.x1s.append(x0 + (k + 1) * step)
        cur.y0, cur.y1 = min(cur.y0, y0), max(cur.y1, y1)
        cur.ly0s.append(y0)
        cur.ly1s.append(y1)
        # The drawn box: the glyph's own extent, widened to the usual band around the baseline
        # (ascender 0.62, descender 0.18 of the loose height, i.e. about 0.72 and 0.21 of the
        # font size for Helvetica) so a line without capitals or descenders is boxed like the rest.
        pdfium_c.FPDFText_GetCharBox(raw, i, gleft, gright, gbottom, gtop)
        pdfium_c.FPDFText_GetCharOrigin(raw, i, ox, oy)
        base = top - oy.value
        cur.gy0 = min(cur.gy0, top - gtop.value, base - 0.62 * h)
        cur.gy1 = max(cur.gy1, top - gbottom.value, base + 0.18 * h)
        last_x0, last_x1 = x0, x1
    for f in out:
        while f.chars and f.chars[-1] == " ":
            f.chars.pop(), f.x0s.pop(), f.x1s.pop()
    box = (min(xs), min(ys), max(xs), max(ys)) if xs else None
    return PageRead([f for f in out if f.chars], " ".join("".join(aside).split()), box, upright)


MIN_COLUMN_WIDTH = 0.2  # a column split needs both sides at least this share of the page width


def xy_cut(frags: list[Fragment], page_width: float) -> list[list[Fragment]]:
    """Fragments in reading order, as regions: columns left to right, rows top to bottom."""
    out: list[list[Fragment]] = []
    stack = [frags]
    while stack:
        region = stack.pop()
        if len(region) <= 1:
            out.append(region)
            continue
        parts = _split_columns(region, page_width) or _split_rows(region)
        if parts is None:
            out.append(region)
        else:
            stack.extend(reversed(parts))
    return out


def _split_columns(region: list[Fragment], page_width: float) -> list[list[Fragment]] | None:
    xs = sorted(region, key=lambda f: f.x0)
    reach = xs[0].x1
    lo, hi = min(f.x0 for f in region), max(f.x1 for f in region)
    min_w = MIN_COLUMN_WIDTH * page_width
    gutter = 0.5 * statistics.median(f.height for f in region)
    for k in range(1, len(xs)):
        if xs[k].x0 - reach >= gutter and reach - lo >= min_w and hi - xs[k].x0 >= min_w:
            left, right = xs[:k], xs[k:]
            # Prose fills its column (text beside an infobox or a figure: one side does); a
            # table's cells mostly do not, on either side, and a table is read row by row (a
            # row's cells belong together), so it is not split here.
            if _fills(left, lo, reach) or _fills(right, xs[k].x0, hi):
                return [left, right]
            return None
        reach = max(reach, xs[k].x1)
    return None


def _fills(side: list[Fragment], x0: float, x1: float) -> bool:
    return statistics.median(f.x1 - f.x0 for f in side) >= 0.5 * (x1 - x0)


def _split_rows(region: list[Fragment]) -> list[list[Fragment]] | None:
    ys = sorted(region, key=lambda f: (f.y0, f.x0))
    gaps: list[tuple[float, int]] = []
    reach = ys[0].y1
    for k in range(1, len(ys)):
        if ys[k].y0 > reach:
            gaps.append((ys[k].y0 - reach, k))
        reach = max(reach, ys[k].y1)
    if not gaps:
        return None
    widest = max(g for g, _ in gaps)
    cuts = [k for g, k in gaps if g >= widest - 0.5]
    return [ys[a:b] for a, b in zip([0, *cuts], [*cuts, len(ys)])]


def _apart(row: list[Fragment]) -> list[list[Fragment]]:
    """A row of fragments cut where the font size changes across a wide gap: a picture's caption set small
    beside a line of body text is a line of its own (a superscript touches its text, a table's cells share a size)."""
    row = sorted(row, key=lambda f: f.x0)
    parts = [[row[0]]]
    for a, b in itertools.pairwise(row):
        h = max(a.height, b.height)
        if abs(a.height - b.height) > 0.15 * h and b.x0 - a.x1 > h:
            parts.append([b])
        else:
            parts[-1].append(b)
    return parts


def region_lines(region: list[Fragment], page: int) -> list[Line]:
    """Fragments of one region merged into lines (same baseline), each read left to right."""
    rows: list[list[Fragment]] = []
    for f in sorted(region, key=lambda f: (f.y0, f.x0)):
        if rows and (min(rows[-1][-1].y1, f.y1) - max(rows[-1][-1].y0, f.y0)) > 0.5 * min(f.height, rows[-1][-1].height):
            rows[-1].append(f)
        else:
            rows.append([f])
    out = []
    for row in (part for r in rows for part in _apart(r)):
        ln = Line(page, [], [], [], min(f.gy0 for f in row), max(f.gy1 for f in row),
                   float(np.median([y for f in row for y in f.ly0s])), float(np.median([y for f in row for y in f.ly1s])))
        for f in row:
            if ln.chars:
                ln.joins.append(len(ln.chars))
                ln.chars.append(" ")
                ln.x0s.append(np.nan)
                ln.x1s.append(np.nan)
            ln.chars.extend(f.chars)
            ln.x0s.extend(f.x0s)
            ln.x1s.extend(f.x1s)
        ln.bold = all(f.plain == 0 for f in row)
        # Cells sit at least an em apart; a superscript or a change of font starts a fragment too, but touches
        # the text before it.
        ln.cells = 1 + sum(b.x0 - a.x1 > ln.size for a, b in itertools.pairwise(row))
        out.append(ln)
    return out


def drawn_box(ln: Line | Fragment) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of what is drawn of a line or fragment, in points, rounded as the layout keeps it."""
    y0, y1 = (ln.gy0, ln.gy1) if isinstance(ln, Fragment) else (ln.y0, ln.y1)  # what is drawn
    return round(ln.x0, 2), round(y0, 2), round(ln.x1, 2), round(y1, 2)
