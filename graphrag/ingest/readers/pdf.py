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

import bisect
import ctypes
import dataclasses
import functools
import itertools
import re
import statistics
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.budget import CharBudget, TooManyWords, words_message
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import PDF, Block, Layout, ReadLine, TextLine, sha256_bytes
from graphrag.ingest.readers.limits import LIMITS, ReadLimits
from graphrag.ingest.readers.ocr import CONFIDENCE_FLOOR, OcrLine, OcrPage, PageProgress, blank, read_picture
from graphrag.ingest.readers.pdf_kinds import END_MATTER, IN_TEXT, NAMES, REPORT_ORDER, LineKind, classify
from graphrag.ingest.readers.pdf_survey import Survey, SurveyFailed, run_survey
from graphrag.ingest.readers.picture_child import Refused, Stopped, render_page
from graphrag.ingest.readers.tables import ROW, TableTally, has_header, too_wide
from graphrag.language.sentences import FOOTNOTE_MARK, counted, split_sentences
from graphrag.model import PageSize

MAX_PAGES = LIMITS.pdf_pages
MAX_CHARS_PER_PAGE = LIMITS.pdf_page_glyphs
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
    plain: int = 0  # words not set in a bold face (judged by their first character)


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
    cells: int = 1  # fragments: parts of the line set apart by wide gaps (a table's cells)
    joins: list[int] = field(default_factory=list)  # where in ``chars`` one fragment meets the next
    frame: tuple[float, float, float, float] | None = None  # OCR on a turned page: the box as the page lies
    confidence: float | None = None  # OCR: the recogniser's confidence in the line

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
class _PageRead:
    """One page's fragments, and the turned text set aside from it."""

    fragments: list[_Fragment]
    turned: str = ""
    turned_box: tuple[float, float, float, float] | None = None  # around the turned text (x0, y0, x1, y1)
    upright: bool = True  # the page's own direction; a sideways page's lines are not yet put in reading order
    ocr: list[_Line] = field(default_factory=list)  # a page without a text layer: its lines read by OCR, in order
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


def _fragments(textpage: pdfium.PdfTextPage, n: int, left: float, top: float) -> _PageRead:
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
            cur = _Fragment([], [], [], y0, y1)
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
    return _PageRead([f for f in out if f.chars], " ".join("".join(aside).split()), box, upright)


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


def _apart(row: list[_Fragment]) -> list[list[_Fragment]]:
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


