"""Rendering a cited page is bounded: a pixel budget per picture (huge pages drawn smaller), a message
instead of a traceback when a page cannot be drawn, and a few pictures per citation however many pages
the sentence spans.

Before: the Review page drew a cited page at 150 dpi whatever its size (a 200-inch page passed 10 GB),
PIL's DecompressionBombError and MemoryError reached the page as tracebacks with server paths, and a
sentence over 281 pages drew 562 images on every rerun.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from doc_helpers import PDF_PATH, shared_stream_pdf
from graphrag.ingest.readers import picture_child
from graphrag.ingest.readers.picture_child import Refused
from graphrag.present import pages
from graphrag.present.pages import MAX_PIXELS, PageNotDrawn, pages_to_show, render_page

# heavy (renders large PDF pages and runs the Review page in AppTest): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    for kept in (pages._cache, pages._pixels, pages._refusals):
        kept.clear()


def picture(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_a_large_page_is_drawn_within_the_pixel_budget_with_its_box_in_place() -> None:
    data = shared_stream_pdf(1, lines=3, page_size=(3000, 3000))  # 42 inches a side: 39 M pixels at 150 dpi
    box = (1, 20.0, 2213.0, 400.0, 2224.0)  # points, origin top-left (the first line sits at y 2220)
    image = picture(render_page(data, 1, [box]))
    assert image.width * image.height <= MAX_PIXELS
    assert image.width == image.height and image.width > 2000  # drawn smaller, not cut
    scale = image.width / 3000
    r, g, b = image.getpixel((round(300 * scale), round(2215 * scale)))
    assert r > 200 and g > 180 and b < 200, "the box is not where the sentence is"


def test_a_200_inch_page_is_drawn_in_seconds() -> None:
    data = shared_stream_pdf(1, lines=3, page_size=(14400, 14400))  # the largest page PDF allows
    t0 = time.perf_counter()
    image = picture(render_page(data, 1, [(1, 20, 13600, 400, 13620)]))
    crop = picture(render_page(data, 1, [(1, 20, 13600, 400, 13620)], around=90))
    assert time.perf_counter() - t0 < 30
    assert image.width * image.height <= MAX_PIXELS and crop.width * crop.height <= MAX_PIXELS


def test_a_normal_page_keeps_its_resolution() -> None:
    image = picture(render_page(PDF_PATH.read_bytes(), 1))
    assert abs(image.width - 612 * 150 / 72) <= 1


@pytest.mark.parametrize("failure", [
    MemoryError(),
    Image.DecompressionBombError("Image size (1000000000 pixels) exceeds limit; /srv/graphrag/.venv/PIL/Image.py"),
    pdfium.PdfiumError("Failed to render /srv/graphrag/data/upload.pdf"),
    Refused("undecodable", 2, detail="Failed to render /srv/graphrag/data/upload.pdf"),  # the child's decoder said no
])
def test_a_page_that_cannot_be_drawn_gives_a_message_without_server_details(
        failure: Exception, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise failure

    monkeypatch.setattr(picture_child, "render_page", fail)  # the page is drawn in the child, read back here
    with pytest.raises(PageNotDrawn) as err:
        render_page(PDF_PATH.read_bytes(), 2)
    message = str(err.value)
    assert message.startswith("page 2 could not be drawn: ")
    assert "/srv" not in message and "Traceback" not in message and "Image.py" not in message
    assert err.value.__suppress_context__  # the library's exception is not chained into what is shown


def test_a_missing_page_or_a_broken_file_is_a_message_too() -> None:
    with pytest.raises(PageNotDrawn, match="page 9 is not in this PDF"):
        render_page(PDF_PATH.read_bytes(), 9)
    with pytest.raises(PageNotDrawn, match="page 1 could not be drawn: corrupt"):
        render_page(b"%PDF-1.4\n" + b"\x00" * 100, 1)


def test_a_sentence_over_281_pages_draws_its_first_and_last_page() -> None:
    shown, between = pages_to_show([p for p in range(1, 282) for _ in range(2)])  # two boxes a page
    assert shown == [1, 281] and between == list(range(2, 281))
    assert pages_to_show([4]) == ([4], []) and pages_to_show([5, 4]) == ([4, 5], [])


def test_renders_are_cached_by_the_file_hash_within_a_byte_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    data = PDF_PATH.read_bytes()
    drawn: list[int] = []
    real = pages._draw

    def counting(*args: object) -> bytes:
        drawn.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(pages, "_draw", counting)
    first = render_page(data, 1, file_sha256="abc")
    assert render_page(data, 1, file_sha256="abc") is first and len(drawn) == 1  # a rerun draws nothing
    monkeypatch.setattr(pages, "_CACHE_BYTES", len(first) * 2)
    for page in (2, 3, 4):
        render_page(data, page, file_sha256="abc")
    assert sum(map(len, pages._cache.values())) <= len(first) * 2 + max(map(len, pages._cache.values()))
    assert len(pages._cache) < 4
    pages.forget("abc")
    assert not pages._cache


# --- the Review page's pictures of a citation (dashboard/cited_pages.py, run as a Streamlit script) -------------

def _cited_pages_script(pdf: bytes, pages: int) -> None:
    from dashboard.cited_pages import show_cited_pages
    from graphrag.model import SpanLayout

    boxes = tuple((p, 20.0, 10.0, 400.0, 24.0) for p in range(1, pages + 1))
    show_cited_pages(pdf, None, SpanLayout(page=1, page_end=pages, boxes=boxes), "cite")


def _images(at) -> int:
    return len(at.get("image"))


def test_the_review_page_draws_two_pictures_for_a_sentence_over_281_pages_and_the_rest_on_demand() -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_cited_pages_script, args=(shared_stream_pdf(281, lines=2), 281), default_timeout=60)
    at.run()
    assert not at.exception
    assert _images(at) == 2  # the first and the last page, cropped
    assert [t.label for t in at.toggle] == ["Whole page 1", "Whole page 281"]
    (between,) = at.selectbox
    assert between.options[0] == "2" and len(between.options) == 279
    at = between.select(140).run()
    assert _images(at) == 3
    at = at.toggle(key="whole_cite_281").set_value(True).run()
    assert _images(at) == 4 and not at.exception


def test_the_review_page_says_when_a_page_cannot_be_drawn() -> None:
    from streamlit.testing.v1 import AppTest

    broken = b"%PDF-1.4\n" + b"\x00" * 100
    at = AppTest.from_function(_cited_pages_script, args=(broken, 1), default_timeout=60)
    at.run()
    assert not at.exception and _images(at) == 0
    (warning,) = at.warning
    assert warning.value.startswith("Page 1 could not be drawn") and "/" not in warning.value.split(":", 1)[1]


# --- a stored page whose picture the bounded child refuses (issue 58, MEDIUM 4) --------------------------------------

def _unescaped(shown: str) -> str:
    """A warning's words as the reader sees them (``render.plain`` escapes Markdown's characters with a backslash)."""
    return re.sub(r"\\(.)", r"\1", shown)


def _cited_then_text_script(pdf: bytes) -> None:
    import streamlit as st

    from dashboard.cited_pages import show_cited_pages
    from graphrag.model import SpanLayout
    from hostile_pdf import BOX, SENTENCE

    show_cited_pages(pdf, None, SpanLayout(page=1, boxes=(BOX,)), "cite")
    st.markdown(SENTENCE)  # what the Review page shows after the pictures: the cited text


def test_the_pictures_section_says_why_a_page_was_not_drawn_and_the_page_goes_on() -> None:
    from streamlit.testing.v1 import AppTest

    from hostile_pdf import SENTENCE, many_scans, text_page

    at = AppTest.from_function(_cited_then_text_script, args=(text_page(many_scans(3_000)),), default_timeout=60)
    at.run()
    assert not at.exception and _images(at) == 0
    (warning,) = at.warning
    assert _unescaped(warning.value).startswith(
        "Page 1's picture could not be drawn within the limits: it draws a JPEG of 3,0")
    assert [m.value for m in at.markdown][-1] == SENTENCE


def _hostile_store(path: Path) -> str:
    """A store holding ``notice.pdf`` (a page with a text layer and a JPEG of 3,000 scans, stored without being
    drawn) and one answer citing its sentence; returns the answer's id."""
    from doubles.extract import ScriptedExtractor, ScriptEntity
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route
    from graphrag.store import Store
    from hostile_pdf import SENTENCE, many_scans, text_page
    from proc_helpers import HashEmbedder

    docs = path.parent / "notice-docs"
    docs.mkdir()
    (docs / "notice.pdf").write_bytes(text_page(many_scans(3_000)))
    with Store(path) as store:
        report = Ingestor(store, ScriptedExtractor([ScriptEntity("Badges", "Badges are returned")]),
                          HashEmbedder()).ingest_paths([docs])
        assert all(d.status == "ok" for d in report.documents), report
        (span,) = store.sentences("notice", 1)
        (seed,) = store.entity_names()
        item = ContextItem(1, span, Route(seed), 0.8, "similarity")
        text = f"{SENTENCE[:-1]} [1]."
        claim = Claim(0, SENTENCE, 0, len(text), (Citation("1", True, item),))
        return store.save_answer(Answer("When are badges returned?", AskSettings(access=("public",)), text, (), (),
                                        (item,), (claim,)))


@pytest.mark.slow
def test_the_review_page_shows_the_refusal_in_the_pictures_place_and_the_cited_text(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Before, the dashboard decoded the JPEG's 3,000 scans itself (about 2 s of processor time a show; 10,000
    scans of a larger picture cost 36 s) and showed the picture."""
    from app_helpers import app, ok, page, texts
    from hostile_pdf import SENTENCE

    answer_id = _hostile_store(tmp_path / "store.db")
    at = ok(app(monkeypatch, tmp_path / "store.db"))
    at.session_state["review_current"] = (answer_id, 0)
    started = time.perf_counter()
    at = page(at, "review")
    assert time.perf_counter() - started < 60
    warnings = [_unescaped(w) for w in texts(at.warning) if "picture could not be drawn" in w]
    assert len(warnings) == 1 and warnings[0].startswith(
        "Page 1's picture could not be drawn within the limits: it draws a JPEG of 3,0"), texts(at.warning)
    assert _images(at) == 0
    boxes = " ".join(h.proto.body for h in at.get("html"))
    assert SENTENCE.split(" by ")[0] in boxes  # the cited sentence, in its context box
