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
    from graphrag.answer.actions import answer_question as answer_question
    from graphrag.answer.actions import viewer_overview as viewer_overview
    from graphrag.answer.ask import Asker as Asker
    from graphrag.answer.ask import AskOutcome as AskOutcome
    from graphrag.answer.entities import EntityView as EntityView
    from graphrag.answer.entities import opening_entity as opening_entity
    from graphrag.answer.entities import relation_counts as relation_counts
    from graphrag.answer.entities import search_entities as search_entities
    from graphrag.answer.entities import visible_entity as visible_entity
    from graphrag.answer.generate import GENERATORS as GENERATORS
    from graphrag.answer.overview import Overview as Overview
    from graphrag.answer.reader.read import stored_encoders as stored_encoders
    from graphrag.answer.retrieval.graph import KnowledgeGraph as KnowledgeGraph
    from graphrag.answer.retrieval.load import load_graph as load_graph
    from graphrag.answer.themes import ThemeView as ThemeView
    from graphrag.answer.themes import visible_themes as visible_themes
    from graphrag.model import (
        disagreement_from_json as disagreement_from_json,  # the codec sits by the record
    )
    from graphrag.model import disagreement_json as disagreement_json

__getattr__ = lazy_exports(__name__)
