"""One question's similarity to the sentence rows (``scores``: -inf where the asker may not see a row) and the
walk's weight of a step through each row (``step_weight``), computed exactly for every row of a graph without an
index (below ``index.EXACT_BELOW`` rows, as retrieval always has), and for an indexed graph exactly but only
for the rows retrieval reads: the ``CANDIDATES`` visible rows nearest the question at once, every other row when
the walk, the reach, an entity's relevance or a rival reads it (``prepare``). Rows never read stay -inf (and
weigh 0), so a row is ranked only once its real similarity is known.
"""

from __future__ import annotations

import numpy as np

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.index import nearest
from graphrag.answer.retrieval.seeds import entity_relevance, relevance_of
from graphrag.language.embed import similarities

# A step through a sentence unrelated to the question is worth little but not nothing: the
# sentence linking a film to its director need not resemble "Which country is ... from?".
MIN_STEP_WEIGHT = 0.05
# Rows nearest the question scored at once on an indexed graph: the context ranks a pool of 8 per context place
# (96 for 12) by similarity plus reach, and the walk's similarity seeds come from the entities these rows name; a
# few hundred leave room for rows the access filter of the second pass drops and for near ties.
CANDIDATES = 300
# Entity names nearest the question (similarity seeds) and nearest each unmatched phrase (anchors) on an indexed
# graph: seeds take the best ``k`` (a handful), an anchor only the best name and its ties.
NAME_CANDIDATES = 100
# Sentences nearest a context item looked at for the other side of a disagreement (rivals.py keeps 3 of other
# documents at least 0.7 similar: near copies in the item's own document must not crowd them out).
RIVAL_NEIGHBOURS = 32


class QuestionScores:
    """``scores`` and ``step_weight`` over a graph's rows for one question and asker (``visible``: a boolean
    array over rows)."""

    def __init__(self, graph: KnowledgeGraph, qvec: np.ndarray, visible: np.ndarray) -> None:
        self.graph, self.qvec, self.visible = graph, qvec, visible
        searcher = graph.indexes.searcher("sentences") if graph.indexes is not None else None
        self.indexed = searcher is not None
        if searcher is None:  # every row at once
            self.scores = np.where(visible, graph.sentence_similarities(qvec), -np.inf).astype(np.float32)
            step_weight = np.clip(np.where(visible, self.scores, 0.0), MIN_STEP_WEIGHT, 1.0).astype(np.float32)
            step_weight[~visible] = 0.0
            self.step_weight = step_weight
            self.done = np.ones(graph.n_sentences, dtype=bool)
            self.candidates = np.zeros(0, dtype=np.int64)
            self.farthest = -np.inf  # every row is scored
            return
        n = graph.n_sentences
        self.scores = np.full(n, -np.inf, dtype=np.float32)
        self.step_weight = np.zeros(n, dtype=np.float32)
        self.done = np.zeros(n, dtype=bool)
        self.candidates, sims = nearest(graph.sentence_vectors, qvec, CANDIDATES, n, visible, searcher)
        self._fill(self.candidates, sims)
        # the most an unscored visible row can resemble the question (none is left when fewer came back)
        self.farthest = float(sims.min()) if len(sims) >= CANDIDATES else -np.inf

    def _fill(self, rows: np.ndarray, sims: np.ndarray) -> None:
        self.scores[rows] = sims
        self.step_weight[rows] = np.clip(sims, MIN_STEP_WEIGHT, 1.0)

    def prepare(self, rows: np.ndarray) -> None:
        """Score ``rows`` (those not scored yet) exactly: the walk's hook before it reads their weights."""
        if not self.indexed or not len(rows):
            return
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[~self.done[rows]]
        self.done[rows] = True
        rows = rows[self.visible[rows]]
        if len(rows):
            self._fill(rows, similarities(self.graph.sentence_vectors[rows], self.qvec))

    def prepare_mentions(self, entities: np.ndarray) -> None:
        """Score every row naming one of ``entities`` (an entity's relevance reads its best mention)."""
        if self.indexed and len(entities):
            self.prepare(np.concatenate([self.graph.mention_rows(int(e)) for e in entities.tolist()]))

    def entity_relevance(self, visible_entities: np.ndarray) -> np.ndarray:
        """``seeds.entity_relevance`` per entity; on an indexed graph only for the entities whose names are
        nearest the question or that the candidate rows name (-inf for the others)."""
        graph = self.graph
        if not self.indexed:
            return entity_relevance(graph, self.qvec, self.scores)
        named = [graph.entities_in_row(int(r)) for r in self.candidates.tolist()]
        by_name, _ = nearest_names(graph, self.qvec, NAME_CANDIDATES, visible_entities)
        entities = np.unique(np.concatenate([by_name, *named]).astype(np.int64))
        self.prepare_mentions(entities)
        out = np.full(len(graph.keys), -np.inf, dtype=np.float32)
        if len(entities):
            out[entities] = relevance_of(graph, self.qvec, self.scores, entities)
        return out

    def similar_to_row(self, row: int) -> np.ndarray:
        """Every row's cosine similarity to the sentence at ``row``; on an indexed graph only for its
        ``RIVAL_NEIGHBOURS`` nearest visible rows, each then scored against the question too (-inf elsewhere)."""
        graph = self.graph
        if not self.indexed:
            return graph.similar_to_row(row)
        rows, sims = nearest(graph.sentence_vectors, graph.sentence_vectors[row], RIVAL_NEIGHBOURS,
                             graph.n_sentences, self.visible,
                             graph.indexes.searcher("sentences") if graph.indexes is not None else None)
        self.prepare(rows)
        out = np.full(graph.n_sentences, -np.inf, dtype=np.float32)
        out[rows] = sims
        return out


def nearest_names(graph: KnowledgeGraph, vec: np.ndarray, k: int,
                  visible_entities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` visible entities whose names are nearest ``vec``, with their exact similarities (by the
    entity index when the graph has one, else by a scan of every name)."""
    searcher = graph.indexes.searcher("entities") if graph.indexes is not None else None
    return nearest(graph.vectors, vec, k, len(graph.keys), visible_entities, searcher)


def names_like(graph: KnowledgeGraph, vecs: np.ndarray, visible_entities: np.ndarray) -> np.ndarray:
    """Per vector of ``vecs``, each visible entity name's cosine similarity to it (phrases x entities, -inf for
    invisible entities); with an entity index, only the ``NAME_CANDIDATES`` nearest names have one."""
    searcher = graph.indexes.searcher("entities") if graph.indexes is not None else None
    if searcher is None:
        sims = graph.names_like(vecs)
        sims[:, ~visible_entities] = -np.inf
        return sims
    out = np.full((len(vecs), len(graph.keys)), -np.inf, dtype=np.float32)
    for i, vec in enumerate(vecs):
        rows, sims = nearest(graph.vectors, vec, NAME_CANDIDATES, len(graph.keys), visible_entities, searcher)
        out[i, rows] = sims
    return out
