"""One entity as a viewer may see it: the mentions and relations of the document versions their labels show;
and how the Graph page finds one (search order, the entity it opens on).

The Graph page and ``graphrag entity`` both show this; superseded versions are included (and marked by their
records) because inspecting the graph is about what was ever said, not what an answer may cite.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from graphrag.access.identity import Viewer
from graphrag.access.rule import Access
from graphrag.language.sentences import normalise
from graphrag.model import Answer, Entity, Relation
from graphrag.store import Store

if TYPE_CHECKING:
    from graphrag.answer.retrieval.graph import KnowledgeGraph


@dataclass(frozen=True)
class EntityView:
    """An entity with only its visible mentions, and its visible relations."""

    entity: Entity
    relations: tuple[Relation, ...]


def visible_entity(store: Store, key: str, by: Viewer) -> EntityView | None:
    """The entity ``key`` as ``by`` sees it, superseded versions included; None when it is unknown or no
    mention of it is visible (a hidden entity and a missing one look the same)."""
    entity = store.entity(key)
    if entity is None:
        return None
    viewer = Access.of(by.labels, include_superseded=True)
    shown = {(d.id, d.version) for d in store.documents() if viewer.sees(d.access, d.superseded)}
    mentions = tuple(m for m in entity.mentions if (m.span.document_id, m.span.version) in shown)
    if not mentions:
        return None
    relations = tuple(r for r in store.relations_of(key) if (r.span.document_id, r.span.version) in shown)
    return EntityView(replace(entity, mentions=mentions), relations)


def relation_counts(kg: KnowledgeGraph, by: Viewer) -> dict[str, int]:
    """Per visible entity key, how many visible relations (either way, superseded versions included, as the
    Graph page lists them) touch it: how connected it is for ``by``."""
    docs, ents = kg.visibility(by.labels, include_superseded=True)
    counts: dict[str, int] = {}
    for i, key in enumerate(kg.keys):
        if ents[i]:
            counts[key] = sum(1 for *_, attrs in kg.relations_at(key) if docs[int(attrs["doc"])])
    return counts


def search_entities(names: Iterable[tuple[str, str]], query: str, counts: Mapping[str, int]) -> list[str]:
    """The keys of the (name, key) pairs that match ``query``: the exact name first, then names that start with
    it, then names that contain it; within each, the most connected first (``counts``), then by name.
    An empty query keeps every entity, most connected first."""
    q = " ".join(query.lower().split())
    qkey = normalise(query)
    ranked: list[tuple[int, int, str, str]] = []
    for name, key in names:
        low = " ".join(name.lower().split())
        if not q or low == q or key == qkey:
            rank = 0
        elif low.startswith(q) or (qkey and key.startswith(qkey)):
            rank = 1
        elif q in low or (qkey and qkey in key):
            rank = 2
        else:
            continue
        ranked.append((rank, -counts.get(key, 0), low, key))
    return [key for *_, key in sorted(ranked)]


def answer_entities(answer: Answer) -> list[str]:
    """The entity keys an answer involves: where its routes started (the question's entities), and every entity
    on the route to each cited sentence."""
    cited = {c.item.n for cl in answer.claims for c in cl.citations if c.item is not None}
    keys = [s.entity for s in answer.seeds]
    for item in answer.context:
        if item.n in cited:
            keys += [item.route.seed, *(s.entity for s in item.route.steps)]
    return list(dict.fromkeys(k for k in keys if k))


def opening_entity(counts: Mapping[str, int], answer: Answer | None = None) -> str | None:
    """The entity the Graph page opens on: the most connected visible entity of ``answer`` (the last one asked),
    else the most connected visible entity overall; ``counts`` holds the visible entities (``relation_counts``).
    Ties go to the first in key order, so the choice is stable."""
    involved = [k for k in answer_entities(answer) if k in counts] if answer is not None else []
    return min(involved or counts, key=lambda k: (-counts[k], k), default=None)
