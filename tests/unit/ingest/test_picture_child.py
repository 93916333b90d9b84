"""Pictures are decoded only in the bounded child (``picture_child``): every frame's header and a JPEG's scans are
checked before a pixel is decoded, and whatever the decoder or a ceiling says is the document's own refusal.

Before: only a TIFF's first frame was size-checked (a 4.8 MB TIFF of 21 pages cost 58 s and 2.0 GB before it was
refused), a frame past Pillow's own ceiling raised DecompressionBombError out of the reader (a folder ingest ended
with a traceback, nothing stored), and a 0.7 MB progressive JPEG of 10,000 scans cost 36 s of processor time in
the server, inside a scanned PDF page too. The hostile files are made here, a few KB each."""

from __future__ import annotations

import dataclasses
import io
import re
import struct
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from doc_helpers import pdf_file
from graphrag.ingest.pipeline import Ingestor
from graphrag.ingest.readers import ReadError, read_document
from graphrag.ingest.readers.images import read_image
from graphrag.ingest.readers.limits import LIMITS
from graphrag.ingest.readers.picture_child import convert_picture, jpeg_scans, render_page
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit


def tiff(frames: list[tuple[int, int, bytes, int]]) -> bytes:
    """A little-endian TIFF written by hand: one greyscale IFD a frame, (width, height, strip, compression), the
    strip as given (so a frame's header may declare any size whatever its data)."""
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    strips = []
    for w, h, data, compression in frames:
        strips.append((w, h, len(out), len(data), compression))
        out += data
    link = 4
    for w, h, offset, length, compression in strips:
        out += b"\x00" * (len(out) % 2)
        struct.pack_into("<I", out, link, len(out))
        tags = [(256, 4, w), (257, 4, h), (258, 3, 8), (259, 3, compression), (262, 3, 1), (273, 4, offset),
                (277, 3, 1), (278, 4, h), (279, 4, length)]
        out += struct.pack("<H", len(tags))
        for tag, kind, value in tags:
            out += struct.pack("<HHI", tag, kind, 1) + struct.pack("<HH" if kind == 3 else "<I", *(
                (value, 0) if kind == 3 else (value,)))
        link = len(out)
        out += b"\x00\x00\x00\x00"
    return bytes(out)


