"""The dashboard's Streamlit settings that the product depends on (.streamlit/config.toml, read by `streamlit run`
from the checkout)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

CONFIG = Path(__file__).resolve().parents[3] / ".streamlit" / "config.toml"


def test_no_full_garbage_collection_after_every_script_run() -> None:
    # Streamlit's default collects all generations after each run: with the models loaded that held the GIL for
    # 0.35 to 1.3 s after every click and every sidebar refresh (see tests/integration/test_model_heap.py).
    runner = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["runner"]
    assert runner["postScriptGC"] is False


def test_local_mode_listens_on_this_machine_only_and_watches_no_files() -> None:
    server = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["server"]
    assert server["address"] == "127.0.0.1" and server["fileWatcherType"] == "none"
