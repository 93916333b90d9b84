"""A scripted answer scorer and abstention models for the reader: the stage's wiring is tested without weights."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphrag.answer.reader.abstain import AbstainModel
from graphrag.answer.reader.scorer import Passage
from graphrag.answer.reader.span import Candidate, SpanReading


class ScriptedScorer:
    """Scores 1.0 for a sentence holding ``answers`` (a phrase), 0.0 otherwise; records what it was asked."""

    name = "scripted-scorer"

    def __init__(self, answers: str) -> None:
        self.answers = answers.lower()
        self.asked: list[tuple[str, list[Passage]]] = []

    def score(self, question: str, passages: Sequence[Passage]) -> np.ndarray:
        self.asked.append((question, list(passages)))
        return np.array([1.0 if self.answers in p.sentence.lower() else 0.0 for p in passages])


class ScriptedCheck:
    """The answer check's double: ``p`` for a text holding ``answers``, 0.05 otherwise; records what it read."""

    name = "scripted-check"

    def __init__(self, answers: str, p: float = 0.9) -> None:
        self.answers, self.p = answers.lower(), p
        self.read: list[tuple[str, list[str]]] = []

    def score(self, question: str, texts: Sequence[str]) -> np.ndarray:
        self.read.append((question, list(texts)))
        return np.array([self.p if self.answers in t.lower() else 0.05 for t in texts])


class ScriptedSpan:
    """The span reader's double: probability ``p`` and the phrase as its span for a sentence holding ``answers`` (taken
    to state the answer when ``p`` reaches 0.5), 0.05 and no span otherwise; records the candidates it read."""

    name = "scripted-span"

    def __init__(self, answers: str, p: float = 0.95) -> None:
        self.answers, self.p = answers.lower(), p
        self.read_: list[tuple[str, list[Candidate]]] = []

    def read(self, question: str, candidates: Sequence[Candidate]) -> list[SpanReading]:
        self.read_.append((question, list(candidates)))
        out = []
        for c in candidates:
            at = c.sentence.lower().find(self.answers)
            out.append(SpanReading(2.0, self.p, c.sentence[at:at + len(self.answers)], at, at + len(self.answers),
                                   self.p >= 0.5) if at >= 0 else SpanReading(-2.0, 0.05, "", 0, 0))
        return out


def always(answers: bool) -> AbstainModel:
    """An abstention model that answers every question (True) or none (False)."""
    return AbstainModel(("top_similarity",), (0.0,), 10.0 if answers else -10.0, 0.5)


class ScriptedPassages:
    """The second view's double: a passage holding ``answers`` is close to every question, any other far from it;
    records every passage text it encoded."""

    name = "scripted-passages"
    dim = 4

    def __init__(self, answers: str) -> None:
        self.answers = answers.lower()
        self.encoded: list[str] = []

    def query(self, text: str) -> np.ndarray:
        return np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        self.encoded.extend(texts)
        return np.array([[1.0, 0.0, 0.0, 0.0] if self.answers in t.lower() else [0.0, 1.0, 0.0, 0.0]
                         for t in texts], dtype=np.float32).reshape(len(texts), self.dim)


class StoredScriptedScorer(ScriptedPassages):
    """A scorer that reads "title. sentence" alone, so its passage vectors are kept: 0.9 for a passage holding
    ``answers``, 0.1 otherwise; ``score`` (encoding passages with the question) records that it was called."""

    name = "stored-scripted-scorer"
    stores_passages = True

    def __init__(self, answers: str) -> None:
        super().__init__(answers)
        self.scored = 0

    def calibrated(self, cosines: np.ndarray) -> np.ndarray:
        return np.where(np.asarray(cosines) > 0.5, 0.9, 0.1)

    def score(self, question: str, passages: Sequence[Passage]) -> np.ndarray:
        self.scored += 1
        return np.array([0.9 if self.answers in p.sentence.lower() else 0.1 for p in passages])
