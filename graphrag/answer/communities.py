"""Communities of the entity graph: groups of entities that the visible documents name together, found by
modularity with a fixed seed and labelled by their most central entities.

The partition (``partition.py``) is Leiden from graspologic-native (MIT, Rust) when it is installed, NetworkX's
Louvain (pure Python) when not: at a million relations seconds against minutes, and at least as high a modularity
(docs/figures.md, "Community detection").

Edges join two entities when a visible sentence names both (a co-mention) or a visible relation links them; an
edge's weight counts those sentences and relations, times both entities' specificity. Only what the viewer's labels (and scope) can see enters the
graph, so a community never groups entities through a sentence the viewer cannot read, and a label never names an
entity they cannot see. Computed on first use and kept per graph (a graph is one store generation: an ingest, a new
version or a removal makes a new graph, and so new communities) and per visibility, the last ``KEPT`` visibilities
of a graph (each scope of documents is one).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from graphrag.answer.partition import partition
from graphrag.answer.retrieval.graph import KnowledgeGraph, VisibilityKey

MAX_PER_SENTENCE = 12  # co-mentions are taken among a sentence's first entities: a list of 40 names is no theme
LABEL_ENTITIES = 3  # entities named in a community's label
KEPT = 16  # visibilities (labels and scope) whose communities a graph keeps


@dataclass(frozen=True)
class Community:
    """A group of entities, the most central first (weighted degree inside the group), with the sentence rows
    that name them and the document versions (indices into ``KnowledgeGraph.docs``) those rows lie in, the
    documents with most such rows first."""

    id: int
    entities: tuple[int, ...]
    rows: tuple[int, ...]
    documents: tuple[int, ...]
    weight: float  # the edges' weight inside the group

    def label(self, graph: KnowledgeGraph, n: int = LABEL_ENTITIES) -> tuple[str, ...]:
        """The names of its ``n`` most central entities."""
        return tuple(graph.names[e] for e in self.entities[:n])


@dataclass(frozen=True)
class Communities:
    """Every community of one visibility of one graph, the largest (most sentence rows) first, each entity's
    community (-1 for an entity no visible edge touches), and the method that found them ("leiden" or "louvain";
    empty when there was nothing to partition)."""

    groups: tuple[Community, ...]
    of_entity: np.ndarray
    method: str = ""

    def community_of(self, entity: int) -> int:
        """The position in ``groups`` of the entity's community, or -1."""
        return int(self.of_entity[entity]) if 0 <= entity < len(self.of_entity) else -1


