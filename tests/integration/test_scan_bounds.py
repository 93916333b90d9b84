"""Bad scans and tables, each refused or read within the bounds with a clear message, nothing of a refused file
stored: a scan of 2,000 blank pages, a 20,000 x 20,000 pixel picture (as an upload and as a PDF's scanned page), a
suffix that lies, a PDF table of 10,000 columns.

Before: a PDF page drawing a 20,000 x 20,000 picture (1.2 MB packed) was decoded whole to be rendered for OCR, 600 MB
and 10 s a page; the 2,000-page and 10,000-column cases were tested with drawings and HTML/DOCX only."""

from __future__ import annotations

import functools
import io
import sqlite3
import time
import zlib
from pathlib import Path

import pytest
from PIL import Image
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from doc_helpers import pdf_file
from graphrag.ingest.pipeline import Ingestor
from graphrag.ingest.readers import ReadError, read_document
from graphrag.ingest.readers.limits import LIMITS
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

# heavy (PDFs of thousands of pages and pictures of millions of pixels drawn and read): no model or server, but
# seconds a test.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]


@functools.cache
def blank_scan(pages: int) -> bytes:
    """A scan of ``pages`` blank pages: each page one white picture (the same one, stored once), no text layer."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(595, 842))
    white = ImageReader(Image.new("RGB", (62, 88), "white"))
    for _ in range(pages):
        c.drawImage(white, 0, 0, 595, 842)
        c.showPage()
    c.save()
    return out.getvalue()


@functools.cache
def huge_picture_pdf(side: int = 20_000) -> bytes:
    """One page drawing a ``side`` x ``side`` RGB picture, all white: about 1 MB packed, 1.2 GB decoded."""
    packer = zlib.compressobj(9)
    packed = b"".join(packer.compress(b"\xff" * (side * 3)) for _ in range(side)) + packer.flush()
    picture = (b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
               b"/Filter /FlateDecode /Length %d >>\nstream\n" % (side, side, len(packed)) + packed + b"\nendstream")
    draw = b"q 595 0 0 842 0 0 cm /Im1 Do Q"
    return pdf_file([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>", picture,
                     b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
                     b"/Resources << /XObject << /Im1 3 0 R >> >> >>",
                     b"<< /Length %d >>\nstream\n%s\nendstream" % (len(draw), draw)])


def huge_png(side: int = 20_000) -> bytes:
    out = io.BytesIO()
    Image.new("1", (side, side), 1).save(out, "PNG")
    return out.getvalue()


def wide_table_pdf(columns: int = 10_000) -> bytes:
    """A sentence, then a table of ``columns`` columns (a worded header and two rows) on one very wide page."""
    size, step = 0.5, 1.2  # cells a little more than an em apart: told apart as cells
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(columns * step + 72, 200))
    c.setFont("Helvetica", size)
    c.drawString(36, 150, "A very wide export of the fields, one row under its header.")
    for r, cell in enumerate(("Fa{}", "v{}", "w{}")):
        for i in range(columns):
            c.drawString(36 + i * step, 120 - 2 * r, cell.format("" if r == 0 else i % 10))
    c.save()
    return out.getvalue()


def _refused(data: bytes, suffix: str) -> tuple[str, float]:
    started = time.perf_counter()
    with pytest.raises(ReadError) as err:
        read_document(data, suffix)
    return str(err.value), time.perf_counter() - started


def test_a_scanned_page_of_twenty_thousand_pixels_square_is_refused_before_it_is_decoded() -> None:
    message, seconds = _refused(huge_picture_pdf(), ".pdf")
    assert message == ("page 1 is a picture of 20,000 x 20,000 pixels; the limit is 40,000,000 pixels a page (a 600 "
                       "dpi A4 scan has 35 million): scale the scan down")
    assert seconds < 5, f"{seconds:.1f} s: the picture was decoded"


def test_bad_scans_are_refused_each_with_its_reason_and_nothing_of_them_is_stored(tmp_path: Path) -> None:
    """Beside them a wide table is read as cells (its rows would repeat 10,000 labels each)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text("Porter uses Ledger at the east gate.\n")
    (folder / "wide-table.pdf").write_bytes(wide_table_pdf())
    (folder / "blank-scan.pdf").write_bytes(blank_scan(2_000))
    (folder / "huge-scan.pdf").write_bytes(huge_picture_pdf())
    (folder / "huge.png").write_bytes(huge_png())
    (folder / "lying.pdf").write_bytes(huge_png(40))  # a PNG named .pdf
    (folder / "lying.jpg").write_bytes(huge_png(40))  # a PNG named .jpg
    with Store(tmp_path / "s.db") as store:
        started = time.perf_counter()
        report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest_paths([folder])
        assert time.perf_counter() - started < 60
        assert sorted(d.id for d in store.documents()) == ["notes", "wide-table"]
        wide = store.current_document("wide-table")
        assert wide is not None and "Fa: v" not in wide.text and len(wide.text) < 200_000
    (table,) = [d for d in report.documents if d.id == "wide-table"]
    assert "1 table wider than 64 columns (up to 10,000) read as cells only, without the header" in (table.note or "")
    why = {d.path.rsplit("/", 1)[-1]: d.error for d in report.documents if d.path and d.not_ingested}
    assert why == {
        "blank-scan.pdf": (f"more than {LIMITS.ocr_pages} pages have no text layer (scanned images) by page "
                           f"{LIMITS.ocr_pages + 1} of 2,000; OCR reads at most {LIMITS.ocr_pages} pages a document: "
                           "split it, or export its text"),
        "huge-scan.pdf": ("page 1 is a picture of 20,000 x 20,000 pixels; the limit is 40,000,000 pixels a page (a 600 "
                          "dpi A4 scan has 35 million): scale the scan down"),
        "huge.png": "the picture is larger than 40,000,000 pixels a page (it holds 400,000,000): scale it down",
        "lying.pdf": "the extension says PDF but it looks like a PNG file: rename it to its real type or re-export it",
        "lying.jpg": "the extension says JPEG but it is a PNG picture: rename it to its real type or re-export it",
    }
    with sqlite3.connect(tmp_path / "s.db") as c:  # nothing half-written: no row names a refused file
        for table in ("documents", "sentences", "span_layout", "page_sizes", "document_files"):
            ids = {r[0] for r in c.execute(f"SELECT doc_id FROM {table}")}
            assert ids <= {"notes", "wide-table"}, (table, ids)
