"""Scans read by OCR: a PDF of page pictures (turned, skewed, speckled) and a PNG upload, made in the test,
ingested and asked about, each answer citing the right page."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from graphrag.cli import main
from lab.scans import image_bytes, scan_pdf, scanned_page

pytestmark = pytest.mark.model

GATE = ["Visitors sign the register at the east gate.", "Badges are returned to the front desk."]


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The store, and what ``graphrag ingest`` printed."""
    root = tmp_path_factory.mktemp("scans")
    docs = root / "docs"
    docs.mkdir()
    (docs / "operations.pdf").write_bytes(scan_pdf())
    (docs / "gate.png").write_bytes(image_bytes(scanned_page(GATE, turned=0, skew=-2.0, seed=7), "PNG"))
    store = str(root / "store.db")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["ingest", str(docs), "--store", store]) == 0
    return store, out.getvalue()


@pytest.fixture
def scan_store(scanned: tuple[str, str]) -> str:
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


def test_the_reading_report_says_what_ocr_read(scanned: tuple[str, str]) -> None:
    report = scanned[1]
    assert "3 pages of 3 read by OCR (no text layer): 9 lines, mean confidence 0.9" in report, report
    assert "2 pages turned (read upright)" in report
    assert "1 page of 1 read by OCR (no text layer): 2 lines" in report


def test_a_png_upload_is_a_document_read_by_ocr(scan_store: str, capsys) -> None:
    a = _ask(capsys, scan_store, "Where are badges returned?")
    assert "front desk" in a["answer"], a["answer"]
    cited = _first_citation(a)
    assert cited["document"] == "gate" and cited["page"] == 1


def test_ocr_past_its_time_bound_refuses_the_pdf_with_the_page_and_the_limit() -> None:
    import dataclasses

    from graphrag.ingest.readers.errors import ReadError
    from graphrag.ingest.readers.limits import LIMITS
    from graphrag.ingest.readers.pdf import read_pdf

    tight = dataclasses.replace(LIMITS, ocr_page_seconds=0.01)
    with pytest.raises(ReadError, match=r"OCR of page 1 took \d+ s of processor time; the limit is 0.01 s a page"):
        read_pdf(scan_pdf([scanned_page(GATE)]), limits=tight)
