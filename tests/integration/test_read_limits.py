"""Every part of every format is bounded before a parser loads it whole (graphrag/ingest/readers/limits.py).

Before: a 509 KB DOCX whose styles.xml unpacked to 150 MB took 156 s and 2.2 GB (only the archive's total was
checked, at 200 MB); a 50-page PDF of drawing operators with no glyph took 60 s to end in "no text layer"; a
one-page PDF whose content unpacks to 50 MB took 714 MB to load; a 4 KB PDF of glyph runs was read and parsed
for minutes. Each is now refused with the bound it passed, from the ZIP directory or a child process that
loads the PDF's pages under a memory and time ceiling, before the reader proper starts.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time

import pytest

from doc_helpers import LINE, docx_with_part, drawing_pdf, glyph_run_pdf, pdf_with, raw_pdf
from graphrag.ingest.documents import Rejected, Source, source_from_bytes
from graphrag.ingest.readers import ReadError, TooManyWords, read_document
from graphrag.ingest.readers.limits import LIMITS
from graphrag.ingest.readers.pdf import read_pdf

# heavy (draws and reads oversized PDF and DOCX files to the readers' bounds): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]


def _refused(data: bytes, suffix: str, **kwargs: object) -> tuple[str, float]:
    t0 = time.perf_counter()
    with pytest.raises(ReadError) as err:
        if kwargs:
            read_pdf(data, **kwargs)  # type: ignore[arg-type]
        else:
            read_document(data, suffix)
    return str(err.value), time.perf_counter() - t0


# --- DOCX: every part, from the ZIP directory, before python-docx --------------------------------------------------

STYLE = b'<w:style w:type="character" w:customStyle="1" w:styleId="X"><w:name w:val="X"/></w:style>'


def test_a_style_sheet_past_its_part_limit_is_refused_from_the_directory() -> None:
    data = docx_with_part("word/styles.xml", STYLE, 20)  # 20 MB of styles packed into about 70 KB
    message, seconds = _refused(data, ".docx")
    m = re.match(r"the DOCX part word/styles.xml unpacks to ([\d,]+) bytes", message)
    assert m and int(m.group(1).replace(",", "")) > 19_000_000, message
    assert f"the limit is {LIMITS.docx_xml_part_bytes:,} for that part" in message
    assert seconds < 2, f"{seconds:.1f} s: the part was unpacked"


def test_a_part_packed_past_the_ratio_is_refused_whatever_its_name() -> None:
    data = docx_with_part("word/media/image1.png", STYLE, 5)  # under every size limit, packed 300 times
    message, _ = _refused(data, ".docx")
    assert "the DOCX part word/media/image1.png unpacks" in message and "times larger than it is packed" in message
    assert f"the limit is {LIMITS.docx_ratio} times" in message


def test_a_part_of_too_many_elements_is_refused_before_it_is_parsed() -> None:
    """Random attribute values pack about twice: within the ratio and the size, past the elements."""
    many = b"".join(b'<w:s w:v="%s"/>' % os.urandom(3).hex().encode() for _ in range(LIMITS.docx_part_elements + 10))
    data = docx_with_part("word/numbering.xml", many, len(many) / 1_000_000)
    message, seconds = _refused(data, ".docx")
    assert f"the DOCX part word/numbering.xml has more than {LIMITS.docx_part_elements:,} XML elements" in message
    assert seconds < 10


# --- PDF: pages loaded in a child under a ceiling, first --------------------------------------------------------

def test_a_page_of_too_many_drawn_objects_is_refused_at_that_page() -> None:
    message, seconds = _refused(drawing_pdf(50, 120_000), ".pdf")
    assert message.startswith("page 1 draws 120,000 objects; the limit is 100,000 a page"), message
    assert seconds < 10


def test_a_scan_of_two_thousand_blank_pages_is_refused_before_any_page_is_read_by_ocr() -> None:
    """Past the OCR page bound the survey stops (page 101 of 2,000), before a page is rendered."""
    message, seconds = _refused(pdf_with(lambda c, i: c.line(10, 10, 500, 500), pages=2_000), ".pdf")
    assert message == (f"more than {LIMITS.ocr_pages} pages have no text layer (scanned images) by page "
                       f"{LIMITS.ocr_pages + 1} of 2,000; OCR reads at most {LIMITS.ocr_pages} pages a document: "
                       "split it, or export its text")
    assert seconds < 30


def test_a_pdf_of_drawings_only_is_refused_with_its_reason() -> None:
    few = pdf_with(lambda c, i: c.line(10, 10, 500, 500), pages=2)  # no glyph, no picture: nothing for OCR
    assert _refused(few, ".pdf")[0].startswith("no text found: this PDF has no text layer, and OCR found no line")


def test_pages_of_drawings_before_text_still_read() -> None:
    data = pdf_with(lambda c, i: c.drawString(72, 700, LINE) if i == 4 else c.line(10, 10, 500, 500), pages=5)
    read = read_document(data, ".pdf")
    assert read.text == LINE
    assert "4 of 5 pages have no text layer and no picture (drawings only) and were skipped" in read.layout.notes[1]


def test_a_page_past_the_memory_ceiling_is_refused_and_the_reader_never_loads_it() -> None:
    """One page whose content unpacks to 50 MB of lines: 714 MB to load in PDFium, from a 120 KB file."""
    data = raw_pdf(1, b"10 10 m 600 780 l S\n" * 2_500_000)
    tight = dataclasses.replace(LIMITS, pdf_survey_memory=400_000_000)
    message, seconds = _refused(data, ".pdf", limits=tight)
    assert message.startswith("loading this PDF's pages needed more than 400 MB of memory"), message
    assert seconds < 15


def test_a_page_past_the_time_bounds_is_refused() -> None:
    data = drawing_pdf(3, 60_000)
    per_page = dataclasses.replace(LIMITS, pdf_page_seconds=0.001)
    message, _ = _refused(data, ".pdf", limits=per_page)
    assert message.startswith("page 1 took") and "of processor time to load; the limit is 0.001 s a page" in message
    whole = dataclasses.replace(LIMITS, pdf_survey_seconds=1.0)
    message, _ = _refused(drawing_pdf(60, 60_000), ".pdf", limits=whole)
    assert message.startswith("loading this PDF's pages took more than 1 s of processor time"), message


# --- every format: the parser's work is per word ----------------------------------------------------------------

def test_glyph_runs_are_refused_by_their_words_before_the_reader_reads_a_glyph() -> None:
    """Three pages each one run of "A A A ...": 98 K characters that spaCy parsed in 47 s (and MiniLM encoded in
    21 s) on the loaded machine, from a 1 KB file."""
    data = glyph_run_pdf(3, 8_000)
    t0 = time.perf_counter()
    with pytest.raises(TooManyWords, match=r"more than 6,000 words \(8,000 by page 2 of 3"):
        read_pdf(data, max_chars=18_000)
    assert time.perf_counter() - t0 < 5
    assert read_pdf(data, max_chars=60_000)[0].startswith("A A A")  # within the bound it is read


@pytest.mark.parametrize("name", ["runs.md", "runs.html"])
def test_every_format_counts_words(name: str) -> None:
    text = "A " * 12_000
    data = text.encode() if name.endswith(".md") else f"<html><body><p>{text}</p></body></html>".encode()
    item = source_from_bytes("d", data, name, None, ("public",), None, max_chars=30_000)
    assert isinstance(item, Rejected) and "more than 10,000 words" in item.reason and "GRAPHRAG_MAX_DOCUMENT_CHARS" \
        in item.reason, item
    prose = ((LINE + " ") * 300).encode()  # 22,800 characters of prose: 3,900 words
    assert isinstance(source_from_bytes("d", prose, "prose.md", None, ("public",), None, max_chars=30_000), Source)


def test_a_pdf_that_cannot_be_checked_is_refused_not_read_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrag.ingest.readers import pdf_survey

    def no_process(*args: object, **kwargs: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(pdf_survey.subprocess, "run", no_process)
    message, _ = _refused(pdf_with(lambda c, i: c.drawString(72, 700, LINE)), ".pdf")
    assert message.startswith("the PDF could not be checked before reading: no process could be started"), message
