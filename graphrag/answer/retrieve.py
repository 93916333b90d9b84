"""Retrieval: question anchors, a relevance walk, filters, numbered context items.

Routes start at the entities the question names (``anchors.py``); when it names nothing the
graph knows, at the entities of the sentences most similar to the question, and the routes
say so. From there a best-first walk follows the relations and co-mentions whose sentences
are relevant to the question (``KnowledgeGraph.relevance_walk``). A sentence is ranked by its
own similarity to the question plus how strongly the walk reached an entity it names, and its
context item keeps the route the walk actually took to that entity.

Access and version filters are applied twice: while walking (invisible edges are not
followed, invisible entities are not anchors or seeds, invisible mentions give no candidates)
and again from the store, fresh, just before a span becomes a context item.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from graphrag.access.rule import Access
from graphrag.answer.anchors import find_anchors
from graphrag.answer.disagreement import find_disagreements
from graphrag.answer.graph import KnowledgeGraph, Walk
from graphrag.embed import Embedder, similarities
from graphrag.errors import InputError, ModelUnavailable
from graphrag.model import AskSettings, ContextItem, Route, RouteStart, Seed, seeding
from graphrag.store import Store

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2000


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


# Similarity seeds (the fallback): an entity's relevance blends its name's similarity to the
# question with the best similarity among the sentences that mention it, so an entity is found
# by what its sources say and not only by its name.
NAME_WEIGHT = 0.3
# Context ranking: a sentence's similarity to the question plus REACH_WEIGHT times the best walk
# score among the entities it names (an anchor named exactly scores its specificity, each step
# multiplies by the step sentence's similarity and the reached entity's specificity).
REACH_WEIGHT = 0.5
# Specificity (an inverse sentence frequency in [0, 1], see KnowledgeGraph.specificity) raised
# to this power weighs anchors and every entity a step reaches: "waterfall" or "country",
# named by dozens of sentences, must not outweigh "Bubye River", named by two.
SPECIFICITY_POWER = 2.0
# A step through a sentence unrelated to the question is worth little but not nothing: the
# sentence linking a film to its director need not resemble "Which country is ... from?".
MIN_STEP_WEIGHT = 0.05
REACH_SUM = 1.0
# Context order: each further sentence reached from one anchor counts this much less. Small: it
# decides near ties (every sentence naming a reached entity gets the same reach), rather than
# outweigh similarity. On MuSiQue (chosen there; 0.005 to 0.1 tried): all gold paragraphs found
# 0.56 -> 0.60, bridge paragraphs in the context 40 -> 43; 0.1 lowers recall.
SEED_SPREAD = 0.01
# A document's best sentence is placed ahead of better sentences of documents already drawn on
# only if it scores at least this share of the best row. On the handbook (16 documents, all
# among the candidates) "Failed payments are retried three times over ten days" (0.27) took a
# place ahead of "Larkspur notifies affected customers within 72 hours of confirming a security
# incident" (1.77) for "How quickly are customers told about a security incident?". On MuSiQue
# 0.2 changes nothing (0.3: recall 0.823 -> 0.811, 0.5: 0.806).
SPREAD_FLOOR = 0.2
# Context places kept for what the walk found beyond the question's own entities: the sentences
# reached through at least one step, ranked by how strongly the walk reached them (as
# personalised PageRank ranks passages), even when they share no words with the question:
# "Portland is ... in Dodge County" resembles "What county shares a border with the county
# where X is?" at 0.04. A quarter of the context: on MuSiQue (12 items; 0, 2, 3, 4 tried),
# bridge paragraphs in the context 43 -> 49 of 68, all gold paragraphs found 0.60 -> 0.65; 4
# pushes out more than it brings.
WALK_SHARE = 0.25
# A question that names the subject of a long document (an article's title entity, named in many of its
# sentences) gains little from the walk: every sentence of that document is one step from the anchor,
# so reach ranks the document's sentences by how many entities they name (an infobox, a table of
# election years) rather than by what they say. For such a question the walk's ranking and plain
# similarity are fused by reciprocal rank (k = 60, the usual constant), and only near-equal documents
# are spread. "Long" and "subject" are what a walk cannot tell apart below: a document of at least
# SUBJECT_MIN_SENTENCES sentences naming the entity in at least SUBJECT_SHARE of them. Multi-hop
# paragraphs (a few sentences each) never qualify, so bridge questions keep the walk's order.
SUBJECT_MIN_SENTENCES = 20
SUBJECT_SHARE = 0.03
FUSION_K = 60
FUSED_SPREAD_FLOOR = 0.9
# Rivals (``_add_rivals``): the three items most like the question are checked against the three
# sentences of other documents most like each of them, at least this similar (MiniLM cosine; "keeps
# nightly snapshots for 14 days" / "are kept for 35 days": 0.78).
RIVAL_SOURCES = 3
RIVAL_CANDIDATES = 3
RIVAL_SIMILARITY = 0.7


def entity_relevance(graph: KnowledgeGraph, qvec: np.ndarray, sentence_scores: np.ndarray) -> np.ndarray:
    """Each entity's relevance to the question: name similarity blended with its best mention's similarity."""
    return NAME_WEIGHT * similarities(graph.vectors, qvec) + (1 - NAME_WEIGHT) * graph.best_mention_scores(
        sentence_scores)


def find_seeds(graph: KnowledgeGraph, relevance: np.ndarray, k: int, visible_entities: np.ndarray) -> list[Seed]:
    """The ``k`` visible entities most relevant to the question, as similarity seeds (ties broken by key)."""
    masked = np.where(visible_entities, relevance, -np.inf)
    k = min(k, int(visible_entities.sum()))
    if k <= 0:
        return []
    # every entity tied with the k-th, then by key: the same seeds whatever order the entities are in
    top = np.flatnonzero(masked >= -np.partition(-masked, k - 1)[k - 1])
    ranked = sorted(top.tolist(), key=lambda i: (-float(masked[i]), graph.keys[i]))[:k]
    return [Seed(graph.keys[i], round(float(masked[i]), 4), RouteStart.SIMILARITY) for i in ranked]


def names_a_long_document_subject(graph: KnowledgeGraph, entities: Iterable[str], visible_docs: np.ndarray) -> bool:
    """Whether one of ``entities`` is the subject of a visible long document (``SUBJECT_MIN_SENTENCES``,
    named in ``SUBJECT_SHARE`` of its sentences)."""
    size = graph.doc_sentence_counts
    long_docs = (size >= SUBJECT_MIN_SENTENCES) & visible_docs
    if not long_docs.any():
        return False
    for key in entities:
        rows = graph.mention_rows(graph.index[key])
        named = np.bincount(graph.sentence_doc[rows], minlength=len(graph.docs))
        if (long_docs & (named >= SUBJECT_SHARE * size)).any():
            return True
    return False


def _fused(walk_order: np.ndarray, sentence_scores: np.ndarray, row_rank: np.ndarray, pool: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the walk's ranking and of similarity's, ranked by reciprocal rank fusion, with their
    fused scores (indexed by row)."""
    sims = np.flatnonzero(sentence_scores >= -np.partition(-sentence_scores, pool - 1)[pool - 1])
    sims = sims[np.lexsort((row_rank[sims], -sentence_scores[sims]))][:pool]
    fused: dict[int, float] = {}
    for ranking in (walk_order, sims):
        for r, row in enumerate(ranking.tolist()):
            fused[row] = fused.get(row, 0.0) + 1.0 / (FUSION_K + r)
    rows = np.array(sorted(fused, key=lambda row: (-fused[row], int(row_rank[row]))), dtype=np.int64)[:pool]
    score = np.full(len(sentence_scores), -np.inf, dtype=np.float32)
    score[rows] = [fused[int(r)] for r in rows]
    return rows, score


