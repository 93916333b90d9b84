"""A picture's caption cited as what it is (issue 44): the reader keeps the caption apart from the sentence it was
printed beside, the store keeps the kind of block each sentence is in, and a quote of the caption says "caption"
wherever a reviewer reads it: `ask --json`, the Ask page, the Review page and the verification export. The article
is the generated legal-scholarship page of tests/support/reading_pdf.py (a picture beside the text, its caption set
small with no "Figure 1:" opening, printed between two lines of a sentence), ingested with no model."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from app_helpers import app, ok, page, texts
from graphrag.ingest.readers.webpage import read_html
from graphrag.present.serialize import answer_json
from graphrag.store import Store
from graphrag.verify.review import export_rows, record_verdict, rows_to_csv
from reading_pdf import BODY_CLAIM, CAPTION, SENTENCES, stored_article

pytestmark = [pytest.mark.unit, pytest.mark.heavy]



def _index(store: Store, text: str) -> int:
    return next(s.sentence_index for s in store.sentences("article", 1) if " ".join(s.text.split()) == text)


@pytest.fixture(scope="module")
def article_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("article") / "store.db"
    stored_article(path)
    return path


def test_the_store_keeps_a_caption_as_a_caption_and_says_so_in_json_and_the_export(article_store: Path,
                                                                                   tmp_path: Path) -> None:
    with Store(article_store) as store:
        cap = store.layout("article", 1, _index(store, CAPTION))
        body = store.layout("article", 1, _index(store, SENTENCES[0]))
        assert cap is not None and body is not None
        assert (cap.kind, cap.location_text) == ("caption", "caption, p. 1")
        assert (body.kind, body.location_text) == ("body", "p. 1")  # body text is named by its page alone
        (answer,) = [store.answer(i["id"]) for i in store.answer_ids()]
        assert answer is not None
        shown = answer_json(answer, layouts=store.span_layouts(
            [(c.item.span.document_id, c.item.span.version, c.item.span.sentence_index)
             for cl in answer.claims for c in cl.citations if c.item is not None]))
        kinds = {cl["text"]: [c["span_kind"] for c in cl["citations"]] for cl in shown["claims"]}  # type: ignore[union-attr]
        assert kinds == {CAPTION: ["caption"], BODY_CLAIM: ["body text"]}
        for claim in answer.claims:
            record_verdict(store, answer, claim, claim.citations[0], "supported", "ada")
        rows = export_rows(store, ["public"])
    by_claim = {r["claim"]: r["span_kind"] for r in csv.DictReader(io.StringIO(rows_to_csv(rows)))}
    assert by_claim == {CAPTION: "caption", BODY_CLAIM: "body text"}


def test_an_html_figure_caption_is_a_caption_block() -> None:
    text, _, layout = read_html(b"<html><body><p>The archive opens at nine.</p><figure><img src='a.png'>"
                     b"<figcaption>The reading room in 1910.</figcaption></figure><p>It closes at five.</p>"
                     b"</body></html>")
    kinds = {text[b.start:b.end]: b.kind for b in layout.blocks}
    assert kinds == {"The archive opens at nine.": "body", "The reading room in 1910.": "caption",
                     "It closes at five.": "body"}


def _shown(at) -> str:  # `at`: an AppTest after a run
    """What the page shows in words: its captions, Markdown and HTML boxes."""
    return " ".join([*texts(at.caption), *texts(at.markdown), *(h.proto.body for h in at.get("html"))])


@pytest.mark.slow
def test_ask_and_review_pages_say_the_quote_is_a_caption(monkeypatch: pytest.MonkeyPatch, article_store: Path,
                                                          tmp_path: Path) -> None:
    import shutil

    path = tmp_path / "store.db"
    shutil.copy(article_store, path)
    with Store(path) as store:
        (answer_id,) = [i["id"] for i in store.answer_ids()]
    at = ok(app(monkeypatch, path))
    at.session_state["answer_id"] = answer_id  # dashboard.session.ANSWER_ID: the answer the Ask page shows
    at = ok(at)
    assert "caption, p. 1" in _shown(at)
    at.session_state["review_current"] = (answer_id, 0)
    at = page(at, "review")
    shown = _shown(at)
    assert "caption, p. 1" in shown
    assert "quoted from a caption" in shown.lower()
