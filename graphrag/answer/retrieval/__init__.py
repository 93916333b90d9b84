"""Retrieval: the knowledge graph in memory and what a question finds in it.

- ``records``: the small frozen records passed around (``DocVersion``, ``GraphMark``, ``Frontier``, ``Walk``,
  ``Reached``, ``Reach``);
- ``edges``: relations (``Edges``) and mentions (``Mentions``); ``vectors``: the growable vector matrices;
- ``graph``: ``KnowledgeGraph``, read by retrieval through its methods;
- ``load``: building the graph from a store, extending it after an ingest, one cached graph per store;
- ``index`` (a nearest-neighbour index over one vector matrix, faiss IVF) and ``indexed`` (a large graph's
  indexes, following it after an ingest and kept in files beside the store); ``scores`` (one question's
  similarity to the rows: every row at once below the size threshold, else the index's candidates and each row
  retrieval reads);
- ``walk``: the bounded relevance-guided walk (a ``Walk`` per entity) and what it reached per sentence
  (a ``Reach``);
- ``anchors`` (the entities a question names), ``seeds`` (similarity seeds when it names none), ``context``
  (ranking, fusion, spreading, the numbered items), ``rivals`` (the other side of a disagreement);
- ``retrieve``: the use of all of them for one question (``retrieve``, ``retrieve_vector``, ``Retrieval``).

Import the names below from ``graphrag.answer.retrieval``; each is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.registry import lazy_exports

if TYPE_CHECKING:
    from graphrag.answer.retrieval.anchors import find_anchors
    from graphrag.answer.retrieval.graph import KnowledgeGraph
    from graphrag.answer.retrieval.load import build_graph, load_graph
    from graphrag.answer.retrieval.records import DocVersion, Frontier, Reach, Reached, Walk
    from graphrag.answer.retrieval.retrieve import Retrieval, clean_question, retrieve, retrieve_vector

_EXPORTS = {
    "DocVersion": "graphrag.answer.retrieval.records",
    "Frontier": "graphrag.answer.retrieval.records",
    "KnowledgeGraph": "graphrag.answer.retrieval.graph",
    "Reach": "graphrag.answer.retrieval.records",
    "Reached": "graphrag.answer.retrieval.records",
    "Retrieval": "graphrag.answer.retrieval.retrieve",
    "Walk": "graphrag.answer.retrieval.records",
    "build_graph": "graphrag.answer.retrieval.load",
    "clean_question": "graphrag.answer.retrieval.retrieve",
    "find_anchors": "graphrag.answer.retrieval.anchors",
    "load_graph": "graphrag.answer.retrieval.load",
    "retrieve": "graphrag.answer.retrieval.retrieve",
    "retrieve_vector": "graphrag.answer.retrieval.retrieve",
}

__all__ = [
    "DocVersion",
    "Frontier",
    "KnowledgeGraph",
    "Reach",
    "Reached",
    "Retrieval",
    "Walk",
    "build_graph",
    "clean_question",
    "find_anchors",
    "load_graph",
    "retrieve",
    "retrieve_vector",
]

__getattr__ = lazy_exports(__name__, _EXPORTS)
