"""A PDF in a real browser: uploaded on the Ingest page, cited on the Ask page with its page, and
shown boxed on its page on the Review page.

Headless Chromium (Debian's, through Playwright) against `streamlit run app.py` on an empty store.
The screenshots land in test-artifacts/ for a person to look at; the test also checks that the
page image arrived from this machine and that its boxed pixels are there.
"""

from __future__ import annotations

import io
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from app_helpers import (
    ROOT,
    ask_in_browser,
    chromium_profile,
    require_chromium,
    streamlit_server,
    wait_for_text,
)

ARTIFACTS = ROOT / "test-artifacts"
QUESTION = "Within how many hours are affected customers notified of a security incident?"
PAPER_QUESTION = "How long does training take?"
PAPER_SENTENCE = "Training takes eleven days on eight accelerators."

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.model]

require_chromium()
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")


def test_review_page_shows_the_cited_pdf_page_with_the_sentence_boxed(tmp_path: Path) -> None:
    from PIL import Image

    from doc_helpers import scanned_pdf
    from paper_pdf import STAMP, paper_pdf

    store = tmp_path / "store.db"
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf())
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(paper_pdf())
    ARTIFACTS.mkdir(exist_ok=True)
    requests: list[str] = []
    with streamlit_server(store, tmp_path / "server.log", sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1440, "height": 1000})
        ctx.on("request", lambda r: requests.append(r.url))
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        # A newcomer uploads a PDF (with a scanned one and a two-column paper) on the Ingest page.
        page.goto(url)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Ingest").click()
        page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(
            [str(ROOT / "sample_corpus" / "security-handbook.pdf"), str(scan), str(paper)])
        page.get_by_role("button", name="Ingest", exact=True).click()
        # The scan's reason, in the message below the report table. (Not the table's own cell: the table
        # draws on a canvas and keeps hidden cells for assistive technology; `.first` of the reason's text
        # sometimes found that hidden cell and waited for it to become visible, which it never does.)
        page.get_by_text("with problems (see the message column)", exact=False).wait_for(timeout=240_000)
        page.get_by_text("scan: rejected — no text found: this PDF has no text layer", exact=False).wait_for()
        # The paper's reading report: what was left out of its citable text.
        # (The whole report is also in a hidden cell of the table: only the visible message counts.)
        wait_for_text(page, "paper: read 1 page: 23 sentences, 10 of them citable (body text), from 19 body lines, "
                            "5 headings, 3 caption lines, 3 table rows, 3 title-block lines")
        wait_for_text(page, "left out of the text: 2 footnote lines, 1 equation, 6 figure labels, 9 lines of "
                            "references and links (References; page 1), turned text on page 1 (a margin stamp or "
                            f'rotated label: "{STAMP}")')
        page.wait_for_timeout(1200)
        page.screenshot(path=str(ARTIFACTS / "09-ingest-pdf.png"), full_page=True)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Ask").click()
        ask_in_browser(page, QUESTION)
        wait_for_text(page, "· v1 · p. 2")  # the Ask page names the page under the claim, no click needed
        page.wait_for_timeout(800)
        page.screenshot(path=str(ARTIFACTS / "10-ask-pdf.png"), full_page=True)

        page.get_by_role("button", name="Review this answer").click()
        page.get_by_text("Claim 1 of", exact=False).wait_for()
        for _ in range(6):  # move on to a claim whose source is the PDF, if the first is not
            page.wait_for_timeout(1500)
            if page.locator("[data-testid='stImage'] img").count():
                break
            page.get_by_role("button", name="Next").click()
        image = page.locator("[data-testid='stImage'] img").first
        image.wait_for()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        page.wait_for_timeout(1000)
        shot = ARTIFACTS / "11-review-pdf-page.png"
        page.screenshot(path=str(shot))
        png = image.screenshot()

        # The two-column paper: the answer quotes its prose sentence, nothing glued to it, and the Review page
        # boxes it and can outline what the reader made of every line of the page.
        page.get_by_test_id("stSidebar").get_by_role("link", name="Ask").click()
        ask_in_browser(page, PAPER_QUESTION)
        wait_for_text(page, PAPER_SENTENCE)
        answer = page.locator("[data-testid='stMain']").inner_text()
        assert "accelerators. 2 Models" not in answer and "arXiv" not in answer
        page.get_by_role("button", name="Review this answer").click()
        page.get_by_text("Claim 1 of", exact=False).wait_for()
        page.locator("[data-testid='stImage'] img").first.wait_for()
        page.get_by_text("Whole page 1", exact=False).click()
        page.get_by_text("Outline what the reader found on this page", exact=False).click()
        wait_for_text(page, "table 3", timeout_ms=120_000)  # the legend counts the page's lines by kind
        assert page.locator("[data-testid='stImage'] img").count() == 3  # the lines, the page, the outlined page
        page.wait_for_timeout(1000)
        page.screenshot(path=str(ARTIFACTS / "12-review-paper-kinds.png"), full_page=True)
        ctx.close()

    # The cropped page image holds the translucent yellow box over the cited lines.
    img = Image.open(io.BytesIO(png)).convert("RGB")
    yellow = sum(1 for r, g, b in img.getdata() if r > 230 and 200 < g < 245 and b < 200)
    assert yellow > 2000, f"no box drawn on the page image ({yellow} yellow pixels)"
    outside = sorted({u for u in requests if urlsplit(u).scheme not in ("data", "blob", "about")
                      and urlsplit(u).hostname not in ("127.0.0.1", "localhost")})
    assert not outside, f"requests left this machine: {outside}"