def _lines(region: list[_Fragment], page: int) -> list[_Line]:
    """Fragments of one region merged into lines (same baseline), each read left to right."""
    rows: list[list[_Fragment]] = []
    for f in sorted(region, key=lambda f: (f.y0, f.x0)):
        if rows and (min(rows[-1][-1].y1, f.y1) - max(rows[-1][-1].y0, f.y0)) > 0.5 * min(f.height, rows[-1][-1].height):
            rows[-1].append(f)
        else:
            rows.append([f])
    out = []
    for row in (part for r in rows for part in _apart(r)):
        ln = _Line(page, [], [], [], min(f.gy0 for f in row), max(f.gy1 for f in row),
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


def _separator(prev: _Line, nxt: _Line, kind: LineKind, next_kind: LineKind) -> str:
    """What joins two consecutive lines: "" (hyphenated word), "\\n" (same paragraph) or a paragraph break.
    Lines of different kinds never share a paragraph, nor do two table rows or two title-block lines."""
    if kind is not next_kind or kind in (LineKind.TABLE, LineKind.INFOBOX, LineKind.AUTHOR):
        return "\n\n"
    text = prev.text.rstrip()
    if text and text[-1] in _HYPHENS and len(text) > 1 and text[-2].isalpha() and nxt.text[:1].isalpha():
        return ""
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
    # A new column or page: body text goes on where the line did not close its sentence.
    if kind is not LineKind.BODY or text[-1:] in _TERMINAL or abs(prev.size - nxt.size) > 0.15 * h:
        return "\n\n"
    return "\n"


NO_TEXT = ("no text found: this PDF has no text layer, and OCR found no line to read on its pages' pictures (blank "
           "scans, or drawings only)")


def check_survey(survey: Survey, max_chars: int, limits: ReadLimits) -> None:
    """Every PDF bound in one place: the child's survey (``pdf_survey``) turned into the refusal to show."""
    if survey.stop is None:
        missing = sum(1 for g in survey.glyphs if not g)
        if missing > limits.ocr_pages:
            raise ReadError(f"{missing:,} of {survey.pages:,} pages have no text layer (scanned images); OCR reads at "
                            f"most {limits.ocr_pages:,} pages a document: split it, or export its text")
        return
    kind, page, value = survey.stop
    if kind == "pages":
        raise ReadError(f"the PDF has {page:,} pages; the limit is {limits.pdf_pages:,}: split it")
    if kind == "glyphs":
        raise ReadError(f"page {page} holds {int(value):,} characters; the limit is {limits.pdf_page_glyphs:,} per page")
    if kind == "chars":
        budget = CharBudget(max_chars)  # the same count and message as every format's
        for p, n in enumerate(survey.glyphs):
            budget.add(n, f"page {p + 1:,} of {survey.pages:,}")
    if kind == "objects":
        raise ReadError(f"page {page} draws {int(value):,} objects; the limit is {limits.pdf_page_objects:,} a page "
                        "(a dense map draws 20,000): it is built to exhaust the reader, or a drawing to export as "
                        "text first")
    if kind == "words":
        raise TooManyWords(words_message(int(value), max_chars, limits, f"by page {page:,} of {survey.pages:,}"))
    if kind == "seconds":
        raise ReadError(f"page {page} took {value:.1f} s of processor time to load; the limit is "
                        f"{limits.pdf_page_seconds:g} s a page: its content is too complex to read")
    raise ReadError(f"more than {limits.ocr_pages:,} pages have no text layer (scanned images) by page {page:,} of "
                    f"{survey.pages:,}; OCR reads at most {limits.ocr_pages:,} pages a document: split it, or export "
                    "its text")


def _survey_failed(exc: SurveyFailed, limits: ReadLimits) -> ReadError:
    if exc.reason == "start":
        return ReadError(f"the PDF could not be checked before reading: no process could be started ({exc.detail}); "
                         "try again when the machine is less busy")
    if exc.reason == "time":
        return ReadError(f"loading this PDF's pages took more than {limits.pdf_survey_seconds:g} s of processor "
                         "time before any text was read: it is too complex to read, or built to exhaust the reader")
    return ReadError(f"loading this PDF's pages needed more than {limits.pdf_survey_memory // 1_000_000:,} MB of "
                     "memory (or PDFium failed on it): it is too complex to read, or corrupt")


def read_pdf(data: bytes, *, max_pages: int = MAX_PAGES, max_chars_per_page: int = MAX_CHARS_PER_PAGE,
             max_chars: int = MAX_DOCUMENT_CHARS, timings: dict[str, float] | None = None,
             limits: ReadLimits = LIMITS, on_ocr_page: PageProgress | None = None) -> tuple[str, str | None, Layout]:
    """(text, title, layout) of a PDF's text layer. Raises ReadError with the reason to show; a PDF past any
    bound of ``limits`` (``max_pages`` and ``max_chars_per_page`` override two of them) is refused before
    the reader loads a page, and one with more than ``max_chars`` characters before its text is laid out.

    ``timings`` (for the benchmark) receives "extract_s" (PDFium: characters and their boxes) and
    "layout_s" (headers and footers, reading order, lines joined into text). ``on_ocr_page`` is told as each
    page without a text layer is read (``ocr.PageProgress``)."""
    started = time.perf_counter()
    if not data.lstrip()[:1024].startswith(b"%PDF-") and b"%PDF-" not in data[:1024]:
        raise ReadError("not a PDF: the file is named .pdf but does not start with %PDF-")
    limits = dataclasses.replace(limits, pdf_pages=max_pages, pdf_page_glyphs=max_chars_per_page)
    try:
        survey = run_survey(data, max_chars, limits)
    except SurveyFailed as exc:
        raise _survey_failed(exc, limits) from None
    cpu_started = time.thread_time()
    with PDFIUM_LOCK:
        doc = _open(data)
        try:
            n_pages = len(doc)
            if n_pages == 0:
                raise ReadError("the PDF has no pages")
            if survey.unopened:  # the child could not open what this process could: refuse rather than guess
                raise ReadError("corrupt or truncated PDF: PDFium cannot read its structure; re-export or "
                                "re-download it")
            check_survey(survey, max_chars, limits)
            title = (doc.get_metadata_value("Title") or "").strip() or None
            pages: list[PageSize] = []
            per_page: list[_PageRead] = []
            ocr_clock = [0.0, 0.0]  # processor seconds spent on OCR so far, and drawing pages for it (in the child)
            to_ocr, ocr_done = sum(1 for g in survey.glyphs if not g), 0
            if on_ocr_page is not None and to_ocr:
                on_ocr_page(0, to_ocr)
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
                    if n == 0 and (pictures := _pictures(page)):  # no text layer but a picture: a scanned page
                        _check_pictures(pictures, p + 1, limits)
                        per_page[-1] = _ocr_page(data, page, p + 1, n_pages, limits, ocr_clock)
                    if n == 0 and on_ocr_page is not None and to_ocr:
                        ocr_done += 1
                        on_ocr_page(min(ocr_done, to_ocr), to_ocr)
                finally:
                    page.close()
                label = " ".join((doc.get_page_label(p) or "").split())[:40] or None
                pages.append(PageSize(p + 1, round(w, 2), round(h, 2), label))
                spent = time.thread_time() - cpu_started + ocr_clock[1]  # pages drawn in the child count too
                if spent > limits.pdf_read_seconds:
                    raise ReadError(f"reading took {spent:.0f} s of processor time by page {p + 1:,} of {n_pages:,}; "
                                    f"the limit is {limits.pdf_read_seconds:g} s a document: split it")
        except pdfium.PdfiumError as exc:
            raise ReadError(f"corrupt or truncated PDF: {exc}") from exc
        finally:
            doc.close()
    if not any(page.fragments or page.ocr for page in per_page):
        raise ReadError(NO_TEXT)
    extracted = time.perf_counter()
    out = _assemble(per_page, pages, data, title, limits.ocr_confidence_floor)
    if timings is not None:
        timings["extract_s"] = timings.get("extract_s", 0.0) + extracted - started
        timings["layout_s"] = timings.get("layout_s", 0.0) + time.perf_counter() - extracted
    return out


def _pictures(page: pdfium.PdfPage) -> list[tuple[int, int]]:
    """The size in pixels of each picture the page draws (a scan's page is one); none on a page of vector drawings
    only, which has nothing for OCR."""
    return [obj.get_px_size() for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=4)
            if isinstance(obj, pdfium.PdfImage)]


