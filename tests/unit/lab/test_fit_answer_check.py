"""The answer check's training pairs: the sentence holding the answer against its question, and beside it the two
negatives that teach what similarity cannot (a sentence of the same paragraph without the answer, and one of the
same article about the same words), SQuAD's questions written to look answerable held against the sentence of
their plausible answer; the abstention fit's dev articles never train it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from graphrag.answer.reader.features import ReaderFeatures
from lab.fit_abstain import _with_check
from lab.fit_answer_check import held_out, nq_pairs, squad_pairs

pytestmark = pytest.mark.unit

EVIDENCE = ("The Larkspur Bridge opened in 1911. It spans the Aster river. Its towers are painted green.")
OTHER = "The Aster river floods each spring. The bridge was closed for repairs in 1990."


def _nq(tmp_path: Path, title: str) -> Path:
    rows = [{"document": title, "question": "when did the larkspur bridge open", "short_answer": "1911",
             "evidence": EVIDENCE},
            {"document": title, "question": "what river floods each spring", "short_answer": "Aster river",
             "evidence": OTHER}]
    path = tmp_path / "nq_train.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_an_nq_question_gets_its_answer_sentence_a_near_miss_and_a_same_topic_negative(tmp_path: Path) -> None:
    title = next(t for t in (f"Larkspur Bridge {i}" for i in range(50)) if not held_out(t))
    pairs = [p for p in nq_pairs(_nq(tmp_path, title), random.Random(1)) if p.question.startswith("when")]
    positive = [p for p in pairs if p.label == 1]
    negatives = [p for p in pairs if p.label == 0]
    assert [p.sentence for p in positive] == ["The Larkspur Bridge opened in 1911."]
    assert len(negatives) == 2 and all("1911" not in p.sentence for p in negatives)
    assert any(p.sentence in EVIDENCE for p in negatives)  # the near miss: same paragraph, no answer
    assert any(p.sentence in OTHER for p in negatives)  # the same topic: another paragraph of the article
    assert not any(p.dev for p in pairs)


def test_the_abstention_fits_dev_articles_are_held_out(tmp_path: Path) -> None:
    title = next(t for t in (f"Larkspur Bridge {i}" for i in range(50)) if held_out(t))
    assert all(p.dev for p in nq_pairs(_nq(tmp_path, title), random.Random(1)))


def test_a_question_written_to_look_answerable_is_a_negative_against_its_plausible_answer(tmp_path: Path) -> None:
    context = "The bridge opened in 1911. It was painted green in 1950."
    qas = [{"question": "When did the bridge open?", "is_impossible": False,
            "answers": [{"text": "1911", "answer_start": context.index("1911")}]},
           {"question": "When did the bridge close?", "is_impossible": True, "answers": [],
            "plausible_answers": [{"text": "1950", "answer_start": context.index("1950")}]}]
    data = {"data": [{"title": "Bridge", "paragraphs": [{"context": context, "qas": qas}]},
                     {"title": "Kept_out", "paragraphs": [{"context": context, "qas": qas}]}]}
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    pairs = squad_pairs(path, random.Random(1))
    near = [p for p in pairs if p.source == "squad_near_miss" and not p.dev]
    assert [(p.sentence, p.label) for p in near] == [("It was painted green in 1950.", 0)]
    assert any(p.label == 1 and p.sentence == "The bridge opened in 1911." for p in pairs)
    assert {p.title for p in pairs if p.dev} == {"Kept out"}  # the abstention panel's article


class _Check:
    name = "scripted"

    def score(self, question: str, texts: list[str]) -> np.ndarray:
        return np.array([0.8 if "1911" in t else 0.1 for t in texts])


def test_rows_read_before_the_check_gain_its_feature_from_the_sentences_kept_with_them() -> None:
    names = list(ReaderFeatures.names())
    row = {"question": "when did it open", "features": [0.0] * len(names), "read": True,
           "check_texts": ["Bridge. It opened in 1911.", "Bridge. It is green."]}
    got = _with_check({"names": names, "rows": [row]}, _Check())  # type: ignore[arg-type]
    assert got["rows"][0]["features"][names.index("check_top")] == pytest.approx(0.8)
    untouched = {"names": names, "rows": [dict(row, features=[0.0] * len(names))]}
    assert _with_check(untouched, None)["rows"][0]["features"][names.index("check_top")] == 0.0
