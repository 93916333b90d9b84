"""PDF reader: text in reading order with a box per printed line, through PDFium (pypdfium2).

Steps per page: PDFium's characters with their loose boxes (font ascent to descent, so every
line of one font has the same height) -> line fragments (a new fragment at a line break, a
baseline change or a wide horizontal gap) -> running headers, footers and page numbers set
aside (a line in the top or bottom band that repeats across pages, digits ignored, or is a
bare page number), and so is text turned against the page's own (a margin stamp such as arXiv's
vertical identifier, a rotated axis label) -> reading order by recursive XY-cut (columns first where a gutter splits
the region into two wide parts, else rows at the widest vertical gaps) -> lines joined into
text, paragraphs where the gap or the font size says so, hyphenated line ends joined.
"""

from __future__ import annotations

import ctypes
import re
import statistics
import threading
import time
import unicodedata
from dataclasses import dataclass, field

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.budget import CharBudget
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import PDF, Layout, TextLine, sha256_bytes
from graphrag.model import PageSize
from graphrag.text import counted

MAX_PAGES = 2000
MAX_CHARS_PER_PAGE = 100_000
BAND = 0.09  # top and bottom share of the page where running headers and footers live
MIN_COLUMN_WIDTH = 0.2  # a column split needs both sides at least this share of the page width
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?[-–—(\s]*(\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:/|of)\s*\d{1,5})?[-–—)\s]*$",
                          re.IGNORECASE)
_HYPHENS = "-\u00ad\u2010\x02"
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
              "\ufb06": "st"}
_TERMINAL = ".!?:;\"'”’)]"
# PDFium is not thread-safe; the dashboard serves several sessions from threads.
PDFIUM_LOCK = threading.RLock()


class _Extent:
    """What fragments and lines share: their characters and where they sit."""

    chars: list[str]
    x0s: list[float]
    x1s: list[float]
    y0: float
    y1: float

    @property
    def x0(self) -> float:
        return float(np.nanmin(self.x0s))

    @property
    def x1(self) -> float:
        return float(np.nanmax(self.x1s))

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def text(self) -> str:
        return "".join(self.chars)


@dataclass
class _Fragment(_Extent):
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
    plain: int = 0  # characters not set in a bold face


@dataclass
class _Line(_Extent):
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

    @property
    def size(self) -> float:
        return self.core_y1 - self.core_y0


def _open(data: bytes) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        msg = str(exc).lower()
        if "password" in msg:
            raise ReadError("encrypted: this PDF needs a password to open; save an unprotected copy and ingest "
                            "that") from exc
        if "format" in msg or "corrupt" in msg or "data" in msg:
            raise ReadError("corrupt or truncated PDF: PDFium cannot read its structure; re-export or re-download "
                            "it") from exc
        raise ReadError(f"cannot open this PDF ({exc})") from exc


ANGLE_TOLERANCE = 0.05  # radians: text this far from the page's own direction is turned against it


def _turned(raw: object, n: int) -> np.ndarray:
    """Which characters run in another direction than most of the page's text.

    Judged against the page's own direction, not against upright: a page whose content was turned
    to print in landscape has all its text at 90 degrees, and none of it is a margin stamp."""
    angles = np.array([pdfium_c.FPDFText_GetCharAngle(raw, i) for i in range(n)], dtype=float)
    drawn = angles >= 0  # PDFium gives -1 for characters it placed itself (spaces, line breaks)
    if not drawn.any():
        return np.zeros(n, dtype=bool)
    steps = np.round(angles[drawn] / ANGLE_TOLERANCE).astype(int)
    values, counts = np.unique(steps, return_counts=True)
    own = values[np.argmax(counts)] * ANGLE_TOLERANCE
    off = np.abs((angles - own + np.pi) % (2 * np.pi) - np.pi)
    turned: np.ndarray = drawn & (off > 2 * ANGLE_TOLERANCE)
    return turned


@dataclass
class _PageRead:
    """One page's fragments, and the turned text set aside from it."""

    fragments: list[_Fragment]
    turned: str = ""


_FORCE_BOLD = 0x40000  # the font descriptor's ForceBold flag


def _bold(raw: object, i: int, font: tuple[ctypes.Array[ctypes.c_char], ctypes.c_int]) -> bool:
    """Whether character ``i`` is set in a bold face: by the font's name ("Helvetica-Bold",
    "LiberationSerif-Bold"; the descriptor's weight is unreliable: italics report 495, bold 415) or its
    ForceBold flag."""
    name, flags = font
    pdfium_c.FPDFText_GetFontInfo(raw, i, name, len(name), ctypes.byref(flags))
    face = name.value.lower()
    return b"bold" in face or b"black" in face or b"heavy" in face or bool(flags.value & _FORCE_BOLD)


