"""The Ask page's form with nothing typed: nothing is asked and nothing is said (issue 42: after a dashboard restart
the form could submit an empty box in place of the question being typed, and the page answered with an error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import app, ok
from helpers import write_document_rows

pytestmark = pytest.mark.unit


def test_an_empty_question_is_not_asked_and_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrag.store import Store

    with Store(tmp_path / "store.db") as s:
        write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
        path = s.path
    at = ok(app(monkeypatch, path))
    for typed in ("", "   \n"):
        at.text_area(key="_w_question").set_value(typed)
        at = ok(at.button(key="FormSubmitter:ask_form-Ask").click())
        assert [str(e.value) for e in at.error] == [] and [str(w.value) for w in at.warning] == []
    with Store(path) as s:
        assert s.counts()["answers"] == 0
