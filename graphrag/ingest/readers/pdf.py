"""PDF reader: text in reading order with a box per printed line, through PDFium (pypdfium2).

Steps per page: PDFium's characters with their loose boxes (font ascent to descent, so every
line of one font has the same height) -> line fragments (a new fragment at a line break, a
baseline change or a wide horizontal gap) -> running headers, footers and page numbers set
aside (a line in the top or bottom band that repeats across pages, digits ignored, or is a
bare page number), and so is text turned against the page's own (a margin stamp such as arXiv's
vertical identifier, a rotated axis label) -> reading order by recursive XY-cut (columns first where a gutter splits
the region into two wide parts, else rows at the widest vertical gaps) -> lines joined into
text, paragraphs where the gap or the font size says so, hyphenated line ends joined.

The steps live in modules beside this one: ``pdf_survey`` (every bound, checked in a child before a page is
loaded), ``pdf_lines`` (characters, fragments, reading order, lines), ``pdf_furniture`` (running headers, footers,
page numbers), ``pdf_ocr`` (pages without a text layer), ``pdf_kinds`` (what each line is), ``pdf_tables`` (table
rows as statements, captions), ``pdf_join`` (lines joined into text) and ``pdf_assemble`` (the text, title, layout
and reading report). This module opens the PDF and reads it page by page.
"""

from __future__ import annotations

import dataclasses
import threading
import time

import pypdfium2 as pdfium

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.budget import CharBudget, TooManyWords, words_message
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import Layout
from graphrag.ingest.readers.limits import LIMITS, ReadLimits
from graphrag.ingest.readers.ocr import PageProgress
from graphrag.ingest.readers.pdf_assemble import NO_TEXT, assemble
from graphrag.ingest.readers.pdf_lines import PageRead, page_fragments
from graphrag.ingest.readers.pdf_ocr import check_pictures, ocr_page, page_pictures
from graphrag.ingest.readers.pdf_survey import Survey, SurveyFailed, run_survey
from graphrag.model import PageSize

MAX_PAGES = LIMITS.pdf_pages


MAX_CHARS_PER_PAGE = LIMITS.pdf_page_glyphs


# PDFium is not thread-safe; the dashboard serves several sessions from threads.
PDFIUM_LOCK = threading.RLock()


def open_pdf(data: bytes) -> pdfium.PdfDocument:
    """The PDF in ``data`` opened by PDFium (hold ``PDFIUM_LOCK`` while it is open, and close it); a ReadError says
    why one cannot be opened (a password, a broken structure)."""
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
        doc = open_pdf(data)
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
            per_page: list[PageRead] = []
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
                        per_page.append(page_fragments(textpage, n, c_left, c_top))
                    finally:
                        textpage.close()
                    if n == 0 and (pictures := page_pictures(page)):  # no text layer but a picture: a scanned page
                        check_pictures(pictures, p + 1, limits)
                        per_page[-1] = ocr_page(data, page, p + 1, n_pages, limits, ocr_clock)
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
    out = assemble(per_page, pages, data, title, limits.ocr_confidence_floor)
    if timings is not None:
        timings["extract_s"] = timings.get("extract_s", 0.0) + extracted - started
        timings["layout_s"] = timings.get("layout_s", 0.0) + time.perf_counter() - extracted
    return out