def _fragments(textpage: pdfium.PdfTextPage, n: int, left: float, top: float) -> _PageRead:
    """Line fragments in the page's own (unrotated) space, origin at the crop box's top-left corner;
    text turned against the page's direction is set aside (its characters in stream order)."""
    raw = textpage.raw
    turned = _turned(raw, n)
    font = (ctypes.create_string_buffer(96), ctypes.c_int())
    aside: list[str] = []
    rect = pdfium_c.FS_RECTF()
    gleft, gright, gbottom, gtop = (ctypes.c_double() for _ in range(4))
    ox, oy = ctypes.c_double(), ctypes.c_double()
    out: list[_Fragment] = []
    cur: _Fragment | None = None
    last_x0 = last_x1 = 0.0
    for i in range(n):
        u = pdfium_c.FPDFText_GetUnicode(raw, i)
        ch = chr(u) if 0 < u < 0x110000 else ""
        if ch in ("\r", "\n") or not ch:
            cur = None
            continue
        if turned[i]:
            aside.append(ch)
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
            cur = _Fragment([], [], [], y0, y1)
            out.append(cur)
        # A ligature glyph ("ﬁ") becomes its letters, which share the glyph's width, so the text
        # reads as typed ("financial", not "ﬁnancial") and the box still covers the glyph.
        letters = _LIGATURES.get(ch, ch)
        step = (x1 - x0) / len(letters)
        for k, letter in enumerate(letters):
            cur.chars.append(letter)
            cur.x0s.append(x0 + k * step)
            cur.x1s.append(x0 + (k + 1) * step)
        cur.y0, cur.y1 = min(cur.y0, y0), max(cur.y1, y1)
        cur.ly0s.append(y0)
        cur.ly1s.append(y1)
        cur.plain += not _bold(raw, i, font)
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
    return _PageRead([f for f in out if f.chars], " ".join("".join(aside).split()))


def _furniture_key(f: _Fragment) -> str:
    return re.sub(r"\d+", "#", " ".join(f.text.lower().split()))


def _in_band(f: _Fragment, height: float) -> bool:
    return f.y1 <= height * BAND or f.y0 >= height * (1 - BAND)


def _xy_cut(frags: list[_Fragment], page_width: float) -> list[list[_Fragment]]:
    """Fragments in reading order, as regions: columns left to right, rows top to bottom."""
    out: list[list[_Fragment]] = []
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


def _split_columns(region: list[_Fragment], page_width: float) -> list[list[_Fragment]] | None:
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


def _fills(side: list[_Fragment], x0: float, x1: float) -> bool:
    return statistics.median(f.x1 - f.x0 for f in side) >= 0.5 * (x1 - x0)


def _split_rows(region: list[_Fragment]) -> list[list[_Fragment]] | None:
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


def _lines(region: list[_Fragment], page: int) -> list[_Line]:
    """Fragments of one region merged into lines (same baseline), each read left to right."""
    rows: list[list[_Fragment]] = []
    for f in sorted(region, key=lambda f: (f.y0, f.x0)):
        if rows and (min(rows[-1][-1].y1, f.y1) - max(rows[-1][-1].y0, f.y0)) > 0.5 * min(f.height, rows[-1][-1].height):
            rows[-1].append(f)
        else:
            rows.append([f])
    out = []
    for row in rows:
        row.sort(key=lambda f: f.x0)
        ln = _Line(page, [], [], [], min(f.gy0 for f in row), max(f.gy1 for f in row),
                   float(np.median([y for f in row for y in f.ly0s])), float(np.median([y for f in row for y in f.ly1s])))
        for f in row:
            if ln.chars:
                ln.chars.append(" ")
                ln.x0s.append(np.nan)
                ln.x1s.append(np.nan)
            ln.chars.extend(f.chars)
            ln.x0s.extend(f.x0s)
            ln.x1s.extend(f.x1s)
        ln.bold = all(f.plain == 0 for f in row)
        out.append(ln)
    return out


# A caption's opening ("Figure 3:", "Table 2.", "Fig. 4 |"): a caption is its own paragraph, never the end of prose.
_CAPTION_START = re.compile(r"^\s*(?:fig(?:ure)?|table|tab|chart|plate|exhibit|listing|algorithm)\.?\s*"
                            r"[\dIVXivx]+[a-z]?\s*[.:|\-–—]", re.IGNORECASE)
