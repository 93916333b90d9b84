"""Picture uploads (PNG, JPEG, TIFF) refused before any pixel is decoded or OCR runs, each with its reason."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from graphrag.ingest.documents import Rejected, source_from_bytes
from graphrag.ingest.readers import ReadError, read_document
from graphrag.ingest.readers.limits import LIMITS

pytestmark = pytest.mark.unit


def _png(size: tuple[int, int], mode: str = "1") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, 1).save(out, "PNG")
    return out.getvalue()


def test_a_picture_whose_suffix_lies_is_refused_with_what_it_is() -> None:
    with pytest.raises(ReadError, match="the extension says JPEG but it is a PNG picture: rename it"):
        read_document(_png((40, 40)), ".jpg")
    with pytest.raises(ReadError, match="the extension says TIFF but its content is not a picture of that format"):
        read_document(b"<html><body><p>Not a scan.</p></body></html>", ".tiff")


def test_a_twenty_thousand_pixel_square_picture_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(ReadError, match=r"the picture is larger than 40,000,000 pixels a page .*: scale it down"):
        read_document(_png((20_000, 20_000)), ".png")
    with pytest.raises(ReadError, match=r"the picture is 8,000 x 6,000 pixels; the limit is 40,000,000 pixels a page"):
        read_document(_png((8_000, 6_000)), ".png")


def test_a_tiff_of_more_pages_than_ocr_reads_is_refused() -> None:
    frames = [Image.new("L", (8, 8), 255) for _ in range(LIMITS.ocr_pages + 1)]
    out = io.BytesIO()
    frames[0].save(out, "TIFF", save_all=True, append_images=frames[1:])
    with pytest.raises(ReadError, match=f"the TIFF holds {LIMITS.ocr_pages + 1} pages; OCR reads at most"):
        read_document(out.getvalue(), ".tiff")


def test_a_picture_named_as_text_is_refused_with_its_real_type() -> None:
    got = source_from_bytes("scan", _png((40, 40)), "scan.txt", None, (), None)
    assert isinstance(got, Rejected) and "the extension says text but it is a PNG file: rename it to .png" in got.reason
