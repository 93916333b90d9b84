"""Markers in reading order and the cited words of a sentence (graphrag.present.reading)."""

from __future__ import annotations

import pytest

from graphrag.model import Answer, AskSettings, ContextItem, Route, Span
from graphrag.present import cited_words, citing_claims, display_numbers, renumbered
from graphrag.verify.attribution import attribute

pytestmark = pytest.mark.unit


def item(n: int, text: str) -> ContextItem:
    return ContextItem(n, Span("doc", 1, n, 0, len(text), text), Route(seed="x"), 1.0 / n, "mention")


def answer(text: str, items: list[ContextItem]) -> Answer:
    return Answer("q", AskSettings(), text, (), (), tuple(items), tuple(attribute(text, items)))


def test_markers_are_numbered_as_the_answer_first_cites_them() -> None:
    items = [item(n, f"Sentence {n}.") for n in range(1, 7)]
    a = answer("Exports use snapshots [6]. They are kept [5, 3]. Again [6]. Past the end [9].", items)
    numbers = display_numbers(a)
    assert [numbers[n] for n in (6, 5, 3)] == [1, 2, 3]
    assert sorted(numbers[n] for n in (1, 2, 4)) == [4, 5, 6]  # uncited items follow, in their order
    assert renumbered(a.text, numbers) == "Exports use snapshots [1]. They are kept [2, 3]. Again [1]. Past the end [9]."


def test_the_words_a_claim_takes_from_its_sentence_are_marked() -> None:
    sentence = "Snapshot exports remain available for 30 days after an account is cancelled."
    marked = lambda claim: [sentence[a:b] for a, b in cited_words(sentence, claim)]  # noqa: E731
    assert marked("Snapshot exports remain available for 30 days after an account is cancelled") == [sentence[:-1]]
    assert marked("30 days") == ["30 days"]
    assert marked("Exports are kept 30 days") == ["exports", "30 days"]
    assert marked("It is a thing") == []  # small words alone mark nothing


def test_each_item_names_the_claims_citing_it_once_in_the_answers_order() -> None:
    items = [item(n, f"Sentence {n}.") for n in range(1, 4)]
    a = answer("Exports use snapshots [3]. They are kept [3, 1] [3]. Nothing cites two.", items)
    assert citing_claims(a) == {3: [1, 2], 1: [2]}


def test_an_unanswered_questions_closest_passages_are_statements_before_headings() -> None:
    from graphrag.present.serialize import closest_passages

    items = [item(1, "Larkspur Security Handbook"), item(2, "Larkspur runs two hosting regions."),
             item(3, "Every Larkspur customer has one account.")]
    shown = [c.span.text for c in closest_passages(answer("The documents do not say.", items), n=2)]
    assert shown == ["Larkspur runs two hosting regions.", "Every Larkspur customer has one account."]
    only_headings = [item(1, "Larkspur Security Handbook")]
    assert [c.n for c in closest_passages(answer("The documents do not say.", only_headings))] == [1]
