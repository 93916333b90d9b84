"""A PDF page with a text layer and a hostile picture on it, written by hand (a few KB): what the PDF reader stores
without drawing (the page has text), and what the Review page draws (``graphrag.present.pages``)."""

from __future__ import annotations

import io
import zlib

from PIL import Image

from doc_helpers import pdf_file

SENTENCE = "Badges are returned to the front desk by six."
BOX = (1, 72.0, 20.0, 330.0, 34.0)  # the sentence's line, points from the top-left


def many_scans(extra: int, size: tuple[int, int] = (1024, 1024)) -> bytes:
    """A progressive JPEG with ``extra`` more copies of its last scan, each a pass of the decoder over the whole
    picture: 3,000 on 1024 x 1024 pixels cost PDFium about 2 s of processor time, 45 KB of file."""
    out = io.BytesIO()
    Image.new("RGB", size, (200, 120, 40)).save(out, "JPEG", progressive=True, quality=90)
    data = out.getvalue()
    start, end = data.rindex(b"\xff\xda"), data.rindex(b"\xff\xd9")
    return data[:end] + data[start:end] * extra + data[end:]


def text_page(jpeg: bytes, size: tuple[int, int] = (1024, 1024), *, depth: int = 0, packed: bool = False,
              pattern: bool = False, rotate: int = 0) -> bytes:
    """A PDF of one letter page with a text layer (the sentence, on the line BOX outlines) and a picture drawing
    ``jpeg`` (DCTDecode): as an image XObject, inside ``depth`` nested forms, Flate-packed over its DCTDecode
    (``packed``), or as the cell of a tiling pattern that fills a square (``pattern``)."""
    stream = zlib.compress(jpeg) if packed else jpeg
    filters = b"[/FlateDecode /DCTDecode]" if packed else b"/DCTDecode"
    text = b"BT /F1 12 Tf 72 760 Td (%s) Tj ET\n" % SENTENCE.encode()
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b"",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
            b"/Filter %s /Length %d >>\nstream\n" % (*size, filters, len(stream)) + stream + b"\nendstream"]
    if pattern:
        cell = b"q 100 0 0 100 0 0 cm /Im1 Do Q"
        objs.append(b"<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 100 100] /XStep 100 "
                    b"/YStep 100 /Resources << /XObject << /Im1 5 0 R >> >> /Length %d >>\nstream\n%s\nendstream"
                    % (len(cell), cell))
        draw, resources = b"q /Pattern cs /P1 scn 72 300 100 100 re f Q\n" + text, b"/Pattern << /P1 6 0 R >>"
    else:
        name, number = b"/Im1", 5
        for level in range(depth):  # each form draws the one before it
            body = name + b" Do"
            objs.append(b"<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << %s %d 0 R >> >> "
                        b"/Length %d >>\nstream\n%s\nendstream" % (name, number, len(body), body))
            name, number = b"/Fm%d" % (level + 1), len(objs)
        draw, resources = b"q 300 0 0 300 72 300 cm %s Do Q\n" % name + text, b"/XObject << %s %d 0 R >>" % (name, number)
    objs.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(draw), draw))
    objs[2] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate %d /Contents %d 0 R "
               b"/Resources << /Font << /F1 4 0 R >> %s >> >>" % (rotate, len(objs), resources))
    return pdf_file(objs)