def _check_pictures(pictures: list[tuple[int, int]], number: int, limits: ReadLimits) -> None:
    """Refuse a scanned page whose pictures hold more pixels than an uploaded picture may, before PDFium decodes
    them to render the page: a 20,000 x 20,000 picture packs into 1 MB and decodes to 1.2 GB (600 MB and 10 s
    for one page, measured), whatever the size the page is rendered at."""
    total = sum(w * h for w, h in pictures)
    if total <= limits.image_pixels:
        return
    what = (f"a picture of {pictures[0][0]:,} x {pictures[0][1]:,} pixels" if len(pictures) == 1
            else f"{len(pictures):,} pictures of {total:,} pixels in all")
    raise ReadError(f"page {number:,} is {what}; the limit is {limits.image_pixels:,} pixels a page (a 600 dpi A4 "
                    "scan has 35 million): scale the scan down")


def _ocr_page(data: bytes, page: pdfium.PdfPage, number: int, pages: int, limits: ReadLimits,
              clock: list[float]) -> _PageRead:
    """A page without a text layer, rendered and read by OCR (``ocr``): its lines in reading order as the
    upright page has them, in points; each line's characters spread evenly over its box. The page is drawn (its
    pictures decoded) in a child process under its own ceilings (``picture_child``), never here. A blank page is
    skipped without the engine; a page, or the document's OCR in all, past its bound on processor time (the
    process's, the engine's threads included) refuses the PDF. ``clock``: the document's processor seconds of OCR
    and of drawing pages in the child so far, added to here."""
    w, h = page.get_size()
    scale = min(limits.ocr_dpi / 72, (limits.ocr_page_pixels / max(w * h, 1.0)) ** 0.5)
    pixels = _drawn(data, number, scale, limits, clock)
    if blank(pixels):
        return _PageRead([], scanned=True)
    started = time.process_time()  # the engine's threads included; by the clock a loaded machine would refuse
    read = read_picture(pixels, limits.ocr_confidence_floor)
    spent = time.process_time() - started
    clock[0] += spent
    if spent > limits.ocr_page_seconds:
        raise ReadError(f"OCR of page {number:,} took {spent:.0f} s of processor time; the limit is "
                        f"{limits.ocr_page_seconds:g} s a page: "
                        "its picture is too large or too busy to read")
    if clock[0] > limits.ocr_seconds:
        raise ReadError(f"OCR took {clock[0]:.0f} s of processor time by page {number:,} of {pages:,}; the limit is "
                        f"{limits.ocr_seconds:g} s a document: split it")
    return _PageRead([], upright=read.turned == 0, ocr=_ocr_lines(read, number, scale), ocr_low=list(read.low),
                     scanned=True)


