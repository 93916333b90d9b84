"""The graph's two kinds of edge: relations (``Edges``: numpy columns with CSR adjacency both ways) and mentions
(``Mentions``: which sentence rows name which entities, indexed both ways).

Every relation is its own edge (key = relation id), so two relations between the same pair both survive.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

EdgeAttrs = dict[str, Any]  # one relation as NetworkX holds it: type, doc (an index into docs) and row (a sentence row)
Relation = tuple[int, str, str, str, int, int]  # id, source, target, type, doc, row

_NONE = np.zeros(0, dtype=np.int32)


class Adjacency:
    """Relations grouped by one of their ends (CSR): ``positions`` lists relation positions by entity, in load
    order within an entity, and ``offsets[e]:offsets[e + 1]`` is entity ``e``'s part of it."""

    __slots__ = ("offsets", "positions")

    def __init__(self, end: np.ndarray, n_entities: int) -> None:
        self.positions = np.argsort(end, kind="stable").astype(np.int32)
        self.offsets = np.zeros(n_entities + 1, dtype=np.int64)
        np.cumsum(np.bincount(end, minlength=n_entities), out=self.offsets[1:])

    def at(self, entity: int) -> np.ndarray:
        """Positions of the relations with this end (empty past the entities it was built for)."""
        if entity + 1 >= len(self.offsets):
            return _NONE
        return self.positions[self.offsets[entity]:self.offsets[entity + 1]]

    @property
    def nbytes(self) -> int:
        """Bytes held by the two arrays."""
        return int(self.offsets.nbytes + self.positions.nbytes)


class Segment:
    """One immutable block of relations as columns (per relation: id, source and target entity index, type code,
    document index, sentence row), with its out- (by source) and in- (by target) adjacency."""

    __slots__ = ("doc", "dst", "id", "into", "out", "row", "src", "type")
    COLUMNS = ("id", "src", "dst", "type", "doc", "row")  # in the constructor's order

    def __init__(self, ids: np.ndarray, src: np.ndarray, dst: np.ndarray, types: np.ndarray, doc: np.ndarray,
                 row: np.ndarray, n_entities: int) -> None:
        self.id = ids.astype(np.int64, copy=False)
        self.src, self.dst = src.astype(np.int32, copy=False), dst.astype(np.int32, copy=False)
        self.type = types
        self.doc, self.row = doc.astype(np.int32, copy=False), row.astype(np.int32, copy=False)
        self.out, self.into = Adjacency(self.src, n_entities), Adjacency(self.dst, n_entities)

    def __len__(self) -> int:
        return len(self.id)

    def joined(self, other: Segment, n_entities: int) -> Segment:
        """A new segment of these relations then ``other``'s."""
        ids, src, dst, types, doc, row = (np.concatenate([getattr(self, c), getattr(other, c)])
                                          for c in Segment.COLUMNS)
        return Segment(ids, src, dst, types, doc, row, n_entities)

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns and both adjacencies."""
        return int(sum(getattr(self, c).nbytes for c in Segment.COLUMNS) + self.out.nbytes + self.into.nbytes)


class Edges:
    """The relations: the segment of the first load and one segment of everything added since (or None). A
    derived graph gets a new added segment (the old one's columns and the new relations, its adjacency built
    again: cost in the added relations and the entities, never in the first load), so an earlier ``Edges``,
    and a walk running on it, never changes. ``load`` reloads whole once the added part grows past a share of
    the first load, which bounds that cost."""

    def __init__(self, types: Sequence[str], base: Segment, extra: Segment | None = None) -> None:
        self.types = list(types)  # a relation's type is its code into this list
        self.base = base
        self.extra = extra

    @classmethod
    def of(cls, index: Mapping[str, int], relations: Iterable[Relation]) -> Edges:
        """The edges of ``relations`` (entity keys, positions in ``index``) over the entities of ``index``."""
        types: list[str] = []
        return cls(types, _segment(index, relations, types))

    @classmethod
    def of_columns(cls, ids: np.ndarray, src: np.ndarray, dst: np.ndarray, type_codes: np.ndarray,
                   types: Sequence[str], doc: np.ndarray, row: np.ndarray, n_entities: int) -> Edges:
        """The edges from columns already coded (entity indices, type codes into ``types``)."""
        return cls(types, Segment(ids, src, dst, type_codes, doc, row, n_entities))

    def __len__(self) -> int:
        return self.base_count + self.added

    @property
    def base_count(self) -> int:
        """Relations of the first load."""
        return len(self.base)

    @property
    def added(self) -> int:
        """Relations added since the first load."""
        return len(self.extra) if self.extra is not None else 0

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns and adjacency arrays."""
        return self.base.nbytes + (self.extra.nbytes if self.extra is not None else 0)

    def segments(self) -> list[Segment]:
        """The first load's segment, then the added one if any."""
        return [self.base] if self.extra is None else [self.base, self.extra]

    def around(self, entity: int, both: bool) -> list[tuple[Segment, np.ndarray, bool]]:
        """(segment, relation positions, forward) to follow from ``entity``: out-relations of each segment,
        then in-relations if ``both``; empty position arrays are left out."""
        out = []
        for forward in (True, False) if both else (True,):
            for seg in self.segments():
                pos = (seg.out if forward else seg.into).at(entity)
                if len(pos):
                    out.append((seg, pos, forward))
        return out

    def with_added(self, index: Mapping[str, int], relations: Iterable[Relation]) -> Edges:
        """These edges plus ``relations`` over the entities of ``index`` (these edges' and any new ones): new
        arrays throughout, so this object is unchanged."""
        types = list(self.types)
        new = _segment(index, relations, types)
        extra = new if self.extra is None else self.extra.joined(new, len(index))
        return Edges(types, self.base, extra)

    def merged(self, keys: Sequence[str]) -> nx.MultiDiGraph[str]:
        """One NetworkX multigraph of all the relations over the entities ``keys``, each edge keyed by its
        relation id with its type, document and sentence row."""
        g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
        g.add_nodes_from(keys)
        for seg in self.segments():
            for rel_id, s, d, t, doc, row in zip(seg.id.tolist(), seg.src.tolist(), seg.dst.tolist(),
                                                 seg.type.tolist(), seg.doc.tolist(), seg.row.tolist()):
                g.add_edge(keys[s], keys[d], key=rel_id, type=self.types[t], doc=doc, row=row)
        return g

    def relations_at(self, entity: int, both: bool) -> list[tuple[int, bool, int, EdgeAttrs]]:
        """(other end, forward, relation id, attributes) of the relations at ``entity``, in the order a NetworkX
        multigraph per segment lists them: out-relations then in-relations, each segment's grouped by the
        other end in the order it first appears, then in load order."""
        out: list[tuple[int, bool, int, EdgeAttrs]] = []
        for forward in (True, False) if both else (True,):
            for seg in self.segments():
                pos = (seg.out if forward else seg.into).at(entity)
                groups: dict[int, list[tuple[int, bool, int, EdgeAttrs]]] = {}
                for p, nbr in zip(pos.tolist(), (seg.dst if forward else seg.src)[pos].tolist()):
                    attrs = {"type": self.types[int(seg.type[p])], "doc": int(seg.doc[p]), "row": int(seg.row[p])}
                    groups.setdefault(nbr, []).append((nbr, forward, int(seg.id[p]), attrs))
                for group in groups.values():
                    out += group
        return out


