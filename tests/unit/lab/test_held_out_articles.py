"""The held-out comparison of the quotes' order: its articles are the span fit's test articles (never one it fitted
or chose on), a question's gold sentence is found by the answer's position, and the paired figures count only the
questions the two arms disagree on."""

from __future__ import annotations

import json

import pytest

from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, Span
from lab.evaluate.held_out_articles import (
    ARMS,
    HeldQuestion,
    first_holds_span,
    format_summary,
    held_out,
    load_articles,
    sign_test,
    summarise,
)
from lab.fit_span_reader import split_of

pytestmark = pytest.mark.unit


def test_the_articles_are_the_span_fits_test_articles():
    titles = [f"Article {i}" for i in range(200)]
    assert [held_out(t) for t in titles] == [split_of("squad2_dev", t, "") == "test" for t in titles]
    assert 40 < sum(held_out(t) for t in titles) < 95


def _squad(tmp_path, titles):
    data = {"data": [{"title": t, "paragraphs": [{"context": "Alpha is first. Beta came in 1990.", "qas": [
        {"id": f"{t}-a", "question": "When did Beta come?", "is_impossible": False,
         "answers": [{"text": "1990", "answer_start": 29}]},
        {"id": f"{t}-u", "question": "When did Gamma come?", "is_impossible": True, "answers": []}]}]}
        for t in titles]}
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_only_held_out_articles_and_answerable_questions_are_asked(tmp_path):
    titles = [f"Article {i}" for i in range(12)]
    got = load_articles(_squad(tmp_path, titles), per_article=5)
    assert [a.name for a in got] == [t for t in titles if held_out(t)]
    assert all([q.qid for q in a.questions] == [f"{a.name}-a"] for a in got)
    assert [a.name for a in load_articles(_squad(tmp_path, titles), 5, articles=1, skip=1)] == [got[1].name]
    # the articles weights are chosen on (lab.evaluate.span_order) are never the ones reported
    choose = [a.name for a in load_articles(_squad(tmp_path, titles), 5, split="choose")]
    assert choose == [t for t in titles if held_out(t, "choose")] and not set(choose) & {a.name for a in got}


class _Doc:
    text = "Alpha is first. Beta came in 1990."


class _Store:
    def document(self, doc_id, version):
        return _Doc()


def _answer(span: Span) -> Answer:
    item = ContextItem(1, span, Route("s"), 0.5, "similarity")
    claim = Claim(0, "x", 0, 1, (Citation("1", True, item),))
    return Answer("q", AskSettings(), "x [1]", (), (), (item,), (claim,))


def test_the_gold_sentence_is_the_one_holding_the_answers_start():
    q = HeldQuestion("a", "When did Beta come?", "p000", (("1990", 29),))
    first = Span("p000", 1, 0, 0, 15, "Alpha is first.")
    second = Span("p000", 1, 1, 16, 34, "Beta came in 1990.")
    assert first_holds_span(q, _answer(second), _Store())  # type: ignore[arg-type]
    assert not first_holds_span(q, _answer(first), _Store())  # type: ignore[arg-type]
    elsewhere = Span("p001", 1, 1, 16, 34, "Beta came in 1990.")
    assert not first_holds_span(q, _answer(elsewhere), _Store())  # type: ignore[arg-type]


def test_the_paired_figures_count_only_disagreements():
    def arm(right: bool) -> dict[str, object]:
        return {"answered": True, "first_span": right, "first_text": right, "short": True, "first_quote": str(right),
                "seconds": 0.1}
    on, off = ARMS["span"]
    rows = [{"article": "A", "id": str(i), "question": "q", on: arm(True), off: arm(i < 3)} for i in range(8)]
    s = summarise(rows)
    assert s["arms"] == [on, off]
    assert s[on]["first_span"]["share"] == 1.0 and s[off]["first_span"]["share"] == 3 / 8
    assert s["paired"]["first_span"] == {"with_span_only": 5, "without_span_only": 0, "sign_test_p": 0.0625}
    assert "with_span" in format_summary(s)
    assert s["paired"]["short"]["sign_test_p"] == 1.0 and s["first_quote_changed"] == 5
    assert sign_test(0, 0) == 1.0 and sign_test(3, 3) == 1.0
