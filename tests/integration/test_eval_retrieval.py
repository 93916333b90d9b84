"""`graphrag eval retrieval` on a tiny MuSiQue-shaped fixture: recall against known gold paragraphs."""

from __future__ import annotations

import io
import json

import pytest

from graphrag.model import AskSettings
from lab.evaluate.retrieval import cli_eval_retrieval, load_questions

CORPUS = [
    {"title": "Larkspur exports", "text": "Snapshot exports remain available for 30 days after an account is cancelled."},
    {"title": "Larkspur billing", "text": "Cancelling an account ends billing at the end of the current period."},
    {"title": "Volcanoes", "text": "Mount Etna is an active volcano on the east coast of Sicily."},
    {"title": "Rivers", "text": "The Danube flows through ten countries before it reaches the Black Sea."},
    # A two-step question: the film names its director; only the director's paragraph names the town.
    {"title": "Quiet Harbour", "text": "Quiet Harbour is a 1961 drama film directed by Ilse Vantorp."},
    {"title": "Ilse Vantorp", "text": "Ilse Vantorp was born in the town of Kellerstadt."},
]


def _question(qid: str, text: str, supporting: list[int], answer: str = "") -> dict:
    return {"id": qid, "question": text, "answer": answer, "answer_aliases": [], "paragraphs": [
        {"title": c["title"], "paragraph_text": c["text"], "is_supporting": i in supporting}
        for i, c in enumerate(CORPUS)]}


@pytest.fixture()
def files(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([
        _question("q1", "How long do snapshot exports remain available after cancelling an account?", [0]),
        _question("q2", "On which island is the active volcano Mount Etna?", [2], "Sicily"),
        _question("q3", "Where was the director of Quiet Harbour born?", [4, 5], "Kellerstadt"),
    ]), encoding="utf-8")
    return str(questions), str(corpus)


@pytest.mark.unit
def test_gold_paragraphs_map_to_corpus_documents(files) -> None:
    qs = load_questions(*files)
    assert [sorted(q.gold) for q in qs] == [["00000:Larkspur exports"], ["00002:Volcanoes"],
                                            ["00004:Quiet Harbour", "00005:Ilse Vantorp"]]
    assert qs[1].answers == ("Sicily",)


@pytest.mark.model
def test_eval_retrieval_reports_recall_and_refusals(files) -> None:
    out = io.StringIO()
    assert cli_eval_retrieval(*files, as_json=True, out=out) == 0
    result = json.loads(out.getvalue())
    assert result["n"] == 3 and result["recall"] == 1.0 and result["baseline_recall"] == 1.0
    assert result["refused_below_min_relevance"] == 0 and result["best_similarity_min"] >= 0.35
    # The route measures: every route starts at an entity the question names; q3's director
    # paragraph names neither "Quiet Harbour" nor anything else q3 names: a bridge paragraph,
    # which the answer cites through a step from the film to its director.
    assert result["questions_anchored"] == 3 and result["citations_anchored"] == 1.0
    assert result["questions_with_bridge_paragraph"] == 1
    assert result["bridge_paragraph_cited"] == 1 and result["bridge_paragraph_cited_through_route"] == 1
    assert result["citation_route_depths"]["1"] >= 1
    assert result["answer_contains_gold"] == 1.0  # "Sicily" and "Kellerstadt" are quoted; q1 has no answer string
    # A floor above every question's best sentence refuses them all, and the report says so.
    out = io.StringIO()
    assert cli_eval_retrieval(*files, out=out, settings=AskSettings(min_relevance=0.99)) == 0
    text = out.getvalue()
    assert "refused by the 0.99 relevance floor: 3" in text
    assert "questions with a bridge paragraph: 1; in the context: 1; answer cites it: 1; through a route with a step: 1" in text


@pytest.mark.model
def test_off_topic_documents_refuse_the_questions(files, tmp_path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "garden.md").write_text("Tomatoes need six hours of sun a day. Water basil in the morning.\n",
                                     encoding="utf-8")
    out = io.StringIO()
    assert cli_eval_retrieval(*files, as_json=True, out=out, off_topic_dir=str(other)) == 0
    off = json.loads(out.getvalue())["off_topic"]
    assert off["n"] == 3 and off["refused"] == 3 and off["best_similarity_max"] < 0.35
    assert cli_eval_retrieval(*files, out=io.StringIO(), off_topic_dir=str(tmp_path / "none")) == 2
