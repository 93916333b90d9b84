"""Run the dashboard as a process: ``streamlit run app.py`` on a local port, ready once its health check
answers. Used by ``graphrag bench scale`` (cold start), ``graphrag bench review --browser`` and the browser tests,
so all of them start it the same way; the headless Chromium that drives it is the lab's (``lab/browser.py``)."""

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


class DashboardProcess:
    """One dashboard process on a fixed port, started again on the same port after a crash: ``start`` (returns
    its URL once it serves), ``kill`` (SIGKILL, as a crash or an out-of-memory kill would end it), ``stop``.
    ``env`` is added to this process's environment; its output goes to ``log`` (a file opened for writing);
    ``secrets``: a secrets.toml to read instead of the usual places."""

    def __init__(self, log: IO[str], env: Mapping[str, str], *, port: int | None = None,
                 secrets: Path | None = None, timeout_s: float = 60.0) -> None:
        self.log, self.env, self.secrets, self.timeout_s = log, env, secrets, timeout_s
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start it and wait until it serves; its URL. Raises DashboardDidNotStart with the log's tail."""
        extra = ["--secrets.files", str(self.secrets)] if self.secrets is not None else []
        self.proc = proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(APP), "--server.headless", "true",
             "--server.port", str(self.port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats",
             "false", "--server.fileWatcherType", "none", *extra],
            cwd=ROOT, env={**os.environ, **self.env}, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.timeout_s
        while not _healthy(self.url):
            if proc.poll() is not None or time.monotonic() > deadline:
                self.log.flush()
                name = self.log.name
                tail = Path(name).read_text(errors="replace")[-2000:] if isinstance(name, str) else ""
                raise DashboardDidNotStart(f"streamlit did not start: {tail}")
            time.sleep(0.2)
        return self.url

    def kill(self) -> None:
        """End it at once, with nothing saved or closed."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        """End it (terminate, then kill after 10 s)."""
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@contextmanager
def dashboard(log: IO[str], env: Mapping[str, str], *, port: int | None = None, secrets: Path | None = None,
              timeout_s: float = 60.0) -> Iterator[str]:
    """Start the dashboard (``DashboardProcess``); yield its URL once it serves, stop it afterwards.
    ``port``: a fixed one (a sign-in's redirect URI names it)."""
    process = DashboardProcess(log, env, port=port, secrets=secrets, timeout_s=timeout_s)
    try:
        yield process.start()
    finally:
        process.stop()

