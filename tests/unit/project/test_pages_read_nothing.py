"""A page only draws: no file in views/ reads the store itself (``store.<anything>``); what a page shows comes from a
read model in graphrag.present (``boards``, ``sheets``) or a use case, built for the viewer and tested without a
page."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
VIEWS = Path(__file__).resolve().parents[3] / "views"


def store_reads(source: str) -> list[str]:
    """``store.<attribute>`` uses in ``source``, as "line: store.attribute"."""
    return [f"{node.lineno}: store.{node.attr}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "store"]


def test_the_check_finds_a_store_read() -> None:
    assert len(list(VIEWS.glob("*.py"))) >= 5  # the pages are where this test looks
    assert store_reads("x = store.counts()['versions']\ny = counts(store)\n") == ["1: store.counts"]


@pytest.mark.parametrize("page", sorted(p.name for p in VIEWS.glob("*.py")))
def test_no_page_reads_the_store_directly(page: str) -> None:
    assert store_reads((VIEWS / page).read_text(encoding="utf-8")) == []
