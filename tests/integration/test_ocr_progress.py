"""A scan is read in the ingest job, page by page in its progress: the Ingest page's job line and `graphrag ingest`
say "page 2 of 3 read by OCR" while it is read, never a file's name.

Before: uploads were read (OCR included, seconds a page) in the page's own script run before the job started, and
a folder's files before its first progress line: a long scan showed nothing until it was read."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from PIL import Image
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from dashboard.jobs import job_text
from graphrag import ingest
from graphrag.access import Viewer
from graphrag.access.identity import Identity
from graphrag.cli.ingest import IngestProgress
from graphrag.config import Config
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import READING, Progress
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

# heavy (PDFs drawn and read, each page rendered for OCR): no model or server, but too slow for the loop.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]

LINE = "Porter uses Ledger at the east gate."


def part_scanned_pdf(blank_scans: int = 2) -> bytes:
    """A PDF whose first pages are blank scans (a picture, no text layer: read by OCR, skipped before the engine
    runs since nothing is on them) and whose last page has a text layer."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(595, 842))
    for _ in range(blank_scans):
        c.drawImage(ImageReader(Image.new("RGB", (620, 877), "white")), 0, 0, 595, 842)
        c.showPage()
    c.drawString(72, 700, LINE)
    c.showPage()
    c.save()
    return out.getvalue()


@pytest.fixture
def no_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("graphrag.ingest.pipeline.get_embedder", lambda config: HashEmbedder())


def test_an_upload_is_read_in_the_job_with_each_scanned_page_in_its_progress(tmp_path: Path, no_models: None) -> None:
    admin = Viewer(Identity("sub-ana", "ana@example.com", frozenset(), "https://login.example.com"),
                   frozenset({"public"}), "admin", team=True)
    with Store(tmp_path / "s.db") as store:
        work = ingest.upload_work(store, admin, Config.from_env({}), PatternExtractor(),
                                  [ingest.Upload("gate-scan.pdf", part_scanned_pdf())], ["public"])
        seen: list[Progress] = []
        report = work(seen.append)
        reading = [p.detail for p in seen if p.message == READING]
        assert reading == ["reading 2 pages by OCR", "page 1 of 2 read by OCR", "page 2 of 2 read by OCR"]
        # read first, then stored: the reading comes before the document counts
        assert seen.index(next(p for p in seen if p.message != READING)) == len(reading)
        (doc,) = report.documents
        assert doc.status == "ok" and store.current_document(doc.id) is not None
        assert "2 pages of 3 read by OCR (no text layer): 0 lines; 2 pages with nothing to read" in (doc.note or "")


def test_the_job_line_says_which_page_ocr_has_read_and_names_no_file() -> None:
    reported, go_on = threading.Event(), threading.Event()

    def work(progress):  # type: ignore[no-untyped-def]
        progress(Progress(0, 0, READING, "page 3 of 12 read by OCR"))
        reported.set()
        go_on.wait(10)
        return ingest.IngestReport(())

    job = ingest.JobRunner().submit("Upload of 1 file", work)
    assert reported.wait(10)
    status = job.status()
    assert status.reading and not status.loading_models
    assert job_text(status) == "Upload of 1 file: reading the files, page 3 of 12 read by OCR…"
    go_on.set()
    assert job.wait(10)


def test_graphrag_ingest_prints_a_line_per_scanned_page(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "secret-scan.pdf").write_bytes(part_scanned_pdf(3))
    out = io.StringIO()
    with Store(tmp_path / "s.db") as store:
        report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest_paths([folder], IngestProgress(out, 0.0))
    assert report.documents[0].status == "ok"
    lines = out.getvalue().splitlines()
    assert lines[:4] == ["ingest: reading 3 pages by OCR", "ingest: page 1 of 3 read by OCR",
                         "ingest: page 2 of 3 read by OCR", "ingest: page 3 of 3 read by OCR"]
    assert lines[4].startswith("ingest: 1/1 documents")
    assert "secret" not in out.getvalue()