def _segment(index: Mapping[str, int], relations: Iterable[Relation], types: list[str]) -> Segment:
    """A segment of ``relations``; types not in ``types`` are appended to it."""
    code = {t: i for i, t in enumerate(types)}
    cols: list[list[int]] = [[], [], [], [], [], []]
    for rel_id, src, dst, rtype, doc, row in relations:
        if rtype not in code:
            code[rtype] = len(types)
            types.append(rtype)
        for col, v in zip(cols, (rel_id, index[src], index[dst], code[rtype], doc, row)):
            col.append(v)
    ids, s, d, t, doc_, row_ = (np.array(c, dtype=np.int64) for c in cols)
    return Segment(ids, s, d, t.astype(type_dtype(len(types))), doc_, row_, len(index))


def type_dtype(n_types: int) -> type[np.signedinteger[Any]]:
    """The smallest code type for ``n_types`` relation types (a handful from the rules extractor)."""
    return np.int16 if n_types < 2 ** 15 else np.int32


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

    def entities_of_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The entities each of ``rows`` mentions, all together: (entity index, position in ``rows`` of the
        row naming it), row by row."""
        starts, ends = self._row_offsets[rows], self._row_offsets[rows + 1]
        lens = ends - starts
        total = int(lens.sum())
        if not total:
            return np.zeros(0, dtype=self._entities.dtype), np.zeros(0, dtype=np.int64)
        at_row = np.repeat(np.arange(len(rows)), lens)
        # each mention's place: its row's start plus its rank within the row
        within = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
        return self._entities[starts[at_row] + within], at_row

    def rows_of_entities(self, entities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows naming each of ``entities``, all together: (sentence row, position in ``entities`` of the
        entity named), entity by entity and each entity's rows in ``rows_of`` order."""
        starts, ends = self._offsets[entities], self._offsets[entities + 1]
        lens = ends - starts
        total = int(lens.sum())
        if not total:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        of = np.repeat(np.arange(len(entities)), lens)
        within = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
        return self._rows[starts[of] + within].astype(np.int64, copy=False), of

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
