"""The Review page's picture of a cited PDF sentence is legible on a 1280x720 laptop screen (issue 44): a sentence
whose printed lines run the page's whole width, drawn in the source column, keeps its print at a readable size
(its lines rewrapped to the column, not shrunk to a third of their height); and a quote of a picture's caption
says it is one. A store written directly (the generated article of tests/support/reading_pdf.py, no model);
Debian's Chromium through Playwright; the screenshot lands in test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import ROOT, chromium_profile, require_chromium, streamlit_server, wait_for_app_run
from graphrag.present.pages import DPI
from graphrag.store import Store
from reading_pdf import SENTENCES, stored_article

pytestmark = [pytest.mark.browser, pytest.mark.slow]
require_chromium()
sync_api = pytest.importorskip("playwright.sync_api")

# The cited line's height on screen, in CSS pixels, at least: its print about as large as the page's own
# 14-pixel captions (a line's box spans ascenders to descenders, about 1.1 of the type size). Drawn across the
# column at the printed width it was 7.7 (19.5 rewrapped).
READABLE_PX = 14.0


def test_the_cited_lines_are_legible_at_1280x720_and_a_caption_says_it_is_one(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    stored_article(path)
    with Store(path) as store:
        idx = next(s.sentence_index for s in store.sentences("article", 1)
                   if " ".join(s.text.split()) == SENTENCES[0])
        layout = store.layout("article", 1, idx)
    assert layout is not None and layout.boxes
    line_pt = max(b[4] - b[2] for b in layout.boxes)  # the tallest printed line of the cited sentence
    assert max(b[3] - b[1] for b in layout.boxes) > 300  # over 4 inches of a line that runs the page's width
    with streamlit_server(path, tmp_path / "server.log", sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1280, "height": 720})
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        # one claim quotes the caption, the other cites the body sentence: the queue shows them in either order
        page.goto(f"{url}/review?reviewer=kim")
        screens = []
        for step in range(2):
            if step:
                page.get_by_role("button", name="Next").click()
                page.get_by_text("Claim 2 of 2", exact=False).first.wait_for()
            page.locator(".st-key-rv_supported button").wait_for()
            image = page.locator("[data-testid='stImage'] img").first
            image.wait_for()
            page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
            wait_for_app_run(page)
            page.wait_for_timeout(800)
            screens.append((page.inner_text("body"), image.evaluate(
                "img => [img.getBoundingClientRect().width, img.naturalWidth]")))
            if "Quoted from a caption" not in screens[-1][0]:
                (ROOT / "test-artifacts").mkdir(exist_ok=True)
                image.scroll_into_view_if_needed()
                page.screenshot(path=str(ROOT / "test-artifacts" / "16-review-page-picture-1280x720.png"))
        (caption,) = [text for text, _ in screens if "Quoted from a caption" in text]
        assert "caption, p. 1" in caption
        ((_, shown),) = [(text, size) for text, size in screens if "Quoted from a caption" not in text]
        on_screen = line_pt * DPI / 72 * shown[0] / shown[1]
        assert on_screen >= READABLE_PX, (on_screen, shown)
        assert shown[0] <= 1280 / 2, shown  # the picture fits its column: nothing to scroll sideways
        ctx.close()
