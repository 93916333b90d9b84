"""Retrieval: similarity seeds, a multi-source walk, filters, numbered context items.

Access and version filters are applied twice: while walking (invisible edges are not
followed, invisible entities are not seeds, invisible mentions give no candidates) and
again from the store, fresh, just before a span becomes a context item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphrag.embed import Embedder, top_k
from graphrag.errors import InputError
from graphrag.graph import KnowledgeGraph
from graphrag.model import AskSettings, ContextItem, Route, Seed, Span
from graphrag.store import Store

MAX_QUESTION_CHARS = 2000


@dataclass(frozen=True)
class Retrieval:
    seeds: tuple[Seed, ...]
    reached: tuple[Route, ...]  # every reached entity's route, by depth then key
    context: tuple[ContextItem, ...]


def clean_question(question: str) -> str:
    q = " ".join(question.split())
    if not q:
        raise InputError("the question is empty: type a question")
    # A very long question is cut, not refused: the embedder reads only the first ~256 tokens anyway.
    return q[:MAX_QUESTION_CHARS]


def find_seeds(graph: KnowledgeGraph, qvec: np.ndarray, k: int, visible_entities: np.ndarray) -> list[Seed]:
    return [Seed(graph.keys[i], round(s, 4)) for i, s in top_k(graph.vectors, qvec, k, visible_entities)]


def _candidates(graph: KnowledgeGraph, routes: dict[str, Route], visible_docs: np.ndarray) -> tuple[np.ndarray, list[tuple[Route, str]]]:
    """Sentence rows that mention a reached entity or state a followed relation, with how each was found.

    One (route, via) per row: the shallowest route wins, then relation over mention, then key.
    """
    rows: list[np.ndarray] = []
    owners: list[tuple[Route, str]] = []
    owner_of_row: list[np.ndarray] = []
    for key, route in sorted(routes.items(), key=lambda kv: (kv[1].depth, kv[0])):
        if route.steps:  # the sentence that states the last relation followed
            attrs = graph.graph.edges[_edge(route)]
            if visible_docs[attrs["doc"]]:
                rows.append(np.array([attrs["row"]]))
                owner_of_row.append(np.array([len(owners)]))
                owners.append((route, "relation"))
        m = graph.mention_rows(graph.index[key])
        m = m[visible_docs[graph.sentence_doc[m]]]
        if len(m):
            rows.append(m)
            owner_of_row.append(np.full(len(m), len(owners)))
            owners.append((route, "mention"))
    if not rows:
        return np.zeros((0, 2), dtype=np.int64), owners
    all_rows, all_owner = np.concatenate(rows), np.concatenate(owner_of_row)
    # keep the first owner of each row (owners are in preference order)
    _, first = np.unique(all_rows, return_index=True)
    return np.stack([all_rows[first], all_owner[first]], axis=1), owners


def _edge(route: Route) -> tuple[str, str, int]:
    step = route.steps[-1]
    prev = route.steps[-2].entity if len(route.steps) > 1 else route.seed
    return (prev, step.entity, step.relation_id) if step.forward else (step.entity, prev, step.relation_id)


def build_context(store: Store, graph: KnowledgeGraph, qvec: np.ndarray, routes: dict[str, Route],
                  visible_docs: np.ndarray, settings: AskSettings) -> list[ContextItem]:
    cands, owners = _candidates(graph, routes, visible_docs)
    if not len(cands):
        return []
    scores = graph.sentence_vectors[cands[:, 0]] @ qvec
    depth = np.array([owners[o][0].depth for o in cands[:, 1]])
    order = np.lexsort((cands[:, 0], depth, -scores))  # relevance, then depth, then position
    items: list[ContextItem] = []
    seen_text: set[str] = set()
    labels = frozenset(settings.access)
    for i in order:
        row, owner = int(cands[i, 0]), int(cands[i, 1])
        doc = graph.docs[int(graph.sentence_doc[row])]
        # Second filter, from the store rather than the cached graph: the document must still
        # exist, still be visible to this asker, and (unless asked) not be superseded.
        fresh = store.document(doc.id, doc.version)
        if fresh is None or not (set(fresh.access) & labels) or (fresh.superseded and not settings.include_superseded):
            continue
        span = store.span(doc.id, doc.version, int(graph.sentence_idx[row]))
        if span is None or span.text in seen_text:
            continue
        seen_text.add(span.text)
        route, via = owners[owner]
        items.append(ContextItem(len(items) + 1, span, route, round(float(scores[i]), 4), via, fresh.superseded))
        if len(items) >= settings.max_context:
            break
    return items


def retrieve(store: Store, graph: KnowledgeGraph, embedder: Embedder, question: str,
             settings: AskSettings) -> Retrieval:
    qvec = embedder.encode([clean_question(question)])[0]
    return retrieve_vector(store, graph, qvec, settings)


def retrieve_vector(store: Store, graph: KnowledgeGraph, qvec: np.ndarray, settings: AskSettings) -> Retrieval:
    if settings.k < 1 or settings.hops < 0 or settings.max_context < 1:
        raise InputError("k and the context cap must be at least 1, hops at least 0")
    visible_docs, visible_entities = graph.visibility(settings.access, settings.include_superseded)
    seeds = find_seeds(graph, qvec, settings.k, visible_entities)
    routes = graph.walk((s.entity for s in seeds), settings.hops, settings.direction, visible_docs)
    context = build_context(store, graph, qvec, routes, visible_docs, settings)
    reached = tuple(sorted(routes.values(), key=lambda r: (r.depth, r.end)))
    return Retrieval(tuple(seeds), reached, tuple(context))


def span_key(span: Span) -> tuple[str, int, int]:
    return (span.document_id, span.version, span.sentence_index)
