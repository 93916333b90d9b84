"""A citation opens its PDF in the browser (issue 47): on the Ask page and on the Review page, "Open the document"
shows the sample handbook in PDF.js at the page printed 2 (its third sheet), scrolled to the cited sentence, whose printed line is outlined, and
every request the page makes goes to the dashboard itself (PDF.js and its worker are served by it, no CDN).

Headless Chromium (Debian's, through Playwright) against `streamlit run app.py` on the sample corpus. The outline is
checked against PDF.js's own text layer: the words drawn under it are the cited sentence's. An HTML citation opens
as the document's text with the sentence marked and on screen.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from app_helpers import (
    ROOT,
    ask_in_browser,
    chromium_profile,
    require_chromium,
    streamlit_server,
    wait_for_app_run,
    wait_for_sample_corpus,
    wait_for_text,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")

ARTIFACTS = ROOT / "test-artifacts"
QUESTION = "Within how many hours are affected customers notified of a security incident?"
HTML_QUESTION = "Can annual plans be refunded?"
CITED_WORDS = "notifies affected customers within 72 hours"

# In the viewer's frame: the page the first outline lies on, whether it is on screen, and the text-layer words whose
# middle lies inside an outline (PDF.js draws each word run as a transparent span over the page picture).
_OUTLINED = """() => {
  const marks = [...document.querySelectorAll('[id^="annotation-"]')].map(m => m.getBoundingClientRect());
  if (!marks.length) return null;
  const m = marks[0];
  const page = [...document.querySelectorAll('canvas[id^="canvas_page_"]')].find(c => {
    const r = c.getBoundingClientRect();
    return m.top >= r.top - 1 && m.bottom <= r.bottom + 1 && m.left >= r.left - 1 && m.right <= r.right + 1; });
  const words = [...document.querySelectorAll('.textLayer span')].filter(s => {
    const r = s.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    return r.width > 0 && marks.some(k => x >= k.left && x <= k.right && y >= k.top && y <= k.bottom); });
  return {page: page ? page.id : null, onScreen: m.top >= 0 && m.bottom <= window.innerHeight,
          text: words.map(s => s.textContent).join(' ').replace(/\\s+/g, ' ')};
}"""


def _check_viewer(page, shot: Path) -> None:  # `page`: a Playwright Page with the viewer's dialog opening
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    dialog.get_by_text("Security handbook", exact=False).first.wait_for(timeout=60_000)
    frame = page.frame_locator("[role='dialog'] iframe[title*='pdf_viewer']")
    frame.locator("#canvas_page_3").wait_for(timeout=120_000)
    frame.locator("[id^='annotation-']").first.wait_for(timeout=60_000)
    frame.locator(".textLayer span").first.wait_for(timeout=60_000)
    found = None
    for _ in range(40):  # the text layer fills in after the pictures; the scroll follows the render
        found = frame.locator("body").evaluate(f"() => ({_OUTLINED})()")
        if found and found["onScreen"] and CITED_WORDS in found["text"]:
            break
        page.wait_for_timeout(500)
    assert found is not None, "no outline drawn in the viewer"
    assert found["page"] == "canvas_page_3", found  # the third sheet, printed "2" (the first is "i")
    assert found["onScreen"], f"the viewer did not open at the cited sentence: {found}"
    assert CITED_WORDS in found["text"], f"the outline is not over the cited sentence: {found['text']!r}"
    page.wait_for_timeout(500)
    page.screenshot(path=str(shot))
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")


def test_a_citation_opens_the_pdf_at_its_page_with_the_sentence_outlined_from_ask_and_review(tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    requests: list[str] = []
    with streamlit_server(tmp_path / "store.db", tmp_path / "server.log") as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1440, "height": 1000})
        ctx.on("request", lambda r: requests.append(r.url))
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        page.goto(url)
        host = urlsplit(url).hostname
        wait_for_sample_corpus(page)

        ask_in_browser(page, QUESTION)
        wait_for_text(page, "· v1 · p. 2")
        cited = page.get_by_text("· v1 · p. 2", exact=False).filter(visible=True).first
        cited.locator("xpath=following::button[contains(., 'Open the document')][1]").click()
        _check_viewer(page, ARTIFACTS / "13-ask-pdf-viewer.png")

        page.get_by_role("button", name="Review this answer").click()
        page.get_by_text("Claim 1 of", exact=False).wait_for()
        for _ in range(6):  # move on to a claim whose source is the PDF, if the first is not
            wait_for_app_run(page)
            if page.locator("[data-testid='stImage'] img").count():
                break
            page.get_by_role("button", name="Next").click()
        page.get_by_role("button", name="Open the document").click()
        _check_viewer(page, ARTIFACTS / "14-review-pdf-viewer.png")

        # An HTML document opens as its text, the cited sentence marked and on screen.
        page.get_by_test_id("stSidebar").get_by_role("link", name="Ask").click()
        ask_in_browser(page, HTML_QUESTION)
        cited = page.get_by_text("Refunds > Annual plans", exact=False).filter(visible=True).first
        cited.locator("xpath=following::button[contains(., 'Open the document')][1]").click()
        mark = page.frame_locator("[role='dialog'] iframe").locator("mark#cited")
        mark.wait_for(timeout=60_000)
        assert "annual" in mark.inner_text().lower()
        assert mark.evaluate("m => { const r = m.getBoundingClientRect(); "
                             "return r.top >= 0 && r.bottom <= window.innerHeight; }")
        page.screenshot(path=str(ARTIFACTS / "15-ask-html-viewer.png"))
        ctx.close()

    assert any("streamlit_pdf_viewer" in u for u in requests), "the viewer's assets were not loaded"
    outside = sorted({u for u in requests if urlsplit(u).scheme not in ("data", "blob", "about")
                      and urlsplit(u).hostname != host})
    assert not outside, f"requests left the dashboard's host: {outside}"