def _drawn(data: bytes, number: int, scale: float, limits: ReadLimits, clock: list[float]) -> np.ndarray:
    """Page ``number`` of the PDF drawn at ``scale`` as an RGB array, by the child (``picture_child``), its processor
    time added to ``clock[1]``; a ReadError when its pictures are refused there or a ceiling stops it."""
    try:
        width, height, rgb, seconds = render_page(data, number - 1, scale, limits)
    except Refused as no:
        if no.kind == "scans":
            raise ReadError(f"page {number:,} draws a JPEG of {no.value:,} scans; the limit is {limits.jpeg_scans:,} (a "
                            "progressive JPEG has about 10, and each scan is a pass of the decoder over the whole "
                            "picture): re-export the scan") from None
        if no.kind == "undecodable":
            raise ReadError(f"corrupt PDF: page {number:,} cannot be drawn for OCR ({no.detail})") from None
        raise ReadError(f"drawing page {number:,} for OCR needed more than {limits.picture_memory // 1_000_000:,} MB "
                        "of memory: its pictures are too large, or built to exhaust the reader") from None
    except Stopped as stop:
        if stop.reason == "start":
            raise ReadError(f"page {number:,} could not be drawn for OCR: no process could be started ({stop.detail}); "
                            "try again when the machine is less busy") from None
        if stop.reason == "time":
            raise ReadError(f"drawing page {number:,} for OCR passed its bound on time "
                            f"({limits.picture_render_seconds:g} s of processor time, "
                            f"{limits.picture_render_wall_seconds:g} s by the clock): its pictures are too complex to "
                            "decode, or built to exhaust the reader") from None
        raise ReadError(f"drawing page {number:,} for OCR needed more than {limits.picture_memory // 1_000_000:,} MB "
                        "of memory, or the decoder failed on it: its pictures are too large, corrupt, or built to "
                        "exhaust the reader") from None
    clock[1] += seconds
    return np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)


def _ocr_lines(read: OcrPage, number: int, scale: float) -> list[_Line]:
    """OCR lines as printed lines of page ``number``: their geometry in the upright page (points), what the
    reading order and the line kinds are judged on; on a turned page each keeps its box as the page lies."""
    out = []
    for ol in read.lines:
        x0, y0, x1, y1 = (v / scale for v in ol.upright)
        step = (x1 - x0) / max(len(ol.text), 1)
        x0s = [x0 + i * step for i in range(len(ol.text))]
        ln = _Line(number, list(ol.text), x0s, [x + step for x in x0s], y0, y1, y0, y1, confidence=ol.confidence)
        if read.turned:
            ln.frame = tuple(v / scale for v in ol.box)  # type: ignore[assignment]
        out.append(ln)
    return out


def _box(ln: _Line | _Fragment) -> tuple[float, float, float, float]:
    y0, y1 = (ln.gy0, ln.gy1) if isinstance(ln, _Fragment) else (ln.y0, ln.y1)  # what is drawn
    return round(ln.x0, 2), round(y0, 2), round(ln.x1, 2), round(y1, 2)


def _report(pages: int, read: list[ReadLine], sentences: int, citable: int, rows: int = 0) -> str:
    """The reading report: pages, sentences (the count ingest reports and stores) and how many of them are
    citable (body text), lines by kind, and what was left out of the text and why."""
    counts = Counter(LineKind(r.kind) for r in read)
    kept = [counted(counts[k], *NAMES[k]) for k in (LineKind.BODY, *REPORT_ORDER)
            if counts[k] and k in IN_TEXT]
    what = "body text and table rows" if rows else "body text"
    head = (f"read {counted(pages, 'page')}: {counted(sentences, 'sentence')}, {citable:,} of them citable ({what}), from " + ", ".join(kept))
    out: list[str] = []
    for k in (LineKind.RUNNING, LineKind.PAGE_NUMBER, LineKind.FOOTNOTE, LineKind.EQUATION,
              LineKind.FIGURE_LABEL):
        if counts[k]:
            out.append(counted(counts[k], *NAMES[k]))
    closing = [r for r in read if r.kind == LineKind.REFERENCE]
    if closing:
        headings = (" ".join(r.text.split()).rstrip(":") for r in closing)
        names = list(dict.fromkeys(h for h in headings if h.lower() in END_MATTER))
        start, stop = closing[0].page, closing[-1].page
        where = f"page {start}" if start == stop else f"pages {start}-{stop}"
        out.append(f"{counted(len(closing), *NAMES[LineKind.REFERENCE])} ({', '.join(names)}; {where})")
    stamps = [r for r in read if r.kind == LineKind.STAMP]
    if stamps:
        first = stamps[0].text
        sample = first if len(first) <= 60 else first[:57] + "..."
        where = f"page {stamps[0].page}" if len(stamps) == 1 else f"{len(stamps)} pages"
        out.append(f"turned text on {where} (a margin stamp or rotated label: \"{sample}\")")
    return head + ("; left out of the text: " + ", ".join(out) if out else "")


