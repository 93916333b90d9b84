"""The Review page's pictures of a stored PDF page are drawn in the bounded child (``picture_child``'s ``render``
job: a JPEG's scans counted first, then its processor-time, memory and clock ceilings), never in the server; a
refusal is a message in the picture's place, and an honest page is drawn once per (version, page, scale), as before.

Before: ``pages.render_page`` drew the page with PDFium in the dashboard's own process. A page with a text layer is
never drawn at ingest, so a JPEG of thousands of progressive scans on it (a 0.7 MB one of 10,000 cost 36 s) cost its
whole decoding in the server each time the page was shown. The hostile files: tests/support/hostile_pdf.py."""

from __future__ import annotations

import dataclasses
import io
import time
from collections import OrderedDict

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from graphrag.ingest.readers import picture_child
from graphrag.present import pages
from graphrag.present.pages import PageNotDrawn, render_page, render_scale
from graphrag.present.rewrap import WRAP_LINES
from hostile_pdf import BOX, many_scans, text_page

pytestmark = pytest.mark.unit

SCANS_MESSAGE = ("page 1's picture could not be drawn within the limits: it draws a JPEG of {:,} scans; the limit is "
                 "100 (a progressive JPEG has about 10, and each scan is a pass of the decoder over the whole picture)")


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("_cache", "_pixels", "_refusals"):
        monkeypatch.setattr(pages, name, OrderedDict())


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the children started to draw a page (each call of picture_child.render_page)."""
    started: list[int] = []
    real = picture_child.render_page

    def counting(*args: object, **kwargs: object) -> object:
        started.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(picture_child, "render_page", counting)
    return started


def scans_of(jpeg: bytes) -> int:
    return picture_child.jpeg_scans(jpeg)


def honest_jpeg() -> bytes:
    pixels = np.random.default_rng(5).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", progressive=True)
    return out.getvalue()


def drawn_here(pdf: bytes, rotation: int = 0) -> Image.Image:
    """The page as the server drew it before: PDFium in this process, at the Review page's scale, unrotated."""
    page = pdfium.PdfDocument(pdf)[0]
    scale = render_scale(*page.get_size())
    return page.render(scale=scale, rotation=(360 - rotation) % 360).to_pil().convert("RGB")


def test_a_text_page_drawing_a_jpeg_of_many_scans_is_refused_quickly_with_the_message(children: list[int]) -> None:
    jpeg = many_scans(3_000)
    pdf = text_page(jpeg)
    started = time.perf_counter()
    with pytest.raises(PageNotDrawn) as err:
        render_page(pdf, 1, [BOX], around=40, wrap=WRAP_LINES)  # the Review page's crop of the cited lines
    assert str(err.value) == SCANS_MESSAGE.format(scans_of(jpeg))
    assert time.perf_counter() - started < 5  # counted from its markers, not decoded
    assert len(children) == 1
    for _ in range(3):  # a rerun, the whole page, the kinds' outlines: the refusal is kept, no child is started
        with pytest.raises(PageNotDrawn, match="within the limits: it draws a JPEG of"):
            render_page(pdf, 1, [BOX])
    assert len(children) == 1


def test_an_honest_page_is_the_picture_the_server_drew_before_and_is_drawn_once(children: list[int]) -> None:
    pdf = text_page(honest_jpeg(), (160, 120))
    whole = Image.open(io.BytesIO(render_page(pdf, 1)))
    assert whole.tobytes() == drawn_here(pdf).tobytes()
    render_page(pdf, 1, [BOX])  # the whole page with the sentence boxed
    crop = Image.open(io.BytesIO(render_page(pdf, 1, [BOX], around=40, wrap=WRAP_LINES)))
    assert crop.width < whole.width and crop.height < whole.height
    assert len(children) == 1  # one child for the page at its scale, whatever is drawn on it


def test_a_turned_page_is_drawn_unturned_in_the_child_then_turned_with_its_boxes() -> None:
    pdf = text_page(honest_jpeg(), (160, 120), rotate=90)
    page = pdfium.PdfDocument(pdf)[0]
    picture = pages._picture(pdf, "sha", 1, render_scale(*page.get_size()), 270)
    assert picture.tobytes() == drawn_here(pdf, 90).tobytes()
    shown = Image.open(io.BytesIO(render_page(pdf, 1)))
    assert shown.size == (picture.height, picture.width)  # turned as the PDF shows it
    assert shown.tobytes() == drawn_here(pdf, 90).rotate(-90, expand=True).tobytes()


