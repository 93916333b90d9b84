"""What the PDF reader leaves out of the citable text, and says it left out (issue 24): a margin stamp turned
against the page (arXiv's vertical identifier was read one letter per line into the body), running headers and
footers, page numbers. A page printed sideways keeps all its text."""

from __future__ import annotations

import pytest

from doc_helpers import pdf_with
from graphrag.ingest.readers.pdf import read_pdf
from graphrag.text import split_sentences

pytestmark = pytest.mark.unit

BODY = ["Exports are generated automatically every night for each workspace.",
        "The generated files are kept for thirty days and then deleted.",
        "Owners can download them from the settings page at any time."]
STAMP = "arXiv:1912.01214v1 [cs.CL] 3 Dec 2019"


def _body(c, x: float = 72, y: float = 700) -> None:
    c.setFont("Helvetica", 11)
    for line in BODY:
        c.drawString(x, y, line)
        y -= 14


def _stamp(c) -> None:
    c.saveState()
    c.setFont("Times-Roman", 20)
    c.translate(30, 250)
    c.rotate(90)
    c.drawString(0, 0, STAMP)
    c.restoreState()


@pytest.mark.parametrize("stamp_first", [True, False])
def test_a_margin_stamp_is_left_out_of_the_sentences_and_named_in_the_report(stamp_first: bool) -> None:
    def draw(c, i: int) -> None:
        if stamp_first:  # arXiv draws its stamp before the page's text
            _stamp(c)
        _body(c)
        if not stamp_first:
            _stamp(c)

    text, _, layout = read_pdf(pdf_with(draw))
    assert [s.text for s in split_sentences(text)] == BODY
    assert "arXiv" not in text and "cs.CL" not in text
    (note,) = layout.notes
    assert "turned text on page 1" in note and STAMP in note


def test_a_page_printed_sideways_keeps_its_text() -> None:
    def draw(c, i: int) -> None:
        c.saveState()
        c.translate(560, 72)
        c.rotate(90)
        _body(c, x=0, y=0)
        c.restoreState()

    text, _, layout = read_pdf(pdf_with(draw))
    # Nothing is set aside (the page's own direction is sideways); lines read across a turned page are not
    # yet put back in order, so only the characters are compared.
    assert sorted("".join(text.split())) == sorted("".join("".join(BODY).split()))
    assert layout.notes == ()


def test_running_headers_and_page_numbers_are_counted_in_the_report() -> None:
    def draw(c, i: int) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 760, "Larkspur administration guide")
        c.drawString(300, 30, str(i + 1))
        _body(c)

    text, _, layout = read_pdf(pdf_with(draw, pages=3))
    assert "administration guide" not in text
    (note,) = layout.notes
    assert "3 running header or footer lines" in note and "3 page numbers" in note