def zeros_packed(n: int) -> bytes:
    packer = zlib.compressobj(9)
    return b"".join(packer.compress(bytes(1_000_000)) for _ in range(n // 1_000_000)) + packer.compress(
        bytes(n % 1_000_000)) + packer.flush()


SMALL_FRAME = (100, 100, b"\xff" * 10_000, 1)


def png_header(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` and whose data is a few bytes (truncated)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def progressive(size: tuple[int, int] = (64, 64)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 120, 40)).save(out, "JPEG", progressive=True, quality=90)
    return out.getvalue()


def many_scans(extra: int, size: tuple[int, int] = (64, 64)) -> bytes:
    """A progressive JPEG with ``extra`` more copies of its last scan: each one a pass of the decoder over the
    whole picture (the review's 0.7 MB file held 10,000)."""
    data = progressive(size)
    start = data.rindex(b"\xff\xda")
    end = data.rindex(b"\xff\xd9")
    return data[:end] + data[start:end] * extra + data[end:]


def jpeg_page(jpeg: bytes, size: tuple[int, int]) -> bytes:
    """A PDF of one scanned page (no text layer) drawing ``jpeg`` as it is (DCTDecode)."""
    picture = (b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
               b"/Filter /DCTDecode /Length %d >>\nstream\n" % (*size, len(jpeg)) + jpeg + b"\nendstream")
    draw = b"q 595 0 0 842 0 0 cm /Im1 Do Q"
    return pdf_file([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>", picture,
                     b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
                     b"/Resources << /XObject << /Im1 3 0 R >> >> >>",
                     b"<< /Length %d >>\nstream\n%s\nendstream" % (len(draw), draw)])


def refused(data: bytes, suffix: str, limits: object = LIMITS) -> tuple[str, float]:
    started = time.perf_counter()
    with pytest.raises(ReadError) as err:
        if limits is LIMITS:
            read_document(data, suffix)
        else:
            read_image(data, suffix, limits=limits)  # type: ignore[arg-type]
    return str(err.value), time.perf_counter() - started


def test_a_tiff_whose_later_page_is_larger_than_the_limit_is_refused_by_its_header() -> None:
    """49 M pixels declared by page 2 (decodable: 60 KB of packed zeros), then 400 M (past Pillow's own ceiling,
    which raised DecompressionBombError out of the reader)."""
    message, seconds = refused(tiff([SMALL_FRAME, (7_000, 7_000, zeros_packed(49_000_000), 8)]), ".tiff")
    assert message == ("page 2 of the TIFF is 7,000 x 7,000 pixels; the limit is 40,000,000 pixels a page (a 600 dpi "
                       "A4 scan has 35 million): scale it down")
    assert seconds < 5
    message, _ = refused(tiff([SMALL_FRAME, SMALL_FRAME, (20_000, 20_000, zeros_packed(10_000), 8)]), ".tif")
    assert message.startswith("page 3 of the TIFF is 20,000 x 20,000 pixels; the limit is 40,000,000")


def test_every_page_is_checked_before_any_is_decoded() -> None:
    """A huge last page refuses the TIFF before its first pages cost anything (the old reader decoded them first)."""
    frames = [SMALL_FRAME] * 20 + [(6_400, 6_400, zeros_packed(1_000), 8)]
    message, seconds = refused(tiff(frames), ".tiff")
    assert message.startswith("page 21 of the TIFF is 6,400 x 6,400 pixels")
    assert seconds < 5


def test_a_png_header_past_the_limit_is_refused_before_a_pixel_is_decoded() -> None:
    message, _ = refused(png_header(100_000, 100_000), ".png")
    assert message == ("the picture is larger than 40,000,000 pixels a page (it holds 10,000,000,000): scale it down")
    message, _ = refused(png_header(7_000, 7_000), ".png")
    assert message.startswith("the picture is 7,000 x 7,000 pixels; the limit is 40,000,000 pixels a page")
    message, _ = refused(png_header(0, 10), ".png")
    assert message.startswith("corrupt PNG: ")


def test_a_jpeg_of_many_scans_is_refused_from_its_markers() -> None:
    data = many_scans(150)
    assert jpeg_scans(data) == jpeg_scans(progressive()) + 150
    message, seconds = refused(data, ".jpg")
    assert re.fullmatch(r"the JPEG holds 1\d\d scans; the limit is 100 \(a progressive JPEG has about 10, and each "
                        r"scan is a pass of the decoder over the whole picture\): re-export it", message), message
    assert seconds < 5


def test_a_scanned_pdf_page_drawing_a_jpeg_of_many_scans_is_refused() -> None:
    message, _ = refused(jpeg_page(many_scans(150), (64, 64)), ".pdf")
    assert re.fullmatch(r"page 1 draws a JPEG of 1\d\d scans; the limit is 100 .*: re-export the scan", message), \
        message


def test_scans_are_counted_by_the_markers_not_by_the_bytes_that_look_like_one() -> None:
    """An EXIF thumbnail (a JPEG inside an APP1 segment) and stuffed bytes in the entropy data are not scans; an
    MPO holds pictures one after the other, each counted on its own."""
    thumb = progressive((16, 16))
    base = progressive()
    app1 = b"\xff\xe1" + struct.pack(">H", len(thumb) + 2) + thumb
    assert jpeg_scans(base[:2] + app1 + base[2:]) == jpeg_scans(base)
    assert jpeg_scans(base + base) == jpeg_scans(base)
    assert jpeg_scans(b"\xff\xd8\xff\xda") == 1  # a truncated scan header still counts (and ends the walk)
    assert jpeg_scans(b"") == 0


@pytest.mark.parametrize("suffix, make", [
    (".png", lambda: noise_file("PNG")[:4_000]),
    (".jpg", lambda: noise_file("JPEG")[:3_000]),
    (".tiff", lambda: noise_file("TIFF")[:20_000]),
    (".png", lambda: b"\x89PNG\r\n\x1a\n" + bytes(200)),
    (".tiff", lambda: b"II*\x00" + struct.pack("<I", 10 ** 9)),
    (".tiff", lambda: tiff([(10, 10, b"\x00" * 100, 99)])),  # a compression no decoder knows
    (".jpg", lambda: b"\xff\xd8\xff\xe0" + bytes(50)),
])
def test_a_truncated_or_broken_picture_is_the_documents_refusal(suffix: str, make: object) -> None:
    message, seconds = refused(make(), suffix)  # type: ignore[operator]
    assert message.startswith(("corrupt PNG: ", "corrupt JPEG: ", "corrupt TIFF: ", "corrupt picture: page 1 cannot be "
                               "decoded")), message
    assert seconds < 5


def noise_file(fmt: str, size: tuple[int, int] = (300, 200)) -> bytes:
    pixels = np.random.default_rng(3).integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, fmt)
    return out.getvalue()


def test_a_tiff_whose_frames_go_on_and_on_is_refused_after_one_past_the_bound() -> None:
    message, seconds = refused(tiff([(1, 1, b"\x00", 1)] * 5_000), ".tiff")
    assert message == "the TIFF holds more than 101 pages; OCR reads at most 100 a document: split it"
    assert seconds < 5


def test_the_childs_ceilings_are_the_documents_refusal() -> None:
    """A picture within every bound of its header but past the child's memory, or its clock."""
    out = io.BytesIO()
    Image.new("L", (5_000, 5_000), 255).save(out, "PNG")  # 25 M pixels: 75 MB once decoded, more to store it
    small = dataclasses.replace(LIMITS, picture_memory=250_000_000)
    message, _ = refused(out.getvalue(), ".png", small)
    assert message.startswith("the picture needs more than 250 MB of memory to decode")
    hurried = dataclasses.replace(LIMITS, picture_wall_seconds=0.05)
    message, _ = refused(noise_file("PNG"), ".png", hurried)
    assert message.startswith("decoding the picture passed its bound on time (20 s of processor time a page, 300 s in "
                              "all, 0.05 s by the clock)")


def test_the_child_stores_a_picture_byte_for_byte_as_the_reader_did() -> None:
    """Its PDF is what reportlab writes in this process (its pure-Python encoder): the same picture keeps its
    version."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    frames = [Image.fromarray(np.random.default_rng(s).integers(0, 255, (90 + s, 70, 3), dtype=np.uint8))
              for s in range(3)]
    frames[1].paste((0, 0, 0), (0, 0, 40, 30))  # words of zeros: ASCII85's "z"
    out = io.BytesIO()
    frames[0].save(out, "TIFF", save_all=True, append_images=frames[1:], dpi=(300, 300))
    picture = Image.open(io.BytesIO(out.getvalue()))
    expected = io.BytesIO()
    c = canvas.Canvas(expected, invariant=1)
    for i in range(3):
        picture.seek(i)
        frame = picture.convert("RGB")
        dpi = picture.info.get("dpi", (150, 150))[0] or 150
        w, h = frame.width * 72 / dpi, frame.height * 72 / dpi
        c.setPageSize((w, h))
        c.drawImage(ImageReader(frame), 0, 0, w, h)
        c.showPage()
    c.save()
    assert convert_picture(out.getvalue(), "TIFF", LIMITS) == expected.getvalue()


def test_the_child_draws_a_page_as_the_reader_did() -> None:
    import pypdfium2 as pdfium

    pdf = jpeg_page(noise_file("JPEG", (120, 160)), (120, 160))
    width, height, rgb, _ = render_page(pdf, 0, 0.5, LIMITS)
    doc = pdfium.PdfDocument(pdf)
    here = np.asarray(doc[0].render(scale=0.5).to_pil().convert("RGB"))
    assert (height, width, 3) == here.shape and rgb == here.tobytes()


def test_a_folder_stores_its_good_files_beside_hostile_pictures(tmp_path: Path) -> None:
    """Each hostile picture is its own refusal with its reason; the rest of the folder is stored (before: the TIFF
    whose third page is past Pillow's ceiling ended the ingest with a traceback, nothing stored)."""
    from reportlab.pdfgen import canvas

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text("Porter uses Ledger at the east gate.\n")
    report = io.BytesIO()
    c = canvas.Canvas(report)
    c.drawString(72, 720, "Badges are returned to the front desk by six.")
    c.save()
    (folder / "report.pdf").write_bytes(report.getvalue())
    (folder / "pages.tiff").write_bytes(tiff([SMALL_FRAME, SMALL_FRAME, (20_000, 20_000, zeros_packed(10_000), 8)]))
    (folder / "scans.jpg").write_bytes(many_scans(150))
    (folder / "cut.png").write_bytes(noise_file("PNG")[:4_000])
    (folder / "scan.pdf").write_bytes(jpeg_page(many_scans(150), (64, 64)))
    with Store(tmp_path / "s.db") as store:
        got = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest_paths([folder])
        assert sorted(d.id for d in store.documents()) == ["notes", "report"]
    why = {d.path.rsplit("/", 1)[-1]: d.error or "" for d in got.documents if d.path and d.not_ingested}
    assert sorted(why) == ["cut.png", "pages.tiff", "scan.pdf", "scans.jpg"]
    assert why["pages.tiff"].startswith("page 3 of the TIFF is 20,000 x 20,000 pixels")
    assert why["scans.jpg"].startswith("the JPEG holds ")
    assert why["cut.png"] == "corrupt picture: page 1 cannot be decoded (image file is truncated)"
    assert why["scan.pdf"].startswith("page 1 draws a JPEG of ")
