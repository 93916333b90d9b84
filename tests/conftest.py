"""Shared fixtures. The real MiniLM is used (it ships in a package); it loads once per session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))

from helpers import CountingEmbedder  # noqa: E402
from ollama_fake import dead_host, fake_ollama  # noqa: E402, F401 - fixtures shared by every test module


@pytest.fixture(scope="session")
def embedder() -> CountingEmbedder:
    from graphrag.embed import get_embedder

    return CountingEmbedder(get_embedder())


@pytest.fixture()
def store(tmp_path: Path):
    from graphrag.store import Store

    s = Store(tmp_path / "store.db")
    yield s
    s.close()


@pytest.fixture(scope="session")
def tiny_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small handbook of app_helpers.TINY ingested once by the rules extractor: tests copy it."""
    from app_helpers import build_store, write_corpus

    d = tmp_path_factory.mktemp("tiny")
    return build_store(d / "tiny.db", write_corpus(d / "corpus"))


# --- PostgreSQL: a throwaway server, and store fixtures parametrised over both backends ----


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL 15 server for this test session. Skipped (saying why) where the binaries are
    not installed; under CI=true, where .ci/run installs them, a missing server is a failure."""
    from pg_server import PgServer, missing_reason

    reason = missing_reason()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the PostgreSQL tests: {reason}")
        pytest.skip(reason)
    server = PgServer().start()
    yield server
    server.close()


@pytest.fixture()
def pg_url(pg_server):  # type: ignore[no-untyped-def]
    """The URL of a fresh, empty database on the session's server, dropped afterwards."""
    url = pg_server.new_database()
    yield url
    try:
        pg_server.drop_database(url)
    except Exception as exc:  # noqa: BLE001 - a server a test stopped for good: the session ends it
        print(f"could not drop {url}: {exc}")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path: Path) -> str:  # type: ignore[no-untyped-def]
    """One store per test, on each backend in turn: the same guarantees must hold on both."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return request.getfixturevalue("pg_url")


@pytest.fixture()
def any_store(store_url: str):  # type: ignore[no-untyped-def]
    from graphrag.store import Store

    s = Store(store_url)
    yield s
    s.close()
