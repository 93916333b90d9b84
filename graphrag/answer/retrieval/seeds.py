"""Where routes start when the question names no entity the graph knows: the entities most relevant to the
question, by their names and by what their sentences say."""

from __future__ import annotations

import numpy as np

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.model import Route, RouteStart, Seed

# Similarity seeds (the fallback): an entity's relevance blends its name's similarity to the
# question with the best similarity among the sentences that mention it, so an entity is found
# by what its sources say and not only by its name.
NAME_WEIGHT = 0.3


def entity_relevance(graph: KnowledgeGraph, qvec: np.ndarray, sentence_scores: np.ndarray) -> np.ndarray:
    """Each entity's relevance to the question: name similarity blended with its best mention's similarity."""
    return NAME_WEIGHT * graph.name_similarities(qvec) + (1 - NAME_WEIGHT) * graph.best_mention_scores(
        sentence_scores)


def relevance_of(graph: KnowledgeGraph, qvec: np.ndarray, sentence_scores: np.ndarray,
                 entities: np.ndarray) -> np.ndarray:
    """``entity_relevance`` for a few entities only (computing it for all costs ~10 ms at 100k)."""
    best = np.array([float(sentence_scores[m].max()) if len(m := graph.mention_rows(int(e))) else -1.0
                     for e in entities.tolist()], dtype=np.float32)
    return NAME_WEIGHT * graph.name_similarities(qvec, entities) + (1 - NAME_WEIGHT) * best


def find_seeds(graph: KnowledgeGraph, relevance: np.ndarray, k: int, visible_entities: np.ndarray) -> list[Seed]:
    """The ``k`` visible entities most relevant to the question, as similarity seeds (ties broken by key)."""
    masked = np.where(visible_entities, relevance, -np.inf)
    k = min(k, int(visible_entities.sum()))
    if k <= 0:
        return []
    # every entity tied with the k-th, then by key: the same seeds whatever order the entities are in
    top = np.flatnonzero(masked >= -np.partition(-masked, k - 1)[k - 1])
    ranked = sorted(top.tolist(), key=lambda i: (-float(masked[i]), graph.entity_key(i)))[:k]
    return [Seed(graph.entity_key(i), round(float(masked[i]), 4), RouteStart.SIMILARITY) for i in ranked]


def similarity_route(graph: KnowledgeGraph, row: int, qvec: np.ndarray, sentence_scores: np.ndarray) -> Route:
    """A sentence found by similarity alone: its route starts and ends at the most relevant
    entity it mentions (or is empty when it mentions none), and says it came from similarity."""
    ents = graph.entities_in_row(row)
    if not len(ents):
        return Route("", (), RouteStart.SIMILARITY)
    rel = relevance_of(graph, qvec, sentence_scores, ents)
    return Route(graph.entity_key(int(ents[np.argmax(rel)])), (), RouteStart.SIMILARITY)