def _via(route: Route) -> str:
    return "co-mention" if route.steps[-1].comention else "relation"


def _walk_rows(graph: KnowledgeGraph, walk: Walk, visible_docs: np.ndarray, n_rows: int
               ) -> tuple[np.ndarray, dict[int, tuple[Route, str]]]:
    """Per sentence row, the best walk score among what reached it, and the route that did.

    A row is reached by mentioning a reached entity (its route ends at that entity, "mention")
    or by being the sentence of a route's last step ("relation" or "co-mention"). The highest
    score wins, then the shallower route, then the entity key.
    """
    reach = np.zeros(n_rows, dtype=np.float32)
    found: dict[int, tuple[Route, str]] = {}
    rank: dict[int, tuple[float, int, str]] = {}

    def offer(row: int, score: float, route: Route, via: str) -> None:
        r = (-score, route.depth, route.end)
        if row not in rank or r < rank[row]:
            rank[row] = r
            found[row] = (route, via)
            reach[row] = score

    total = np.zeros(n_rows, dtype=np.float32)
    for key, route in walk.routes.items():
        score = walk.scores[key]
        if route.steps:
            step = route.steps[-1]
            row = graph.row_of(step.document_id, step.version, step.sentence_index)
            if row is not None and visible_docs[graph.sentence_doc[row]]:
                offer(row, score, route, _via(route))
        m = graph.mention_rows(graph.index[key])
        m = m[visible_docs[graph.sentence_doc[m]]]
        np.add.at(total, m, score)
        for row in m.tolist():
            offer(row, score, route, "mention")
    if REACH_SUM:
        # A sentence naming several reached entities (the waterfall AND the country) is worth
        # their sum, as in personalised PageRank; its route stays the one to its best entity.
        return np.maximum(total, reach), found
    return reach, found