def _ocr_report(read: list[_PageRead], pages: int, floor: float = CONFIDENCE_FLOOR) -> str | None:
    """What OCR read: pages, lines and their mean confidence, blank pages, and each line under the confidence
    floor (kept out of the text) with its page; and pages with neither a text layer nor a picture. None where
    every page had a text layer."""
    scanned = [p for p, page in enumerate(read) if page.scanned]
    drawn = sum(1 for page in read if not page.fragments and not page.scanned)
    out = []
    if scanned:
        lines = [ln for page in read for ln in page.ocr]
        text = f"{counted(len(scanned), 'page')} of {pages} read by OCR (no text layer): {counted(len(lines), 'line')}"
        if lines:
            text += f", mean confidence {statistics.mean(ln.confidence or 0.0 for ln in lines):.2f}"
        turned = sum(1 for p in scanned if read[p].ocr and not read[p].upright)
        if turned:
            text += f"; {counted(turned, 'page')} turned (read upright)"
        empty = sum(1 for p in scanned if not read[p].ocr and not read[p].ocr_low)
        if empty:
            text += f"; {counted(empty, 'page')} with nothing to read"
        low = [(p + 1, ln) for p in scanned for ln in read[p].ocr_low]
        if low:
            shown = "; ".join(f'p. {p} "{_cut(ln.text, 40)}" ({ln.confidence:.2f})' for p, ln in low[:10])
            more = f" and {len(low) - 10} more" if len(low) > 10 else ""
            text += (f"; {counted(len(low), 'line')} under the confidence floor {floor:g} kept out of the "
                     f"text: {shown}{more}")
        out.append(text)
    if drawn:
        out.append(f"{drawn} of {pages} pages have no text layer and no picture (drawings only) and were skipped")
    return "; ".join(out) or None


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1].rstrip() + "…"


class _Headings:
    """The heading path of the text so far: a heading closes every open heading set no larger than it."""

    def __init__(self) -> None:
        self.open: list[tuple[float, str]] = []

    def add(self, ln: _Line, continued: bool) -> None:
        text = " ".join(ln.text.split())
        if continued and self.open:  # a heading's second line
            size, first = self.open[-1]
            self.open[-1] = (size, f"{first} {text}")
            return
        while self.open and self.open[-1][0] <= 1.05 * ln.size:
            self.open.pop()
        self.open.append((ln.size, text))

    @property
    def path(self) -> str:
        return " > ".join(t for _, t in self.open)


def _set_aside(read: list[_PageRead], pages: list[PageSize]) -> tuple[list[list[_Fragment]], list[ReadLine]]:
    """Each page's fragments without its running headers, footers and page numbers, and those set aside (with
    the turned text). A page number printed where the PDF has no page label becomes the page's label."""
    per_page = [page.fragments for page in read]
    aside = [ReadLine(p + 1, LineKind.STAMP.value, page.turned_box, page.turned)
             for p, page in enumerate(read) if page.turned and page.turned_box]
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
    kept: list[list[_Fragment]] = []
    for p, frags in enumerate(per_page):
        keep = []
        printed: str | None = None
        for f in frags:
            if _in_band(f, pages[p].height):
                m = _PAGE_NUMBER.match(f.text.strip())
                num = m.group(1) if m else None
                if num is not None and (not num.isdigit() or int(num) - p - 1 in page_offsets):
                    printed = printed or num
                    aside.append(ReadLine(p + 1, LineKind.PAGE_NUMBER.value, _box(f), f.text))
                    continue
                if len(seen[_furniture_key(f)]) >= repeat:
                    aside.append(ReadLine(p + 1, LineKind.RUNNING.value, _box(f), f.text))
                    continue
            keep.append(f)
        if pages[p].label is None and printed is not None:
            pages[p] = PageSize(pages[p].number, pages[p].width, pages[p].height, printed)
        kept.append(keep)
    return kept, aside


# Footnote and citation marks printed in the text ("[69]", "[202][203]", "[a]", "[note 3]", "[citation needed]"):
# taken out of the document's text when it is read (table rows' too), so no sentence, entity or highlight carries them and the
# spans still index the text exactly. A mark a line break cuts ("[15" / "9]") is taken out on both lines.
_MARK_CUT = re.compile(r"\[\d{1,4}$")
_MARK_REST = re.compile(r"^\d{0,4}\]")
# First parts of a compound that a line break leaves with its hyphen ("best-" / "performing", "state-of-" /
# "the-art"): a word split by the break is joined, a compound keeps its hyphen.
_COMPOUND_HEADS = frozenset("""
    best well state high low long short large small self non multi cross open real end fine world top half semi
    full ill all ever left right hand rule task data domain zero few one two three four five first second third
    single double fully highly newly widely so much most least under over low mid near far wide broad deep
    """.split())
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _unmarked(chars: list[str], x0s: list[float], x1s: list[float], cut_before: bool
              ) -> tuple[list[str], list[float], list[float], bool]:
    """A line's characters (and their edges) without footnote marks, and whether a mark is cut at its end."""
    text = "".join(chars)
    spans = [m.span() for m in FOOTNOTE_MARK.finditer(text)]  # the marks every reader takes out (graphrag.language.sentences)
    if cut_before and (rest := _MARK_REST.match(text)):
        spans.append(rest.span())
    cut = _MARK_CUT.search(text)
    if cut:
        spans.append(cut.span())
    if not spans:
        return chars, x0s, x1s, False
    drop: set[int] = set()
    for s, e in spans:
        drop.update(range(s, e))
        # "word [3] next" keeps one space, "word [3]." none
        if s > 0 and text[s - 1] in " \t" and (e == len(text) or text[e] in " \t.,;:!?)"):
            drop.add(s - 1)
    keep = [i for i in range(len(chars)) if i not in drop]
    return [chars[i] for i in keep], [x0s[i] for i in keep], [x1s[i] for i in keep], cut is not None