_CELL = re.compile(r"^[-+(]?[$€£]?\d[\d.,]*%?\)?$|^[-–—]$")


def _cells(ln: _Line) -> bool:
    """A line that is mostly figures (a table row): at least three tokens, most of them numbers."""
    tokens = ln.text.split()
    return len(tokens) >= 3 and sum(bool(_CELL.match(t)) for t in tokens) > 0.5 * len(tokens)


def _bold_heading(ln: _Line) -> bool:
    """A bold line that reads as a heading: short, and not ending as a sentence does."""
    text = ln.text.rstrip()
    return len(text.split()) <= 12 and text[-1:] not in ".!?;,"


def _separator(prev: _Line, nxt: _Line) -> str:
    """What joins two consecutive lines: "" (hyphenated word), "\\n" (same paragraph) or a paragraph break."""
    text = prev.text.rstrip()
    if text and text[-1] in _HYPHENS and len(text) > 1 and text[-2].isalpha() and nxt.text[:1].isalpha():
        return ""
    if _CAPTION_START.match(nxt.text) or _cells(prev) != _cells(nxt):
        return "\n\n"  # a caption, or the edge of a table: prose is never glued to either
    if prev.bold != nxt.bold and _bold_heading(prev if prev.bold else nxt):
        return "\n\n"  # a heading set in bold at the body's size ("A. Models"), not the start of its first sentence
    same_column = prev.page == nxt.page and nxt.core_y0 >= prev.core_y0 and min(prev.x1, nxt.x1) > max(prev.x0, nxt.x0)
    h = max(prev.size, nxt.size)
    if same_column:
        if abs(prev.size - nxt.size) > 0.15 * h:
            return "\n\n"  # a heading, or a caption, in another size
        # A wide gap ends a paragraph only after a line that could end one (browsers print lines
        # with a superscript further apart; a sentence must not be cut there).
        short = prev.x1 < nxt.x1 - 0.2 * (nxt.x1 - nxt.x0)
        if nxt.core_y0 - prev.core_y1 > 0.75 * h and (text[-1:] in _TERMINAL or short):
            return "\n\n"
        return "\n"
    # A new column or page: the sentence goes on unless the line closed it.
    return "\n\n" if text[-1:] in _TERMINAL or abs(prev.size - nxt.size) > 0.15 * h else "\n"


def _count_chars(doc: pdfium.PdfDocument, n_pages: int, max_chars: int, max_chars_per_page: int) -> None:
    """Refuse a PDF whose pages hold too many characters, counted page by page in PDFium (C) before any
    per-character work in Python (about 20 microseconds a character), which is where time and memory go.

    Pages may share one content stream, so a small file can carry millions of characters; PDFium's
    count includes the line breaks it places between lines."""
    budget = CharBudget(max_chars)
    for p in range(n_pages):
        page = doc[p]
        try:
            textpage = page.get_textpage()
            try:
                n = textpage.count_chars()
            finally:
                textpage.close()
        finally:
            page.close()
        if n > max_chars_per_page:
            raise ReadError(f"page {p + 1} holds {n:,} characters; the limit is {max_chars_per_page:,} per page")
        budget.add(max(n, 0), f"page {p + 1:,} of {n_pages:,}")


