"""Helpers for the document tests: the sample generator, bad files made on the fly, box overlap."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_corpus"
PDF_PATH = SAMPLE / "security-handbook.pdf"


def generator() -> ModuleType:
    """scripts/make_sample_documents.py as a module (it knows where every line of the PDF is)."""
    name = "make_sample_documents"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "make_sample_documents.py")
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def pdf_with(draw, pages: int = 1, encrypt: object = None) -> bytes:
    """A PDF made with reportlab; ``draw(canvas, page_index)`` paints each page."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792), encrypt=encrypt)
    for i in range(pages):
        draw(c, i)
        c.showPage()
    c.save()
    return buf.getvalue()


def scanned_pdf() -> bytes:
    """A page that is only a picture of text: no text layer."""
    from PIL import Image, ImageDraw
    from reportlab.lib.utils import ImageReader

    img = Image.new("RGB", (600, 200), "white")
    ImageDraw.Draw(img).text((20, 80), "Exports are kept for 30 days.", fill="black")
    return pdf_with(lambda c, i: c.drawImage(ImageReader(img), 72, 500, 300, 100))


def docx_bytes(paragraphs: list[tuple[str, str]], tracked: bool = False, picture: bool = False) -> bytes:
    """A DOCX of (style, text) paragraphs; optionally a tracked insertion and deletion, and a picture."""
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    d = docx.Document()
    for style, text in paragraphs:
        if style.startswith("Heading"):
            d.add_heading(text, level=int(style.split()[-1]))
        else:
            d.add_paragraph(text)
    if tracked:
        p = d.add_paragraph("Refunds are issued ")
        p._p.append(parse_xml(f'<w:ins {nsdecls("w")} w:id="1" w:author="ana" w:date="2026-01-01T00:00:00Z">'
                              '<w:r><w:t xml:space="preserve">within 14 days</w:t></w:r></w:ins>'))
        p._p.append(parse_xml(f'<w:del {nsdecls("w")} w:id="2" w:author="ana" w:date="2026-01-01T00:00:00Z">'
                              '<w:r><w:delText xml:space="preserve"> within 30 days</w:delText></w:r></w:del>'))
        p.add_run(".")
    if picture:
        from PIL import Image

        img = io.BytesIO()
        Image.new("RGB", (40, 20), "red").save(img, format="PNG")
        img.seek(0)
        d.add_picture(img)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()
