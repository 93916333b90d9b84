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
- ``retrieve``: the use of all of them for one question (``retrieve``, ``retrieve_vector``, ``Retrieval``; the
  function ``retrieve`` is imported from its module: the door cannot hand out a name its module shadows).

Import the names below from ``graphrag.answer.retrieval``; each is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.registry import lazy_exports

if TYPE_CHECKING:
    from graphrag.answer.retrieval.anchors import find_anchors as find_anchors
    from graphrag.answer.retrieval.graph import KnowledgeGraph as KnowledgeGraph
    from graphrag.answer.retrieval.load import build_graph as build_graph
    from graphrag.answer.retrieval.load import load_graph as load_graph
    from graphrag.answer.retrieval.records import DocVersion as DocVersion
    from graphrag.answer.retrieval.records import Frontier as Frontier
    from graphrag.answer.retrieval.records import Reach as Reach
    from graphrag.answer.retrieval.records import Reached as Reached
    from graphrag.answer.retrieval.records import Walk as Walk
    from graphrag.answer.retrieval.retrieve import Retrieval as Retrieval
    from graphrag.answer.retrieval.retrieve import clean_question as clean_question
    from graphrag.answer.retrieval.retrieve import retrieve_vector as retrieve_vector

__getattr__ = lazy_exports(__name__)
