"""The small frozen records retrieval passes around: a document version and a graph's place in the store
(``DocVersion``, ``GraphMark``), one entry of the walk's frontier (``Frontier``), what the walk reached per
entity (``Walk``) and per sentence (``Reach``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from graphrag.model import Route

if TYPE_CHECKING:
    from graphrag.answer.retrieval.index import Searcher, VectorIndex


@dataclass(frozen=True)
class DocVersion:
    """A document version as the graph sees it: who may see it and whether it is superseded."""

    id: str
    version: int
    access: frozenset[str]
    superseded: bool
    title: str
    effective_date: str | None
    # what tells this version from one removed and written again under the same number
    sha256: str = ""
    ingested_at: str = ""


def doc_version(d: Mapping[str, Any]) -> DocVersion:
    """A document version from its stored row (``Store.graph_documents``)."""
    return DocVersion(str(d["doc_id"]), int(d["version"]), _labels(str(d["access"])),
                      bool(d["superseded"]), str(d["title"]), d["effective_date"], str(d["sha256"]),
                      str(d["ingested_at"]))


@functools.lru_cache(maxsize=1024)
def _labels(access: str) -> frozenset[str]:
    # a store has a handful of distinct label sets over many thousand documents: parse each once
    return frozenset(json.loads(access))


@dataclass(frozen=True)
class GraphMark:
    """Where a loaded graph stands in the store: the generation it was read at and the last
    mention and relation ids it holds (ids grow: document writers are serialised)."""

    generation: int
    mention_id: int
    relation_id: int


# The edge that offers an entity to the walk: the relation id (None for a co-mention), its type, the entity
# reached, whether the relation was followed as extracted, and the sentence row stating it.
Edge = tuple[int | None, str, str, bool, int]


class Frontier(NamedTuple):
    """One entity offered to the walk, as the walk orders its frontier: strongest first (``priority`` is minus
    the strength), then shallowest, then by key, then by ``tie`` (the entity it came from, 0 for a relation or
    1 for a co-mention, the relation id, the sentence row or its rank), so the walk does not depend on the order
    its seeds or edges come in. The walk pushes thousands of entries a question through its heap as plain
    tuples of these fields (a NamedTuple costs ~0.5 us more to make) and reads each one it settles as a
    ``Frontier``."""

    priority: float
    depth: int
    entity: str
    tie: tuple[str, int, int, int]
    edge: Edge | None  # None for a seed


@dataclass(frozen=True)
class Walk:
    """What a walk reached: a route and a score per entity."""

    routes: dict[str, Route]  # one route per reached entity key
    scores: dict[str, float]  # the score each entity was reached with (seed score x step weights)


@dataclass(frozen=True)
class Reached:
    """How the walk reached one sentence: the route to the entity it names or the step it states, and how
    ("mention", "relation" or "co-mention")."""

    route: Route
    via: str

    @property
    def depth(self) -> int:
        """Steps from the question's entity (0: the sentence names a seed)."""
        return self.route.depth


class ReachedRows(Mapping[int, tuple[Route, str]]):
    """Row -> (route, via) for every row a walk reached, kept as arrays: tens of thousands of rows at a million
    sentences (a hub's mentions), of which the context reads a few dozen; a dict of them all cost 8 ms a question."""

    def __init__(self, rows: np.ndarray, pair: np.ndarray, pairs: Sequence[tuple[Route, str]]) -> None:
        self.array = rows  # ascending
        self._pair, self._pairs = pair, pairs  # per row, its (route, via) in ``pairs``

    def _at(self, row: int) -> int:
        i = int(np.searchsorted(self.array, row))
        return i if i < len(self.array) and int(self.array[i]) == row else -1

    def __getitem__(self, row: int) -> tuple[Route, str]:
        i = self._at(row)
        if i < 0:
            raise KeyError(row)
        return self._pairs[int(self._pair[i])]

    def __contains__(self, row: object) -> bool:
        return isinstance(row, (int, np.integer)) and self._at(int(row)) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self.array.tolist())

    def __len__(self) -> int:
        return len(self.array)


@dataclass(frozen=True, eq=False)
class Reach:
    """What a walk found, per entity (``walk``) and per sentence row: how strongly each row was reached
    (``strength``, 0 where nothing reached it) and the route that reached it with how (``rows``: plain
    (route, via) pairs, a thousand or so a question; ``route`` reads one as a ``Reached``)."""

    walk: Walk
    strength: np.ndarray  # per sentence row
    rows: Mapping[int, tuple[Route, str]]
    stepped: np.ndarray | None = None  # the rows of ``beyond`` when the reach already knows them

    def route(self, row: int) -> Reached | None:
        """How ``row`` was reached, or None when the walk did not reach it."""
        hit = self.rows.get(row)
        return Reached(*hit) if hit is not None else None

    def seed_of(self, row: int) -> str:
        """The question entity (or similarity seed) the route to ``row`` starts at; "" when not reached."""
        hit = self.rows.get(row)
        return hit[0].seed if hit is not None else ""

    def reached_rows(self) -> np.ndarray:
        """Every row the walk reached, as an array."""
        if isinstance(self.rows, ReachedRows):
            return self.rows.array
        return np.fromiter(self.rows, dtype=np.int64, count=len(self.rows))

    def beyond(self) -> np.ndarray:
        """The rows reached through at least one step, in no particular order."""
        if self.stepped is not None:
            return self.stepped
        return np.array([r for r, (route, _) in self.rows.items() if route.depth >= 1], dtype=np.int64)


@dataclass
class Kept:
    """One index with the identity of each row it holds (by row number), and how many of them are on disk."""

    index: VectorIndex
    digests: np.ndarray  # uint64 per row held
    saved: int


@dataclass
class GraphIndexes:
    """A graph's indexes: None for a kind below ``index.EXACT_BELOW`` rows. On a store whose database searches
    the vectors (pgvector) the ``server_`` searchers stand in and no index is held (``server.ServerIndex``)."""

    sentences: Kept | None = None
    entities: Kept | None = None
    server_sentences: Searcher | None = None
    server_entities: Searcher | None = None

    def searcher(self, kind: str) -> Searcher | None:
        """The search over ``kind`` ("sentences" or "entities"): the database's, the index held, or None (exact)."""
        server = self.server_sentences if kind == "sentences" else self.server_entities
        if server is not None:
            return server
        kept = self.sentences if kind == "sentences" else self.entities
        return kept.index if kept is not None else None
