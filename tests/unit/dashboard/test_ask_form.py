"""The Ask page's form with nothing typed: nothing is asked, and no error is shown (issue 42: after a dashboard restart
the form could submit an empty box in place of the question being typed, and the page answered with an error); the
page says what is needed (issue 60: the click did nothing at all). "What changed" says what scope it needs before the
click, and a question that fails takes the previous answer off the page."""

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
        assert any("question box is empty" in str(i.value) for i in at.info)  # issue 60: said, not silent
    with Store(path) as s:
        assert s.counts()["answers"] == 0


def _store(tmp_path: Path) -> Path:
    from graphrag.store import Store

    with Store(tmp_path / "store.db") as s:
        write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
        write_document_rows(s, "faq", "Snapshot exports remain available for 7 days.", ("public",), ["export"], [])
        return s.path


def test_an_empty_ask_says_what_is_needed_and_the_hint_is_no_question(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 60: an Ask click on an empty box did nothing at all, and the box's grey hint read as a question typed."""
    at = ok(app(monkeypatch, _store(tmp_path)))
    assert at.text_area(key="_w_question").placeholder.startswith("Type your question here")
    at = ok(at.button(key="FormSubmitter:ask_form-Ask").click())
    assert [str(i.value) for i in at.info] == [
        "Nothing was asked: the question box is empty. Type a question, then press Ask."]


def test_what_changed_says_it_needs_two_documents_before_the_click(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 60: "What changed" said it needs a scope only after Ask was pressed, in red above the answer shown
    before. It says so as soon as it is chosen, and Ask waits until two documents (or one with two versions) are."""
    at = ok(app(monkeypatch, _store(tmp_path)))
    at = ok(at.radio(key="ask_mode").set_value("changes"))
    assert any("compares two documents" in str(i.value) for i in at.info)
    assert at.button(key="FormSubmitter:ask_form-Ask").disabled
    at = ok(at.multiselect(key="ask_documents").set_value(["policy"]))
    assert any("policy has one you can see" in str(i.value).replace("\\", "") for i in at.info)
    at = ok(at.multiselect(key="ask_documents").set_value(["policy", "faq"]))
    assert not at.info and not at.button(key="FormSubmitter:ask_form-Ask").disabled


def test_a_question_that_fails_clears_the_answer_shown_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 60: the error for a new question stood in red above the previous question's answer, which read as its
    answer. The answer shown before goes with the error."""
    import graphrag.answer
    from dashboard import resources
    from graphrag.errors import InputError

    def refuse(*args: object, **kwargs: object) -> None:
        raise InputError("that question cannot be asked here")

    monkeypatch.setattr(graphrag.answer, "answer_question", refuse)
    monkeypatch.setattr(resources, "asker", lambda: None)  # no model: the question fails before one is read
    at = app(monkeypatch, _store(tmp_path))
    at.session_state["answer_id"] = 1  # an answer on screen from before
    at = ok(at)
    at.text_area(key="_w_question").set_value("What changed?")
    at = at.button(key="FormSubmitter:ask_form-Ask").click().run()
    assert any("cannot be asked here" in str(e.value) for e in at.error)
    assert "answer_id" not in at.session_state
