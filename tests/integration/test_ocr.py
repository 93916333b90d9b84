"""Scans read by OCR: a PDF of page pictures (turned, skewed, speckled) and a PNG upload, made in the test,
ingested and asked about, each answer citing the right page."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from graphrag.cli import main
from lab.scans import image_bytes, scan_pdf, scanned_page

pytestmark = pytest.mark.model

GATE = ["Visitors sign the register at the east gate.", "Badges are returned to the front desk."]
TYPED = "Porters keep the keys."


def scan_with_text_page() -> bytes:
    """The gate page scanned (a picture, no text layer), then a page with a text layer."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(595, 842))
    c.drawImage(ImageReader(scanned_page(GATE).convert("RGB")), 0, 0, 595, 842)
    c.showPage()
    c.drawString(72, 700, TYPED)
    c.showPage()
    c.save()
    return out.getvalue()


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """The store, and what ``graphrag ingest`` printed: the report, and the progress (on stderr)."""
    root = tmp_path_factory.mktemp("scans")
    docs = root / "docs"
    docs.mkdir()
    (docs / "operations.pdf").write_bytes(scan_pdf())
    (docs / "gate.png").write_bytes(image_bytes(scanned_page(GATE, turned=0, skew=-2.0, seed=7), "PNG"))
    store = str(root / "store.db")
    out, progress = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(progress):
        assert main(["ingest", str(docs), "--store", store]) == 0
    return store, out.getvalue(), progress.getvalue()


@pytest.fixture
def scan_store(scanned: tuple[str, str, str]) -> str:
    return scanned[0]


def _ask(capsys: pytest.CaptureFixture[str], store: str, question: str) -> dict:
    capsys.readouterr()
    assert main(["ask", question, "--store", store, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _first_citation(answer: dict) -> dict:
    return answer["claims"][0]["citations"][0]


@pytest.mark.parametrize(("question", "opening", "page"), [
    ("Within how many hours are returned parcels sorted?", "48 hours", 3),  # the page scanned upside down
    ("Where are spare batteries stored?", "in the north shed", 2),  # the page scanned a quarter turned
])
def test_a_scanned_pdf_is_read_by_ocr_and_answers_cite_the_right_page(scan_store: str, capsys, question: str,
                                                                       opening: str, page: int) -> None:
    """Before: "no text layer: this PDF is images only; OCR is not supported", nothing stored."""
    a = _ask(capsys, scan_store, question)
    assert opening in a["answer"], a["answer"]
    cited = _first_citation(a)
    assert cited["document"] == "operations" and cited["page"] == page, cited
    assert cited["boxes"] and all(b[0] == page for b in cited["boxes"])
    # it says it came from OCR, and how sure the recogniser was of its least sure line
    assert 0.8 < cited["ocr_confidence"] <= 1.0, cited


def test_graphrag_ingest_shows_each_page_as_ocr_reads_it(scanned: tuple[str, str, str]) -> None:
    lines = [ln for ln in scanned[2].splitlines() if "OCR" in ln]
    assert lines == ["ingest: reading 1 page by OCR", "ingest: page 1 of 1 read by OCR",  # gate.png
                     "ingest: reading 3 pages by OCR", "ingest: page 1 of 3 read by OCR",  # operations.pdf
                     "ingest: page 2 of 3 read by OCR", "ingest: page 3 of 3 read by OCR"], scanned[2]


def test_the_reading_report_says_what_ocr_read(scanned: tuple[str, str, str]) -> None:
    report = scanned[1]
    assert "3 pages of 3 read by OCR (no text layer): 9 lines, mean confidence 0.9" in report, report
    assert "2 pages turned (read upright)" in report
    assert "1 page of 1 read by OCR (no text layer): 2 lines" in report


def test_a_png_upload_is_a_document_read_by_ocr(scan_store: str, capsys) -> None:
    a = _ask(capsys, scan_store, "Where are badges returned?")
    assert "front desk" in a["answer"], a["answer"]
    cited = _first_citation(a)
    assert cited["document"] == "gate" and cited["page"] == 1


def test_the_plain_answer_and_the_ask_and_review_pages_say_a_sentence_was_read_by_ocr(
        scan_store: str, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    from app_helpers import app, ok
    from dashboard import session

    capsys.readouterr()
    assert main(["ask", "Where are spare batteries stored?", "--store", scan_store]) == 0
    assert re.search(r"operations v1 \(p\. 2 · read by OCR, confidence [01]\.\d\d\)", capsys.readouterr().out)
    answer_id = _ask(capsys, scan_store, "Where are spare batteries stored?")["answer_id"]
    at = app(monkeypatch, Path(scan_store))
    at.session_state[session.ANSWER_ID] = answer_id
    at = ok(at)
    assert any(re.search(r"p\. 2 · read by OCR, confidence [01]\.\d\d", h.proto.body) for h in at.get("html"))
    at.switch_page("views/review.py")
    at.session_state[session.REVIEW_ANSWER] = answer_id
    at.session_state[session.REVIEW_CURRENT] = (answer_id, 0)
    at = ok(at)
    source = [h.proto.body for h in at.get("html") if "sentence 1 of the document" in h.proto.body or
              "read by OCR" in h.proto.body]
    assert any(re.search(r"p\. 2 · read by OCR, confidence [01]\.\d\d", b) for b in source), source
    # the scanned page's picture, the sentence boxed on it, under a caption that says it is what OCR read
    assert any(re.match(r"Read by OCR from the scanned page below, confidence [01]\.\d\d", str(c.value))
               for c in at.caption)
    assert at.get("image"), "the cited page's picture"


def test_lines_under_the_confidence_floor_are_kept_out_of_the_text_and_listed_in_the_reading_report() -> None:
    """A floor no line reaches: every OCR line of the scanned page is listed with its page and confidence, none is
    in the text; the page with a text layer is read as before."""
    import dataclasses

    from graphrag.ingest.readers.limits import LIMITS
    from graphrag.ingest.readers.pdf import read_pdf

    text, _, layout = read_pdf(scan_with_text_page(), limits=dataclasses.replace(LIMITS, ocr_confidence_floor=1.01))
    assert "Visitors" not in text and "Badges" not in text and TYPED in text
    note = layout.notes[-1]
    assert re.search(r"1 page of 2 read by OCR \(no text layer\): 0 lines; 2 lines under the confidence floor 1.01 "
                     r'kept out of the text: p\. 1 "Visitors sign the register at the east…" \([01]\.\d\d\); '
                     r'p\. 1 "Badges are returned to the front desk\." \([01]\.\d\d\)$', note), note


def test_ocr_past_its_time_bound_refuses_the_pdf_with_the_page_and_the_limit() -> None:
    import dataclasses

    from graphrag.ingest.readers.errors import ReadError
    from graphrag.ingest.readers.limits import LIMITS
    from graphrag.ingest.readers.pdf import read_pdf

    tight = dataclasses.replace(LIMITS, ocr_page_seconds=0.01)
    with pytest.raises(ReadError, match=r"OCR of page 1 took \d+ s of processor time; the limit is 0.01 s a page"):
        read_pdf(scan_pdf([scanned_page(GATE)]), limits=tight)
    in_all = dataclasses.replace(LIMITS, ocr_seconds=0.01)
    with pytest.raises(ReadError, match=r"OCR took \d+ s of processor time by page 1 of 1; the limit is 0.01 s a "
                                        r"document: split it"):
        read_pdf(scan_pdf([scanned_page(GATE)]), limits=in_all)
