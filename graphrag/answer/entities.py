"""One entity as a viewer may see it: the mentions and relations of the document versions their labels show.

The Graph page and ``graphrag entity`` both show this; superseded versions are included (and marked by their
records) because inspecting the graph is about what was ever said, not what an answer may cite.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from graphrag.access.rule import Access
from graphrag.model import Entity, Relation
from graphrag.store import Store


@dataclass(frozen=True)
class EntityView:
    """An entity with only its visible mentions, and its visible relations."""

    entity: Entity
    relations: tuple[Relation, ...]


def visible_entity(store: Store, key: str, access: Iterable[str]) -> EntityView | None:
    """The entity ``key`` as ``access`` sees it, superseded versions included; None when it is unknown or no
    mention of it is visible (a hidden entity and a missing one look the same)."""
    entity = store.entity(key)
    if entity is None:
        return None
    viewer = Access.of(access, include_superseded=True)
    shown = {(d.id, d.version) for d in store.documents() if viewer.sees(d.access, d.superseded)}
    mentions = tuple(m for m in entity.mentions if (m.span.document_id, m.span.version) in shown)
    if not mentions:
        return None
    relations = tuple(r for r in store.relations_of(key) if (r.span.document_id, r.span.version) in shown)
    return EntityView(replace(entity, mentions=mentions), relations)
