"""An answer's standing, its reuse and changed sources on the pages (issue 62, items 1, 2 and 4; AppTest, local
mode, a store written directly, no model): the Ask page says where an answer stands in the words every surface
uses, gives a verified answer again with a way to ask afresh, and names a verified answer outdated beside a fresh
one; the Record page lists the verified answers whose sources changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_reuse import QUESTION, FreshAsker
from test_standing import SENTENCES, judge, save_answer, write_doc

from app_helpers import app, ok, page, texts
from graphrag.store import Store
from graphrag.verify.standing import answer_standing

pytestmark = [pytest.mark.unit, pytest.mark.heavy]


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "store.db"
    with Store(path) as s:
        write_doc(s)
        a = save_answer(s, QUESTION)
        judge(s, a, 0, "supported", "ana")
        judge(s, a, 1, "supported", "ben")
    FreshAsker.calls = 0
    from dashboard import resources

    # the page's asker composes no answer with a model: it writes one (FreshAsker)
    monkeypatch.setattr(resources, "asker", lambda: FreshAsker(resources.store()))
    return path


def shown(at) -> str:
    return " ".join(texts(at.markdown) + texts(at.caption) + texts(at.success) + texts(at.warning)
                    + texts(at.info)).replace("\\", "")


def ask(at, question: str = QUESTION):
    at.text_area(key="_w_question").set_value(question)
    return ok(at.button(key="FormSubmitter:ask_form-Ask").click())


def test_the_ask_page_says_the_standing_reuses_a_verified_answer_and_asks_afresh(store: Path,
                                                                                  monkeypatch) -> None:
    with Store(store) as s:
        a = s.answer(1)
        assert a is not None
        words = answer_standing(s, a).words
    at = ask(page(ok(app(monkeypatch, store)), "ask"))
    text = shown(at)
    assert FreshAsker.calls == 0 and "Answer #1" in texts(at.subheader)
    assert "Answered before and verified: answer #1, verified by ana and ben on " in text
    assert f"checked automatically; {words}" in text
    at = ok(at.button(key="ask_afresh").click())
    assert FreshAsker.calls == 1 and "Answer #2" in texts(at.subheader)
    text = shown(at)
    assert "Answered before" not in text and "checked automatically; not yet reviewed" in text


def test_a_changed_source_names_the_verified_answer_outdated_and_the_record_lists_it(store: Path,
                                                                                    monkeypatch) -> None:
    with Store(store) as s:
        write_doc(s, ("Refunds are paid within 14 days.", "Exports are kept for 60 days.", SENTENCES[2]))
    at = ask(page(ok(app(monkeypatch, store)), "ask"))
    assert FreshAsker.calls == 1 and "Answer #2" in texts(at.subheader)
    assert "An earlier answer to this question, #1, was verified but is outdated" in shown(at)
    assert "“Exports are kept for 30 days.” now reads “Exports are kept for 60 days.”" in shown(at)
    at.session_state["answer_id"] = 1
    at = ok(at)
    assert "checked automatically; source changed: verified by ana and ben on " in shown(at)
    record = page(at, "record")
    [table] = [t for t in record.dataframe if "cited words" in t.value.columns] or [None]
    assert table is not None, "the Record page lists the verified answers whose sources changed"
    assert table.value[["answer", "claim", "cited words", "now"]].values.tolist() == [
        [1, 2, SENTENCES[1], "Exports are kept for 60 days."]]
    assert [b for b in record.get("download_button") if b.proto.label == "Changed sources (CSV)"]
    # the Review page opens on the changed claim, and says why it is back
    review = page(record, "review")
    assert "its cited sentence changed since the answer was verified" in shown(review).replace("*", "")
    assert "from answer #1" in shown(review)
