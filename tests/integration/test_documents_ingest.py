"""PDF, HTML and DOCX through ingest and the store: layout rows, versions, bad files, rendering."""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from doc_helpers import PDF_PATH, SAMPLE, docx_bytes, pdf_with, scanned_pdf
from doubles.extract import ScriptedExtractor, ScriptEntity
from graphrag.ingest.pipeline import Ingestor
from graphrag.present.pages import render_page
from graphrag.store import SCHEMA_VERSION, Store
from graphrag.store import layout as layout_module

pytestmark = pytest.mark.model

GOOD = ("security-handbook.pdf", "billing-help.html", "sso-setup.docx")


def folder(tmp_path: Path, extra: dict[str, bytes] | None = None) -> Path:
    root = tmp_path / "docs"
    root.mkdir(exist_ok=True)
    for name in GOOD:
        shutil.copy(SAMPLE / name, root / name)
    for name, data in (extra or {}).items():
        (root / name).write_bytes(data)
    return root


def extractor() -> ScriptedExtractor:
    return ScriptedExtractor([ScriptEntity("incident", "security incident"), ScriptEntity("refund", "refunded")])


def test_good_documents_go_in_whole_and_each_bad_one_says_why(store, embedder, tmp_path):
    from reportlab.lib import pdfencrypt

    bad = {
        "locked.pdf": pdf_with(lambda c, i: c.drawString(72, 700, "Secret."),
                               encrypt=pdfencrypt.StandardEncryption("pw")),
        "scan.pdf": scanned_pdf(),
        "half.pdf": PDF_PATH.read_bytes()[:4000],
        "page.pdf": b"<html><body><p>Not a PDF at all.</p></body></html>",
        "report.txt": PDF_PATH.read_bytes(),
        "tracked.docx": docx_bytes([("Normal", "Annual plans are refundable.")], tracked=True),
    }
    report = Ingestor(store, extractor(), embedder).ingest_paths([folder(tmp_path, bad)])
    by_id = {d.id: d for d in report.documents}
    assert {i for i, d in by_id.items() if d.status in ("ok", "nothing_found")} == {
        "security-handbook", "billing-help", "sso-setup", "tracked"}
    assert "encrypted: this PDF needs a password" in by_id["locked"].error
    assert by_id["scan"].error.startswith("no text found: this PDF has no text layer, and OCR found no line to read")  # a scanned blank page
    assert "corrupt or truncated PDF" in by_id["half"].error
    assert "the extension says PDF but it looks like an HTML file" in by_id["page"].error
    assert "the extension says text but it is a PDF file: rename it to .pdf" in by_id["report"].error
    assert "tracked changes read as accepted" in (by_id["tracked"].note or "")
    # Nothing of a rejected file reaches the store, and every stored sentence has its layout.
    assert {d.id for d in store.documents()} == {"security-handbook", "billing-help", "sso-setup", "tracked"}
    pdf_sentences = store.sentences("security-handbook", 1)
    layouts = store.layouts("security-handbook", 1)
    assert len(pdf_sentences) == by_id["security-handbook"].sentences == len(layouts)
    assert all(lay.page in (1, 2, 3, 4) and lay.boxes for lay in layouts.values())
    assert [(p.number, p.label) for p in store.page_sizes("security-handbook", 1)] == [
        (1, "i"), (2, "1"), (3, "2"), (4, "3")]
    assert store.document_file("security-handbook", 1) == ("application/pdf", PDF_PATH.read_bytes())
    assert store.document_file("billing-help", 1) is None  # only PDFs are rendered, so only they are kept
    html = store.layouts("billing-help", 1)
    assert any(lay.heading_path == "Refunds > Annual plans" for lay in html.values())
    assert all(lay.page is None for lay in html.values())
    doc = store.current_document("security-handbook")
    for sp in pdf_sentences:  # the span invariant holds for text read from a PDF
        assert doc.text[sp.start:sp.end] == sp.text


def test_unchanged_bytes_are_a_no_op_and_changed_bytes_a_new_version(store, embedder, tmp_path):
    root = folder(tmp_path)
    Ingestor(store, extractor(), embedder).ingest_paths([root])
    again = extractor()
    report = Ingestor(store, again, embedder).ingest_paths([root])
    assert {d.status for d in report.documents} == {"unchanged"}
    assert again.calls == 0  # zero extractor (model) calls for unchanged files
    # Same text, different bytes (here a trailing comment; in life a re-export with moved lines):
    # the stored boxes belong to the old file, so this is a new version and v1 is superseded.
    (root / "security-handbook.pdf").write_bytes(PDF_PATH.read_bytes() + b"%re-exported\n")
    report = Ingestor(store, extractor(), embedder).ingest_paths([root])
    pdf = next(d for d in report.documents if d.id == "security-handbook")
    assert (pdf.status, pdf.version, pdf.supersedes) == ("ok", 2, 1)
    assert store.document("security-handbook", 1).superseded
    assert store.layouts("security-handbook", 2) and store.layouts("security-handbook", 1)