_cache: weakref.WeakKeyDictionary[KnowledgeGraph, dict[VisibilityKey, Communities]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def communities(graph: KnowledgeGraph, access: Iterable[str], include_superseded: bool = False,
                documents: Iterable[str] = ()) -> Communities:
    """The communities of what ``access`` sees of ``graph`` (optionally only ``documents``), computed once per
    graph and visibility."""
    key: VisibilityKey = (frozenset(access), include_superseded, frozenset(documents))
    with _lock:
        hit = _cache.get(graph, {}).get(key)
    if hit is not None:
        return hit
    found = detect(graph, graph.visibility(key[0], include_superseded, key[2])[0])
    with _lock:
        kept = _cache.setdefault(graph, {})
        kept[key] = found
        while len(kept) > KEPT:
            del kept[next(iter(kept))]  # the oldest first: dicts keep insertion order
    return found


def weighted_edges(graph: KnowledgeGraph, visible_docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first entity, second entity, weight) of every entity pair joined by visible co-mentions or relations,
    the first index below the second; the weight counts them, times both entities' specificity."""
    n = len(graph.keys)
    pairs: list[np.ndarray] = []
    rows = np.flatnonzero(visible_docs[graph.row_documents]) if len(graph.row_documents) else np.zeros(0, np.int64)
    if len(rows):
        ents, at = graph.mentions.entities_of_rows(rows)
        if len(ents):
            pairs.append(_comention_pairs(ents.astype(np.int64), at, n))
    for seg in graph.edges.segments():
        keep = visible_docs[seg.doc] & (seg.src != seg.dst)
        if keep.any():
            a, b = seg.src[keep].astype(np.int64), seg.dst[keep].astype(np.int64)
            pairs.append(np.minimum(a, b) * n + np.maximum(a, b))
    if not pairs:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    codes, count = np.unique(np.concatenate(pairs), return_counts=True)
    a, b = codes // n, codes % n
    # a hub ("film", "player", named by a sentence of every article) would glue every article into one group
    spec = graph.specificity.astype(np.float64)
    return a, b, count * spec[a] * spec[b]


def _comention_pairs(ents: np.ndarray, at: np.ndarray, n: int) -> np.ndarray:
    """Pair codes (low * n + high) of the distinct entities each sentence names, among its first
    ``MAX_PER_SENTENCE``."""
    starts = np.flatnonzero(np.r_[True, at[1:] != at[:-1]])
    lengths = np.diff(np.r_[starts, len(at)])
    within = np.arange(len(at)) - np.repeat(starts, lengths)
    keep = within < MAX_PER_SENTENCE
    ents, at = ents[keep], at[keep]
    out: list[np.ndarray] = []
    # pairs of positions (i, i + gap) inside one sentence, one gap at a time: no Python loop over sentences
    for gap in range(1, MAX_PER_SENTENCE):
        same = at[gap:] == at[:-gap]
        if not same.any():
            break
        a, b = ents[:-gap][same], ents[gap:][same]
        differ = a != b
        out.append(np.minimum(a, b)[differ] * n + np.maximum(a, b)[differ])
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def detect(graph: KnowledgeGraph, visible_docs: np.ndarray) -> Communities:
    """The communities of the visible entity graph, each with its central entities, rows and documents."""
    a, b, w = weighted_edges(graph, visible_docs)
    if not len(a):
        return Communities((), np.full(len(graph.keys), -1, dtype=np.int64))
    of_entity, method = partition(a, b, w, len(graph.keys))
    by_community = np.argsort(of_entity, kind="stable")
    by_community = by_community[of_entity[by_community] >= 0]
    cuts = np.flatnonzero(np.diff(of_entity[by_community])) + 1
    found = np.split(by_community, cuts)
    inside = of_entity[a] == of_entity[b]
    degree = np.bincount(a[inside], weights=w[inside], minlength=len(graph.keys)) + \
        np.bincount(b[inside], weights=w[inside], minlength=len(graph.keys))
    total = np.bincount(of_entity[a[inside]], weights=w[inside], minlength=len(found))
    mentions = graph.mentions.per_entity()
    spec = graph.specificity
    vis_rows = visible_docs[graph.row_documents]
    groups = []
    for i, members in enumerate(found):
        ents = sorted(members.tolist(), key=lambda e: (-degree[e] * spec[e], -mentions[e], graph.keys[e]))
        rows, _ = graph.mentions.rows_of_entities(np.array(ents, dtype=np.int64))
        rows = np.unique(rows[vis_rows[rows]])
        per_doc = np.bincount(graph.row_documents[rows], minlength=len(graph.docs))
        docs = sorted(np.flatnonzero(per_doc).tolist(), key=lambda d: (-per_doc[d], d))
        groups.append(Community(i, tuple(ents), tuple(rows.tolist()), tuple(docs), float(total[i])))
    order = sorted(range(len(groups)), key=lambda i: (-len(groups[i].rows), -groups[i].weight, i))
    renumber = np.empty(len(groups), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    ranked = tuple(Community(int(renumber[g.id]), g.entities, g.rows, g.documents, g.weight)
                   for g in (groups[i] for i in order))
    of_entity[of_entity >= 0] = renumber[of_entity[of_entity >= 0]]
    return Communities(ranked, of_entity, method)
