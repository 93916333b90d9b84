"""``graphrag bench review --browser``: a scripted reviewer judges claims on the Review page with the keyboard.

A throwaway store gets the sample corpus and answers to the sample questions (enough for the claims asked for);
the dashboard runs on it (graphrag.serve) and headless Chromium opens the Review page as reviewer "bench". Each
verdict is one key (S, P or U, in a fixed mix); its round trip runs from the key press until the page shows the
next claim and its script run is over, which is when a person could read on. Claims per minute are over the whole
loop, the script's own waiting included.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab import lab_config
from lab.browser_session import SETTLED_JS, cannot_run, dashboard_page, loadavg, pct

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_corpus"
QUESTIONS = ROOT / "lab" / "evaluate" / "sample_questions.json"
REVIEWER = "bench"
REVIEWER_QUERY = f"reviewer={REVIEWER}"  # local mode keeps the reviewer's name in the address
KEYS = "sspu"  # mostly supported, as on a decent answer, with the other two verdicts in the mix
_STEP_TIMEOUT_MS = 60_000

# The queue's header as the page writes it ("Claim 3 of 12 in the queue · …", or "End of the queue · …").
_HEADER_JS = ("() => { const p = [...document.querySelectorAll('p')].find(e => /^(Claim \\d+ of \\d+|End of the "
              "queue)/.test(e.innerText.trim())); return p ? p.innerText.trim() : null; }")


def build_store(path: Path | str, claims: int) -> dict[str, int]:
    """The sample corpus (in a SQLite file or a PostgreSQL URL), then answers to the sample questions until they hold ``claims`` claims (or the
    questions run out: the queue then ends early, and the figures say so)."""
    import graphrag
    from graphrag.answer import Asker
    from graphrag.model import AskSettings

    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))]
    with graphrag.open_store(path) as store:
        graphrag.ingest_paths(store, [SAMPLE])
        asker = Asker(store, config=lab_config())  # one asker: the graph and the models are loaded once for every question
        held = answers = 0
        for q in questions:
            if held >= claims:
                break
            held += len(asker.ask(q, AskSettings()).answer.claims)
            answers += 1
    return {"answers": answers, "claims": held}


def _header(page: Page) -> str:
    return str(page.evaluate(_HEADER_JS) or "")


def _settle(page: Page) -> None:
    page.wait_for_function(SETTLED_JS, timeout=_STEP_TIMEOUT_MS)


def judge(page: Page, claims: int) -> tuple[list[float], float, bool]:
    """Judge up to ``claims`` claims with the keyboard; the round trips (ms), the loop's seconds, and whether the
    queue ended first."""
    rounds: list[float] = []
    started = time.perf_counter()
    while len(rounds) < claims:
        before = _header(page)
        if before.startswith("End of the queue"):
            return rounds, time.perf_counter() - started, True
        # a shortcut types into a focused field instead of acting: nothing is focused, as after reading a claim
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        t0 = time.perf_counter()
        page.keyboard.press(KEYS[len(rounds) % len(KEYS)])
        page.wait_for_function(f"prev => ({_HEADER_JS})() !== prev && ({SETTLED_JS})()", arg=before,
                               timeout=_STEP_TIMEOUT_MS)
        rounds.append((time.perf_counter() - t0) * 1000)
    return rounds, time.perf_counter() - started, _header(page).startswith("End of the queue")


def bench_review_browser(*, claims: int = 50, as_json: bool = False, store: str | Path | None = None,
                         screenshot: str | Path | None = None) -> int:
    """Build the store, start the dashboard and Chromium, judge ``claims`` claims, print the figures;
    ``screenshot``: a PNG of the page where the reviewer stopped."""
    if why := cannot_run(claims, "--claims"):
        print(why, file=sys.stderr)
        return 2
    from graphrag.serve import DashboardDidNotStart
    from graphrag.store import Store

    with tempfile.TemporaryDirectory(prefix="bench-review-") as tmp:
        path = Path(store) if store is not None else Path(tmp) / "store.db"
        if path.exists():
            print(f"{path} exists: the benchmark needs a store of its own (a path that does not exist yet)",
                  file=sys.stderr)
            return 2
        made = build_store(path, claims)
        try:
            with dashboard_page(path, Path(tmp), f"/review?{REVIEWER_QUERY}") as page:
                page.wait_for_function(f"() => ({_HEADER_JS})() !== null && ({SETTLED_JS})()", timeout=240_000)
                # The shortcuts act only once the page has been clicked (headless Chromium gave a freshly loaded
                # page's key presses to no one): a click on the review policy's caption, as a reviewer's first.
                page.wait_for_timeout(500)
                _settle(page)  # the first page may run twice (the reviewer's name is put in the address)
                page.get_by_text("Review policy:", exact=False).first.click()
                page.wait_for_timeout(250)
                load_before = loadavg()  # the load the verdicts were measured under
                try:
                    rounds, seconds, ended = judge(page, claims)
                finally:  # the page as it was left, also when a verdict never came back
                    if screenshot is not None:
                        page.screenshot(path=str(screenshot))
        except DashboardDidNotStart as exc:
            print(str(exc), file=sys.stderr)
            return 1
        with Store(path) as s:
            recorded = sum(1 for v in s.verdicts() if v.reviewer == REVIEWER)
    figures: dict[str, Any] = {
        "claims_asked_for": claims, "claims_judged": len(rounds), "queue_ended": ended,
        "answers": made["answers"], "claims_in_store": made["claims"], "verdicts_recorded": recorded,
        "verdict_p50_ms": round(statistics.median(rounds), 1) if rounds else None,
        "verdict_p95_ms": round(pct(rounds, 95), 1) if rounds else None,
        "verdict_max_ms": round(max(rounds), 1) if rounds else None,
        "claims_per_minute": round(len(rounds) / seconds * 60, 1) if rounds and seconds > 0 else None,
        "loadavg_before": load_before, "loadavg_after": loadavg(), "cpus": os.cpu_count(),
    }
    if ended and len(rounds) < claims:
        print(f"The review queue ended after {len(rounds)} of the {claims} claims asked for: the store's "
              f"{made['answers']} answers hold no more. Ask for fewer with --claims.", file=sys.stderr)
    if as_json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{len(rounds)} claims judged with the keyboard in Chromium ({made['answers']} answers on the sample "
              f"corpus; {recorded} verdicts recorded)")
        if rounds:
            print(f"verdict round trip: p50 {figures['verdict_p50_ms']} ms, p95 {figures['verdict_p95_ms']} ms, "
                  f"max {figures['verdict_max_ms']} ms")
            print(f"claims per minute: {figures['claims_per_minute']}")
        print(f"load average: {load_before} before, {figures['loadavg_after']} after ({os.cpu_count()} cores)")
    return 0 if rounds else 1

