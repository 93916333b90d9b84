"""Two dashboards (two `streamlit run` processes, two ports) on one PostgreSQL store: a verdict
given in one is in the other's record at its next rerun, and the sidebar names the store
without its password."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import ROOT, chromium, require_chromium, streamlit_server
from proc_helpers import write_synthetic_corpus

ARTIFACTS = ROOT / "test-artifacts"
pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")


def test_a_verdict_given_in_one_dashboard_shows_in_the_other(pg_server, tmp_path: Path) -> None:
    from seeds import seed_store as _seed_store

    url = pg_server.new_database()
    _seed_store(url, write_synthetic_corpus(tmp_path / "c", 6))  # one answer with three claims
    # the test server trusts local connections, so this password is ignored by it; it must never be shown
    with_password = url.replace("postgres@", "postgres:hunter2@")
    with streamlit_server(with_password, tmp_path / "a.log", sample=False) as a, \
            streamlit_server(with_password, tmp_path / "b.log", sample=False) as b, \
            sync_api.sync_playwright() as pw:
        browser = chromium(pw)
        page_a, page_b = browser.new_page(), browser.new_page(accept_downloads=True)
        for page, base in ((page_a, a), (page_b, b)):
            page.set_default_timeout(90_000)
            page.goto(f"{base}/review")
            page.get_by_text("Claim 1 of", exact=False).wait_for()
        side_b = page_b.get_by_test_id("stSidebar")
        assert side_b.get_by_text("0 verdicts", exact=False).count() == 1
        store_line = side_b.get_by_text("PostgreSQL:", exact=False).inner_text()
        assert "127.0.0.1" in store_line and "***" in store_line
        assert "hunter2" not in page_a.content() and "hunter2" not in page_b.content()

        name = page_a.get_by_test_id("stSidebar").get_by_label("Reviewer name", exact=True)
        name.fill("Reviewer A")
        name.press("Enter")
        page_a.locator(".st-key-rv_supported button").click()  # the yes button: "Answers" or "Backed"
        page_a.get_by_text("Recorded", exact=False).wait_for()

        page_b.reload()  # B's next rerun reads the shared record
        page_b.get_by_text("Claim 1 of", exact=False).wait_for()
        page_b.get_by_test_id("stSidebar").get_by_text("1 verdict", exact=False).wait_for()
        ARTIFACTS.mkdir(exist_ok=True)
        page_b.wait_for_timeout(800)  # dataframes and iframes paint asynchronously
        page_b.screenshot(path=str(ARTIFACTS / "team-b-after-a-verdict.png"))
        with page_b.expect_download() as dl:  # B's export of the record holds A's verdict
            page_b.get_by_role("button", name="CSV").click()
        csv_text = Path(dl.value.path()).read_text(encoding="utf-8")
        assert "Reviewer A" in csv_text and ",supported," in csv_text, csv_text[:500]
        browser.close()
