"""The first start survives the page: a new user opens a fresh dashboard and, as soon as the first start shows
(the ingest job running), clicks "Review". The ingest is a job of the server, so the rerun does not cancel it: the
sample corpus is stored, and the Ask page answers. (It waited three seconds while the models loaded; with the ONNX
encoder the whole first start can end within them, and the test then proved nothing.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import (
    ask_in_browser,
    chromium_profile,
    require_chromium,
    sample_versions,
    shown_sample_versions,
    streamlit_server,
    wait_for_app_run,
)
from proc_helpers import document_count

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")

SAMPLE_VERSIONS = sample_versions()  # the sample corpus: one document in two versions, the rest in one
SHOWN_VERSIONS = shown_sample_versions()  # of those, what the sidebar counts for the default public viewer


@pytest.mark.timeout(420)
def test_clicking_review_during_the_first_start_does_not_cancel_it(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    with streamlit_server(store, tmp_path / "server.log") as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.set_default_timeout(240_000)
        page.goto(url)
        page.get_by_text("First start: the store is empty", exact=False).wait_for()
        sidebar = page.get_by_test_id("stSidebar")
        at_click = document_count(store)
        assert at_click < SAMPLE_VERSIONS, "the first start ended before the click: the test proves nothing"
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Review").click()

        # The rerun for the Review page finds the same job still running, and watches it to the end.
        page.get_by_text("First start: ingested the sample corpus", exact=False).wait_for()
        wait_for_app_run(page)
        assert document_count(store) == SAMPLE_VERSIONS
        page.get_by_text("Nothing to review yet", exact=False).wait_for()  # the Review page, drawn after it
        assert sidebar.get_by_text(f"({SHOWN_VERSIONS} versions)", exact=False).count() == 1

        # Another session (a reload in a new tab) sees the stored corpus, and is not offered a second start.
        other = ctx.new_page()
        other.goto(url)
        wait_for_app_run(other)
        assert other.get_by_test_id("stSidebar").get_by_text(f"({SHOWN_VERSIONS} versions)", exact=False).count() == 1
        assert other.get_by_text("First start: the store is empty", exact=False).count() == 0

        # The Ask page answers from the ingested corpus.
        other.get_by_test_id("stSidebarNav").get_by_role("link", name="Ask").click()
        wait_for_app_run(other)
        ask_in_browser(other, "How long do exports stay available after cancellation?")
        assert document_count(store) == SAMPLE_VERSIONS  # nothing was ingested twice
        ctx.close()


@pytest.mark.timeout(1200)
def test_an_ingest_from_the_ingest_page_goes_on_while_the_user_is_elsewhere(tmp_path: Path) -> None:
    from proc_helpers import doc_text, wait_while_ingest_grows

    folder = tmp_path / "runbooks"
    folder.mkdir()
    n = 80
    for i in range(n):
        (folder / f"runbook-{i:02d}.md").write_text(doc_text(i), encoding="utf-8")
    store = tmp_path / "store.db"
    with streamlit_server(store, tmp_path / "server.log", sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.set_default_timeout(240_000)
        page.goto(f"{url}/ingest")
        wait_for_app_run(page)
        page.get_by_text("Folder on this machine").click()
        wait_for_app_run(page)
        box = page.get_by_label("Folder or file path", exact=True)
        box.fill(str(folder))
        box.press("Enter")
        wait_for_app_run(page)
        page.get_by_role("button", name="Ingest", exact=True).click()
        page.get_by_text("Ingesting…", exact=False).wait_for()

        # Leave the page while it runs: the job goes on, and the sidebar of the other page shows it.
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Graph").click()
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_text("Folder ingest:", exact=False).first.wait_for()
        assert document_count(store) < n, "the ingest ended before the page was left: the test proves nothing"
        # When it ends the page redraws by itself with the new counts. How long the job takes depends on
        # the machine's load: wait while it makes progress, then give the page its usual time to redraw.
        assert wait_while_ingest_grows(store, n) == n
        sidebar.get_by_text(f"({n} versions)", exact=False).wait_for()

        # Back on the Ingest page, the report of the job this session started is shown.
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Ingest").click()
        page.get_by_text(f"Ingested {n} documents", exact=False).wait_for()
        page.get_by_text("Last ingest").wait_for()
        ctx.close()
