"""The answer-span reader that ships: its weights match their digest and load, and it tells the sentence that
states the asked fact from one about the same thing, with the answer's span inside it."""

from __future__ import annotations

import pytest

from graphrag.answer.reader.read import Reader
from graphrag.answer.reader.span import Candidate, load_span_reader

pytestmark = pytest.mark.model


def test_the_shipped_span_reader_loads_and_reads_the_stating_sentence_higher():
    span = load_span_reader()
    assert span is not None, "the span reader's weights do not ship or do not match their digest"
    assert Reader.load().span is span
    question = "When was the Harvard Corporation chartered?"
    stating = Candidate("The Harvard Corporation was chartered by the Massachusetts General Court in 1650.",
                        "Harvard is governed by two boards.", "Harvard University")
    about = Candidate("The Harvard Corporation is the smaller of the university's two governing boards.",
                      "Harvard is governed by two boards.", "Harvard University")
    got = span.read(question, [stating, about])
    assert got[0].probability > got[1].probability
    assert "1650" in got[0].span and got[0].span in stating.sentence
    assert 0.0 <= got[1].probability <= 1.0
