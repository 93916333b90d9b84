"""`graphrag eval answers`: the panel's measures on a tiny synthetic set (no public data needed)."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, RouteStart, Span
from lab.evaluate.answers import (
    PanelQuestion,
    QuestionSet,
    _Tally,
    build_sets,
    cli_eval_answers,
    disagreement_texts,
    format_panel,
    score_answer,
    summarise,
)
from lab.evaluate.matching import inside, same_sentence

EVIDENCE = ("The opening stage was won by Fernando Gaviria of Quick-Step Floors, who became the Tour's first rider "
            "to wear the yellow jersey. Peter Sagan then took the race lead the following stage.")
IN = "The opening stage was won by Fernando Gaviria of Quick-Step Floors, the first to wear yellow."
OUT = "The 2018 Tour de France was the 105th edition of the race, one of cycling's Grand Tours."


def _span(text: str, doc: str = "tour", idx: int = 0) -> Span:
    return Span(doc, 1, idx, 0, len(text), text)


def _item(n: int, text: str, doc: str = "tour") -> ContextItem:
    return ContextItem(n, _span(text, doc, n), Route("tour de france", (), RouteStart.QUESTION), 0.5, "mention")


def _answer(context: list[ContextItem], cited: list[int], text: str = "") -> Answer:
    by_n = {c.n: c for c in context}
    claims = tuple(Claim(i, by_n[n].span.text, 0, 1, (Citation(str(n), True, by_n[n]),)) for i, n in enumerate(cited))
    return Answer("q", AskSettings(), text or " ".join(f"{by_n[n].span.text} [{n}]" for n in cited), (), (),
                  tuple(context), claims)


@pytest.mark.unit
def test_a_sentence_is_inside_the_evidence_paragraph_when_most_of_its_words_are() -> None:
    assert inside(IN, EVIDENCE)
    assert not inside(OUT, EVIDENCE)
    assert not inside("Fernando Gaviria won.", EVIDENCE)  # too short to tell
    assert inside("Hannah John-Kamen as Selma in Black Mirror", "Black Mirror Selma John-Kamen")  # a short row


@pytest.mark.unit
def test_the_expected_sentence_matches_despite_line_breaks_and_an_attached_heading() -> None:
    expected = "Single sign-on can be set up by the account owner only."
    assert same_sentence("Before you start\nSingle sign-on can be set up by the account\nowner only.", expected)
    assert not same_sentence("Single sign-on is available on the Business and Enterprise plans.", expected)
    assert not same_sentence(expected + " " + OUT + " " + OUT, expected)  # mostly another sentence


@pytest.mark.unit
def test_first_and_any_citation_inside_the_evidence_beside_the_dense_baseline() -> None:
    q = PanelQuestion("who won the first stage", "paragraph", (EVIDENCE,), "tour", answers=("Fernando Gaviria",))
    tally = _Tally()
    # The evidence is in the context but quoted second; the dense baseline missed it.
    score_answer(q, _answer([_item(1, OUT), _item(2, IN)], [1, 2]), [_span(OUT)], tally)
    # The evidence quoted first, cited twice (counted once); the baseline has it.
    score_answer(q, _answer([_item(1, IN), _item(2, OUT)], [1, 1]), [_span(IN)], tally)
    # Nothing cited, and the evidence sentence sits in another document: not inside.
    score_answer(q, _answer([_item(1, IN, doc="other")], []), [], tally)
    panel = summarise(QuestionSet("nq", lambda s: None, [q] * 3), tally, check=False)
    assert panel["questions"] == 3
    assert panel["evidence_in_context"] == pytest.approx(2 / 3, abs=1e-4)
    assert panel["dense_evidence_in_context"] == pytest.approx(1 / 3, abs=1e-4)
    assert panel["first_citation_inside_evidence"] == pytest.approx(1 / 3, abs=1e-4)
    assert panel["any_citation_inside_evidence"] == pytest.approx(2 / 3, abs=1e-4)
    assert panel["short_answer_in_answer"] == pytest.approx(2 / 3, abs=1e-4)
    assert panel["citations_per_answer"] == 1.0  # (2 + 1 + 0) / 3
    assert panel["claims_per_answer"] == 1.33  # (2 + 2 + 0) / 3: a claim per cited sentence
    assert "disagreement_said" not in panel and "bridge_cited" not in panel


@pytest.mark.unit
def test_musique_evidence_is_the_share_of_gold_paragraphs_in_the_context() -> None:
    q = PanelQuestion("where was the director born", "document", gold=frozenset({"film", "director"}))
    tally = _Tally()
    score_answer(q, _answer([_item(1, OUT, doc="film"), _item(2, OUT, doc="noise")], [2, 1]), [], tally)
    assert tally.in_context == [0.5] and tally.first_in == [False] and tally.any_in == [True]


@dataclass(frozen=True)
class _Disagreement:
    about: str
    spans: tuple[Span, ...]


@dataclass(frozen=True)
class _AnswerWithDisagreements(Answer):
    disagreements: tuple[_Disagreement, ...] = ()


@pytest.mark.unit
def test_disagreement_said_is_read_from_the_answers_disagreements() -> None:
    new, old = "Nightly snapshots are kept for 35 days.", "Larkspur keeps nightly snapshots for 14 days."
    planted = PanelQuestion("how long are snapshots kept", "sentence", (new,), disagree=(new, old))
    plain = PanelQuestion("how long are audit logs kept", "sentence", ("Audit logs are kept for one year.",))
    qset = QuestionSet("sample_corpus", lambda s: None, [planted, plain], sample=True)
    context = [_item(1, new, "retention"), _item(2, old, "faq"), _item(3, "Audit logs are kept for one year.")]

    tally = _Tally()  # answers carry the field (graphrag.verify.disagreement): a planted one not said counts 0
    score_answer(planted, _answer(context, [1, 2]), [], tally)
    score_answer(plain, _answer(context, [3]), [], tally)
    panel = summarise(qset, tally, check=True)
    assert panel["disagreement_said"] == 0.0 and panel["disagreements_planted"] == 1
    assert panel["expected_first_quote"] == 1.0

    def said(context_answer: Answer, *found: _Disagreement) -> _AnswerWithDisagreements:
        fields = {f: getattr(context_answer, f) for f in Answer.__dataclass_fields__ if f != "disagreements"}
        return _AnswerWithDisagreements(**fields, disagreements=found)

    both = _Disagreement("snapshot retention", (context[0].span, context[1].span))
    assert {"snapshot retention", new, old} <= set(disagreement_texts(said(_answer(context, [1]), both)) or [])
    tally = _Tally()
    score_answer(planted, said(_answer(context, [1, 2]), both), [], tally)
    score_answer(planted, said(_answer(context, [1, 2]), _Disagreement("x", (context[0].span,))), [], tally)
    score_answer(plain, said(_answer(context, [3]), both), [], tally)  # a disagreement where none is planted
    panel = summarise(qset, tally, check=True)
    assert panel["disagreement_said"] == 0.5 and panel["disagreement_said_where_none"] == 1


@pytest.mark.unit
def test_sets_whose_files_are_absent_are_skipped_with_a_message(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "manifest.toml").write_text("", encoding="utf-8")
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"question": "Who?", "expected": ["A sentence.", "Another one."],
                                      "disagree": ["A sentence.", "Other."]}]), encoding="utf-8")
    out = io.StringIO()
    sets = build_sets(tmp_path / "nowhere", corpus, ["musique", "nq_articles", "real_pdfs", "sample_corpus"], out,
                      questions)
    assert [s.name for s in sets] == ["sample_corpus"]
    assert sets[0].questions[0].evidence == ("A sentence.", "Another one.")
    assert out.getvalue().count("skipped") == 3 and "nq_articles_dev.json" in out.getvalue()


@pytest.mark.unit
def test_the_table_shows_each_measure_once_with_a_dash_where_it_does_not_apply() -> None:
    table = format_panel({"musique": {"questions": 100, "evidence_in_context": 0.9, "bridge_cited": 0.59},
                          "nq_articles": {"questions": 319, "evidence_in_context": 0.86, "bridge_cited": None}})
    lines = table.splitlines()
    assert "musique" in lines[0] and "nq_articles" in lines[0]
    assert any(line.startswith("bridge paragraph cited") and line.split()[-1] == "-" for line in lines)
    assert not any(line.startswith("ask p50") for line in lines)  # no set has it


@pytest.mark.model
def test_the_panel_runs_end_to_end_on_a_small_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "exports.md").write_text("# Exports\n\nSnapshot exports remain available for 30 days after an "
                                       "account is cancelled.\n", encoding="utf-8")
    (corpus / "faq.md").write_text("# FAQ\n\nSnapshot exports remain available for 7 days after an account is "
                                   "cancelled.\n", encoding="utf-8")
    (corpus / "manifest.toml").write_text('[[documents]]\nfile = "exports.md"\nid = "exports"\n'
                                          'effective_date = "2026-02-01"\n[[documents]]\nfile = "faq.md"\n'
                                          'id = "faq"\neffective_date = "2023-04-01"\n', encoding="utf-8")
    questions = tmp_path / "questions.json"
    new, old = ("Snapshot exports remain available for 30 days after an account is cancelled.",
                "Snapshot exports remain available for 7 days after an account is cancelled.")
    questions.write_text(json.dumps([{"question": "How long do exports stay available after cancellation?",
                                      "expected": new, "short_answer": "30 days", "disagree": [new, old]}]),
                         encoding="utf-8")
    out = io.StringIO()
    assert cli_eval_answers(str(tmp_path / "nowhere"), str(corpus), str(tmp_path / "stores"), ["sample_corpus"],
                            as_json=True, check=False, out=out, sample_questions=questions) == 0
    panel = json.loads(out.getvalue())["sample_corpus"]
    assert panel["questions"] == 1 and panel["evidence_in_context"] == 1.0
    assert panel["dense_evidence_in_context"] == 1.0 and panel["citations_per_answer"] >= 1
    assert panel["ask_p50_ms"] > 0 and panel["disagreements_planted"] == 1
    assert (tmp_path / "stores" / "sample_corpus.db").is_file()  # kept for the next run
