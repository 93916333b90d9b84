"""Run the dashboard as a process: ``streamlit run app.py`` on a local port, ready once its health check
answers; and the headless Chromium that drives it. Used by ``graphrag bench scale`` (cold start), ``graphrag
bench review --browser`` and the browser tests, so all of them start both the same way."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # Playwright is a test and benchmark dependency: the product never launches a browser
    from playwright.sync_api import Browser, BrowserContext, Playwright

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"


class DashboardDidNotStart(RuntimeError):
    """Streamlit exited or did not answer its health check in time; the message ends with its log."""


def free_port() -> int:
    """A local port with nothing listening (bound, then released for the server to take)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


@contextmanager
def dashboard(log: IO[str], env: Mapping[str, str], *, port: int | None = None, secrets: Path | None = None,
              timeout_s: float = 60.0) -> Iterator[str]:
    """Start the dashboard with ``env`` added to this process's environment, its output written to
    ``log`` (a file opened for writing); yield its URL once it serves, stop it afterwards.
    ``secrets``: a secrets.toml to read instead of the usual places; ``port``: a fixed one (a sign-in's
    redirect URI names it). Raises DashboardDidNotStart with the log's tail."""
    port = port or free_port()
    extra = ["--secrets.files", str(secrets)] if secrets is not None else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(APP), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", *extra],
        cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while not _healthy(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                tail = Path(log.name).read_text(errors="replace")[-2000:] if isinstance(log.name, str) else ""
                raise DashboardDidNotStart(f"streamlit did not start: {tail}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


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
