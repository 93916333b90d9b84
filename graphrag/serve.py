"""Run the dashboard as a process: ``streamlit run app.py`` on a local port, ready once its health check
answers. Used by ``graphrag bench scale`` (cold start) and by the browser tests, so both start it the
same way."""

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
from typing import IO

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
