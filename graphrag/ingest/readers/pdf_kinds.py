"""What each printed line of a PDF is: body text, a heading, a caption, a table row, a footnote ...

Judged from the PDF's own signals, relative to the document's body text: size and weight of the
font, position on the page, how the line is cut into fragments (a table's cells sit apart), its
neighbours, the closing "References" section and the first page's title block. Only body text
(with list items) reads as prose; headings become the heading path of the sentences under them;
captions, table rows and the title block stay in the text as paragraphs of their own (the answer
quotes none of them as a claim); the other kinds are left out of the text, and the reading report
counts them. Running headers, footers, page numbers and turned text are found earlier, in the
reader, and never reach this module as lines.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from enum import Enum
from typing import Protocol

from graphrag.language.sentences import CAPTION_START


class LineKind(str, Enum):
    """What a printed line is."""

    BODY = "body"
    HEADING = "heading"
    CAPTION = "caption"
    TABLE = "table"  # a table row
    INFOBOX = "infobox"  # a label and its value in a box of facts beside the text
    FIGURE_LABEL = "figure_label"  # an axis label, a tick value, a legend inside a figure
    FOOTNOTE = "footnote"
    EQUATION = "equation"
    AUTHOR = "author"  # a paper's title block below its title: authors, affiliations, e-mail addresses
    REFERENCE = "reference"  # a closing section of references or links
    RUNNING = "running"  # a running header or footer line
    PAGE_NUMBER = "page_number"
    STAMP = "stamp"  # text turned against the page: a margin stamp, a rotated label


# Kinds whose lines are part of the document's text. Of them, only body lines read as prose: the
# others stand as paragraphs of their own, and the extractor takes entities from body and headings only.
IN_TEXT = frozenset({LineKind.BODY, LineKind.HEADING, LineKind.CAPTION, LineKind.TABLE, LineKind.INFOBOX,
                     LineKind.AUTHOR})
EXTRACTED = frozenset({LineKind.BODY, LineKind.HEADING})
# The order the reading report names them in.
REPORT_ORDER = (LineKind.HEADING, LineKind.CAPTION, LineKind.TABLE, LineKind.INFOBOX, LineKind.AUTHOR, LineKind.FOOTNOTE,
                LineKind.EQUATION, LineKind.FIGURE_LABEL)
NAMES = {LineKind.BODY: ("body line", "body lines"), LineKind.HEADING: ("heading", "headings"),
         LineKind.CAPTION: ("caption line", "caption lines"), LineKind.TABLE: ("table row", "table rows"),
         LineKind.INFOBOX: ("infobox line", "infobox lines"),
         LineKind.FIGURE_LABEL: ("figure label", "figure labels"),
         LineKind.FOOTNOTE: ("footnote line", "footnote lines"), LineKind.EQUATION: ("equation", "equations"),
         LineKind.AUTHOR: ("title-block line", "title-block lines"),
         LineKind.REFERENCE: ("line of references and links", "lines of references and links"),
         LineKind.RUNNING: ("running header or footer line", "running header or footer lines"),
         LineKind.PAGE_NUMBER: ("page number", "page numbers"), LineKind.STAMP: ("turned text", "turned text")}


class PrintedLine(Protocol):
    """What the classifier reads of a line (the PDF reader's lines have all of it)."""

    page: int
    y0: float
    y1: float
    bold: bool
    cells: int  # fragments on the line: words set apart by wide gaps

    @property
    def text(self) -> str:
        """The line's characters."""
    @property
    def x0(self) -> float:
        """Left edge, in points."""
    @property
    def x1(self) -> float:
        """Right edge, in points."""
    @property
    def size(self) -> float:
        """The font size its body characters are set in (their median extent)."""


SMALL = 0.88  # a font this much smaller than the body's: captions, footnotes, figure text
LARGE = 1.15  # a font this much larger: a heading
_CELL = re.compile(r"^[-+(]?[$€£]?\d[\d.,]*%?\)?$|^[-–—]$")
_FOOTNOTE_MARK = re.compile(r"^\s*(?:\d{1,2}|[*∗†‡§¶])\s*\S")
_MATH = re.compile(r"[=<>≤≥≈≠∑Σ∫∏√∂∇±×∈∉⊂∀∃→←↦∞]|[\u0391-\u03c9]")
_EQUATION_NUMBER = re.compile(r"\(\s*\d{1,3}[a-z]?\s*\)\s*$")
_WORD = re.compile(r"[^\W\d_]{3,}")
_ENDS = ".!?;,"
# Sections of references and links that close a document: their lines cite other works, they state nothing
# about the subject, and half of a printed encyclopedia article can be such lines. "Notes" is not among them:
# an encyclopedia's notes are statements.
END_MATTER = frozenset({"references", "bibliography", "works cited", "citations", "sources", "literature cited",
                        "further reading", "external links", "see also", "reference list"})
END_MATTER_FROM = 0.25  # a heading in the first quarter of the lines is a table of contents' entry, not a section
_ABSTRACT = re.compile(r"^\s*abstract\s*(?:$|[.:—–-])", re.IGNORECASE)
FRONT_MATTER_LINES = 40  # a paper's title block is a few lines; an "Abstract" further down is no paper's opening


def heading_text(ln: PrintedLine) -> str:
    """The line as a heading is compared: spaces collapsed, no closing colon, lower case."""
    return " ".join(ln.text.split()).rstrip(":").lower()


def number_cells(ln: PrintedLine) -> bool:
    """A line that is mostly figures (a table row): at least three tokens, most of them numbers."""
    tokens = ln.text.split()
    return len(tokens) >= 3 and sum(bool(_CELL.match(t)) for t in tokens) > 0.5 * len(tokens)


_MARKERS = re.compile(r"(?:\s*\[\d{1,4}\])+$")  # citation markers closing a line ("Oklahoma. [30][31]")


def _short_unended(ln: PrintedLine, words: int) -> bool:
    text = _MARKERS.sub("", ln.text.rstrip())
    return len(text.split()) <= words and text[-1:] not in _ENDS


def _same_column(a: PrintedLine, b: PrintedLine) -> bool:
    return a.page == b.page and min(a.x1, b.x1) > max(a.x0, b.x0)


def body_size(lines: Sequence[PrintedLine]) -> float:
    """The font size most of the text is set in: the median over characters, not lines (a table's many
    short rows must not pull it toward their size)."""
    sizes = [ln.size for ln in lines for _ in range(max(1, len(ln.text) // 10))]
    return statistics.median(sizes) if sizes else 0.0


def _end_matter(lines: Sequence[PrintedLine], body: float) -> list[bool]:
    """Which lines belong to a closing section of references or links (``END_MATTER``).

    A section starts at a line that is only its heading and runs to the next heading at least as large
    that is not one of them; a heading set at the body's size runs to the end of the document or to an
    appendix."""
    out = [False] * len(lines)
    k, n = int(END_MATTER_FROM * len(lines)), len(lines)
    while k < n:
        if heading_text(lines[k]) not in END_MATTER:
            k += 1
            continue
        size = lines[k].size
        larger = size > 1.1 * body
        out[k] = True
        k += 1
        while k < n and heading_text(lines[k]) not in END_MATTER:
            words = lines[k].text.split()
            if lines[k].text.lstrip().lower().startswith("appendix") or (
                    larger and lines[k].size >= 0.95 * size and len(words) <= 8):
                break
            out[k] = True
            k += 1
    return out


def _front_matter(lines: Sequence[PrintedLine]) -> int:
    """How many lines open the document as a paper's title block: the first page's lines before its
    "Abstract" heading (0 when the page has no such heading near its top)."""
    for k, ln in enumerate(lines[:FRONT_MATTER_LINES]):
        if ln.page != 1:
            break
        if _ABSTRACT.match(ln.text):
            return k
    return 0


def _equation(ln: PrintedLine) -> bool:
    """Symbols rather than words: a mathematical operator, and few words of three letters or more (an
    equation's number "(3)" at the right counts for it)."""
    text = ln.text
    if not _MATH.search(text):
        return False
    tokens = text.split()
    words = sum(bool(_WORD.fullmatch(t.strip(".,;:()"))) for t in tokens)
    return words <= 0.4 * len(tokens) or (bool(_EQUATION_NUMBER.search(text)) and words <= 0.6 * len(tokens))


def _table(lines: Sequence[PrintedLine], k: int) -> bool:
    """A table row: mostly figures, or cells set apart on the line like the line before or after it."""
    ln = lines[k]
    if number_cells(ln):
        return True
    if ln.cells < 3:
        return False
    return any(0 <= j < len(lines) and lines[j].cells >= 3 and _same_column(ln, lines[j]) for j in (k - 1, k + 1))


def _figure_label(lines: Sequence[PrintedLine], k: int, body: float) -> bool:
    """Text inside a figure: set small, a few words, a single fragment, no sentence end (an axis label, a
    tick value, a legend entry), standing alone: a line of small text wrapped onto the next, or from the
    one before, is an image's caption or an infobox's cell."""
    ln = lines[k]
    if not (ln.size <= SMALL * body and ln.cells <= 1 and _short_unended(ln, 4)):
        return False
    return not ((k > 0 and _continues(lines[k - 1], ln, body))
                or (k + 1 < len(lines) and _continues(ln, lines[k + 1], body)))


def _heading(ln: PrintedLine, body: float) -> bool:
    """Larger than the body, or bold at its size, and short without a sentence end."""
    if ln.size >= LARGE * body:
        return _short_unended(ln, 20)
    return ln.bold and _short_unended(ln, 12)


def classify(lines: Sequence[PrintedLine]) -> list[LineKind]:
    """The kind of each line, in reading order (running headers, footers, page numbers and turned text
    already set aside)."""
    body = body_size(lines)
    kinds = [LineKind.BODY] * len(lines)
    closing = _end_matter(lines, body)
    front = _front_matter(lines)
    for k, ln in enumerate(lines):
        prev = lines[k - 1] if k else None
        before = kinds[k - 1] if k else None
        if closing[k]:
            kinds[k] = LineKind.REFERENCE
        elif k < front:
            kinds[k] = LineKind.HEADING if ln.size >= LARGE * body else LineKind.AUTHOR
        elif k == front and front:
            kinds[k] = LineKind.HEADING  # "Abstract"
        elif CAPTION_START.match(ln.text):
            kinds[k] = LineKind.CAPTION
        elif _table(lines, k) or (before is LineKind.TABLE and ln.cells >= 2 and prev is not None
                                  and ln.page == prev.page):
            kinds[k] = LineKind.TABLE  # (a row with an empty cell goes on the table above it)
        elif before is LineKind.CAPTION and _continues(prev, ln, body):
            kinds[k] = LineKind.CAPTION
        elif _equation(ln):
            kinds[k] = LineKind.EQUATION
        elif _footnote(lines, k, body, wrapped=before is LineKind.FOOTNOTE and _continues(prev, ln, body)):
            kinds[k] = LineKind.FOOTNOTE
        elif _heading(ln, body):
            kinds[k] = LineKind.HEADING
        elif _figure_label(lines, k, body):
            # a cell standing alone beside a table's rows (a year spanning several rows) is the table's
            beside_table = any(0 <= j < len(lines) and lines[j].page == ln.page and _table(lines, j)
                               for j in (k - 1, k + 1))
            kinds[k] = LineKind.TABLE if beside_table else LineKind.FIGURE_LABEL
    _within_tables(lines, kinds)
    _infoboxes(lines, kinds, body)
    _floating_captions(lines, kinds, body)
    return kinds


FLOAT_WIDTH = 0.6  # a picture's caption beside the text sits in a strip at most this share of the body's width


def _floating_captions(lines: Sequence[PrintedLine], kinds: list[LineKind], body: float) -> None:
    """Blocks of small lines that are a picture's caption without a "Figure 3:" opening (an encyclopedia's image
    beside the text): set small, one under the other at one size, in a strip much narrower than the body's lines;
    a block of one line only where it sits off the text's left edge (a short line of footnote marks does not).
    Read as body text they were glued into the sentence beside them ("... its own police force The present U.S.
    Supreme Court ..."). Lines are chained by position, not reading order: the rows beside a picture interleave
    its caption's lines with the text's."""
    body_lines = [ln for ln, k in zip(lines, kinds) if k is LineKind.BODY and ln.size > SMALL * body]
    if not body_lines:
        return
    text_width = statistics.median(ln.x1 - ln.x0 for ln in body_lines)
    left = statistics.median(ln.x0 for ln in body_lines)
    small = sorted((k for k, ln in enumerate(lines) if ln.size <= SMALL * body
                    and kinds[k] in (LineKind.BODY, LineKind.FIGURE_LABEL)), key=lambda k: (lines[k].page, lines[k].y0))
    blocks: list[list[int]] = []
    for k in small:
        ln = lines[k]
        block = next((b for b in reversed(blocks[-4:]) if _under(lines[b[-1]], ln)), None)
        if block is None:
            blocks.append([k])
        else:
            block.append(k)
    for block in blocks:
        run = [lines[k] for k in block]
        narrow = max(ln.x1 for ln in run) - min(ln.x0 for ln in run) <= FLOAT_WIDTH * text_width
        off_edge = min(ln.x0 for ln in run) > left + 0.25 * text_width
        if narrow and (len(run) >= 2 or (off_edge and kinds[block[0]] is LineKind.BODY)):
            for k in block:
                kinds[k] = LineKind.CAPTION


def _under(a: PrintedLine, b: PrintedLine) -> bool:
    """``b`` is the next line of ``a``'s block: same page and size, overlapping, right below it."""
    return (a.page == b.page and abs(a.size - b.size) <= 0.05 * max(a.size, b.size)
            and min(a.x1, b.x1) > max(a.x0, b.x0) and 0 <= b.y0 - a.y1 <= 0.75 * b.size)


INFOBOX_SIZE = 0.92  # an infobox is set a little smaller than the body
INFOBOX_LINES = 4


def _infoboxes(lines: Sequence[PrintedLine], kinds: list[LineKind], body: float) -> None:
    """Runs of lines that are a box of facts beside the text: set smaller than the body, at least four lines,
    most of them a label and a value set apart, all within a strip under half as wide as the body's lines (an
    encyclopedia's infobox: "Capital    Oklahoma City"). Its section labels, in bold, are the box's too."""
    widths = [ln.x1 - ln.x0 for ln, k in zip(lines, kinds) if k is LineKind.BODY and ln.size > INFOBOX_SIZE * body]
    if not widths:
        return
    text_width = statistics.median(widths)
    k, n = 0, len(lines)
    while k < n:
        j = k
        while j < n and lines[j].page == lines[k].page and lines[j].size <= INFOBOX_SIZE * body \
                and kinds[j] in (LineKind.BODY, LineKind.HEADING, LineKind.TABLE, LineKind.FIGURE_LABEL):
            j += 1
        run = lines[k:j]
        if len(run) >= INFOBOX_LINES and sum(ln.cells >= 2 for ln in run) >= 0.5 * len(run) \
                and max(ln.x1 for ln in run) - min(ln.x0 for ln in run) <= 0.5 * text_width:
            kinds[k:j] = [LineKind.INFOBOX] * len(run)
        k = max(j, k + 1)


def _within_tables(lines: Sequence[PrintedLine], kinds: list[LineKind]) -> None:
    """Lines lying inside a table's area are its cells: a row whose cells the reading order took apart
    ("F'Nale Zandor  Steven Spielberg" after a title cell read on its own) is a row all the same."""
    areas: list[list[float]] = []  # [page, x0, y0, x1, y1] around runs of table rows
    rows = sorted((ln.page, ln.y0, k) for k, ln in enumerate(lines) if kinds[k] is LineKind.TABLE)
    for page, _, k in rows:
        ln = lines[k]
        last = areas[-1] if areas else None
        if last is not None and last[0] == page and ln.y0 - last[4] <= 2.5 * ln.size \
                and min(last[3], ln.x1) > max(last[1], ln.x0):
            last[1], last[3], last[4] = min(last[1], ln.x0), max(last[3], ln.x1), max(last[4], ln.y1)
        else:
            areas.append([page, ln.x0, ln.y0, ln.x1, ln.y1])
    for k, ln in enumerate(lines):
        if kinds[k] not in (LineKind.BODY, LineKind.FIGURE_LABEL):
            continue
        cx, cy = (ln.x0 + ln.x1) / 2, (ln.y0 + ln.y1) / 2
        if any(a[0] == ln.page and a[1] <= cx <= a[3] and a[2] <= cy <= a[4] and ln.x1 <= a[3] + ln.size
               for a in areas):
            kinds[k] = LineKind.TABLE


def _continues(prev: PrintedLine | None, ln: PrintedLine, body: float) -> bool:
    """The next line of the same block: same column, same size, no paragraph gap, and (at the body's size)
    the line before did not end a sentence."""
    if prev is None or not _same_column(prev, ln) or abs(prev.size - ln.size) > 0.05 * max(prev.size, ln.size):
        return False
    if ln.y0 - prev.y1 > 0.75 * ln.size or prev.x1 < ln.x1 - 0.5 * ln.size:
        return False  # a gap, or the line before did not run to the end of its line: it was not wrapped
    return ln.size < 0.95 * body or prev.text.rstrip()[-1:] not in ".!?"


def _footnote(lines: Sequence[PrintedLine], k: int, body: float, wrapped: bool) -> bool:
    """Set small below every body-size line of its column, opening with a mark ("1", "*", "†"), or the next line
    of such a footnote (``wrapped``)."""
    ln = lines[k]
    return ln.size <= SMALL * body and (wrapped or bool(_FOOTNOTE_MARK.match(ln.text))) and _low_on_page(ln, lines, k)


def _low_on_page(ln: PrintedLine, lines: Sequence[PrintedLine], k: int) -> bool:
    """Below every body-size line of its column on its page: where footnotes sit."""
    return not any(o.page == ln.page and o.y0 > ln.y1 and _same_column(o, ln) and o.size > 1.05 * ln.size
                   for o in lines[k + 1:k + 60])
