"""Helpers for the dashboard tests (AppTest and browser): a tiny corpus, stores, an app runner."""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

# The browser tests launch Chromium as `graphrag bench review --browser` does: its flags are kept in one place.
from graphrag.serve import DashboardProcess, dashboard, free_port
from lab.browser import CHROMIUM, chromium, chromium_profile  # noqa: F401 - re-exported

# Each AppTest run scans every installed distribution for component manifests (threads reading package metadata,
# about a second of CPU); the installed packages do not change during a test session.
manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"

# A small handbook: a stale FAQ that contradicts the current policy (7 vs 30 days), a document
# only "internal" may see, and enough relations for a route of more than one step.
TINY = {
    "manifest.toml": """
[defaults]
access = ["public"]

[[documents]]
file = "exports.md"
id = "exports"
title = "Data exports"
effective_date = "2026-02-01"

[[documents]]
file = "faq.md"
id = "faq"
title = "Old FAQ"
effective_date = "2023-04-01"

[[documents]]
file = "ops.md"
id = "ops"
title = "Operations notes"
effective_date = "2025-09-01"
access = ["internal"]
""",
    "exports.md": """# Data exports

Owners can export a workspace from the settings page. Exports use the latest snapshot.
Snapshot exports remain available for 30 days after an account is cancelled.
Cancellation triggers a final export of the account.
""",
    "faq.md": """# Frequently asked questions

Snapshot exports remain available for 7 days after an account is cancelled.
Larkspur keeps nightly snapshots for 14 days.
""",
    "ops.md": """# Operations notes

The export worker reads the latest snapshot. The Zephyr cluster replicates snapshots within four hours.
""",
}


@functools.cache
def sample_versions() -> int:
    """Document versions the sample corpus makes (each file read as a document is one version)."""
    from graphrag.ingest.documents import Source, collect

    return sum(isinstance(x, Source) for x in collect([ROOT / "sample_corpus"]).items)


@functools.cache
def shown_sample_versions(labels: tuple[str, ...] = ("public",)) -> int:
    """Sample-corpus versions the sidebar counts for a viewer holding ``labels`` (the sidebar counts only
    what the viewer's labels show; the dashboard starts on ``public``)."""
    from graphrag.access.rule import Access
    from graphrag.ingest.documents import Source, collect

    viewer = Access.of(labels, include_superseded=True)
    return sum(isinstance(x, Source) and viewer.sees(x.access) for x in collect([ROOT / "sample_corpus"]).items)


def write_corpus(folder: Path, files: dict[str, str] = TINY) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def build_store(path: Path, corpus: Path) -> Path:
    """A store with ``corpus`` ingested by the rules extractor (closed afterwards, so it can be copied)."""
    from graphrag.ingest.extract import make_extractor
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.store import Store

    with Store(path) as store:
        report = Ingestor(store, make_extractor("rules")).ingest_paths([corpus])
    assert all(d.status == "ok" for d in report.documents), report
    return path


def copy_store(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dst)
    return dst


def app(monkeypatch, store: Path, *, sample: bool = False, timeout: float = 240) -> AppTest:
    """An AppTest of app.py on ``store``, with Ollama pointed at a closed local port."""
    monkeypatch.setenv("GRAPHRAG_STORE", str(store))
    monkeypatch.setenv("GRAPHRAG_SAMPLE", "1" if sample else "0")
    monkeypatch.setenv("GRAPHRAG_REVIEWER", "ada")
    monkeypatch.setenv("GRAPHRAG_WARM", "0")  # no model loads in the background of a page in a test
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{closed_port()}")
    monkeypatch.delenv("GRAPHRAG_MODE", raising=False)
    # The tests' corpora live in temporary folders: the Ingest page may read there and in the repository.
    monkeypatch.setenv("GRAPHRAG_INGEST_ROOTS", os.pathsep.join([tempfile.gettempdir(), str(ROOT)]))
    return AppTest.from_file(str(APP), default_timeout=timeout)


# A team dashboard's sign-in as AppTest fakes it: an OpenID provider that is never reached, and a signed-in user.
OIDC_ISSUER = "http://127.0.0.1:1"
TEAM_AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "c" * 40,
             "client_id": "graphrag", "client_secret": "s",
             "server_metadata_url": f"{OIDC_ISSUER}/.well-known/openid-configuration"}


def signed_in(email: str, sub: str | None = None, groups: tuple[str, ...] = ()) -> dict[str, object]:
    """``st.user`` of someone signed in at ``OIDC_ISSUER`` (subject ``sub-<name>`` unless given)."""
    return {"is_logged_in": True, "sub": sub or f"sub-{email.split('@')[0]}", "email": email, "email_verified": True,
            "groups": list(groups), "iss": OIDC_ISSUER}


def team_mode(monkeypatch, at: AppTest, policy: Path, who: dict[str, object] | None,
              secrets: dict[str, object] | None = None) -> AppTest:
    """``at`` as a team dashboard under the access policy file ``policy``, seen by ``who`` (None: signed out)."""
    monkeypatch.setenv("GRAPHRAG_MODE", "team")
    monkeypatch.setenv("GRAPHRAG_ACCESS_POLICY", str(policy))
    at.secrets = {"auth": TEAM_AUTH} if secrets is None else secrets
    at.user = who if who is not None else {"is_logged_in": False}
    return at


