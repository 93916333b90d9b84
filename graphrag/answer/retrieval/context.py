"""The context: the sentences an answer may quote, ranked by similarity to the question plus the walk's reach,
spread across documents and seeds, each step's sentence joining right after the item it explains.

Access and version filters were applied while walking; here they are applied again from the store, fresh, just
before a span becomes a context item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from graphrag.access.rule import Access
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import Reach
from graphrag.answer.retrieval.rivals import add_rivals
from graphrag.answer.retrieval.scores import QuestionScores
from graphrag.answer.retrieval.seeds import similarity_route
from graphrag.model import AskSettings, ContextItem
from graphrag.store import Store

# Context ranking: a sentence's similarity to the question plus REACH_WEIGHT times the best walk
# score among the entities it names (an anchor named exactly scores its specificity, each step
# multiplies by the step sentence's similarity and the reached entity's specificity).
REACH_WEIGHT = 0.5
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
# Reciprocal rank fusion of the walk's ranking and similarity's (``retrieve.SUBJECT_MIN_SENTENCES`` says when):
# k = 60, the usual constant; only near-equal documents are spread.
FUSION_K = 60
# On an indexed graph, the rows reached beyond the question's entities scored for the walk's places: this many per
# place (a row may still be refused: hidden by a fresher label, or the same text as an item already taken).
BEYOND_SCORED = 8
FUSED_SPREAD_FLOOR = 0.9


def fused(walk_order: np.ndarray, sentence_scores: np.ndarray, row_rank: np.ndarray, pool: int
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


def spread_seeds(rows: np.ndarray, score: np.ndarray, seed_of: Callable[[int], str]) -> np.ndarray:
    """``rows`` (best first) reordered so that each further sentence reached from the same
    question entity (``seed_of`` a row: ``Reach.seed_of``) counts SEED_SPREAD less (rows found by
    similarity alone count as one entity, ""): a generic word of the question ("state",
    "Manchuria") cannot fill the context."""
    queues: dict[str, list[int]] = {}  # per seed, positions in ``rows``, best first
    for pos, r in enumerate(rows.tolist()):
        queues.setdefault(seed_of(r), []).append(pos)
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


def score_what_may_rank(scored: QuestionScores, graph: KnowledgeGraph, reach: Reach, pool: int, beyond: int) -> None:
    """On an indexed graph, score exactly the reached rows the context may take: those that could enter the
    ranked pool, and the most strongly reached rows beyond the question's entities (their places are ranked by
    reach alone, see ``WALK_SHARE``).

    A row the index did not return resembles the question at most as much as the farthest candidate it did, so
    it can enter the pool only if that similarity plus its reach beats the pool's last row among those scored
    already. A hub reached at depth 2 is named by thousands of sentences with a reach near 0: scoring them all cost
    60 ms a question at 1M rows, and none could rank."""
    rows = reach.reached_rows()
    pending = rows[~scored.done[rows]]
    if not len(pending):
        return
    known = np.flatnonzero(np.isfinite(scored.scores))
    ranked = scored.scores[known] + REACH_WEIGHT * reach.strength[known]
    bar = -np.partition(-ranked, pool - 1)[pool - 1] if len(ranked) >= pool else -np.inf
    may_pool = pending[scored.farthest + REACH_WEIGHT * reach.strength[pending] >= bar]
    stepped = reach.beyond()
    stepped = stepped[np.lexsort((graph.row_rank[stepped], -reach.strength[stepped]))][:BEYOND_SCORED * beyond]
    scored.prepare(np.concatenate([may_pool, stepped]))


def build_context(store: Store, graph: KnowledgeGraph, scored: QuestionScores, reach: Reach, settings: AskSettings,
                  fuse: bool = False) -> list[ContextItem]:
    """Pick the context sentences: similarity (``scored``: the question's, filled as rows are read on an
    indexed graph) plus the walk's reach, spread across documents, each step's sentence joining right after
    the item it explains. With ``fuse`` (the question names a long document's subject) that ranking is fused
    with similarity's by reciprocal rank."""
    sentence_scores, qvec = scored.scores, scored.qvec
    if scored.indexed:
        score_what_may_rank(scored, graph, reach, settings.max_context * 8, int(settings.max_context * WALK_SHARE))
    score = sentence_scores + REACH_WEIGHT * reach.strength  # already -inf where invisible
    n_visible = int(np.isfinite(score).sum())
    pool = min(n_visible, settings.max_context * 8)
    if pool == 0:
        return []
    # The best rows, ties (the same sentence in two documents) in (document, version, index)
    # order, so a graph extended after an ingest ranks as one loaded whole.
    top = np.flatnonzero(score >= -np.partition(-score, pool - 1)[pool - 1])
    top = top[np.lexsort((graph.row_rank[top], -score[top]))][:pool]
    if SEED_SPREAD:
        top = spread_seeds(top, score, reach.seed_of)
    if fuse:
        top, by_fusion = fused(top, sentence_scores, graph.row_rank, pool)
        order = diverse(top, graph.row_documents, len(top), by_fusion, FUSED_SPREAD_FLOOR)
    else:
        order = diverse(top, graph.row_documents, len(top), score, SPREAD_FLOOR)
    beyond = reach.beyond()
    beyond = beyond[np.isfinite(score[beyond])]
    beyond = beyond[np.lexsort((graph.row_rank[beyond], -reach.strength[beyond]))]
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
        doc = graph.document(row)
        # Second filter, from the store rather than the cached graph: the document must still
        # exist, still be visible to this asker, and (unless asked) not be superseded.
        fresh = store.access_of(doc.id, doc.version)
        if fresh is None or not viewer.sees(*fresh) or (settings.documents and doc.id not in settings.documents):
            return False
        span = store.span(doc.id, doc.version, graph.sentence_index(row))
        if span is None or span.text in seen_text:
            return False
        seen_text.add(span.text)
        hit = reach.route(row)
        if hit is None:  # a similarity route reads the best mention of each entity named (scored lazily when indexed)
            scored.prepare_mentions(graph.entities_in_row(row))
        route, via = (hit.route, hit.via) if hit is not None else (
            similarity_route(graph, row, qvec, sentence_scores), "similarity")
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

    # A fused ranking already holds the walk's own order; reserving places for what it reached beyond the
    # question's entities as well gave them twice, and on long documents (NQ articles) those were mostly reached
    # from generic anchors ("world", "person"): evidence in the context 0.925 -> 0.944 without the reserve.
    walk_slots = 0 if fuse else int(settings.max_context * WALK_SHARE)
    fill(order, settings.max_context - walk_slots)
    fill(beyond, settings.max_context)
    fill(order, settings.max_context)  # places the walk left empty
    add_rivals(graph, items, sentence_scores, add, scored.similar_to_row)
    return items
