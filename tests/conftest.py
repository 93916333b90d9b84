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
