"""Entity names from a real-shaped article's prose: no footnote marks, no sentence punctuation, no symbols of a
formula ("q0", "w1"), and the case names whole."""

from __future__ import annotations

import re

import pytest

from graphrag.ingest.extract.rules import RulesExtractor
from graphrag.ingest.readers.pdf import read_pdf
from graphrag.language.sentences import Sentence, split_sentences
from reading_pdf import reading_pdf

pytestmark = pytest.mark.model


def test_names_carry_no_marks_punctuation_or_formula_symbols() -> None:
    text, _, layout = read_pdf(reading_pdf())
    body = [s for s in split_sentences(text) if layout.kind_at(s.start) == "body"]
    names = {e.name for e in RulesExtractor().extract(body).entities}
    assert names, "the article's prose names something"
    assert not [n for n in names if "[" in n or "]" in n or re.search(r"[.,;:!?]$", n.removesuffix("U.S."))]
    assert not {"q0", "w1"} & names
    assert any("Marbury" in n for n in names) and any("Nixon" in n for n in names)


@pytest.mark.parametrize("sentence, absent", [
    ("Critics prefer it instead.[202][203] Critics of the cert pool.[157][158][159 say so.", "["),
    ("The policy πθ maps the state q0 to the action w1 with the loss L = x + y.", "q0"),
])
def test_a_sentence_with_debris_names_nothing_made_of_it(sentence: str, absent: str) -> None:
    result = RulesExtractor().extract([Sentence(0, 0, len(sentence), sentence)])
    names = [e.name for e in result.entities]
    assert not [n for n in names if absent in n or "πθ" in n or n.endswith((".", ","))], names