def _printed_words(lines: list[_Line]) -> Counter[str]:
    """The words printed whole within lines (lowercased): a word a line break cuts is left out, both its parts."""
    out: Counter[str] = Counter()
    cut = False
    for ln in lines:
        text = ln.text.rstrip()
        found = _WORD.findall(text)
        ends_cut = bool(text) and text[-1] in _HYPHENS
        out.update(w.lower() for w in found[1 if cut else 0:len(found) - 1 if ends_cut else len(found)])
        cut = ends_cut
    return out


def _keep_hyphen(before: str, after: str, words: Counter[str]) -> bool:
    """Whether a hyphen that ends a line belongs to a compound ("state-of-" / "the-art", "best-" / "performing")
    rather than splitting a word ("docu-" / "ment"). The document's own words decide first: the compound or the
    joined word written elsewhere in it; then a first part that is a compound already or a usual compound head,
    a capital after the break ("non-" / "English"), or parts that are words of the document."""
    head = _WORD.findall(before)[-1:] or [""]
    tail = _WORD.match(after)
    first, second = head[0], tail.group(0) if tail else ""
    if not first or not second:
        return False
    hyphenated, joined = f"{first}-{second}".lower(), f"{first}{second}".lower()
    if words[hyphenated] != words[joined]:
        return words[hyphenated] > words[joined]
    if "-" in first or first.lower() in _COMPOUND_HEADS or second[0].isupper():
        return True
    # A first part the document prints as a word of its own, before a long second part ("government" /
    # "sanctioned", "degree" / "holders"), or both parts such words: a split word's parts rarely are ("docu" /
    # "ment", "govern" / "ments", "every" / "where").
    if len(first) >= 4 and len(second) >= 6 and words[first.lower()] > 0:
        return True
    return min(len(first), len(second)) >= 3 and words[first.lower()] > 0 and words[second.lower()] > 0


def _join(lines: list[_Line], kinds: list[LineKind], rows: dict[int, _Row] | None = None
          ) -> tuple[str, list[TextLine], list[Block]]:
    """The document's text from the lines of the kinds kept in it, each line's place in that text, and its
    paragraphs with their kind and heading path. A table row in ``rows`` (by line index) reads as its
    statement, a paragraph of kind ``ROW``."""
    rows = rows or {}
    parts: list[str] = []
    text_lines: list[TextLine] = []
    blocks: list[tuple[int, str, str]] = []  # (start, kind, heading path) of each paragraph
    headings = _Headings()
    opened = False
    sizes = sorted(ln.size for ln, k in zip(lines, kinds) if k is LineKind.HEADING)
    title_above = 1.05 * sizes[-2] if len(sizes) > 1 else np.inf
    # The document's words as printed within lines: they say whether a line-end hyphen is a compound's.
    words = _printed_words([ln for ln, k in zip(lines, kinds) if k in IN_TEXT])
    pos = 0
    prev: tuple[_Line, LineKind] | None = None
    cut_mark = False
    for k, (ln, kind) in enumerate(zip(lines, kinds)):
        if kind not in IN_TEXT:
            continue
        chars, x0s, x1s = list(ln.chars), ln.x0s, ln.x1s
        if k in rows:
            chars, x0s, x1s = list(rows[k].chars), rows[k].x0s, rows[k].x1s
        elif kind in (LineKind.TABLE, LineKind.INFOBOX):  # cells apart: a row reads as cells, never as a sentence
            for j in ln.joins:
                chars[j] = "\t"
        chars, x0s, x1s, cut_mark = _unmarked(chars, x0s, x1s, cut_mark)
        if not "".join(chars).strip():
            continue  # a line of marks only ("[25][26]")
        sep = "\n\n"
        if prev is not None:
            sep = _separator(prev[0], ln, prev[1], kind)
            if sep == "" and _keep_hyphen(parts[-1], "".join(chars), words):
                pass  # a compound's hyphen: the lines join without a space, the hyphen stays
            elif sep == "":  # a word split by the break: drop the hyphen that ends the previous line
                last = text_lines[-1]
                parts[-1] = parts[-1][:-1]
                pos -= 1
                text_lines[-1] = dataclasses.replace(last, end=last.end - 1, x0s=last.x0s[:-1], x1s=last.x1s[:-1])
            parts.append(sep)
            pos += len(sep)
        if kind is not LineKind.HEADING:
            opened = True
        elif opened or ln.size <= title_above:  # an opening heading larger than any other is the title
            headings.add(ln, continued=sep != "\n\n")
        if sep == "\n\n" or not blocks:
            blocks.append((pos, ROW if k in rows else kind.value, headings.path))
        line = "".join(chars).rstrip()
        parts.append(line)
        y0, y1 = ln.y0, ln.y1
        if ln.frame is not None:  # OCR on a turned page: every character in the line's box as the page lies
            y0, y1 = ln.frame[1], ln.frame[3]
            x0s, x1s = [ln.frame[0]] * len(line), [ln.frame[2]] * len(line)
        text_lines.append(TextLine(ln.page, pos, pos + len(line), round(y0, 2), round(y1, 2),
                                   np.asarray(x0s[:len(line)], dtype=np.float32),
                                   np.asarray(x1s[:len(line)], dtype=np.float32), ln.confidence))
        pos += len(line)
        prev = (ln, kind)
    ends = [*(start for start, _, _ in blocks[1:]), pos]
    return "".join(parts), text_lines, [Block(start, end, path, i + 1, kind)
                                         for i, ((start, kind, path), end) in enumerate(zip(blocks, ends))]


