"""A dashboard killed (kill -9) and started again on its port while a reviewer's tab is open (issue 42): the tab
reconnects by itself and the page is drawn again from the store. The "Recorded …" banner and its Undo, which the new
process knows nothing of, are gone; a verdict key pressed while it was down is not recorded, and the page says so; a
key pressed after works, once; a question typed on the Ask page (not yet asked) is still there, and asking it asks
it.

Runs the dashboard on a small handbook and drives Debian's headless Chromium through Playwright.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_helpers import (
    ROOT,
    ask_in_browser,
    build_store,
    chromium_profile,
    require_chromium,
    restartable_server,
    wait_for_app_run,
    write_corpus,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")

ARTIFACTS = ROOT / "test-artifacts"
QUESTION = "How long do snapshot exports remain available after an account is cancelled?"
TYPED = "Which cluster reads the latest snapshot?"
RESTARTED = "This dashboard restarted while the page was open"


def test_a_killed_dashboard_comes_back_with_the_page_drawn_from_the_store(tmp_path: Path) -> None:
    from graphrag.store import Store

    ARTIFACTS.mkdir(exist_ok=True)
    db = build_store(tmp_path / "store.db", write_corpus(tmp_path / "corpus"))

    def verdicts() -> list[tuple[str, str, str]]:
        with Store(db) as s:
            return [(v.reviewer, v.verdict.value, v.role) for v in s.verdicts()]

    with restartable_server(db, tmp_path / "server.log") as server, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1440, "height": 900})
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        app = page.locator('[data-testid="stApp"]')

        def crash_and_restart(while_down=lambda: None) -> None:
            server.kill()
            sync_api.expect(app).not_to_have_attribute("data-test-connection-state", "CONNECTED", timeout=30_000)
            while_down()
            server.start()  # the same port: the tab reconnects by itself
            page.get_by_text(RESTARTED).wait_for()
            wait_for_app_run(page)

        def press(key: str) -> None:
            page.evaluate("() => document.activeElement && document.activeElement.blur()")  # not typing in a field
            page.keyboard.press(key)

        page.goto(f"{server.url}/?reviewer=kim")
        wait_for_app_run(page)
        ask_in_browser(page, QUESTION)
        page.get_by_role("button", name="Review this answer").click()
        page.get_by_text("Keys: S ", exact=False).first.wait_for()
        wait_for_app_run(page)
        press("s")
        page.get_by_text(re.compile("Recorded “(answers|backed)”"))  # S: yes, in the kind's words.first.wait_for()
        wait_for_app_run(page)
        undo = page.get_by_role("button", name=re.compile("Undo"))
        sync_api.expect(undo).to_have_count(1)

        crash_and_restart(while_down=lambda: press("u"))
        # Drawn again from the store by the new process: no banner, no Undo it could not honour; the page says that
        # what was pressed meanwhile was not recorded, and the store agrees.
        assert page.get_by_text("Recorded “", exact=False).count() == 0
        sync_api.expect(undo).to_have_count(0)
        assert page.get_by_text("was not recorded", exact=False).count() >= 1
        page.screenshot(path=str(ARTIFACTS / "12-review-after-restart.png"))
        assert verdicts() == [("kim", "supported", "reviewer")]
        press("u")  # and a key pressed now is recorded, once
        page.get_by_text(re.compile("Recorded “(does not answer|not backed)”")).first.wait_for()
        wait_for_app_run(page)
        assert verdicts() == [("kim", "supported", "reviewer"), ("kim", "unsupported", "reviewer")]

        # A question typed, not yet asked, when the dashboard goes down.
        page.get_by_test_id("stSidebar").get_by_role("link", name="Ask").click()
        wait_for_app_run(page)
        box = page.get_by_label("Question", exact=True)
        box.fill(TYPED)
        crash_and_restart()
        sync_api.expect(box).to_have_value(TYPED)
        page.get_by_role("button", name="Ask", exact=True).click()
        page.get_by_text(f"Question: {TYPED}", exact=False).first.wait_for(timeout=180_000)
        wait_for_app_run(page)
        assert page.get_by_text("the question is empty", exact=False).count() == 0
        assert not page.locator('[data-testid="stException"]').count()
        ctx.close()
