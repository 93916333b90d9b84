"""The Review page worked with the keyboard in a real browser (issue 25): a reviewer names themself once, judges two
claims with S and U, takes the second back with Z, reloads the page and is still themself. The store then holds
the two verdicts and the correction, all under the name typed once.

Runs the dashboard on the sample corpus and drives Debian's headless Chromium through Playwright; the screenshot
lands in test-artifacts/ for a human to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_helpers import (
    ROOT,
    ask_in_browser,
    chromium_profile,
    require_chromium,
    streamlit_server,
    wait_for_app_run,
    wait_for_sample_corpus,
)
from graphrag.model import asked_kind

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")

ARTIFACTS = ROOT / "test-artifacts"
QUESTION = "How long do snapshot exports remain available after an account is cancelled?"


def test_two_claims_judged_with_the_keyboard_one_undone_and_the_name_kept_after_a_reload(tmp_path: Path) -> None:
    from graphrag.store import Store

    ARTIFACTS.mkdir(exist_ok=True)
    db = tmp_path / "store.db"
    with streamlit_server(db, tmp_path / "server.log") as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1440, "height": 900})
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        page.goto(url)
        wait_for_sample_corpus(page)
        sidebar = page.get_by_test_id("stSidebar")
        name_box = sidebar.get_by_label("Reviewer name", exact=True)
        name_box.fill("kim")
        name_box.press("Enter")
        wait_for_app_run(page)
        # typed once: kept in the address (the app run that sets it may end before the browser applies it, so wait)
        page.wait_for_url(re.compile(r"[?&]reviewer=kim\b"))

        ask_in_browser(page, QUESTION)
        page.get_by_role("button", name="Review this answer").click()
        header = page.locator("p", has_text="in the queue ·").first
        sync_api.expect(header).to_contain_text("Claim 1 of", timeout=120_000)
        wait_for_app_run(page)
        total = int(re.search(r"Claim 1 of (\d+)", header.inner_text())[1])  # type: ignore[index]
        assert total >= 2
        page.get_by_text("Keys: S ", exact=False).first.wait_for()

        def words() -> tuple[str, str]:
            """The verdicts S and U give on the claim on screen, in the words of the question it is asked."""
            quote = page.get_by_text("Does this answer the question?", exact=True).count() > 0
            return ("answers", "does not answer") if quote else ("backed", "not backed")

        def press(key: str, expect: str) -> None:
            page.evaluate("() => document.activeElement && document.activeElement.blur()")  # not typing in a field
            page.keyboard.press(key)
            page.get_by_text(expect, exact=False).first.wait_for()
            wait_for_app_run(page)

        press("s", f"Recorded “{words()[0]}”")
        sync_api.expect(header).to_contain_text(f"Claim 2 of {total} in the queue · {total - 1} left for you")
        press("u", f"Recorded “{words()[1]}”")
        sync_api.expect(header).to_contain_text(f"Claim 3 of {total}" if total > 2 else "End of the queue")
        press("z", "undone")
        sync_api.expect(header).to_contain_text(f"Claim 2 of {total} in the queue · {total - 1} left for you")
        page.wait_for_timeout(1200)  # iframes paint asynchronously
        page.screenshot(path=str(ARTIFACTS / "11-review-keyboard.png"))

        # A reload: a new session, the same address; the name is still there, and so is the place in the queue.
        page.reload()
        wait_for_app_run(page)
        sync_api.expect(sidebar.get_by_label("Reviewer name", exact=True)).to_have_value("kim", timeout=120_000)
        ctx.close()

    with Store(db) as s:
        rows = [(v.reviewer, v.verdict.value, v.role) for v in s.verdicts()]
        # each verdict answers the question its claim was asked (a quote: does it answer? else: is it backed?)
        kinds = {(v.kind, asked_kind(next(c.flags for c in s.answer(v.answer_id).claims if c.index == v.claim_index)))
                 for v in s.verdicts()}
    assert rows == [("kim", "supported", "reviewer"), ("kim", "unsupported", "reviewer"),
                    ("kim", "unsupported", "retraction")], rows
    assert all(judged == asked for judged, asked in kinds), kinds
