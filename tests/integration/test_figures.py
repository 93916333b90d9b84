"""One figure, one source: what the first start says it ingested is what the sidebar counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_helpers import app, ok, texts

pytestmark = [pytest.mark.model, pytest.mark.slow]


def figures(text: str) -> dict[str, int]:
    return {unit.rstrip("s").replace("entitie", "entity"): int(n)
            for n, unit in re.findall(r"(\d+) (documents?|versions?|entities|entity|relations?)\b", text)}


def test_the_first_start_message_and_the_sidebar_state_the_same_counts(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    at = ok(app(monkeypatch, tmp_path / "fresh.db", sample=True))
    said = next(s.label for s in at.status if "First start: ingested the sample corpus" in s.label)
    counted = next(c for c in texts(at.sidebar.caption) if "entities" in c)
    first, side = figures(said), figures(counted)
    assert {"document", "entity", "relation"} <= first.keys(), said
    # today's main said "15 documents, 337 entities" (the report's per-document sums) beside the sidebar's 213
    assert first == {k: side[k] for k in first}, (said, counted)