def test_a_failed_layout_write_leaves_no_part_of_the_document(store, embedder, tmp_path, monkeypatch):
    def broken(*args: object) -> None:
        raise OperationalError("INSERT INTO span_layout", {}, sqlite3.OperationalError("disk I/O error"))

    monkeypatch.setattr(layout_module, "write", broken)
    report = Ingestor(store, extractor(), embedder).ingest_paths([SAMPLE / "security-handbook.pdf"])
    assert report.documents[0].status == "failed"
    assert store.counts()["versions"] == 0 and store.counts()["sentences"] == 0


def test_a_v1_store_is_migrated_and_a_read_only_v1_store_has_no_layout(tmp_path):
    path = tmp_path / "old.db"
    Store(path).close()
    db = sqlite3.connect(path)
    for table in ("span_layout", "page_sizes", "document_files"):
        db.execute(f"DROP TABLE {table}")
    db.execute("PRAGMA user_version=1")
    db.execute("DELETE FROM meta WHERE key='schema_version'")
    db.commit()
    db.close()
    with Store(path, readonly=True) as ro:
        assert ro.layout("x", 1, 0) is None and ro.document_file("x", 1) is None and ro.page_sizes("x", 1) == []
    with Store(path) as s:
        assert s.layout("x", 1, 0) is None
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")} >= {
        "span_layout", "page_sizes", "document_files"}
    db.close()


def test_rendered_page_shows_the_box_where_the_sentence_is() -> None:
    from PIL import Image

    data = PDF_PATH.read_bytes()
    box = (3, 140.29, 204.0, 257.6, 214.0)
    plain = Image.open(io.BytesIO(render_page(data, 3))).convert("RGB")
    marked = Image.open(io.BytesIO(render_page(data, 3, [box, (4, 72, 100, 130, 116)])))
    assert plain.size == marked.size and abs(plain.width - 612 * 150 / 72) <= 1 and abs(plain.height - 1650) <= 1
    scale = 150 / 72
    # A blank spot inside the box turns yellow; a spot far from it stays as it was.
    inside = (round(box[1] * scale) + 3, round(box[2] * scale) + 1)
    r, g, b = marked.convert("RGB").getpixel(inside)
    assert r > 200 and g > 190 and b < 200 and plain.getpixel(inside) == (255, 255, 255)
    assert marked.convert("RGB").getpixel((20, 20)) == plain.getpixel((20, 20))
    crop = Image.open(io.BytesIO(render_page(data, 3, [box], around=90)))
    assert crop.width < plain.width and crop.height < plain.height / 3
    with pytest.raises(Exception, match="page 9 is not in this PDF"):
        render_page(data, 9)


def test_unsupported_files_name_the_supported_types(store, embedder, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "deck.pptx").write_bytes(b"PK\x03\x04")
    report = Ingestor(store, extractor(), embedder).ingest_paths([tmp_path / "d"])
    assert ("only .txt, .md, .pdf, .html, .htm, .docx and scanned pages (.png, .jpg, .jpeg, .tif, .tiff) are ingested"
            in report.documents[0].error)


def test_the_manifest_sets_title_date_and_access_of_a_pdf(store, embedder, tmp_path):
    root = folder(tmp_path)
    (root / "manifest.toml").write_text(
        '[[documents]]\nfile = "security-handbook.pdf"\nid = "handbook"\ntitle = "Security handbook"\n'
        'effective_date = "2026-03-01"\naccess = ["internal"]\n', encoding="utf-8")
    Ingestor(store, extractor(), embedder).ingest_paths([root / "security-handbook.pdf"])
    doc = store.current_document("handbook")
    assert (doc.title, doc.effective_date, doc.access) == ("Security handbook", "2026-03-01", ("internal",))
    assert store.layouts("handbook", 1)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_boxes_land_on_the_text_of_a_rotated_page(rotation: int) -> None:
    import numpy as np
    from PIL import Image

    from doc_helpers import pdf_with
    from graphrag.ingest.readers import read_document

    def draw(c, i):
        c.setPageRotation(rotation)
        c.setFont("Helvetica", 20)
        c.drawString(72, 300, "Rotated pages are boxed where their text is.")

    data = pdf_with(draw)
    read = read_document(data, ".pdf")
    boxes = read.layout.span_layout(0, len(read.text)).boxes
    plain = np.asarray(Image.open(io.BytesIO(render_page(data, 1))).convert("RGB")).astype(int)
    marked = np.asarray(Image.open(io.BytesIO(render_page(data, 1, boxes))).convert("RGB")).astype(int)
    changed = np.abs(marked - plain).sum(axis=2) > 30
    ys, xs = np.nonzero(changed)
    dark = plain.sum(axis=2) < 200  # the glyphs
    inside = dark[ys.min():ys.max() + 1, xs.min():xs.max() + 1].sum()
    assert inside > 0.9 * dark.sum(), "the drawn box does not surround the text"