@dataclass
class _Row:
    """A table row's line as a statement: the header's labels (not drawn: NaN edges) before its cells' drawn
    characters, so the statement's box is the row's cells."""

    chars: list[str]
    x0s: list[float]
    x1s: list[float]


def _cells(ln: _Line) -> list[tuple[int, int, float, float]]:
    """A line's cells as (start, end, x0, x1) over its characters: fragments at least an em apart (as
    ``_lines`` counts them); fragments that touch (a change of font) are one cell."""
    cuts = [j for j in ln.joins if ln.x0s[j + 1] - ln.x1s[j - 1] > ln.size]
    bounds = [0, *cuts, len(ln.chars)]
    out = []
    for a, b in itertools.pairwise(bounds):
        a = a + 1 if a in cuts else a  # the space that stands for the gap belongs to neither cell
        xs0 = [x for x in ln.x0s[a:b] if not np.isnan(x)]
        xs1 = [x for x in ln.x1s[a:b] if not np.isnan(x)]
        if xs0 and "".join(ln.chars[a:b]).strip():
            out.append((a, b, min(xs0), max(xs1)))
    return out


def _column(x0: float, x1: float, header: list[tuple[int, int, float, float]]) -> int:
    """The header column a cell sits under: the one it overlaps most, else the nearest by centre."""
    overlaps = [min(x1, h1) - max(x0, h0) for _, _, h0, h1 in header]
    best = max(range(len(header)), key=lambda c: overlaps[c])
    if overlaps[best] > 0:
        return best
    centre = (x0 + x1) / 2
    return min(range(len(header)), key=lambda c: abs((header[c][2] + header[c][3]) / 2 - centre))


def _statement(ln: _Line, header: list[str], columns: list[tuple[int, int, float, float]]) -> _Row | None:
    """``ln``'s cells after their columns' labels ("Plan: Enterprise; Price per seat: 40 EUR."), each cell's
    characters keeping their edges; None when the row has no cell."""
    by_column: dict[int, list[tuple[int, int, float, float]]] = {}
    for cell in _cells(ln):
        by_column.setdefault(_column(cell[2], cell[3], columns), []).append(cell)
    if not by_column:
        return None
    row = _Row([], [], [])

    def undrawn(text: str) -> None:
        row.chars.extend(text)
        row.x0s.extend([np.nan] * len(text))
        row.x1s.extend([np.nan] * len(text))

    for c in sorted(by_column):
        if row.chars:
            undrawn("; ")
        label = " ".join(header[c].split()).rstrip(":")
        if label:
            undrawn(f"{label}: ")
        for i, (a, b, _, _) in enumerate(by_column[c]):
            if i:
                undrawn(" ")
            row.chars.extend(ln.chars[a:b])
            row.x0s.extend(ln.x0s[a:b])
            row.x1s.extend(ln.x1s[a:b])
    if row.chars[-1] not in ".!?":
        undrawn(".")
    return row


def _table_statements(lines: list[_Line], kinds: list[LineKind], tally: TableTally) -> dict[int, _Row]:
    """Each table's rows under a worded header as statements, by line index: a table is a run of table
    rows in reading order (across a page break: a table running onto the next page keeps its header), its
    first line the header (kept as it is, cells apart; a header repeated on the next page too). A table wider
    than the column bound keeps its rows as cells (``tables``)."""
    out: dict[int, _Row] = {}
    k = 0
    while k < len(lines):
        if kinds[k] is not LineKind.TABLE:
            k += 1
            continue
        end = k + 1
        while end < len(lines) and kinds[end] is LineKind.TABLE:
            end += 1
        columns = _cells(lines[k])
        header = ["".join(lines[k].chars[a:b]) for a, b, _, _ in columns]
        if end - k >= 2 and too_wide(len(columns)):
            tally.wide += 1
            tally.widest = max(tally.widest, len(columns))
        elif end - k >= 2 and has_header(header):
            tally.tables += 1
            for j in range(k + 1, end):
                if lines[j].text.split() == lines[k].text.split():
                    continue  # the header printed again on the next page
                if (row := _statement(lines[j], header, columns)) is not None:
                    out[j] = row
                    tally.rows += 1
        k = end
    return out


