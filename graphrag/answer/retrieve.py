"""The old place of retrieval, now ``graphrag.answer.retrieval`` (``retrieve``, ``context``, ``seeds``,
``rivals``). Kept only for the tests that import it by this path; new code imports
``graphrag.answer.retrieval``."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from graphrag.answer.retrieval.context import SEED_SPREAD, SPREAD_FLOOR, WALK_SHARE, diverse, spread_seeds
from graphrag.answer.retrieval.retrieve import SUBJECT_MIN_SENTENCES, names_a_long_document_subject, retrieve
from graphrag.model import Route

__all__ = ["SEED_SPREAD", "SPREAD_FLOOR", "SUBJECT_MIN_SENTENCES", "WALK_SHARE", "_spread_seeds", "diverse",
           "names_a_long_document_subject", "retrieve"]


def _spread_seeds(rows: np.ndarray, score: np.ndarray, reached: Mapping[int, tuple[Route, str]]) -> np.ndarray:
    """``context.spread_seeds`` with the walk's rows as the old (route, via) mapping."""
    return spread_seeds(rows, score, lambda r: reached[r][0].seed if r in reached else "")
