"""The old place of the knowledge graph, now in ``graphrag.answer.retrieval`` (``graph``, ``load``, ``edges``,
``records``). Kept only for importers that other work in progress still holds (the pages, the CLI's ask, the
overview, the generators and the tests); new code imports ``graphrag.answer`` or ``graphrag.answer.retrieval``."""

from __future__ import annotations

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.load import build_graph, load_graph
from graphrag.answer.retrieval.records import DocVersion

__all__ = ["DocVersion", "KnowledgeGraph", "build_graph", "load_graph"]
