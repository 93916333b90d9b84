"""Retrieval: question anchors, a relevance walk, numbered context items.

Routes start at the entities the question names (``anchors``); when it names nothing the
graph knows, at the entities of the sentences most similar to the question (``seeds``), and the
routes say so. From there a best-first walk follows the relations and co-mentions whose sentences
are relevant to the question (``walk``). A sentence is ranked by its own similarity to the question
plus how strongly the walk reached an entity it names, and its context item keeps the route the walk
actually took to that entity (``context``).

Access and version filters are applied twice: while walking (invisible edges are not
followed, invisible entities are not anchors or seeds, invisible mentions give no candidates)
and again from the store, fresh, just before a span becomes a context item.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from graphrag.answer.retrieval import walk
from graphrag.answer.retrieval.anchors import find_anchors
from graphrag.answer.retrieval.context import build_context
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.scores import QuestionScores
from graphrag.answer.retrieval.seeds import find_seeds
from graphrag.errors import InputError, ModelUnavailable
from graphrag.language.encoding import Embedder
from graphrag.model import AskSettings, ContextItem, Route, RouteStart, Seed, seeding
from graphrag.store import Store

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2000
# Specificity (an inverse sentence frequency in [0, 1], see KnowledgeGraph.specificity) raised
# to this power weighs anchors and every entity a step reaches: "waterfall" or "country",
# named by dozens of sentences, must not outweigh "Bubye River", named by two.
SPECIFICITY_POWER = 2.0
# A question that names the subject of a long document (an article's title entity, named in many of its
# sentences) gains little from the walk: every sentence of that document is one step from the anchor,
# so reach ranks the document's sentences by how many entities they name (an infobox, a table of
# election years) rather than by what they say. For such a question the walk's ranking and plain
# similarity are fused by reciprocal rank (``context.fused``), and only near-equal documents
# are spread. "Long" and "subject" are what a walk cannot tell apart below: a document of at least
# SUBJECT_MIN_SENTENCES sentences naming the entity in at least SUBJECT_SHARE of them. Multi-hop
# paragraphs (a few sentences each) never qualify, so bridge questions keep the walk's order.
SUBJECT_MIN_SENTENCES = 20
SUBJECT_SHARE = 0.03


@dataclass(frozen=True)
class Retrieval:
    """What retrieval found: the seeds, the route to every reached entity, and the context sentences."""

    seeds: tuple[Seed, ...]  # the anchors, or the similarity seeds when the question named nothing known
    reached: tuple[Route, ...]  # every reached entity's route, by depth then key
    context: tuple[ContextItem, ...]

    @property
    def seeding(self) -> RouteStart:
        """How the routes started: at entities the question names, or from similarity."""
        return seeding(self.seeds)


def clean_question(question: str) -> str:
    """The question with whitespace collapsed and cut at MAX_QUESTION_CHARS; an empty one is an InputError."""
    q = " ".join(question.split())
    if not q:
        raise InputError("the question is empty: type a question")
    # A very long question is cut, not refused: the embedder reads only the first ~256 tokens anyway.
    return q[:MAX_QUESTION_CHARS]


def names_a_long_document_subject(graph: KnowledgeGraph, entities: Iterable[str], visible_docs: np.ndarray) -> bool:
    """Whether one of ``entities`` is the subject of a visible long document (``SUBJECT_MIN_SENTENCES``,
    named in ``SUBJECT_SHARE`` of its sentences)."""
    size = graph.doc_sentence_counts
    long_docs = (size >= SUBJECT_MIN_SENTENCES) & visible_docs
    if not long_docs.any():
        return False
    for key in entities:
        named = graph.mentions_per_document(graph.entity_index(key))
        if (long_docs & (named >= SUBJECT_SHARE * size)).any():
            return True
    return False


def retrieve(store: Store, graph: KnowledgeGraph, embedder: Embedder, question: str,
             settings: AskSettings) -> Retrieval:
    """Embed the question, find the entities it names (if spaCy is available) and retrieve from them."""
    question = clean_question(question)
    qvec = embedder.encode([question])[0]
    _, visible_entities = graph.visibility(settings.access, settings.include_superseded, settings.documents)
    try:
        anchors = find_anchors(graph, question, visible_entities, embedder)
    except ModelUnavailable as exc:  # no spaCy pipeline: routes start from similarity, and say so
        log.warning("question anchors unavailable (%s); starting from similarity", exc)
        anchors = []
    return retrieve_vector(store, graph, qvec, settings, anchors)


def retrieve_vector(store: Store, graph: KnowledgeGraph, qvec: np.ndarray, settings: AskSettings,
                    anchors: Sequence[Seed] = ()) -> Retrieval:
    """Retrieval for an embedded question. ``anchors`` are the entities the question names
    (``find_anchors``); without a visible one, routes start from similarity seeds instead."""
    if settings.k < 1 or settings.hops < 0 or settings.max_context < 1:
        raise InputError("k and the context cap must be at least 1, hops at least 0")
    visible_docs, visible_entities = graph.visibility(settings.access, settings.include_superseded, settings.documents)
    rows = graph.visible_rows(settings.access, settings.include_superseded, settings.documents)
    # One similarity per sentence, invisible ones at -inf: shared by seeding, walk and context (on an indexed
    # graph, filled as they are read: scores.py).
    scored = QuestionScores(graph, qvec, rows)
    seeds = [a for a in anchors if graph.knows(a.entity) and visible_entities[graph.entity_index(a.entity)]]
    spec = graph.specificity ** SPECIFICITY_POWER
    if seeds:
        start = RouteStart.QUESTION
        seed_scores = {s.entity: s.score * float(spec[graph.entity_index(s.entity)]) for s in seeds}
    else:
        start = RouteStart.SIMILARITY
        seeds = find_seeds(graph, scored.entity_relevance(visible_entities), settings.k, visible_entities)
        seed_scores = {s.entity: float(spec[graph.entity_index(s.entity)]) for s in seeds}
    walked = walk.relevance_walk(graph, (s.entity for s in seeds), settings.hops, settings.direction, visible_docs,
                                 seed_scores=seed_scores, row_weight=scored.step_weight, node_weight=spec,
                                 comention=True, start=start, prepare_rows=scored.prepare if scored.indexed else None)
    fuse = start is RouteStart.QUESTION and names_a_long_document_subject(graph, (s.entity for s in seeds),
                                                                          visible_docs)
    reach = walk.reach(graph, walked, visible_docs)
    context = build_context(store, graph, scored, reach, settings, fuse)
    reached = tuple(sorted(walked.routes.values(), key=lambda r: (r.depth, r.end)))
    return Retrieval(tuple(seeds), reached, tuple(context))
