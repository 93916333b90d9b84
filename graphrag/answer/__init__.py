"""Answering a question from the documents a viewer may see: retrieval (``retrieval``: the knowledge graph held in
memory, the entities a question names, the walk and the context), the generators that write the answer (``generate``) and the
sentence ranker they use (``rank``), one entity as a viewer sees it (``entities``), the store's sizes as a viewer
may see them (``overview``), the pipeline that runs them all and stores the answer (``ask``: ``Asker``), and the use case a
surface calls with the viewer who asks (``actions``: ``answer_question``, ``viewer_overview``). It stands on ``graphrag.verify`` (claims, citations,
disagreements and the support checkers) and on the language floor (``graphrag.language``).

Import the names below from ``graphrag.answer``; each is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.registry import lazy_exports

if TYPE_CHECKING:
    from graphrag.answer.actions import answer_question, viewer_overview
    from graphrag.answer.ask import Asker, AskOutcome
    from graphrag.answer.entities import (
        EntityView,
        opening_entity,
        relation_counts,
        search_entities,
        visible_entity,
    )
    from graphrag.answer.generate import GENERATORS
    from graphrag.answer.overview import Overview
    from graphrag.answer.reader.read import stored_encoders
    from graphrag.answer.retrieval.graph import KnowledgeGraph
    from graphrag.answer.retrieval.load import load_graph
    from graphrag.answer.themes import ThemeView, visible_themes
    from graphrag.model import disagreement_from_json, disagreement_json

# Name -> the module that defines it. Imported on first use, so importing the package (or one of its
# modules) loads nothing else and no import cycle can run through this door.
_EXPORTS = {
    "AskOutcome": "graphrag.answer.ask",
    "Asker": "graphrag.answer.ask",
    "EntityView": "graphrag.answer.entities",
    "GENERATORS": "graphrag.answer.generate",
    "KnowledgeGraph": "graphrag.answer.retrieval.graph",
    "Overview": "graphrag.answer.overview",
    "disagreement_from_json": "graphrag.model",  # the codec sits beside the record (the store uses it)
    "disagreement_json": "graphrag.model",
    "answer_question": "graphrag.answer.actions",
    "load_graph": "graphrag.answer.retrieval.load",
    "ThemeView": "graphrag.answer.themes",
    "visible_themes": "graphrag.answer.themes",
    "opening_entity": "graphrag.answer.entities",
    "relation_counts": "graphrag.answer.entities",
    "search_entities": "graphrag.answer.entities",
    "stored_encoders": "graphrag.answer.reader.read",
    "viewer_overview": "graphrag.answer.actions",
    "visible_entity": "graphrag.answer.entities",
}

__all__ = [
    "GENERATORS",
    "AskOutcome",
    "Asker",
    "EntityView",
    "KnowledgeGraph",
    "Overview",
    "ThemeView",
    "answer_question",
    "disagreement_from_json",
    "disagreement_json",
    "load_graph",
    "opening_entity",
    "relation_counts",
    "search_entities",
    "stored_encoders",
    "viewer_overview",
    "visible_entity",
    "visible_themes",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)
