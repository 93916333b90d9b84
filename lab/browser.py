"""The headless Chromium that drives the dashboard in the benchmarks and the browser tests, with the one set of
browser flags (``graphrag bench scale``'s cold start, ``bench review --browser``, tests/browser/). Playwright is a
test and benchmark dependency: the product (``graphrag.serve`` starts the dashboard process) never launches a
browser."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Playwright

# Debian's Chromium (Playwright's own download is never used); Playwright's bundled one where it is missing.
CHROMIUM = Path("/usr/bin/chromium")
# Headless, as root in a container (no sandbox), without a GPU, and quiet: nothing fetched, updated or synced in the
# background, so a measurement or a test sees only the dashboard's own traffic.
BROWSER_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run")


def _executable() -> str | None:
    return str(CHROMIUM) if CHROMIUM.exists() else None


def chromium_profile(pw: Playwright, profile: Path, **options: Any) -> BrowserContext:
    """Chromium, headless with BROWSER_ARGS and ``profile`` as a fresh --user-data-dir (a folder of its own, so
    nothing of an earlier run is remembered); ``options`` go to Playwright (viewport, accept_downloads)."""
    return pw.chromium.launch_persistent_context(str(profile), executable_path=_executable(), headless=True,
                                                 args=list(BROWSER_ARGS), **options)


def chromium(pw: Playwright) -> Browser:
    """Chromium, headless with BROWSER_ARGS, for several contexts without a profile folder."""
    return pw.chromium.launch(executable_path=_executable(), headless=True, args=list(BROWSER_ARGS))
