"""The Record page in a real browser, on a seeded record of two reviewers (screenshot to look at)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import ROOT, chromium_profile, require_chromium, streamlit_server, wait_for_app_run
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from helpers import write_document_rows
from seeds import judge as _judge
from seeds import recorded_answer as _answer

S, U = V.SUPPORTED, V.UNSUPPORTED

pytestmark = [pytest.mark.browser, pytest.mark.slow]
require_chromium()
sync_api = pytest.importorskip("playwright.sync_api")


def test_record_page_shows_agreement_and_the_checker_against_reviewers(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    with Store(path) as store:
        write_document_rows(store, "policy", "Snapshot exports remain available for 30 days.", ("public",),
                            ["export"], [])
        answer = _answer(store, [0.9, 0.6, 0.2, 0.1] * 6)
        _judge(store, answer, "ana", [S, S, U, U] * 6)
        _judge(store, answer, "ben", [S, U, U, U] * 6)
    with streamlit_server(path, tmp_path / "server.log", sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1440, "height": 1000})
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{url}/record")
        page.get_by_text("Krippendorff's alpha (nominal)").wait_for()
        wait_for_app_run(page)
        body = page.inner_text("body")
        assert "0.48" in body  # alpha on the planted pattern (see tests/unit/verify/test_record_stats.py)
        assert "Disputed" in body and "AUROC" in body  # tables are drawn on a canvas: see the screenshot
        page.wait_for_selector('[data-testid="stVegaLiteChart"]')  # the reliability diagram, drawn locally
        page.wait_for_timeout(1000)
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "test-artifacts" / "09-record.png"), full_page=True)
        ctx.close()