def ok(x):  # `x`: an AppTest, or a widget after set_value/click
    """Run and fail on any uncaught exception in the app."""
    at = x.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page(at, name: str):
    at.switch_page(f"views/{name}.py")
    return ok(at)


def closed_port() -> int:
    """A local port with nothing listening (bound then released)."""
    return free_port()


WORD_JOINER = "\u2060"  # invisible: put by dashboard.render.plain where Markdown would start a link


def texts(elements) -> list[str]:
    """The elements' text as a reader sees it (without the invisible word joiners)."""
    return [str(e.value).replace(WORD_JOINER, "") for e in elements]


def visible_text(text: str) -> str:
    """Text from the browser as a reader sees it (without the invisible word joiners)."""
    return text.replace(WORD_JOINER, "")


def shown_as(text: str) -> re.Pattern[str]:
    """A pattern for Playwright's get_by_text that finds ``text`` with or without word joiners in it."""
    return re.compile(f"{WORD_JOINER}?".join(map(re.escape, text)))


@contextmanager
def streamlit_server(store: Path, log_path: Path, *, sample: bool = True, env: dict[str, str] | None = None,
                     secrets: Path | None = None, port: int | None = None) -> Iterator[str]:
    """The dashboard (graphrag.serve) on a free local port with ``store``; yields its URL, stops it after.

    ``env``: more environment (e.g. GRAPHRAG_MODE=team); ``secrets``: a secrets.toml to read instead of
    the usual places; ``port``: a fixed port (a sign-in's redirect URI names it)."""
    with log_path.open("w") as log, dashboard(log, _server_env(store, sample, env), port=port, secrets=secrets) as url:
        yield url


def _server_env(store: Path | str, sample: bool, env: dict[str, str] | None) -> dict[str, str]:
    return {"GRAPHRAG_STORE": str(store), "GRAPHRAG_SAMPLE": "1" if sample else "0",
            "OLLAMA_HOST": "127.0.0.1:9", "HF_HUB_OFFLINE": "1",
            "GRAPHRAG_INGEST_ROOTS": os.pathsep.join([tempfile.gettempdir(), str(ROOT)]), **(env or {})}


@contextmanager
def restartable_server(store: Path | str, log_path: Path, *, sample: bool = False) -> Iterator[DashboardProcess]:
    """The dashboard as ``streamlit_server`` starts it, as a handle a test can ``kill()`` and ``start()`` again on
    the same port (a crashed dashboard brought back); stopped at the end."""
    with log_path.open("w") as log:
        process = DashboardProcess(log, _server_env(store, sample, None))
        try:
            process.start()
            yield process
        finally:
            process.stop()


def wait_for_sample_corpus(page, timeout_ms: float = 240_000) -> None:  # `page`: a Playwright Page
    """Wait until the first start has stored the whole sample corpus (the sidebar counts every version)
    and the run that drew it is over: the first start ingests one document at a time, so a page that
    shows the first few is not yet the page a test means to use."""
    import re

    versions = re.compile(rf"\d+ documents \({shown_sample_versions()} versions\)")
    page.get_by_test_id("stSidebar").get_by_text(versions).wait_for(timeout=timeout_ms)
    wait_for_app_run(page)


def wait_for_app_run(page, timeout_ms: float = 120_000) -> None:  # `page`: a Playwright Page
    """Wait until the app is connected and its script run is over, by the state the frontend
    itself keeps on the app's root element (set as soon as a widget asks for a rerun), instead of
    guessing with a fixed pause or a status widget that may not have appeared yet."""
    page.wait_for_timeout(150)
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    page.wait_for_timeout(250)  # let React paint what the run sent


def wait_for_text(page, text: str, timeout_ms: float = 30_000) -> None:  # `page`: a Playwright Page
    """Wait until `text` is shown where a person can see it. Streamlit's canvas grids keep every cell
    in a hidden accessibility table too, so a plain wait can settle on (or hang on) a cell no one
    sees; only a visible occurrence counts."""
    page.get_by_text(text, exact=False).filter(visible=True).first.wait_for(timeout=timeout_ms)


def ask_in_browser(page, question: str) -> None:  # `page`: a Playwright Page
    """Ask on the Ask page and wait for *this* question's answer: the heading of the answer shown
    before (if any) stays on screen while the new one is computed and the page reruns, so waiting
    for any "Answer #" heading would act on a page about to be replaced."""
    page.get_by_label("Question", exact=True).fill(question)
    before = page.evaluate(_ANSWER_HEADING_JS)
    page.get_by_role("button", name="Ask", exact=True).click()
    page.wait_for_function(f"prev => {{ const h = ({_ANSWER_HEADING_JS})(); return h !== null && h !== prev; }}",
                           arg=before, timeout=180_000)
    wait_for_app_run(page)


_ANSWER_HEADING_JS = ("() => { const h = [...document.querySelectorAll('h3')].map(e => e.innerText.trim())"
                      ".find(t => t.startsWith('Answer #')); return h === undefined ? null : h; }")


def require_chromium() -> None:
    """Browser tests need Debian's Chromium: a failure on CI (where .ci/run installs it), a
    skip with the reason on a developer's machine without it."""
    import pytest

    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing on CI: install Debian's chromium package", pytrace=False)
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium to run the browser tests",
                    allow_module_level=True)
