"""A generated two-column paper with the furniture real papers carry, so a test knows which lines are prose.

One page of a research paper set like an arXiv preprint: the vertical arXiv stamp in the left margin, a title
block (title, authors, affiliation, e-mail addresses) over both columns, an "Abstract" heading, numbered section
headings set in bold at the body's size, a table with its caption inside the left column, and a references section
closing the right column. ``paper_pdf()`` returns the PDF and what a reader must make of it: the body sentences,
each exactly once, and the strings no citable body sentence may contain.
"""

from __future__ import annotations

import io
from typing import Any

STAMP = "arXiv:1912.01214v1 [cs.CL] 3 Dec 2019"
TITLE = "Multilingual Translation at Scale"
AUTHORS = "Ana Lima, Ben Okafor, Chen Wei"
AFFILIATION = "Example University, Department of Computing"
EMAILS = "ana@example.edu ben@example.edu"
CAPTION = "Table 3: BLEU by system and test year"
ROWS = ["MNMT 23.1 24.5 25.0", "Bilingual 22.0 23.4 24.1", "Pivot 21.7 22.9 23.5"]
REFERENCES = ["[1] Doe, J. (2019). Massively multilingual models. In Proceedings of the Translation Workshop, pp. 1-9.",
              "[2] Roe, R. et al. (2020). Pivots considered. arXiv preprint arXiv:2001.00001."]

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
]
RIGHT: list[Block] = [
    ("heading", "2 Models"),
    ("body", ["Both systems use the same vocabulary of", "sixty four thousand subword units.",
              "Training takes eleven days on eight", "accelerators."]),
    ("heading", "References"),
    ("refs", REFERENCES),
]

BODY_SENTENCES = [
    "We train one model for one hundred languages.",
    "It matches bilingual baselines on most pairs and improves the rarest ones.",
    "Translation systems are usually trained for one pair of languages at a time.",
    "A single model can share what it learns across related languages.",
    "The multilingual model gains about one point in every year of the test set.",
    "Both systems use the same vocabulary of sixty four thousand subword units.",
    "Training takes eleven days on eight accelerators.",
]
NOT_PROSE = ["arXiv", "cs.CL", AUTHORS, AFFILIATION, "example.edu", "Table 3", "23.1", "24.1", "Proceedings",
             "Pivots considered", "Introduction", "2 Models"]


def _column(c: Any, x: float, y: float, blocks: list[Block]) -> None:
    for kind, content in blocks:
        if kind == "heading":
            c.setFont("Helvetica-Bold", 10)
            c.drawString(x, y, content)
            y -= 16
            continue
        lines = [content] if isinstance(content, str) else content
        c.setFont("Helvetica", 8 if kind == "refs" else 10)
        for line in lines:
            c.drawString(x, y, line)
            y -= 12.5
        y -= 6


def draw_stamp(c: Any) -> None:
    """arXiv's identifier, vertical in the left margin (reportlab canvas ``c``)."""
    c.saveState()
    c.setFont("Times-Roman", 18)
    c.translate(36, 220)
    c.rotate(90)
    c.drawString(0, 0, STAMP)
    c.restoreState()


def paper_pdf() -> bytes:
    """The paper as PDF bytes (one US letter page, two columns of 220 points)."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    draw_stamp(c)
    c.setFont("Helvetica-Bold", 16)
    c.drawCentredString(306, 730, TITLE)
    c.setFont("Helvetica", 10)
    for k, line in enumerate([AUTHORS, AFFILIATION, EMAILS]):
        c.drawCentredString(306, 708 - 13 * k, line)
    _column(c, 72, 640, LEFT)
    _column(c, 320, 640, RIGHT)
    c.showPage()
    c.save()
    return buf.getvalue()
