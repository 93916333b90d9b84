"""The layout of graphrag/ (issue 26): a small kernel of top-level modules beside the domain packages, and each
package's door (its __init__) hands out every name it lists, from the module that defines it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit  # no model, server or browser

ROOT = Path(__file__).resolve().parents[3]
DOMAINS = ("access", "answer", "ingest", "present", "verify")
KERNEL = {"__init__", "__main__", "config", "embed", "errors", "model", "ollama_util", "registry", "serve", "text"}


def test_graphrag_holds_a_small_kernel_and_the_domain_packages() -> None:
    modules = {p.stem for p in (ROOT / "graphrag").glob("*.py")}
    packages = {p.parent.name for p in (ROOT / "graphrag").glob("*/__init__.py")}
    assert modules == KERNEL and len(modules) <= 12
    assert packages == {*DOMAINS, "cli", "store"}


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_door_hands_out_every_name_it_lists(domain: str) -> None:
    door = importlib.import_module(f"graphrag.{domain}")
    assert door.__doc__ and door.__all__
    missing = [name for name in door.__all__ if not hasattr(door, name)]  # imports each defining module
    assert missing == []
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        getattr(door, "nothing_here")  # noqa: B009 - the door's __getattr__ is what is tested
