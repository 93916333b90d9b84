"""Rivals: the other side of a disagreement joins the context even when the question does not resemble it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.model import ContextItem
from graphrag.verify.disagreement import find_disagreements

# The three items most like the question are checked against the three sentences of other documents most like
# each of them, at least this similar (MiniLM cosine; "keeps nightly snapshots for 14 days" / "are kept for 35
# days": 0.78).
RIVAL_SOURCES = 3
RIVAL_CANDIDATES = 3
RIVAL_SIMILARITY = 0.7


def add_rivals(graph: KnowledgeGraph, items: list[ContextItem], sentence_scores: np.ndarray,
               add: Callable[[int], bool], similar_to_row: Callable[[int], np.ndarray]) -> None:
    """The other side of a disagreement joins the context: for the ``RIVAL_SOURCES`` items most like the
    question, the sentences of other documents most like that item (``RIVAL_SIMILARITY``) that state a
    different value about the same thing (``find_disagreements``). Retrieval ranks sentences by the
    question, and "Nightly snapshots are kept for 35 days" is far from "Does Larkspur keep backups?"
    while the FAQ's "keeps nightly snapshots for 14 days" is near: the answer must still say the sources
    disagree. Each rival passes ``add``'s access checks like any item. ``similar_to_row``: each row's
    similarity to a given row (``scores.QuestionScores.similar_to_row``: the graph's scan, or the nearest rows
    by the index on a large graph)."""
    for source in sorted(items, key=lambda c: (-c.score, c.n))[:RIVAL_SOURCES]:
        row = graph.row_of(source.span.document_id, source.span.version, source.span.sentence_index)
        if row is None:
            continue
        sims = similar_to_row(row)
        near = np.flatnonzero((sims >= RIVAL_SIMILARITY) & np.isfinite(sentence_scores)
                              & (graph.row_documents != graph.documents_of(row)))
        for rival in near[np.lexsort((graph.row_rank[near], -sims[near]))][:RIVAL_CANDIDATES].tolist():
            if add(rival) and not find_disagreements([source, items[-1]]):
                items.pop()  # a near sentence that agrees: retrieval did not choose it
