"""The Ask and Review pages when the documents do not answer (AppTest on the small handbook): the Ask page says
so in words and shows the closest passages as passages; the Review page never queues them as claims, and says why
such a question is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import app, copy_store, ok, texts
from doubles.reader import always
from graphrag.answer.reader.read import Reader
from graphrag.store import Store

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture
def store_path(tiny_store: Path, tmp_path: Path) -> Path:
    return copy_store(tiny_store, tmp_path / "store.db")


def ask(at, question: str):
    at.text_area(key="_w_question").set_value(question)
    return ok(at.button(key="FormSubmitter:ask_form-Ask").click())


def test_an_abstention_is_said_in_words_with_passages_and_never_queued(monkeypatch: pytest.MonkeyPatch,
                                                                      store_path: Path) -> None:
    # The reader abstains on every question here: what is tested is how the pages show it.
    monkeypatch.setattr(Reader, "load", classmethod(lambda cls, passage_vectors=False: cls(abstain=always(False))))
    at = ask(ok(app(monkeypatch, store_path)), "How long do exports stay available after cancellation?")
    html = [h.proto.body for h in at.get("html")]
    # the question's words say what the documents lack (the closest passage states the asked kind: nothing is
    # said of it)
    assert any("The documents do not say how long exports stay available after cancellation." in h for h in html), html
    assert any("not answered · the documents do not say" in m for m in texts(at.markdown))
    assert any("closest passages" in c and "not claims" in c for c in texts(at.caption))
    assert any("<b>Data exports</b>" in h for h in html)  # a passage, with its document's title
    assert not [b for b in at.button if b.key == "to_review"]  # nothing to review
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
        assert answer is not None and not answer.answered and answer.claims == ()
        assert s.claim_summaries() == []
    at.switch_page("views/review.py")
    at = ok(at)
    # named once, folded under the claim (no claim here), never queued
    folded = " ".join(e.label for e in at.expander)
    assert "1 question the documents did not answer" in folded, folded
    assert any(f"#{answer.id} “How long do exports stay available" in m for m in texts(at.markdown))
    assert any("not claims" in c for c in texts(at.caption))
    assert not [b for b in at.button if (b.key or "").startswith("rv_")]  # no verdict buttons: no claim queued


def test_an_answer_from_several_documents_offers_the_scope(monkeypatch: pytest.MonkeyPatch,
                                                          store_path: Path) -> None:
    monkeypatch.setattr(Reader, "load", classmethod(lambda cls, passage_vectors=False: cls(abstain=always(True))))
    at = ask(ok(app(monkeypatch, store_path)), "How long do exports stay available after cancellation?")
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
    assert answer is not None
    docs = list(dict.fromkeys(c.item.span.document_id for cl in answer.claims for c in cl.citations if c.item))
    assert len(docs) > 1, "the question no longer draws on several documents"
    assert any("The quotes come from 2 documents" in c for c in texts(at.caption)), texts(at.caption)
    scope = next(b for b in at.button if b.key == "scope_faq")
    assert scope.label == "Ask only in Old FAQ"
    at = ok(scope.click())
    with Store(store_path) as s:
        again = s.answer(s.answer_ids()[0]["id"])
    assert again is not None and again.id != answer.id and again.settings.documents == ("faq",)
    assert {c.item.span.document_id for cl in again.claims for c in cl.citations if c.item} == {"faq"}