def read_pdf(data: bytes, *, max_pages: int = MAX_PAGES, max_chars_per_page: int = MAX_CHARS_PER_PAGE,
             max_chars: int = MAX_DOCUMENT_CHARS, timings: dict[str, float] | None = None
             ) -> tuple[str, str | None, Layout]:
    """(text, title, layout) of a PDF's text layer. Raises ReadError with the reason to show; a PDF
    with more than ``max_chars`` characters is refused before its text is laid out.

    ``timings`` (for the benchmark) receives "extract_s" (PDFium: characters and their boxes) and
    "layout_s" (headers and footers, reading order, lines joined into text)."""
    started = time.perf_counter()
    if not data.lstrip()[:1024].startswith(b"%PDF-") and b"%PDF-" not in data[:1024]:
        raise ReadError("not a PDF: the file is named .pdf but does not start with %PDF-")
    with PDFIUM_LOCK:
        doc = _open(data)
        try:
            n_pages = len(doc)
            if n_pages == 0:
                raise ReadError("the PDF has no pages")
            if n_pages > max_pages:
                raise ReadError(f"the PDF has {n_pages:,} pages; the limit is {max_pages:,}: split it")
            _count_chars(doc, n_pages, max_chars, max_chars_per_page)
            title = (doc.get_metadata_value("Title") or "").strip() or None
            pages: list[PageSize] = []
            per_page: list[_PageRead] = []
            for p in range(n_pages):
                page = doc[p]
                try:
                    # Boxes are in the page's unrotated space (what PDFium reports characters in);
                    # the renderer turns the picture upright after drawing them.
                    c_left, c_bottom, c_right, c_top = page.get_cropbox()
                    w, h = c_right - c_left, c_top - c_bottom
                    textpage = page.get_textpage()
                    try:
                        n = textpage.count_chars()
                        per_page.append(_fragments(textpage, n, c_left, c_top))
                    finally:
                        textpage.close()
                finally:
                    page.close()
                label = " ".join((doc.get_page_label(p) or "").split())[:40] or None
                pages.append(PageSize(p + 1, round(w, 2), round(h, 2), label))
        except pdfium.PdfiumError as exc:
            raise ReadError(f"corrupt or truncated PDF: {exc}") from exc
        finally:
            doc.close()
    if not any(page.fragments for page in per_page):
        raise ReadError("no text layer: this PDF is images only; OCR is not supported")
    extracted = time.perf_counter()
    out = _assemble(per_page, pages, data, title)
    if timings is not None:
        timings["extract_s"] = timings.get("extract_s", 0.0) + extracted - started
        timings["layout_s"] = timings.get("layout_s", 0.0) + time.perf_counter() - extracted
    return out


# Sections of references and links that close a document: their lines cite other works, they state nothing
# about the subject, and half of a printed encyclopedia article can be such lines. "Notes" is not among them:
# an encyclopedia's notes are statements.
END_MATTER = frozenset({"references", "bibliography", "works cited", "citations", "sources", "literature cited",
                        "further reading", "external links", "see also", "reference list"})
END_MATTER_FROM = 0.25  # a heading in the first quarter of the lines is a table of contents' entry, not a section


def _heading_text(ln: _Line) -> str:
    return " ".join(ln.text.split()).rstrip(":").lower()


def _end_matter(lines: list[_Line]) -> list[bool]:
    """Which lines belong to a closing section of references or links (``END_MATTER``).

    A section starts at a line that is only its heading and runs to the next heading at least as large
    that is not one of them (a larger heading than the body's text is a section heading: the next such
    line ends the section); a heading set at the body's size runs to the end of the document or to an
    appendix."""
    out = [False] * len(lines)
    if not lines:
        return out
    body_size = statistics.median(ln.size for ln in lines)
    k, n = int(END_MATTER_FROM * len(lines)), len(lines)
    while k < n:
        if _heading_text(lines[k]) not in END_MATTER:
            k += 1
            continue
        size = lines[k].size
        larger = size > 1.1 * body_size
        out[k] = True
        k += 1
        while k < n and _heading_text(lines[k]) not in END_MATTER:
            words = lines[k].text.split()
            if lines[k].text.lstrip().lower().startswith("appendix") or (
                    larger and lines[k].size >= 0.95 * size and len(words) <= 8):
                break
            out[k] = True
            k += 1
    return out


_ABSTRACT = re.compile(r"^\s*abstract\s*(?:$|[.:—–-])", re.IGNORECASE)
FRONT_MATTER_LINES = 40  # a paper's title block is a few lines; an "Abstract" further down is no paper's opening


def _front_matter(first_page: list[_Line]) -> list[_Line]:
    """A paper's title block: the first page's lines before its "Abstract" heading (title, authors, affiliations,
    e-mail addresses), and that heading; none when the page has no such heading near its top."""
    for k, ln in enumerate(first_page[:FRONT_MATTER_LINES]):
        if _ABSTRACT.match(ln.text):
            return first_page[:k + 1]
    return []


def _left_out(per_page: list[_PageRead], furniture: int, numbers: int,
              end_matter: list[_Line] | None = None) -> str | None:
    """What the reader set aside, in words for the ingest report (None when nothing was)."""
    parts = []
    if furniture:
        parts.append(counted(furniture, "running header or footer line"))
    if numbers:
        parts.append(counted(numbers, "page number"))
    turned = [(p + 1, page.turned) for p, page in enumerate(per_page) if page.turned]
    if turned:
        first_page, first = turned[0]
        sample = first if len(first) <= 60 else first[:57] + "..."
        where = f"page {first_page}" if len(turned) == 1 else f"{len(turned)} pages"
        parts.append(f"turned text on {where} (a margin stamp or rotated label: \"{sample}\")")
    if end_matter:
        names = list(dict.fromkeys(" ".join(ln.text.split()).rstrip(":") for ln in end_matter
                                   if _heading_text(ln) in END_MATTER))
        start, stop = end_matter[0].page, end_matter[-1].page
        where = f"page {start}" if start == stop else f"pages {start}-{stop}"
        parts.append(f"{len(end_matter)} lines of references and links ({', '.join(names)}; {where})")
    return "left out of the text: " + "; ".join(parts) if parts else None