def _relevance_of(graph: KnowledgeGraph, qvec: np.ndarray, sentence_scores: np.ndarray,
                  entities: np.ndarray) -> np.ndarray:
    """``entity_relevance`` for a few entities only (computing it for all costs ~10 ms at 100k)."""
    best = np.array([float(sentence_scores[m].max()) if len(m := graph.mention_rows(int(e))) else -1.0
                     for e in entities.tolist()], dtype=np.float32)
    return NAME_WEIGHT * similarities(graph.vectors[entities], qvec) + (1 - NAME_WEIGHT) * best


def _similarity_route(graph: KnowledgeGraph, row: int, qvec: np.ndarray, sentence_scores: np.ndarray) -> Route:
    """A sentence found by similarity alone: its route starts and ends at the most relevant
    entity it mentions (or is empty when it mentions none), and says it came from similarity."""
    ents = graph.entities_in_row(row)
    if not len(ents):
        return Route("", (), RouteStart.SIMILARITY)
    rel = _relevance_of(graph, qvec, sentence_scores, ents)
    return Route(graph.keys[int(ents[np.argmax(rel)])], (), RouteStart.SIMILARITY)


def diverse(rows: np.ndarray, doc_of: np.ndarray, limit: int, score: np.ndarray | None = None,
            floor: float = 0.0) -> list[int]:
    """Rows (best first) reordered: the best sentence of each document first, then the next
    best, so a small context draws on more sources. With ``score``, a document's best sentence
    goes first only if it scores at least ``floor`` times the best row: in a small corpus every
    document is among the candidates, and its best may be unrelated to the question."""
    first: list[int] = []
    rest: list[int] = []
    seen: set[int] = set()
    bar = floor * float(score[rows[0]]) if score is not None and len(rows) else -np.inf
    for i in rows.tolist():
        d = int(doc_of[i])
        (rest if d in seen or (score is not None and float(score[i]) < bar) else first).append(i)
        seen.add(d)
    return (first + rest)[: limit]


