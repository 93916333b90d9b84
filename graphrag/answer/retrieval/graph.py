"""The knowledge graph in memory: entities, document versions, sentence rows, their vectors, and the two kinds
of edge (``edges``: relations and mentions).

Visibility (access labels, superseded versions) is a property of the document a mention or relation came from;
it is computed once per asker as a boolean array over document versions and checked on every edge the walk
follows.

A graph is never modified once built: after an ingest, ``load.load_graph`` derives a new one that adds the new
rows and swaps it in, so a question being answered meanwhile keeps the graph it started with, whole.

Retrieval reads the graph through the methods below (a row's document, its similarity to a question, the rows
naming an entity), not through its arrays; the arrays stay public for the tools and tests that draw the graph.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Iterator, Sequence

import networkx as nx
import numpy as np

from graphrag.access.rule import Access
from graphrag.answer.retrieval.edges import EdgeAttrs, Edges, Mentions, Relation
from graphrag.answer.retrieval.records import DocVersion, GraphIndexes, GraphMark
from graphrag.answer.retrieval.vectors import Rows
from graphrag.language.embed import similarities

VisibilityKey = tuple[frozenset[str], bool, frozenset[str]]


class KnowledgeGraph:
    """Immutable snapshot of the store's graph at one store generation."""

    def __init__(
        self,
        keys: Sequence[str],
        names: Sequence[str],
        vectors: np.ndarray,
        docs: Sequence[DocVersion],
        mention_entity: np.ndarray,  # entity index per mention
        mention_row: np.ndarray,  # sentence row per mention
        sentence_doc: np.ndarray,  # document index per sentence row
        sentence_idx: np.ndarray,  # sentence index within its document per row
        sentence_vectors: np.ndarray,
        relations: Iterable[Relation] | Edges,  # id, source key, target key, type, doc, row
        generation: int = 0,
        mark: GraphMark | None = None,
        index: dict[str, int] | None = None,  # keys' positions, when the caller has them already
    ) -> None:
        self.keys = list(keys)
        self.index = index if index is not None else {k: i for i, k in enumerate(self.keys)}
        self.names = list(names)
        self.docs = list(docs)
        self.doc_index = {(d.id, d.version): i for i, d in enumerate(self.docs)}
        self.edges = relations if isinstance(relations, Edges) else Edges.of(self.index, relations)
        # the matrices the vectors are the first rows of (a derived graph writes its rows after them)
        self.vectors, self.vector_rows = Rows.holding(vectors)
        self.sentence_vectors, self.sentence_vector_rows = Rows.holding(sentence_vectors)
        self.sentence_doc = sentence_doc
        self.sentence_idx = sentence_idx
        self.mentions = Mentions(mention_entity, mention_row, len(self.keys), sentence_doc)
        self.generation = generation
        self.mark = mark or GraphMark(generation, 0, 0)
        self._vis_cache: dict[VisibilityKey, tuple[np.ndarray, np.ndarray]] = {}
        self._rows_cache: dict[VisibilityKey, np.ndarray] = {}
        self._lock = threading.Lock()
        # nearest-neighbour indexes for a large graph (``indexed.attach``): None, or None per kind, scans exactly
        self.indexes: GraphIndexes | None = None

    @functools.cached_property
    def graph(self) -> nx.MultiDiGraph[str]:
        """Every relation as one NetworkX multigraph (for drawing, tools and tests), built from ``edges`` on
        first use; the walk and ``relations_at`` read ``edges`` in place."""
        return self.edges.merged(self.keys)

    def relations_at(self, key: str, *, incoming: bool = True) -> Iterator[tuple[str, str, int, EdgeAttrs]]:
        """(source, target, relation id, attributes) of every relation from ``key``, and into
        it unless ``incoming`` is False."""
        i = self.index.get(key)
        if i is None:
            return
        for nbr, forward, rel_id, attrs in self.edges.relations_at(i, incoming):
            yield (key, self.keys[nbr], rel_id, attrs) if forward else (self.keys[nbr], key, rel_id, attrs)

    # --- entities and sentence rows ---------------------------------------------------------

    def knows(self, key: str) -> bool:
        """Whether ``key`` is an entity of this graph."""
        return key in self.index

    def entity_index(self, key: str) -> int:
        """The position of entity ``key`` (KeyError when the graph does not hold it)."""
        return self.index[key]

    def entity_key(self, entity: int) -> str:
        """The key of the entity at this position."""
        return self.keys[entity]

    @property
    def n_sentences(self) -> int:
        """How many sentence rows the graph holds."""
        return len(self.sentence_doc)

    def document(self, row: int) -> DocVersion:
        """The document version a sentence row belongs to."""
        return self.docs[int(self.sentence_doc[row])]

    def sentence_index(self, row: int) -> int:
        """A sentence row's index within its document."""
        return int(self.sentence_idx[row])

    def documents_of(self, rows: np.ndarray | int) -> np.ndarray:
        """The document index (into ``docs``) of each of ``rows``; a slice or all rows share the arrays."""
        docs: np.ndarray = self.sentence_doc[rows]
        return docs

    @property
    def row_documents(self) -> np.ndarray:
        """The document index of every sentence row (read only)."""
        return self.sentence_doc

    def sentence_similarities(self, qvec: np.ndarray) -> np.ndarray:
        """Every sentence row's cosine similarity to ``qvec``."""
        return similarities(self.sentence_vectors, qvec)

    def similar_to_row(self, row: int) -> np.ndarray:
        """Every sentence row's cosine similarity to the sentence at ``row``."""
        return similarities(self.sentence_vectors, self.sentence_vectors[row])

    def name_similarities(self, qvec: np.ndarray, entities: np.ndarray | None = None) -> np.ndarray:
        """The cosine similarity of each entity's name (all, or those at ``entities``) to ``qvec``."""
        return similarities(self.vectors if entities is None else self.vectors[entities], qvec)

    def names_like(self, vecs: np.ndarray) -> np.ndarray:
        """Per vector of ``vecs``, every entity name's cosine similarity to it (phrases x entities)."""
        sims: np.ndarray = np.einsum("ed,pd->pe", self.vectors, vecs)  # einsum: no BLAS thread wake-up (see embed.py)
        return sims

    @functools.cached_property
    def doc_sentence_counts(self) -> np.ndarray:
        """Sentences per document version (by index in ``docs``): how long a page is, for retrieval (a long
        document's subject) and the generator (a bridge between short pages)."""
        return np.bincount(self.sentence_doc, minlength=len(self.docs))

    def mentions_per_document(self, entity: int) -> np.ndarray:
        """Per document version, how many of its sentences name the entity at this position."""
        return np.bincount(self.sentence_doc[self.mentions.rows_of(entity)], minlength=len(self.docs))

    @functools.cached_property
    def key_rank(self) -> np.ndarray:
        """Per entity, its key's place in string order: the walk sorts an expansion's offers as its heap
        compares them, keys as strings."""
        rank = np.empty(len(self.keys), dtype=np.int64)
        rank[sorted(range(len(self.keys)), key=self.keys.__getitem__)] = np.arange(len(self.keys))
        return rank

    @functools.cached_property
    def row_rank(self) -> np.ndarray:
        """Per sentence row, its place in (document id, version, index) order: ties between
        equal scores break on it, so a graph extended in place ranks like one loaded whole."""
        order = sorted(range(len(self.docs)), key=lambda i: (self.docs[i].id, self.docs[i].version))
        doc_rank = np.empty(len(self.docs), dtype=np.int64)
        doc_rank[order] = np.arange(len(order))
        by = np.lexsort((self.sentence_idx, doc_rank[self.sentence_doc])) if len(self.sentence_doc) else \
            np.zeros(0, dtype=np.int64)
        rank = np.empty(len(by), dtype=np.int64)
        rank[by] = np.arange(len(by))
        return rank

    # --- visibility -----------------------------------------------------------------------

    def visibility(self, access: Iterable[str], include_superseded: bool = False,
                   documents: Iterable[str] = ()) -> tuple[np.ndarray, np.ndarray]:
        """(visible document versions, visible entities) for an asker, as boolean arrays.

        A document is visible when it shares a label with the asker and, unless asked
        otherwise, is not superseded; with ``documents`` given, only those document ids are
        (a question scoped to documents). An entity is visible when one of its mentions is.
        """
        labels = frozenset(access)
        scope = frozenset(documents)
        key = (labels, include_superseded, scope)
        with self._lock:
            if key not in self._vis_cache:
                viewer = Access(labels, include_superseded)
                docs = np.array([viewer.sees(d.access, d.superseded) and (not scope or d.id in scope)
                                 for d in self.docs], dtype=bool)
                self._vis_cache[key] = (docs, self.mentions.entities_seen(docs, len(self.keys)))
            return self._vis_cache[key]

    def asker_of(self, visible: np.ndarray) -> VisibilityKey | None:
        """(labels, include superseded, document scope) of the asker ``visible`` was made for by ``visibility``
        (its documents or entities) or ``visible_rows``, or None for an array made elsewhere: lets a search
        outside this process (the database's) filter by the same rule."""
        with self._lock:
            for key, rows in self._rows_cache.items():
                if rows is visible:
                    return key
            for key, (docs, entities) in self._vis_cache.items():
                if visible is docs or visible is entities:
                    return key
        return None

    def visible_rows(self, access: Iterable[str], include_superseded: bool = False,
                     documents: Iterable[str] = ()) -> np.ndarray:
        """Sentence rows whose document version is visible to the asker (cached like visibility)."""
        key = (frozenset(access), include_superseded, frozenset(documents))
        with self._lock:
            hit = self._rows_cache.get(key)
        if hit is None:
            hit = self.visibility(access, include_superseded, documents)[0][self.sentence_doc]
            with self._lock:
                self._rows_cache[key] = hit
        return hit

    # --- mentions and the walk ----------------------------------------------------------------

    def mention_rows(self, entity: int) -> np.ndarray:
        """Sentence rows that mention the entity at this index."""
        return self.mentions.rows_of(entity)

    def entities_in_row(self, row: int) -> np.ndarray:
        """Indices of the entities a sentence row mentions."""
        return self.mentions.entities_in(row)

    def best_mention_scores(self, sentence_scores: np.ndarray) -> np.ndarray:
        """Per entity, the highest score among the sentences that mention it (-1 if none)."""
        return self.mentions.best_scores(sentence_scores, len(self.keys))

    @functools.cached_property
    def specificity(self) -> np.ndarray:
        """Per entity, how specific it is: 1 for an entity one sentence mentions, falling
        towards 0 for one that most sentences mention (an inverse document frequency over
        sentences). A walk through a hub ("film", "country") joins everything to everything."""
        n = max(len(self.sentence_doc), 1)
        df = np.maximum(self.mentions.per_entity(), 1)
        spec: np.ndarray = (np.log1p(n / df) / np.log1p(n)).astype(np.float32)
        return spec

    @functools.cached_property
    def span_rows(self) -> dict[tuple[int, int], int]:
        """(document index, sentence index) -> sentence row, built on first use."""
        return {(int(d), int(i)): r for r, (d, i) in enumerate(zip(self.sentence_doc.tolist(), self.sentence_idx.tolist()))}

    def row_of(self, document_id: str | None, version: int | None, sentence_index: int | None) -> int | None:
        """The sentence row of a span, or None when the graph does not hold it."""
        if document_id is None or version is None or sentence_index is None:
            return None
        d = self.doc_index.get((document_id, version))
        if d is None:
            return None
        return self.span_rows.get((d, sentence_index))
