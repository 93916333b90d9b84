"""A generated two-column paper with the furniture real papers carry, so a test knows what every line is.

One page of a research paper set like an arXiv preprint: the vertical arXiv stamp in the left margin, a title
block (title, authors, affiliation, e-mail addresses) over both columns, an "Abstract" heading, numbered section
headings set in bold at the body's size, a table with its caption and a numbered equation in the left column, a
footnote at its foot, a figure (axis labels, tick values, a legend) with a two-line caption in the right column,
and a references section closing it. ``paper_pdf()`` returns the PDF; ``LINES`` lists every printed line with
its kind (the reader's ``LineKind`` values), ``BODY_SENTENCES`` the prose each exactly once, and ``NOT_PROSE``
strings no citable body sentence may contain.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

STAMP = "arXiv:1912.01214v1 [cs.CL] 3 Dec 2019"
TITLE = "Multilingual Translation at Scale"
AUTHORS = "Ana Lima, Ben Okafor, Chen Wei"
AFFILIATION = "Example University, Department of Computing"
EMAILS = "ana@example.edu ben@example.edu"
CAPTION = "Table 3: BLEU by system and test year"
ROWS = ["MNMT 23.1 24.5 25.0", "Bilingual 22.0 23.4 24.1", "Pivot 21.7 22.9 23.5"]
EQUATION = "L = - log p(y | x) + 0.1 * ||w||^2     (1)"
FOOTNOTE = ["1 Code and data are available from the authors on request,", "with the scripts that draw each figure."]
FIGURE_LABELS = ["Accuracy", "0.8", "0.6", "0.4", "Epochs", "MNMT"]
FIGURE_CAPTION = ["Figure 1: Accuracy on the development set by", "epoch, for the multilingual model."]
REFERENCES = ["[1] Doe, J. (2019). Massively multilingual models. In Proceedings of the Translation Workshop, pp. 1-9.",
              "[2] Roe, R. et al. (2020). Pivots considered. arXiv preprint arXiv:2001.00001.",
              "[3] Lee, K. (2021). Small data. Journal of Example Studies, vol. 4.",
              "[4] Park, S. (2022). Subwords. In Proceedings of the Workshop, pp. 5-8.",
              "[5] Novak, M. (2018). Low-resource pairs. Journal of Example Studies, vol. 2.",
              "[6] Silva, R. (2020). Shared vocabularies. arXiv preprint arXiv:2002.00002.",
              "[7] Tanaka, H. (2021). Pivot languages. In Proceedings of the Workshop, pp. 9-12.",
              "[8] Weber, L. (2019). Test years. Journal of Example Studies, vol. 3."]


@dataclass(frozen=True)
class Drawn:
    """A line as drawn: its page, text and box (x0, y0, x1, y1 in points, origin at the top-left corner,
    the font's ascent to descent around the baseline, as PDF viewers box a line)."""

    page: int
    text: str
    box: tuple[float, float, float, float]


def _canvas(buf: io.BytesIO) -> Any:
    """A reportlab canvas that records every upright line it draws in ``.drawn``."""
    from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth
    from reportlab.pdfgen import canvas

    class Recording(canvas.Canvas):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(buf, pagesize=(612, 792))
            self.drawn: list[Drawn] = []
            self.turned = False

        def _record(self, x: float, y: float, text: str) -> None:
            if self.turned:
                return
            asc, desc = getAscentDescent(self._fontname, self._fontsize)
            w = stringWidth(text, self._fontname, self._fontsize)
            self.drawn.append(Drawn(self.getPageNumber(), " ".join(text.split()),
                                    (x, 792 - y - asc, x + w, 792 - y - desc)))

        def drawString(self, x: float, y: float, text: str, *args: Any, **kw: Any) -> None:
            self._record(x, y, text)
            super().drawString(x, y, text, *args, **kw)

        def drawCentredString(self, x: float, y: float, text: str, *args: Any, **kw: Any) -> None:
            self._record(x - stringWidth(text, self._fontname, self._fontsize) / 2, y, text)
            super().drawCentredString(x, y, text, *args, **kw)

    return Recording()

# Each column: (kind, text) in reading order; body paragraphs are lists of lines, a sentence may cross lines.
Block = tuple[str, "str | list[str]"]
LEFT: list[Block] = [
    ("heading", "Abstract"),
    ("body", ["We train one model for one hundred languages.", "It matches bilingual baselines on",
              "most pairs and improves the rarest ones."]),
    ("heading", "1 Introduction"),
    ("body", ["Translation systems are usually trained", "for one pair of languages at a time.",
              "A single model can share what it learns", "across related languages."]),
    ("caption", CAPTION),
    ("rows", ROWS),
    ("body", ["The multilingual model gains about one", "point in every year of the test set."]),
    ("equation", EQUATION),
    ("body", ["The loss adds a small penalty on the", "weights to the likelihood."]),
]
RIGHT: list[Block] = [
    ("heading", "2 Models"),
    ("body", ["Both systems use the same vocabulary of", "sixty four thousand subword units.",
              "Training takes eleven days on eight", "accelerators."]),
    ("figure", FIGURE_LABELS),
    ("figure_caption", FIGURE_CAPTION),
    ("heading", "3 Results"),
    ("body", ["The multilingual model wins on forty", "of the fifty pairs we test.",
              "It loses on the six pairs with the", "least training data."]),
    ("heading", "References"),
    ("refs", REFERENCES),
]

BODY_SENTENCES = [
    "We train one model for one hundred languages.",
    "It matches bilingual baselines on most pairs and improves the rarest ones.",
    "Translation systems are usually trained for one pair of languages at a time.",
    "A single model can share what it learns across related languages.",
    "The multilingual model gains about one point in every year of the test set.",
    "The loss adds a small penalty on the weights to the likelihood.",
    "Both systems use the same vocabulary of sixty four thousand subword units.",
    "Training takes eleven days on eight accelerators.",
    "The multilingual model wins on forty of the fifty pairs we test.",
    "It loses on the six pairs with the least training data.",
]
NOT_PROSE = ["arXiv", "cs.CL", AUTHORS, AFFILIATION, "example.edu", "Table 3", "23.1", "24.1", "Proceedings",
             "Pivots considered", "Introduction", "2 Models",
             "log p", "available from the authors", "Epochs", "Accuracy", "Figure 1"]

# Every printed line and its kind, as the reader is to classify it.
LINES: list[tuple[str, str]] = [
    ("stamp", STAMP), ("heading", TITLE), *(("author", t) for t in (AUTHORS, AFFILIATION, EMAILS)),
    *((("reference" if t == "References" else kind), t) for blocks in (LEFT, RIGHT) for kind, content in blocks
      for t in ([content] if isinstance(content, str) else content)
      if kind not in ("figure", "figure_caption", "rows", "refs")),
    *(("table", t) for t in ROWS), *(("figure_label", t) for t in FIGURE_LABELS),
    *(("caption", t) for t in FIGURE_CAPTION), *(("reference", t) for t in REFERENCES),
    *(("footnote", t) for t in FOOTNOTE),
]


def _figure(c: Any, x: float, y: float) -> float:
    """Axes with a curve, their labels set small, one per line; returns the y below the figure."""
    c.rect(x + 30, y - 100, 170, 90)
    c.line(x + 30, y - 90, x + 200, y - 20)
    c.setFont("Helvetica", 7)
    c.drawString(x, y, FIGURE_LABELS[0])
    for k, tick in enumerate(FIGURE_LABELS[1:4]):
        c.drawString(x + 12, y - 25 - 30 * k, tick)
    c.drawString(x + 100, y - 112, FIGURE_LABELS[4])
    c.drawString(x + 150, y - 45, FIGURE_LABELS[5])
    return y - 130


def _column(c: Any, x: float, y: float, blocks: list[Block]) -> None:
    for kind, content in blocks:
        if kind == "figure":
            y = _figure(c, x, y)
            continue
        if kind == "heading":
            c.setFont("Helvetica-Bold", 10)
            c.drawString(x, y, content)
            y -= 16
            continue
        lines = [content] if isinstance(content, str) else content
        c.setFont("Helvetica", {"refs": 8, "figure_caption": 9}.get(kind, 10))
        for line in lines:
            c.drawString(x, y, line)
            y -= 12.5
        y -= 6


def draw_stamp(c: Any) -> None:
    """arXiv's identifier, vertical in the left margin (reportlab canvas ``c``)."""
    c.saveState()
    c.turned = True  # a recording canvas leaves it out of what it records as upright
    c.setFont("Times-Roman", 18)
    c.translate(36, 220)
    c.rotate(90)
    c.drawString(0, 0, STAMP)
    c.restoreState()
    c.turned = False


def paper_pdf() -> bytes:
    """The paper as PDF bytes (one US letter page, two columns of 220 points)."""
    return paper_drawn()[0]


def paper_drawn() -> tuple[bytes, list[Drawn]]:
    """The paper, and every upright line as drawn."""
    buf = io.BytesIO()
    c = _canvas(buf)
    draw_stamp(c)
    c.setFont("Helvetica-Bold", 16)
    c.drawCentredString(306, 730, TITLE)
    c.setFont("Helvetica", 10)
    for k, line in enumerate([AUTHORS, AFFILIATION, EMAILS]):
        c.drawCentredString(306, 708 - 13 * k, line)
    _column(c, 72, 640, LEFT)
    _column(c, 320, 640, RIGHT)
    c.line(72, 242, 150, 242)  # the footnote's rule
    c.setFont("Helvetica", 7)
    for k, line in enumerate(FOOTNOTE):
        c.drawString(72, 230 - 9 * k, line)
    c.showPage()
    c.save()
    return buf.getvalue(), c.drawn


# A two-page report: a running header and page numbers, a larger section heading, and a table whose rows
# (cells set apart, drawn one by one) run from the foot of page 1 onto the top of page 2.
REPORT_HEADER = "Quarterly operations report"
REPORT_ROWS = [["Region", "Jan", "Feb", "Mar"], *([name, str(100 + 7 * k), str(110 + 5 * k), str(120 + 3 * k)]
                                                  for k, name in enumerate(["North", "South", "East", "West",
                                                                            "Central", "Coast", "Hills", "Lakes"]))]
REPORT_BODY = [["Support tickets fell in every region this quarter,", "and the busiest month was March."],
               ["Most of the growth came from two regions,", "where the new product was released early."]]
REPORT_FOOTNOTE = "2 Counts exclude tickets closed as duplicates."
REPORT_SENTENCES = ["Support tickets fell in every region this quarter, and the busiest month was March.",
                    "Most of the growth came from two regions, where the new product was released early."]


def _report_page(c: Any, page: int) -> None:
    c.setFont("Helvetica", 8)
    c.drawString(72, 760, REPORT_HEADER)
    c.drawString(540, 40, str(page))
    rows = REPORT_ROWS[:6] if page == 1 else REPORT_ROWS[6:]
    y = 700
    if page == 1:
        c.setFont("Helvetica-Bold", 14)
        c.drawString(72, y, "1 Overview")
        y -= 24
        c.setFont("Helvetica", 10)
        for line in REPORT_BODY[0]:
            c.drawString(72, y, line)
            y -= 13
        y -= 200  # the table starts at the foot of the page
        c.drawString(72, y, "Table 1: Tickets by region and month")
        y -= 18
    c.setFont("Helvetica", 10)
    for row in rows:
        for x, cell in zip((72, 200, 280, 360), row):
            c.drawString(x, y, cell)
        y -= 14
    if page == 2:
        y -= 12
        for line in REPORT_BODY[1]:
            c.drawString(72, y, line)
            y -= 13
        c.setFont("Helvetica", 7)
        c.drawString(72, 90, REPORT_FOOTNOTE)


def report_drawn() -> tuple[bytes, list[Drawn]]:
    """The report as PDF bytes (two US letter pages), and every line as drawn (a table row cell by cell)."""
    buf = io.BytesIO()
    c = _canvas(buf)
    for page in (1, 2):
        _report_page(c, page)
        c.showPage()
    c.save()
    return buf.getvalue(), c.drawn


REPORT_LINES: list[tuple[str, str]] = [
    *(("running", REPORT_HEADER) for _ in range(2)), ("page_number", "1"), ("page_number", "2"),
    ("heading", "1 Overview"), *(("body", t) for para in REPORT_BODY for t in para),
    ("caption", "Table 1: Tickets by region and month"), *(("table", " ".join(r)) for r in REPORT_ROWS),
    ("footnote", REPORT_FOOTNOTE),
]


# An encyclopedia page: a title, prose in a column, and an infobox beside it (a bold name, a heading, over label
# and value pairs set smaller, the values an em and more to the right of their labels).
ARTICLE_TITLE = "Example City"
ARTICLE_BODY = ["Example City is the largest town of the northern province of the country.",
                "It grew around a river crossing and a market that is still held in the old",
                "square every week. The old bridge was rebuilt in stone after a great flood."]
INFOBOX = [("Country", "Exampleland"), ("Founded", "1850"), ("Population", "120,000"), ("Mayor", "Jane Roe"),
           ("Area", "45 square kilometres")]
ARTICLE_SENTENCES = ["Example City is the largest town of the northern province of the country.",
                     "It grew around a river crossing and a market that is still held in the old square every week.",
                     "The old bridge was rebuilt in stone after a great flood."]


def article_drawn() -> tuple[bytes, list[Drawn]]:
    """The encyclopedia page as PDF bytes (one US letter page), and every line as drawn (an infobox row label
    and value apart)."""
    buf = io.BytesIO()
    c = _canvas(buf)
    c.setFont("Times-Bold", 24)
    c.drawString(50, 720, ARTICLE_TITLE)
    c.setFont("Times-Roman", 11)
    for k, line in enumerate(ARTICLE_BODY):
        c.drawString(50, 680 - 14 * k, line)
    c.setFont("Helvetica-Bold", 10)
    c.drawString(420, 684, ARTICLE_TITLE)
    c.setFont("Helvetica", 9)
    for k, (label, value) in enumerate(INFOBOX):
        c.drawString(400, 668 - 13 * k, label)
        c.drawString(470, 668 - 13 * k, value)
    c.showPage()
    c.save()
    return buf.getvalue(), c.drawn


ARTICLE_LINES: list[tuple[str, str]] = [
    ("heading", ARTICLE_TITLE), *(("body", t) for t in ARTICLE_BODY), ("heading", ARTICLE_TITLE),  # the box's name
    *(("infobox", f"{label} {value}") for label, value in INFOBOX),
]
