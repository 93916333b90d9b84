"""A first start that fails says why and offers a retry, which ingests the sample corpus (AppTest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import app, sample_versions
from graphrag.errors import StoreError
from graphrag.store import Store

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_a_failed_first_start_is_shown_with_a_retry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import dashboard.first_start as first_start

    real = first_start.Ingestor

    class Broken(real):
        def ingest_paths(self, *a, **k):
            raise StoreError("the disk holding the store is full: nothing was written")

    monkeypatch.setattr(first_start, "Ingestor", Broken)
    path = tmp_path / "fresh.db"
    at = app(monkeypatch, path, sample=True).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [str(e.value).replace("\\", "") for e in at.error]  # shown escaped, as plain text
    assert any("First start failed: the disk holding the store is full" in e for e in errors), errors
    retry = at.button(key="first_start_retry")

    monkeypatch.setattr(first_start, "Ingestor", real)  # the disk has room again
    at = retry.click().run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [s.label for s in at.status]
    assert any("First start: ingested the sample corpus" in lab for lab in labels), labels
    with Store(path) as s:
        assert s.counts()["versions"] == sample_versions()
    assert all(b.key != "first_start_retry" for b in at.button)
