"""A scripted answer scorer and abstention models for the reader: the stage's wiring is tested without weights."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphrag.answer.reader.abstain import AbstainModel
from graphrag.answer.reader.scorer import Passage


class ScriptedScorer:
    """Scores 1.0 for a sentence holding ``answers`` (a phrase), 0.0 otherwise; records what it was asked."""

    name = "scripted-scorer"

    def __init__(self, answers: str) -> None:
        self.answers = answers.lower()
        self.asked: list[tuple[str, list[Passage]]] = []

    def score(self, question: str, passages: Sequence[Passage]) -> np.ndarray:
        self.asked.append((question, list(passages)))
        return np.array([1.0 if self.answers in p.sentence.lower() else 0.0 for p in passages])


def always(answers: bool) -> AbstainModel:
    """An abstention model that answers every question (True) or none (False)."""
    return AbstainModel(("top_similarity",), (0.0,), 10.0 if answers else -10.0, 0.5)