@pytest.mark.parametrize("how", [{"depth": 6}, {"packed": True}], ids=["six-forms-deep", "flate-packed"])
def test_a_jpeg_hidden_from_the_scan_count_is_counted_all_the_same(how: dict[str, object]) -> None:
    """Attacks on the count: the child looked 4 forms deep (PDFium draws about 40), and read a JPEG's bytes as
    stored (a Flate-packed one showed no markers): both were decoded in full under the ceiling."""
    jpeg = many_scans(3_000)
    with pytest.raises(PageNotDrawn) as err:
        render_page(text_page(jpeg, **how), 1, [BOX])  # type: ignore[arg-type]
    assert str(err.value) == SCANS_MESSAGE.format(scans_of(jpeg))


def test_a_picture_the_count_cannot_see_is_stopped_by_the_ceiling_and_said_so(monkeypatch: pytest.MonkeyPatch,
                                                                               children: list[int]) -> None:
    """A tiling pattern's picture is not among the page's objects: the processor-time ceiling stops it (here 1 s
    for a picture of about 2 s), the message says which bound, and the refusal is kept."""
    monkeypatch.setattr(pages, "LIMITS", dataclasses.replace(pages.LIMITS, picture_render_seconds=1.0))
    pdf = text_page(many_scans(3_000), pattern=True)
    started = time.perf_counter()
    with pytest.raises(PageNotDrawn) as err:
        render_page(pdf, 1, [BOX])
    assert str(err.value) == ("page 1's picture could not be drawn within the limits: drawing it passed 1 s of "
                              "processor time or 90 s by the clock (its pictures are too complex to decode, or built "
                              "to exhaust the server)")
    assert time.perf_counter() - started < 30
    with pytest.raises(PageNotDrawn, match="passed 1 s of processor time"):
        render_page(pdf, 1, [BOX], around=40)
    assert len(children) == 1


def test_the_memory_ceiling_is_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "LIMITS", dataclasses.replace(pages.LIMITS, picture_memory=60_000_000))
    pdf = text_page(honest_jpeg(), (160, 120))
    with pytest.raises(PageNotDrawn) as err:
        render_page(pdf, 1)
    assert str(err.value).startswith("page 1's picture could not be drawn within the limits: drawing it needed more "
                                     "than 60 MB of memory")


def test_a_child_that_cannot_start_is_a_message_asked_again_on_the_next_show(monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = text_page(honest_jpeg(), (160, 120))

    def cannot_start(*args: object, **kwargs: object) -> None:
        raise picture_child.Stopped("start", 0, "[Errno 11] Resource temporarily unavailable: '/srv/python'")

    monkeypatch.setattr(picture_child, "render_page", cannot_start)
    for _ in range(2):  # not kept: the next show asks again
        with pytest.raises(PageNotDrawn) as err:
            render_page(pdf, 1, [BOX])
        assert "/srv" not in str(err.value) and "no process could be started" in str(err.value)
    assert not pages._refusals


def test_a_removed_version_leaves_no_pixels_or_refusals_behind() -> None:
    honest, hostile = text_page(honest_jpeg(), (160, 120)), text_page(many_scans(3_000))
    render_page(honest, 1, file_sha256="honest")
    with pytest.raises(PageNotDrawn):
        render_page(hostile, 1, file_sha256="hostile")
    assert pages._pixels and pages._refusals
    pages.forget("honest")
    pages.forget("hostile")
    assert not pages._pixels and not pages._refusals and not pages._cache


def test_a_kept_page_is_shown_while_a_child_draws_another(children: list[int]) -> None:
    """A hostile page holds the one child for up to its bound (90 s by the clock): a page already drawn is shown
    from its kept pixels meanwhile, without waiting for it."""
    import threading

    pdf = text_page(honest_jpeg(), (160, 120))
    render_page(pdf, 1)
    pages._cache.clear()  # its PNGs gone, its pixels kept
    shown: list[bytes] = []
    with pages._child_lock:  # a child drawing another page meanwhile
        worker = threading.Thread(target=lambda: shown.append(render_page(pdf, 1, [BOX], around=40)), daemon=True)
        worker.start()
        worker.join(20)
        assert shown, "the kept page waited for the child drawing another"
    assert len(children) == 1
