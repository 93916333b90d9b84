"""Footnote marks ("[12]", "instead.[202][203]") are kept out of the text of HTML and plain-text documents, as they
are out of PDFs (issue 44): no sentence, entity or highlight carries them, and spans still index the stored text."""

from __future__ import annotations

import pytest

from graphrag.ingest.documents import Source, source_from_bytes
from graphrag.language.sentences import split_sentences

pytestmark = pytest.mark.unit


def _text(name: str, data: str) -> str:
    src = source_from_bytes("doc", data.encode("utf-8"), name, None, ("public",), None)
    assert isinstance(src, Source), src
    return src.text


def test_plain_text_loses_its_footnote_marks_and_keeps_other_brackets() -> None:
    text = _text("court.txt", "Critics objected instead.[202][203] The court ruled in 1803 [12], as cited[note 3].\n"
                              "- [x] read the opinion\n- [ ] see [a] and the table [1] below\n")
    assert text == ("Critics objected instead. The court ruled in 1803, as cited.\n"
                    "- [x] read the opinion\n- [ ] see [a] and the table [1] below\n")


def test_a_web_page_loses_its_reference_marks() -> None:
    html = ("<html><body><main><h1>Marbury v. Madison</h1><p>The case established judicial review."
            '<sup class="reference"><a href="#cite_note-12">[12]</a></sup><sup><a href="#n">[a]</a></sup> '
            "It was decided in 1803 [citation needed].</p></main></body></html>")
    text = _text("marbury.html", html)
    assert "[" not in text and "The case established judicial review. It was decided in 1803." in text


def test_sentences_of_a_text_with_marks_carry_none_and_index_the_text() -> None:
    text = _text("faq.md", "Exports stay for 30 days.[3] Snapshots are kept for a year.[4][5]\n")
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == ["Exports stay for 30 days.", "Snapshots are kept for a year."]
    assert all(text[s.start:s.end] == s.text for s in sentences)