def _spread_seeds(rows: np.ndarray, score: np.ndarray, reached: dict[int, tuple[Route, str]]) -> np.ndarray:
    """``rows`` (best first) reordered so that each further sentence reached from the same
    question entity counts SEED_SPREAD less (rows found by similarity alone count as one
    entity): a generic word of the question ("state", "Manchuria") cannot fill the context."""
    queues: dict[str, list[int]] = {}  # per seed, positions in ``rows``, best first
    for pos, r in enumerate(rows.tolist()):
        queues.setdefault(reached[r][0].seed if r in reached else "", []).append(pos)
    taken = dict.fromkeys(queues, 0)
    out: list[int] = []
    while len(out) < len(rows):
        # each seed's next row, less SEED_SPREAD per row of that seed already taken; a tie
        # goes to the row first in ``rows``
        k = max((k for k in queues if taken[k] < len(queues[k])),
                key=lambda k: (float(score[rows[queues[k][taken[k]]]]) - SEED_SPREAD * taken[k], -queues[k][taken[k]]))
        out.append(int(rows[queues[k][taken[k]]]))
        taken[k] += 1
    return np.array(out, dtype=np.int64)


def build_context(store: Store, graph: KnowledgeGraph, sentence_scores: np.ndarray, qvec: np.ndarray,
                  walk: Walk, visible_docs: np.ndarray, settings: AskSettings, fuse: bool = False
                  ) -> list[ContextItem]:
    """Pick the context sentences: similarity plus the walk's reach, spread across documents, each step's
    sentence joining right after the item it explains. With ``fuse`` (the question names a long document's
    subject) that ranking is fused with similarity's by reciprocal rank."""
    reach, reached = _walk_rows(graph, walk, visible_docs, len(sentence_scores))
    score = sentence_scores + REACH_WEIGHT * reach  # already -inf where invisible
    n_visible = int(np.isfinite(score).sum())
    pool = min(n_visible, settings.max_context * 8)
    if pool == 0:
        return []
    # The best rows, ties (the same sentence in two documents) in (document, version, index)
    # order, so a graph extended after an ingest ranks as one loaded whole.
    top = np.flatnonzero(score >= -np.partition(-score, pool - 1)[pool - 1])
    top = top[np.lexsort((graph.row_rank[top], -score[top]))][:pool]
    if SEED_SPREAD:
        top = _spread_seeds(top, score, reached)
    if fuse:
        top, fused = _fused(top, sentence_scores, graph.row_rank, pool)
        order = diverse(top, graph.sentence_doc, len(top), fused, FUSED_SPREAD_FLOOR)
    else:
        order = diverse(top, graph.sentence_doc, len(top), score, SPREAD_FLOOR)
    beyond = np.array([r for r, (route, _) in reached.items() if route.depth >= 1], dtype=np.int64)
    beyond = beyond[np.isfinite(score[beyond])]
    beyond = beyond[np.lexsort((graph.row_rank[beyond], -reach[beyond]))]
    # A chain is only readable when its links are in the context too: the sentence of each
    # step on a chosen item's route joins right after it (if visible and not yet chosen).
    items: list[ContextItem] = []
    seen_text: set[str] = set()
    tried: set[int] = set()  # each row is read from the store once, whichever pass offers it again
    viewer = Access.of(settings.access, settings.include_superseded)

    def add(row: int) -> bool:
        if row in tried:
            return False
        tried.add(row)
        doc = graph.docs[int(graph.sentence_doc[row])]
        # Second filter, from the store rather than the cached graph: the document must still
        # exist, still be visible to this asker, and (unless asked) not be superseded.
        fresh = store.access_of(doc.id, doc.version)
        if fresh is None or not viewer.sees(*fresh) or (settings.documents and doc.id not in settings.documents):
            return False
        span = store.span(doc.id, doc.version, int(graph.sentence_idx[row]))
        if span is None or span.text in seen_text:
            return False
        seen_text.add(span.text)
        route, via = reached.get(row) or (_similarity_route(graph, row, qvec, sentence_scores), "similarity")
        items.append(ContextItem(len(items) + 1, span, route, round(float(sentence_scores[row]), 4), via,
                                 fresh[1], doc.effective_date))
        return True

    def fill(rows: Iterable[int] | np.ndarray, cap: int) -> None:
        for row in rows:
            if len(items) >= cap:
                break
            if not add(int(row)):
                continue
            for step in items[-1].route.steps:
                if len(items) >= cap:
                    break
                link = graph.row_of(step.document_id, step.version, step.sentence_index)
                if link is not None and np.isfinite(sentence_scores[link]):
                    add(link)

    walk_slots = int(settings.max_context * WALK_SHARE)
    fill(order, settings.max_context - walk_slots)
    fill(beyond, settings.max_context)
    fill(order, settings.max_context)  # places the walk left empty
    _add_rivals(graph, items, sentence_scores, add)
    return items


