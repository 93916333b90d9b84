"""Helpers for the document tests: the sample generator, bad files made on the fly, box overlap."""

from __future__ import annotations

import importlib.util
import io
import sys
import zlib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
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
    """A scanned blank page: a picture (paper with a few specks) and no text layer; OCR finds nothing on it."""
    from PIL import Image, ImageDraw
    from reportlab.lib.utils import ImageReader

    img = Image.new("RGB", (600, 800), "white")
    draw = ImageDraw.Draw(img)
    for x, y in ((40, 60), (300, 420), (510, 700)):
        draw.point((x, y), fill="grey")
    return pdf_with(lambda c, i: c.drawImage(ImageReader(img), 0, 0, 612, 792))


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


# --- documents whose text expands far past their size (the character bound's fixtures) ---------------------------

LINE = "Exports are kept for thirty days after the account is closed by its owner."


def pdf_file(objs: list[bytes]) -> bytes:
    """A PDF file of these objects (numbered from 1, the catalog first), with its cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def shared_stream_pdf(pages: int, lines: int = 60, page_size: tuple[float, float] = (612, 792)) -> bytes:
    """A PDF written by hand whose ``pages`` pages all draw one content stream of ``lines`` lines: the
    file stays small (one short object a page) while its text grows with the page count."""
    ops = ["BT /F1 9 Tf 11 TL 20 780 Td", *(f"({LINE}) Tj T*" for _ in range(lines)), "ET"]
    content = "\n".join(ops).encode()
    w, h = page_size
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(f'{5 + i} 0 R' for i in range(pages))}] /Count {pages} >>".encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)]
    objs += [f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] /Contents 4 0 R "
             "/Resources << /Font << /F1 3 0 R >> >> >>".encode()] * pages
    return pdf_file(objs)


def docx_with_body(body_xml: str) -> bytes:
    """A valid DOCX (made by python-docx) whose word/document.xml body is replaced by ``body_xml``."""
    import zipfile

    base = docx_bytes([("Normal", "placeholder")])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(base)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "word/document.xml":
                xml = data.decode("utf-8")
                start = xml.index("<w:body>") + len("<w:body>")
                data = (xml[:start] + body_xml + xml[xml.index("</w:body>"):]).encode("utf-8")
            dst.writestr(item.filename, data, compresslevel=9)
    return out.getvalue()


def docx_bomb(paragraphs: int, chars_each: int = 1000) -> bytes:
    """A DOCX of ``paragraphs`` identical paragraphs: deflate squeezes the repeats a thousandfold."""
    para = f"<w:p><w:r><w:t>{(LINE + ' ') * (chars_each // (len(LINE) + 1))}</w:t></w:r></w:p>"
    return docx_with_body(para * paragraphs)


def html_page(blocks: int, chars_each: int = 1000) -> bytes:
    """An HTML page of ``blocks`` paragraphs of text."""
    para = f"<p>{(LINE + ' ') * (chars_each // (len(LINE) + 1))}</p>\n"
    return f"<!doctype html><html><head><title>Big</title></head><body>{para * blocks}</body></html>".encode()


def one_line(n_bytes: int) -> bytes:
    """``n_bytes`` of words with no line break: a file that is one huge paragraph."""
    words = b"export snapshot account owner policy retention cluster worker billing invoice uses keeps "
    return (words * (n_bytes // len(words) + 1))[:n_bytes]


# --- files whose cost is in what they draw or pack, not in the text they keep (the read limits' fixtures) --------

def raw_pdf(pages: int, content: bytes) -> bytes:
    """A PDF written by hand whose ``pages`` pages all draw one Flate-compressed content stream: a repeated
    ``content`` packs a thousandfold, so the file stays a few KB whatever the stream unpacks to."""
    packed = zlib.compress(content, 6)
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(f'{5 + i} 0 R' for i in range(pages))}] /Count {pages} >>".encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed)]
    objs += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
             b"/Resources << /Font << /F1 3 0 R >> >> >>"] * pages
    return pdf_file(objs)


def drawing_pdf(pages: int, lines: int) -> bytes:
    """``pages`` pages of ``lines`` stroked lines each and no glyph (a 50-page one of 200,000 took 60 s to be
    found to have no text layer)."""
    return raw_pdf(pages, b"0.5 w\n" + b"10 10 m 600 780 l S\n" * lines)


def glyph_run_pdf(pages: int, glyphs: int) -> bytes:
    """``pages`` pages each showing one run of ``glyphs`` glyphs "A " (a glyph and a space): a few KB whose
    text is as many words as characters could hold."""
    return raw_pdf(pages, b"BT /F1 1 Tf 0 700 Td (" + b"A " * (glyphs // 2) + b") Tj ET")


def docx_with_part(name: str, chunk: bytes, megabytes: float) -> bytes:
    """A valid DOCX whose part ``name`` (replaced or added) is ``chunk`` repeated to ``megabytes`` MB inside an
    XML root, written through the archive in pieces so the whole part is never held."""
    import zipfile

    base = docx_bytes([("Normal", "Exports are kept for thirty days.")])
    out = io.BytesIO()
    block = chunk * max(1, 1_000_000 // len(chunk))
    with zipfile.ZipFile(io.BytesIO(base)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if item.filename != name:
                dst.writestr(item, src.read(item.filename))
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with dst.open(info, "w", force_zip64=True) as part:
            part.write(b'<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/'
                       b'wordprocessingml/2006/main">')
            for _ in range(int(megabytes * 1_000_000 // len(block))):
                part.write(block)
            part.write(b"</w:styles>")
    return out.getvalue()
