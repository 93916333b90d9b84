"""Presenting what the core holds: answers, entities and routes as JSON (``serialize``), route and neighbourhood
drawings (``viz``), page images of PDF sources (``pages``), the cited document opened in the browser (``document_view``: the only way its bytes reach a page) and an answer's markers in reading order with the
words a claim takes from its source (``reading``), and the read models the pages draw (``boards``: the Review
page's frame, one claim and its cited source, the Ask page's scope, the Graph page's entity, each built for one
viewer; ``sheets``: the Ask, Graph, Record and Ingest pages' reads; ``conflicts``, the review's possible-conflict heuristic). Nothing here writes or holds the store's rules;
it turns records into what a surface shows.

Import the names below from ``graphrag.present``; each is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.registry import lazy_exports

if TYPE_CHECKING:
    from graphrag.present.boards import (
        CitedSource,
        ClaimReview,
        GraphEntity,
        ReviewBoard,
        ask_scope,
        changes_scope,
        cited_in_order,
        cited_source,
        claim_review,
        graph_entity,
        review_board,
        review_items,
    )
    from graphrag.present.conflicts import Conflict, possible_conflicts
    from graphrag.present.document_view import (
        CitedDocument,
        DocumentHidden,
        Highlight,
        open_cited_document,
        text_html,
    )
    from graphrag.present.outline import Block, answer_blocks, answer_html, offers_themes
    from graphrag.present.page_kinds import KIND_COLOURS, render_kinds
    from graphrag.present.pages import pages_to_show, render_page
    from graphrag.present.reading import cited_words, citing_claims, display_numbers, renumbered
    from graphrag.present.rewrap import WRAP_LINES
    from graphrag.present.serialize import (
        VERBATIM,
        VERBATIM_CHECKS,
        answer_json,
        cited_keys,
        closest_passages,
        entity_json,
        is_verbatim,
        offers_scope,
        quoted_documents,
        route_text,
        support_json,
    )
    from graphrag.present.sheets import (
        AnswerSources,
        answer_sources,
        checker_in_use,
        has_documents,
        route_steps,
    )
    from graphrag.present.viz import (
        neighbourhood,
        neighbourhood_html,
        route_height,
        route_html,
        route_list_html,
        shown_steps,
    )

# Name -> the module that defines it. Imported on first use, so importing the package (or one of its
# modules) loads nothing else and no import cycle can run through this door.
_EXPORTS = {
    "ClaimReview": "graphrag.present.boards",
    "CitedSource": "graphrag.present.boards",
    "GraphEntity": "graphrag.present.boards",
    "ReviewBoard": "graphrag.present.boards",
    "ask_scope": "graphrag.present.boards",
    "changes_scope": "graphrag.present.boards",
    "cited_source": "graphrag.present.boards",
    "claim_review": "graphrag.present.boards",
    "graph_entity": "graphrag.present.boards",
    "review_board": "graphrag.present.boards",
    "review_items": "graphrag.present.boards",
    "AnswerSources": "graphrag.present.sheets",
    "answer_sources": "graphrag.present.sheets",
    "checker_in_use": "graphrag.present.sheets",
    "has_documents": "graphrag.present.sheets",
    "route_steps": "graphrag.present.sheets",
    "Conflict": "graphrag.present.conflicts",
    "CitedDocument": "graphrag.present.document_view",
    "DocumentHidden": "graphrag.present.document_view",
    "Highlight": "graphrag.present.document_view",
    "open_cited_document": "graphrag.present.document_view",
    "text_html": "graphrag.present.document_view",
    "possible_conflicts": "graphrag.present.conflicts",
    "KIND_COLOURS": "graphrag.present.page_kinds",
    "render_kinds": "graphrag.present.page_kinds",
    "VERBATIM": "graphrag.present.serialize",
    "VERBATIM_CHECKS": "graphrag.present.serialize",
    "answer_json": "graphrag.present.serialize",
    "Block": "graphrag.present.outline",
    "answer_blocks": "graphrag.present.outline",
    "answer_html": "graphrag.present.outline",
    "offers_themes": "graphrag.present.outline",
    "cited_words": "graphrag.present.reading",
    "citing_claims": "graphrag.present.reading",
    "display_numbers": "graphrag.present.reading",
    "renumbered": "graphrag.present.reading",
    "cited_keys": "graphrag.present.serialize",
    "closest_passages": "graphrag.present.serialize",
    "offers_scope": "graphrag.present.serialize",
    "quoted_documents": "graphrag.present.serialize",
    "entity_json": "graphrag.present.serialize",
    "is_verbatim": "graphrag.present.serialize",
    "neighbourhood": "graphrag.present.viz",
    "neighbourhood_html": "graphrag.present.viz",
    "pages_to_show": "graphrag.present.pages",
    "render_page": "graphrag.present.pages",
    "WRAP_LINES": "graphrag.present.rewrap",
    "route_height": "graphrag.present.viz",
    "route_html": "graphrag.present.viz",
    "route_list_html": "graphrag.present.viz",
    "cited_in_order": "graphrag.present.boards",
    "route_text": "graphrag.present.serialize",
    "shown_steps": "graphrag.present.viz",
    "support_json": "graphrag.present.serialize",
}

__all__ = [
    "KIND_COLOURS",
    "VERBATIM",
    "VERBATIM_CHECKS",
    "WRAP_LINES",
    "AnswerSources",
    "Block",
    "CitedDocument",
    "CitedSource",
    "ClaimReview",
    "Conflict",
    "DocumentHidden",
    "GraphEntity",
    "Highlight",
    "ReviewBoard",
    "answer_blocks",
    "answer_html",
    "answer_json",
    "answer_sources",
    "ask_scope",
    "changes_scope",
    "checker_in_use",
    "cited_in_order",
    "cited_keys",
    "cited_source",
    "cited_words",
    "citing_claims",
    "claim_review",
    "closest_passages",
    "display_numbers",
    "entity_json",
    "graph_entity",
    "has_documents",
    "is_verbatim",
    "neighbourhood",
    "neighbourhood_html",
    "offers_scope",
    "offers_themes",
    "open_cited_document",
    "pages_to_show",
    "possible_conflicts",
    "quoted_documents",
    "render_kinds",
    "render_page",
    "renumbered",
    "review_board",
    "review_items",
    "route_height",
    "route_html",
    "route_list_html",
    "route_steps",
    "route_text",
    "shown_steps",
    "support_json",
    "text_html",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)
