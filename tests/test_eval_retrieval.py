"""`graphrag eval retrieval` on a tiny MuSiQue-shaped fixture: recall against known gold paragraphs."""

from __future__ import annotations

import io
import json

import pytest

from graphrag.evaluate.retrieval import cli_eval_retrieval, load_questions
from graphrag.model import AskSettings

CORPUS = [
    {"title": "Larkspur exports", "text": "Snapshot exports remain available for 30 days after an account is cancelled."},
    {"title": "Larkspur billing", "text": "Cancelling an account ends billing at the end of the current period."},
    {"title": "Volcanoes", "text": "Mount Etna is an active volcano on the east coast of Sicily."},
    {"title": "Rivers", "text": "The Danube flows through ten countries before it reaches the Black Sea."},
]


def _question(qid: str, text: str, supporting: list[int]) -> dict:
    return {"id": qid, "question": text, "paragraphs": [
        {"title": c["title"], "paragraph_text": c["text"], "is_supporting": i in supporting}
        for i, c in enumerate(CORPUS)]}


@pytest.fixture()
def files(tmp_path):  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([
        _question("q1", "How long do snapshot exports remain available after cancelling an account?", [0]),
        _question("q2", "On which island is the active volcano Mount Etna?", [2]),
    ]), encoding="utf-8")
    return str(questions), str(corpus)


def test_gold_paragraphs_map_to_corpus_documents(files) -> None:  # type: ignore[no-untyped-def]
    qs = load_questions(*files)
    assert [sorted(q.gold) for q in qs] == [["00000:Larkspur exports"], ["00002:Volcanoes"]]


@pytest.mark.model
def test_eval_retrieval_reports_recall_and_refusals(files) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    assert cli_eval_retrieval(*files, as_json=True, out=out) == 0
    result = json.loads(out.getvalue())
    assert result["n"] == 2 and result["recall"] == 1.0 and result["baseline_recall"] == 1.0
    assert result["refused_below_min_relevance"] == 0 and result["best_similarity_min"] >= 0.35
    # A floor above every question's best sentence refuses them all, and the report says so.
    out = io.StringIO()
    assert cli_eval_retrieval(*files, out=out, settings=AskSettings(min_relevance=0.99)) == 0
    assert "refused by the 0.99 relevance floor: 2" in out.getvalue()


@pytest.mark.model
def test_off_topic_documents_refuse_the_questions(files, tmp_path) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "other"
    other.mkdir()
    (other / "garden.md").write_text("Tomatoes need six hours of sun a day. Water basil in the morning.\n",
                                     encoding="utf-8")
    out = io.StringIO()
    assert cli_eval_retrieval(*files, as_json=True, out=out, off_topic_dir=str(other)) == 0
    off = json.loads(out.getvalue())["off_topic"]
    assert off["n"] == 2 and off["refused"] == 2 and off["best_similarity_max"] < 0.35
    assert cli_eval_retrieval(*files, out=io.StringIO(), off_topic_dir=str(tmp_path / "none")) == 2
