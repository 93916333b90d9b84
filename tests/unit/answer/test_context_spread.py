"""The context spreads over the question's entities: one generic word cannot fill it."""

from __future__ import annotations

import numpy as np
import pytest

from graphrag.answer.retrieval.context import SEED_SPREAD, spread_seeds
from graphrag.model import Route

pytestmark = pytest.mark.unit


def test_a_near_tie_goes_to_the_entity_with_fewer_sentences_taken() -> None:
    # rows 0-2 reached from "state" (a word every question about places has), row 3 from
    # "bubye river"; row 4 was found by similarity alone
    reached = {r: Route("state") for r in (0, 1, 2)} | {3: Route("bubye river")}

    def seed_of(row: int) -> str:
        return reached[row].seed if row in reached else ""

    score = np.array([0.500, 0.499, 0.498, 0.495, 0.2], dtype=np.float32)
    rows = np.array([0, 1, 2, 3, 4])
    assert SEED_SPREAD > 0
    assert spread_seeds(rows, score, seed_of).tolist() == [0, 3, 1, 2, 4]
    # a clearly better sentence still comes first, whatever entity it came from
    score[3] = 0.3
    assert spread_seeds(rows, score, seed_of).tolist() == [0, 1, 2, 3, 4]


def test_a_document_best_sentence_far_below_the_best_row_does_not_jump_ahead() -> None:
    """Rows best first: two of the handbook (docs 0), then each other document's best. Without a
    score every document's best goes first; with one, only those within SPREAD_FLOOR of the best."""
    from graphrag.answer.retrieval.context import SPREAD_FLOOR, diverse

    rows = np.array([0, 1, 2, 3])
    doc_of = np.array([0, 0, 1, 2])
    score = np.array([2.0, 1.8, 0.5, 0.3], dtype=np.float32)
    assert diverse(rows, doc_of, 4) == [0, 2, 3, 1]
    assert 0.3 < SPREAD_FLOOR * 2.0 <= 0.5
    assert diverse(rows, doc_of, 4, score, SPREAD_FLOOR) == [0, 2, 1, 3]
