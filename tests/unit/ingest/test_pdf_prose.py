"""What the reader makes of a real-shaped article's prose: whole sentences through case citations, footnote
marks out of the text, compounds keeping their hyphen across a line break, a picture's caption apart from the
sentence it was printed beside, the whole two-line title, and one count of sentences in the reading report."""

from __future__ import annotations

import re

import pytest

from graphrag.ingest.readers.pdf import read_pdf
from graphrag.language.sentences import split_sentences
from reading_pdf import CAPTION, SENTENCES, TITLE, reading_pdf

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def read() -> tuple[str, str | None, object]:
    return read_pdf(reading_pdf())


def _by_kind(text: str, layout: object, kind: str) -> list[str]:
    return [" ".join(s.text.split()) for s in split_sentences(text) if layout.kind_at(s.start) == kind]  # type: ignore[attr-defined]


def test_body_sentences_are_whole_without_marks_and_with_compounds_kept(read: tuple) -> None:
    text, _, layout = read
    assert _by_kind(text, layout, "body") == SENTENCES
    assert not re.search(r"\[\d", text)  # marks are out of the text, so out of every span and highlight
    assert "docu-ment" not in text and "state-ofthe" not in text and "bestperforming" not in text
    # every printed line still boxes each of its characters once the marks are out
    for ln in layout.lines:
        assert len(ln.x0s) == len(ln.x1s) == ln.end - ln.start


def test_a_caption_printed_beside_a_sentence_is_its_own_block(read: tuple) -> None:
    text, _, layout = read
    assert _by_kind(text, layout, "caption") == [CAPTION]
    assert not any("Supreme Court building" in s for s in _by_kind(text, layout, "body"))


def test_the_title_is_the_whole_title_block(read: tuple) -> None:
    assert read[1] == TITLE


def test_the_reading_report_counts_the_sentences_ingest_stores_and_names_the_citable_ones(read: tuple) -> None:
    text, _, layout = read
    total = len(split_sentences(text))
    (note,) = layout.notes
    assert note.startswith(f"read 1 page: {total} sentences, {len(SENTENCES)} of them citable (body text), from ")
    assert "2 caption lines" in note and "1 equation" in note
