"""Ask a question on a store in the real dashboard and screenshot its route on the Review page.

    python scripts/review_screenshot.py --store /tmp/musique.db \
        --question "Who was the first president of the association which published Journal of Psychotherapy Integration?" \
        --find "American Psychological" --out test-artifacts/musique-review.png

The store is used as it is (a copy is safest: the answer is stored in it). Runs `streamlit run app.py` on a free
local port and drives Debian's headless Chromium, like tests/browser/test_browser.py; ``--find`` moves through the answer's
claims until the listed route contains that text. Prints the route list.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

from playwright.sync_api import sync_playwright  # noqa: E402

from app_helpers import chromium_profile, streamlit_server  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", required=True)
    p.add_argument("--question", required=True)
    p.add_argument("--find", default="", help="move to the claim whose route list contains this text")
    p.add_argument("--out", default=str(ROOT / "test-artifacts" / "review-route.png"))
    a = p.parse_args()
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with streamlit_server(Path(a.store), out.with_suffix(".log"), sample=False) as url, sync_playwright() as pw:
        ctx = chromium_profile(pw, out.parent / "profile", viewport={"width": 1440, "height": 1100})
        page = ctx.new_page()
        page.set_default_timeout(180_000)
        page.goto(url)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Ask").click()
        page.get_by_label("Question", exact=True).fill(a.question)
        page.get_by_role("button", name="Ask", exact=True).click()
        page.get_by_text("Answer #", exact=False).wait_for()
        page.get_by_role("button", name="Review this answer").click()
        page.get_by_text("Claim 1 of", exact=False).wait_for()
        routes = page.locator("ol.gr-route")
        for _ in range(6):
            routes.first.wait_for()
            if a.find in routes.first.inner_text():
                break
            page.get_by_role("button", name="Next").click()
            page.wait_for_timeout(2000)
        page.wait_for_timeout(2500)  # the route drawing lays itself out
        page.screenshot(path=str(out))
        print(routes.first.inner_text())
        ctx.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
