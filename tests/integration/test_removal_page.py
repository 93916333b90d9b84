"""The Ingest page's "Remove a document" (AppTest, real models): only documents the viewer can see
are offered, nothing is removed before a preview and a ticked confirmation, the removal is
recorded with who and why; afterwards the Ask page shows the withdrawn answer without a word of
the removed document, and the Review page no longer offers it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import app, copy_store, ok, texts
from doc_helpers import PDF_PATH
from graphrag.answer.ask import Asker
from graphrag.model import AskSettings
from graphrag.present import pages
from graphrag.store import Store
from graphrag.verify.review import record_verdict

pytestmark = [pytest.mark.model, pytest.mark.slow]

FAQ_SENTENCE = "Larkspur keeps nightly snapshots for 14 days."


@pytest.fixture
def store_path(tiny_store: Path, tmp_path: Path) -> Path:
    return copy_store(tiny_store, tmp_path / "store.db")


def _answer_citing_the_faq(path: Path) -> int:
    with Store(path) as s:
        answer = Asker(s).ask("How long does Larkspur keep nightly snapshots?",
                              AskSettings(include_superseded=False)).answer
        assert any(c.span.document_id == "faq" for c in answer.context)
        claim, cit = next((cl, c) for cl in answer.claims for c in cl.citations
                          if c.item is not None and c.item.span.document_id == "faq")
        record_verdict(s, answer, claim, cit, "supported", "ada", "seen")
        assert answer.id is not None
        return answer.id


def _shown(at) -> str:
    return repr([str(getattr(e, "value", "")) + str(getattr(e, "label", "")) for e in at.main]) + repr(
        [str(e.value) for e in (*at.info, *at.warning, *at.error, *at.success, *at.markdown, *at.caption)])


def test_remove_a_document_from_the_ingest_page(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    answer_id = _answer_citing_the_faq(store_path)
    at = app(monkeypatch, store_path)
    at = ok(at)
    at.switch_page("views/ingest.py")
    at = ok(at)
    pick = at.selectbox(key="remove_doc")
    assert pick.options == ["Choose a document", "exports: Data exports (1 version)", "faq: Old FAQ (1 version)"]
    assert "ops" not in _shown(at) and "Operations" not in _shown(at)  # internal: hidden from a public viewer
    at = ok(pick.select("faq"))
    assert at.multiselect(key="remove_versions").value == [1]
    assert not [b for b in at.button if b.key == "remove_go"]  # no removal before a preview
    at = ok(at.button(key="remove_preview").click())
    said = " ".join(texts(at.warning)).replace("\\", "")
    assert "would remove faq version 1: 3 spans no longer citable" in said
    assert "1 verdict on its spans kept" in said and "1 answer that drew on it withdrawn" in said
    assert at.button(key="remove_go").disabled  # not before the confirmation is ticked
    at = ok(at.text_input(key="remove_reason").input("outdated, replaced by exports"))
    at = ok(at.checkbox(key="remove_confirm").check())
    with Store(store_path) as s:  # a page of faq drawn for the Review page, in the app's process
        faq = s.document("faq", 1)
        assert faq is not None
        pages.render_page(PDF_PATH.read_bytes(), 1, file_sha256=faq.sha256)
    at = ok(at.button(key="remove_go").click())
    assert not [key for key in pages._cache if key[0] == faq.sha256]  # dropped with the removal
    assert "removed faq version 1" in " ".join(texts(at.success)).replace("\\", "")
    assert at.selectbox(key="remove_doc").options == ["Choose a document", "exports: Data exports (1 version)"]
    with Store(store_path) as s:
        assert s.document("faq", 1) is None
        (rec,) = s.removal_records()
        assert (rec.document_id, rec.actor, rec.reason) == ("faq", "ada", "outdated, replaced by exports")

    # The Ask page: the withdrawn answer, and nothing of the removed document.
    at.session_state["answer_id"] = answer_id
    at.switch_page("views/ask.py")
    at = ok(at)
    shown = _shown(at).replace("\\", "")
    assert "the answer was withdrawn" in shown and "14 days" not in shown and FAQ_SENTENCE not in shown
    # The Review page: the answer is no longer offered for review.
    at.switch_page("views/review.py")
    at = ok(at)
    assert answer_id not in at.selectbox(key="review_answer_filter").options
