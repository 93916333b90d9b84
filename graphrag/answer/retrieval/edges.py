"""The graph's two kinds of edge: relations (``Edges``: a NetworkX multigraph plus what was added beside it)
and mentions (``Mentions``: which sentence rows name which entities, indexed both ways).

Every relation is its own edge (key = relation id), so two relations between the same pair both survive.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx
import numpy as np

EdgeAttrs = dict[str, Any]  # one relation on the graph: type, doc (an index into docs) and row (a sentence row)
Adjacency = dict[str, dict[str, dict[int, EdgeAttrs]]]
Relation = tuple[int, str, str, str, int, int]  # id, source, target, type, doc, row


class Edges:
    """The relations: a NetworkX multigraph built once, plus the relations added since, in
    adjacency dicts of the same shape kept beside it. Deriving adds to copies of only the
    parts it touches, so an earlier ``Edges`` (and a walk running on it) never changes."""

    def __init__(self, base: nx.MultiDiGraph[str], succ: Adjacency | None = None, pred: Adjacency | None = None,
                 added: int = 0, base_count: int | None = None) -> None:
        self.base = base
        self.succ = succ or {}
        self.pred = pred or {}
        self.added = added
        # counting a MultiDiGraph's edges walks all of them: count once
        self.base_count = base.number_of_edges() if base_count is None else base_count

    @classmethod
    def of(cls, keys: Iterable[str], relations: Iterable[Relation]) -> Edges:
        """One multigraph of ``relations`` over the entities ``keys``."""
        g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
        g.add_nodes_from(keys)
        n = 0
        for rel_id, src, dst, rtype, doc, row in relations:
            g.add_edge(src, dst, key=rel_id, type=rtype, doc=doc, row=row)
            n += 1
        return cls(g, base_count=n)

    def __len__(self) -> int:
        return self.base_count + self.added

    def sides(self, key: str, both: bool) -> list[tuple[dict[str, dict[int, EdgeAttrs]], bool]]:
        """(adjacency, forward) pairs to follow from ``key``: out-edges, then in-edges if ``both``."""
        out = []
        # The plain dicts behind networkx's read-only succ/pred views (the walk is a hot path); the
        # networkx stubs do not declare these attributes.
        base_succ, base_pred = self.base._succ, self.base._pred  # type: ignore[attr-defined]
        for base, extra, forward in ((base_succ, self.succ, True), (base_pred, self.pred, False)):
            if not forward and not both:
                break
            if key in base:
                out.append((base[key], forward))
            if key in extra:
                out.append((extra[key], forward))
        return out

    def with_added(self, relations: Iterable[Relation]) -> Edges:
        """These edges plus ``relations``: only the adjacency entries they touch are copied, so this object is
        unchanged."""
        succ, pred = dict(self.succ), dict(self.pred)
        copied: set[tuple[int, str]] = set()  # (side, key) whose inner dict is already this graph's own
        n = 0
        for rel_id, src, dst, rtype, doc, row in relations:
            attrs = {"type": rtype, "doc": doc, "row": row}
            for side, (adj, a, b) in enumerate(((succ, src, dst), (pred, dst, src))):
                if (side, a) not in copied:
                    adj[a] = {nbr: dict(edges) for nbr, edges in adj.get(a, {}).items()}
                    copied.add((side, a))
                adj[a].setdefault(b, {})[rel_id] = attrs
            n += 1
        return Edges(self.base, succ, pred, self.added + n, self.base_count)

    def merged(self) -> nx.MultiDiGraph[str]:
        """One NetworkX multigraph of all the edges (the base itself when nothing was added)."""
        if not self.added:
            return self.base
        g = self.base.copy()
        for src, nbrs in self.succ.items():
            for dst, edges in nbrs.items():
                for rel_id, attrs in edges.items():
                    g.add_edge(src, dst, key=rel_id, **attrs)
        return g


class Mentions:
    """Which sentence rows name which entities: per mention its entity index and sentence row, grouped by
    entity and by row (CSR-style offsets, so either lookup is two slices)."""

    def __init__(self, entity: np.ndarray, row: np.ndarray, n_entities: int, sentence_doc: np.ndarray) -> None:
        self.entity = entity  # entity index per mention
        self.row = row  # sentence row per mention
        order = np.argsort(entity, kind="stable")
        self._rows = row[order]
        self._offsets = np.searchsorted(entity[order], np.arange(n_entities + 1))
        by_row = np.argsort(row, kind="stable")
        self._entities = entity[by_row]
        self._row_offsets = np.searchsorted(row[by_row], np.arange(len(sentence_doc) + 1))
        self.doc = sentence_doc[row] if len(row) else np.zeros(0, dtype=np.int64)  # document index per mention

    def rows_of(self, entity: int) -> np.ndarray:
        """Sentence rows that mention the entity at this index."""
        return self._rows[self._offsets[entity]:self._offsets[entity + 1]]

    def entities_in(self, row: int) -> np.ndarray:
        """Indices of the entities a sentence row mentions."""
        return self._entities[self._row_offsets[row]:self._row_offsets[row + 1]]

    def per_entity(self) -> np.ndarray:
        """How many mentions each entity has."""
        counts: np.ndarray = np.diff(self._offsets)
        return counts

    def best_scores(self, sentence_scores: np.ndarray, n_entities: int) -> np.ndarray:
        """Per entity, the highest score among the sentences that mention it (-1 if none)."""
        out = np.full(n_entities, -1.0, dtype=np.float32)
        has = self._offsets[1:] > self._offsets[:-1]
        if has.any():
            out[has] = np.maximum.reduceat(sentence_scores[self._rows], self._offsets[:-1][has])
        return out

    def entities_seen(self, visible_docs: np.ndarray, n_entities: int) -> np.ndarray:
        """Per entity, whether one of its mentions is in a visible document version."""
        ents = np.zeros(n_entities, dtype=bool)
        if len(self.entity):
            ents[self.entity[visible_docs[self.doc]]] = True
        return ents