_NOT_A_TITLE = re.compile(r"^(?:untitled|document\d*|microsoft (?:word|powerpoint) - .*|.*\.(?:docx?|pdf|tex|dvi|ps|"
                          r"rtf|odt|indd|qxd))$", re.IGNORECASE)


def _sane_title(title: str | None) -> bool:
    """Whether the PDF's Title metadata names the document (not empty, a file name or "Untitled")."""
    return title is not None and sum(c.isalpha() for c in title) >= 3 and not _NOT_A_TITLE.match(title.strip())


def _title_block(lines: list[_Line], kinds: list[LineKind]) -> str | None:
    """The title printed on page 1: its largest lines (a title wrapped over two or three lines included), joined;
    None where no line there is set larger than the body."""
    first = [(ln, k) for ln, k in zip(lines, kinds) if ln.page == 1 and k in IN_TEXT]
    if not first:
        return None
    top = max(ln.size for ln, _ in first)
    if top < 1.15 * statistics.median(ln.size for ln, _ in first):
        return None
    at = next(i for i, (ln, _) in enumerate(first) if ln.size >= 0.95 * top)
    block = [first[at][0]]
    for ln, _ in first[at + 1:at + 4]:
        if ln.size < 0.95 * top or ln.core_y0 - block[-1].core_y1 > 1.0 * top:
            break
        block.append(ln)
    title = " ".join(" ".join(ln.text.split()) for ln in block)
    return title[:300] or None


def _captions_aside(lines: list[_Line], kinds: list[LineKind]) -> tuple[list[_Line], list[LineKind]]:
    """Lines in the order their text is joined: a caption that the reading order put inside a body sentence (a
    picture beside the text, its caption read between two lines of a sentence) goes after that sentence's line,
    so the sentence reads whole and the caption stands as a paragraph of its own."""
    out = list(zip(lines, kinds))
    k = 1
    while k < len(out):
        j = k
        while j < len(out) and out[j][1] is LineKind.CAPTION:
            j += 1
        prev = out[k - 1]
        if j > k and j < len(out) and prev[1] is LineKind.BODY and out[j][1] is LineKind.BODY \
                and prev[0].text.rstrip()[-1:] not in _TERMINAL:
            m = j  # the body line that ends the interrupted sentence
            while m + 1 < len(out) and out[m + 1][1] is LineKind.BODY and out[m][0].text.rstrip()[-1:] not in ".!?":
                m += 1
            out[k:m + 1] = [*out[j:m + 1], *out[k:j]]
            k += m + 1 - j  # the captions' new place: more of them may follow, and the sentence go on after
        else:
            k = j + 1 if j > k else k + 1
    return [ln for ln, _ in out], [kd for _, kd in out]


def _assemble(read: list[_PageRead], pages: list[PageSize], data: bytes, title: str | None,
              floor: float = CONFIDENCE_FLOOR) -> tuple[str, str | None, Layout]:
    kept, aside = _set_aside(read, pages)
    ordered = [ln for p, frags in enumerate(kept)
               for ln in (read[p].ocr or [ln for region in _xy_cut(frags, pages[p].width)
                                          for ln in _lines(region, p + 1)])]
    # A sideways page's lines are read across its text (not yet turned back into reading order): what
    # they are cannot be told from them, and they are all kept as they are.
    kinds = [k if read[ln.page - 1].upright else LineKind.BODY for ln, k in zip(ordered, classify(ordered))]
    seen = sorted([*aside, *(ReadLine(ln.page, k.value, _box(ln), ln.text) for ln, k in zip(ordered, kinds))],
                  key=lambda r: r.page)  # stable: the running header first, then reading order
    ordered, kinds = _captions_aside(ordered, kinds)
    tally = TableTally()
    text, text_lines, blocks = _join(ordered, kinds, _table_statements(ordered, kinds, tally))
    if not text.strip():
        raise ReadError(NO_TEXT)
    starts = [b.start for b in blocks]
    sentences = split_sentences(text)
    citable = sum(blocks[bisect.bisect_right(starts, s.start) - 1].kind in (LineKind.BODY, ROW) for s in sentences)
    notes = [_report(len(pages), seen, len(sentences), citable, tally.rows)]
    if table_note := tally.note():
        notes.append(table_note)
    title = title if _sane_title(title) else _title_block(ordered, kinds)
    if ocr_note := _ocr_report(read, len(pages), floor):
        notes.append(ocr_note)
    layout = Layout(PDF, sha256_bytes(data), data, tuple(pages), tuple(text_lines), tuple(blocks),
                    notes=tuple(notes), read=tuple(seen))
    return text, title, layout
