"""The Review page on a 1280x720 laptop screen (issue 44): for a claim of a long answer, every verdict control's
label is whole and on screen without scrolling, the question asked is the claim's own, and the source line speaks a
reviewer's words (no "effective no date", no character offsets). A store written directly (no model, no corpus);
Debian's Chromium through Playwright; the screenshot lands in test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import ROOT, chromium_profile, require_chromium, streamlit_server, wait_for_app_run
from graphrag.model import (
    Answer,
    AskSettings,
    Citation,
    Claim,
    ClaimFlag,
    ContextItem,
    Route,
    Support,
    SupportLabel,
)
from graphrag.store import Store
from helpers import write_document_rows

pytestmark = [pytest.mark.browser, pytest.mark.slow]
require_chromium()
sync_api = pytest.importorskip("playwright.sync_api")

SENTENCE = "Snapshot exports remain available for 30 days after an account is cancelled."
FILLER = ("Billing questions go to the finance desk, which answers within two working days and keeps a copy of "
          "every reply in the customer's file. ")
# every control a reviewer uses to judge a claim, by its widget key, with the label it must show whole
CONTROLS = {"rv_supported": "Answers", "rv_partial": "Partly answers", "rv_unsupported": "Does not answer",
            "rv_prev": "Previous", "rv_next": "Next", "review_flagged": "Flagged only",
            "review_mine": "Reviewed by me", "review_disputes": "Disputes"}


def _long_answer(store: Store) -> None:
    write_document_rows(store, "policy", SENTENCE, ("public",), ["export"], [])
    span = store.span("policy", 1, 0)
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    text = SENTENCE + " [1] " + FILLER * 30  # about 3,500 characters of answer under the quoted claim
    claim = Claim(0, SENTENCE, 0, len(SENTENCE), (Citation("1", True, item),), flags=(ClaimFlag.VERBATIM_QUOTE,),
                  support=Support(1.0, SupportLabel.SUPPORTED, "embedded", "copy"))
    store.save_answer(Answer("How long do snapshot exports remain available?", AskSettings(), text, (), (), (item,),
                             (claim,)))


def test_every_verdict_control_is_whole_and_on_screen_at_1280x720_for_a_long_answer(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    with Store(path) as store:
        _long_answer(store)
    with streamlit_server(path, tmp_path / "server.log", sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1280, "height": 720})
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{url}/review?reviewer=kim")
        page.locator(".st-key-rv_supported button").wait_for()
        wait_for_app_run(page)
        page.wait_for_timeout(800)  # iframes and images settle the layout
        assert page.evaluate("() => window.scrollY") == 0
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "test-artifacts" / "12-review-1280x720.png"))  # the first screen
        body = page.inner_text("body")
        assert "Does this answer the question?" in body  # a verbatim quote is asked whether it answers
        assert "no date" not in body and "chars " not in body
        assert "sentence 1 of the document" in body
        for key, label in CONTROLS.items():
            control = page.locator(f".st-key-{key}").first
            box = control.bounding_box()
            assert box is not None, key
            # on screen without scrolling: inside the 1280x720 viewport
            assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= 1280 and \
                box["y"] + box["height"] <= 720, (key, box)
            # whole: the label is the full text, and no element inside the control cuts it off
            assert label in control.inner_text(), (key, control.inner_text())
            clipped = control.evaluate("""el => [...el.querySelectorAll('*')].filter(e => e.innerText &&
                e.innerText.trim() && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible')
                .map(e => e.innerText)""")
            assert not clipped, (key, clipped)
        ctx.close()


def test_the_route_is_legible_and_unanswered_questions_do_not_push_the_verdicts_off_screen(tmp_path: Path) -> None:
    """Issue 60: the route panel was a tall narrow box whose labels the frame shrank to a few pixels, and the
    questions the documents did not answer, duplicates included, were listed above the claim, pushing the verdict
    buttons below the fold. The route is drawn at its labels' size (at least 0.9) in a box about as tall as its
    levels, its legend whole; the unanswered questions are folded under the claim, each once."""
    path = tmp_path / "store.db"
    with Store(path) as store:
        _long_answer(store)
        for i in range(12):
            question = ("Who founded Larkspur, and in which city was the company first registered for tax?" if i % 2
                        else f"What did the board decide about the regional office in meeting number {i}?")
            store.save_answer(Answer(question, AskSettings(), f"The documents do not say. {question}", (), (), (), (),
                                     answered=False))
    with streamlit_server(path, tmp_path / "server.log", sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1280, "height": 800})
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{url}/review?reviewer=kim")
        page.locator(".st-key-rv_supported button").wait_for()
        wait_for_app_run(page)
        handle = page.wait_for_selector('iframe[title="Route graph"]')
        assert handle is not None
        frame = handle.content_frame()
        assert frame is not None
        frame.wait_for_function("() => window.graphReady === true", timeout=30_000)
        page.wait_for_timeout(800)
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "test-artifacts" / "17-review-route-1280x800.png"))
        assert frame.evaluate("() => window.graphScale") >= 0.9  # 14-pixel labels drawn at 12.6 pixels or more
        box = handle.bounding_box()
        assert box is not None and box["height"] <= 360, box  # a seed and the cited sentence: two levels
        # the legend is whole inside its frame: nothing to scroll
        assert frame.evaluate("() => document.documentElement.scrollHeight <= window.innerHeight + 1")
        for key in ("rv_supported", "rv_partial", "rv_unsupported"):
            b = page.locator(f".st-key-{key}").first.bounding_box()
            assert b is not None and b["y"] + b["height"] <= 800, (key, b)
        folded = page.get_by_text("Not in the queue: 7 questions the documents did not answer")
        assert folded.count() == 1
        ctx.close()
