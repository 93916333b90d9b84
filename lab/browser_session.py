"""What the browser benchmarks share: the dashboard on a store of their own, with headless Chromium on one page,
and the small figures helpers (load average, percentiles, whether the page's run is over)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

# Whether the page's script run is over (the state the frontend keeps on its root element).
SETTLED_JS = ("() => { const a = document.querySelector('[data-testid=\"stApp\"]'); return a !== null && "
              "a.dataset.testConnectionState === 'CONNECTED' && a.dataset.testScriptState === 'notRunning'; }")


def cannot_run(count: int, option: str) -> str | None:
    """Why a browser benchmark cannot start (no Playwright, or ``option``'s ``count`` below one), or None."""
    try:
        import playwright.sync_api  # noqa: F401 - only whether it is there
    except ImportError:
        return "playwright is not installed (pip install -r requirements-dev.txt; no browser download needed)"
    return f"{option} must be at least 1" if count < 1 else None


def loadavg() -> str:
    """The 1, 5 and 15-minute load averages, as /proc/loadavg gives them."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def pct(xs: list[float], p: float) -> float:
    """The ``p``-th percentile of ``xs`` (nearest rank)."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


@contextmanager
def dashboard_page(store: Path, workdir: Path, address: str = "/") -> Iterator[Page]:
    """The dashboard in local mode on ``store`` (no sample corpus of its own, no Ollama) and a fresh headless
    Chromium page on it at ``address`` (e.g. "/review?reviewer=bench"), its log and profile under ``workdir``;
    raises graphrag.serve.DashboardDidNotStart."""
    from playwright.sync_api import sync_playwright

    from graphrag.serve import dashboard
    from lab.browser import chromium_profile

    env = {"GRAPHRAG_STORE": str(store), "GRAPHRAG_SAMPLE": "0", "HF_HUB_OFFLINE": "1",
           "OLLAMA_HOST": "127.0.0.1:9", "GRAPHRAG_MODE": "local"}
    with (workdir / "server.log").open("w") as log, dashboard(log, env, timeout_s=180) as url, \
            sync_playwright() as pw:
        ctx = chromium_profile(pw, workdir / "profile", viewport={"width": 1440, "height": 900})
        page = ctx.new_page()
        page.set_default_timeout(180_000)
        page.goto(url.rstrip("/") + address)
        try:
            yield page
        finally:
            ctx.close()