def _assemble(read: list[_PageRead], pages: list[PageSize], data: bytes, title: str | None
              ) -> tuple[str, str | None, Layout]:
    per_page = [page.fragments for page in read]
    furniture = numbers = 0
    # Running headers and footers: band lines whose text (digits ignored) recurs on other pages.
    seen: dict[str, set[int]] = {}
    for p, frags in enumerate(per_page):
        for f in frags:
            if _in_band(f, pages[p].height):
                seen.setdefault(_furniture_key(f), set()).add(p)
    repeat = max(2, len(per_page) // 3)
    # A bare number in the band is a page number when its offset from the physical page number
    # is shared by several pages (a table cell "2011" near the bottom of one page is not).
    offsets: dict[int, int] = {}
    for p, frags in enumerate(per_page):
        for f in frags:
            m = _PAGE_NUMBER.match(f.text.strip()) if _in_band(f, pages[p].height) else None
            if m and m.group(1).isdigit():
                offsets[int(m.group(1)) - p - 1] = offsets.get(int(m.group(1)) - p - 1, 0) + 1
    need = 1 if len(per_page) <= 2 else repeat
    page_offsets = {o for o, c in offsets.items() if c >= need}
    body: list[list[_Line]] = []
    empty_pages = 0
    for p, frags in enumerate(per_page):
        keep = []
        printed: str | None = None
        for f in frags:
            if _in_band(f, pages[p].height):
                m = _PAGE_NUMBER.match(f.text.strip())
                num = m.group(1) if m else None
                if num is not None and (not num.isdigit() or int(num) - p - 1 in page_offsets):
                    printed = printed or num
                    numbers += 1
                    continue
                if len(seen[_furniture_key(f)]) >= repeat:
                    furniture += 1
                    continue
            keep.append(f)
        if not frags:
            empty_pages += 1
        if pages[p].label is None and printed is not None:
            pages[p] = PageSize(pages[p].number, pages[p].width, pages[p].height, printed)
        lines: list[_Line] = []
        for region in _xy_cut(keep, pages[p].width):
            lines.extend(_lines(region, p + 1))
        body.append(lines)
    ordered = [ln for lines in body for ln in lines]
    closing = [ln for ln, out in zip(ordered, _end_matter(ordered)) if out]
    left_out = {id(ln) for ln in closing}
    front = {id(ln) for ln in _front_matter(body[0] if body else [])}
    parts: list[str] = []
    text_lines: list[TextLine] = []
    pos = 0
    prev: _Line | None = None
    for lines in body:
        for ln in lines:
            if id(ln) in left_out:
                continue
            chars, x0s, x1s = ln.chars, ln.x0s, ln.x1s
            if prev is not None:
                sep = _separator(prev, ln)
                if sep and (id(prev) in front or id(ln) in front):
                    sep = "\n\n"  # title, authors, affiliations: each line stands alone
                if sep == "":  # hyphenated: drop the hyphen that ends the previous line
                    last = text_lines[-1]
                    parts[-1] = parts[-1][:-1]
                    pos -= 1
                    text_lines[-1] = TextLine(last.page, last.start, last.end - 1, last.y0, last.y1,
                                              last.x0s[:-1], last.x1s[:-1])
                parts.append(sep)
                pos += len(sep)
            s = "".join(chars).rstrip()
            k = len(s)
            parts.append(s)
            text_lines.append(TextLine(ln.page, pos, pos + k, round(ln.y0, 2), round(ln.y1, 2),
                                       np.asarray(x0s[:k], dtype=np.float32), np.asarray(x1s[:k], dtype=np.float32)))
            pos += k
            prev = ln
    text = "".join(parts)
    notes = [note] if (note := _left_out(read, furniture, numbers, closing)) else []
    if empty_pages:
        notes.append(f"{empty_pages} of {len(pages)} pages have no text layer (images only) and were skipped; "
                     "OCR is not supported")
    if not text.strip():
        raise ReadError("no text layer: this PDF is images only; OCR is not supported")
    layout = Layout(PDF, sha256_bytes(data), data, tuple(pages), tuple(text_lines), notes=tuple(notes))
    return text, title, layout
