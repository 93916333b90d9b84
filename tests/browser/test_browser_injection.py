"""Injected markup never runs in the real browser, on any page.

Document text, titles, entity names, relation types, the question, the reviewer's name and
the note all carry script payloads. Chromium must open no dialog, run no handler (which would
set ``window.__pwned`` or the page title) and fetch nothing from the payloads' outside host. Bare
URLs and an email address in the same strings are shown as text: no ``<a>`` on any page points at them.
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
    wait_for_text,
)
from helpers import write_corpus

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.model]
require_chromium()
sync_api = pytest.importorskip("playwright.sync_api")

IMG = '<img src="http://evil.example/x.png" onerror="window.__pwned=1;document.title=\'PWNED\'">'
# Aimed at another port of the same host: only a check on scheme, host *and* port catches it.
LOCAL = '<img src="http://127.0.0.1:9/local.png"> ![md](http://127.0.0.1:9/md.png)'
SCRIPT = "<script>window.__pwned=2;alert('xss')</script>"
SVG = '"><svg onload="window.__pwned=3;alert(3)">'
BARE = "(http://bare.example/h) (https://bare.example/s) (www.bare.example) (ana@bare.example)"
ENTITY = f"Export{IMG}{BARE}"
QUESTION = f"How long do exports stay available {SCRIPT}?"


def _evil_store(tmp: Path) -> Path:
    from doubles.extract import ScriptedExtractor, ScriptEntity, ScriptRelation
    from graphrag.answer.ask import Asker
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.store import Store
    from graphrag.verify.review import record_verdict

    corpus = write_corpus(tmp / "corpus", {
        "exports.md": f"# Exports {SVG} {BARE}\n\nExports stay available for 30 days {IMG} after cancellation {LOCAL} "
                      f"{BARE}. Exports use the latest snapshot {SCRIPT} {BARE}.\n",
    }, f"""
[[documents]]
file = "exports.md"
id = "exports"
title = 'Exports {SVG} {BARE}'
effective_date = "2026-02-01"
""")
    x = ScriptedExtractor(
        [ScriptEntity(ENTITY, "30 days", description=SCRIPT + BARE), ScriptEntity("Snapshot", "latest snapshot")],
        [ScriptRelation(ENTITY, f"uses{SVG}{BARE}", "Snapshot", "latest snapshot")])
    path = tmp / "store.db"
    with Store(path) as store:
        Ingestor(store, x).ingest_paths([corpus])
        answer = Asker(store).ask(QUESTION).answer
        claim = answer.claims[0]
        record_verdict(store, answer, claim, claim.citations[0] if claim.citations else None, "supported",
                       f"Mallory{SCRIPT}{BARE}", f"note {IMG} {BARE}")
    return path


def _assert_clean(page) -> None:  # `page`: a Playwright Page
    for frame in page.frames:
        pwned = frame.evaluate("() => [window.__pwned || null, document.title]")
        assert pwned[0] is None and pwned[1] != "PWNED", (frame.url, pwned)
        links = frame.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        bare = [h for h in links if "bare.example" in h]
        assert not bare, (frame.url, bare)  # bare URLs in document text stay text


def test_injected_markup_never_runs(tmp_path: Path) -> None:
    store = _evil_store(tmp_path)
    dialogs: list[str] = []
    requests: list[str] = []
    with streamlit_server(store, tmp_path / "server.log", sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", viewport={"width": 1440, "height": 900})
        ctx.on("request", lambda r: requests.append(r.url))
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        sidebar = None

        page.goto(url)
        sidebar = page.get_by_test_id("stSidebar")
        name_box = sidebar.get_by_label("Reviewer name", exact=True)
        name_box.fill(f"Eve{SVG}")
        name_box.press("Enter")

        # Ask with a script in the question: the answer and its sources are shown as text.
        ask_in_browser(page, QUESTION)
        wait_for_text(page, "<script>")  # visible as text, not run
        page.wait_for_timeout(1500)
        _assert_clean(page)

        # Review: the claim, the route graph (entity and relation names), the source, the history.
        page.get_by_role("button", name="Review this answer").click()
        page.get_by_text("Claim 1 of", exact=False).wait_for()
        page.wait_for_selector('iframe[title="Route graph"]', timeout=60_000)
        page.get_by_label("Note (optional)", exact=True).fill(f"see {IMG}")
        page.locator(".st-key-rv_unsupported button").click()  # the no button: "Does not answer" or "Not backed"
        page.get_by_text("Recorded", exact=False).wait_for()
        page.wait_for_timeout(1500)
        if page.get_by_text("Nothing left for you", exact=False).count():  # the last claim: back to the one judged
            page.get_by_role("button", name="Previous").click()
        page.get_by_text("Verdict history", exact=False).first.click()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ROOT / "test-artifacts" / "07-injection-review.png"))
        _assert_clean(page)

        # Graph page: the entity whose name carries markup, its relations and neighbourhood.
        sidebar.get_by_role("link", name="Graph").click()
        page.get_by_label("Find an entity", exact=True).fill("export")
        page.get_by_label("Find an entity", exact=True).press("Enter")
        wait_for_app_run(page)
        page.get_by_role("tab", name="Neighbourhood").click()  # the page opens on the last answer's route
        page.wait_for_selector('iframe[title="Neighbourhood graph"]', timeout=60_000)
        page.wait_for_timeout(1500)
        _assert_clean(page)
        ctx.close()

    assert dialogs == []
    outside = sorted(u for u in set(requests) if not own_origin(u, url))
    assert not outside, f"injected markup fetched from outside: {outside}"


def own_origin(request_url: str, server_url: str) -> bool:
    """Data, blob and about URLs, or the dashboard's own scheme, host and port (its websocket too)."""
    r, own = urlsplit(request_url), urlsplit(server_url)
    if r.scheme in ("data", "blob", "about"):
        return True
    scheme = {"ws": "http", "wss": "https"}.get(r.scheme, r.scheme)
    return (scheme, r.hostname, r.port) == (own.scheme, own.hostname, own.port)


def test_own_origin_compares_scheme_host_and_port() -> None:
    own = "http://127.0.0.1:8501"
    assert own_origin("http://127.0.0.1:8501/static/app.js", own)
    assert own_origin("ws://127.0.0.1:8501/_stcore/stream", own)
    assert own_origin("data:image/png;base64,AA==", own)
    assert not own_origin("http://127.0.0.1:9/x.png", own)  # another port on the same host
    assert not own_origin("https://127.0.0.1:8501/x.png", own)
    assert not own_origin("http://localhost:8501/x.png", own)
    assert not own_origin("http://evil.example/x.png", own)