def _add_rivals(graph: KnowledgeGraph, items: list[ContextItem], sentence_scores: np.ndarray,
                add: Callable[[int], bool]) -> None:
    """The other side of a disagreement joins the context: for the ``RIVAL_SOURCES`` items most like the
    question, the sentences of other documents most like that item (``RIVAL_SIMILARITY``) that state a
    different value about the same thing (``find_disagreements``). Retrieval ranks sentences by the
    question, and "Nightly snapshots are kept for 35 days" is far from "Does Larkspur keep backups?"
    while the FAQ's "keeps nightly snapshots for 14 days" is near: the answer must still say the sources
    disagree. Each rival passes ``add``'s access checks like any item."""
    for source in sorted(items, key=lambda c: (-c.score, c.n))[:RIVAL_SOURCES]:
        row = graph.row_of(source.span.document_id, source.span.version, source.span.sentence_index)
        if row is None:
            continue
        sims = similarities(graph.sentence_vectors, graph.sentence_vectors[row])
        near = np.flatnonzero((sims >= RIVAL_SIMILARITY) & np.isfinite(sentence_scores)
                              & (graph.sentence_doc != graph.sentence_doc[row]))
        for rival in near[np.lexsort((graph.row_rank[near], -sims[near]))][:RIVAL_CANDIDATES].tolist():
            if add(rival) and not find_disagreements([source, items[-1]]):
                items.pop()  # a near sentence that agrees: retrieval did not choose it


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
    # One similarity per sentence, invisible ones at -inf: shared by seeding, walk and context.
    sentence_scores = np.where(rows, similarities(graph.sentence_vectors, qvec), -np.inf).astype(np.float32)
    seeds = [a for a in anchors if a.entity in graph.index and visible_entities[graph.index[a.entity]]]
    spec = graph.specificity ** SPECIFICITY_POWER
    if seeds:
        start = RouteStart.QUESTION
        seed_scores = {s.entity: s.score * float(spec[graph.index[s.entity]]) for s in seeds}
    else:
        start = RouteStart.SIMILARITY
        seeds = find_seeds(graph, entity_relevance(graph, qvec, sentence_scores), settings.k, visible_entities)
        seed_scores = {s.entity: float(spec[graph.index[s.entity]]) for s in seeds}
    step_weight = np.clip(np.where(rows, sentence_scores, 0.0), MIN_STEP_WEIGHT, 1.0).astype(np.float32)
    step_weight[~rows] = 0.0
    walk = graph.relevance_walk((s.entity for s in seeds), settings.hops, settings.direction, visible_docs,
                                seed_scores=seed_scores, row_weight=step_weight, node_weight=spec, comention=True,
                                start=start)
    fuse = start is RouteStart.QUESTION and names_a_long_document_subject(graph, (s.entity for s in seeds),
                                                                          visible_docs)
    context = build_context(store, graph, sentence_scores, qvec, walk, visible_docs, settings, fuse)
    reached = tuple(sorted(walk.routes.values(), key=lambda r: (r.depth, r.end)))
    return Retrieval(tuple(seeds), reached, tuple(context))
