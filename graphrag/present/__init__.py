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
    from graphrag.present.boards import CitedSource as CitedSource
    from graphrag.present.boards import ClaimReview as ClaimReview
    from graphrag.present.boards import GraphEntity as GraphEntity
    from graphrag.present.boards import ReviewBoard as ReviewBoard
    from graphrag.present.boards import ask_scope as ask_scope
    from graphrag.present.boards import changes_scope as changes_scope
    from graphrag.present.boards import cited_in_order as cited_in_order
    from graphrag.present.boards import cited_source as cited_source
    from graphrag.present.boards import claim_review as claim_review
    from graphrag.present.boards import graph_entity as graph_entity
    from graphrag.present.boards import review_board as review_board
    from graphrag.present.boards import review_items as review_items
    from graphrag.present.conflicts import Conflict as Conflict
    from graphrag.present.conflicts import possible_conflicts as possible_conflicts
    from graphrag.present.document_view import CitedDocument as CitedDocument
    from graphrag.present.document_view import DocumentHidden as DocumentHidden
    from graphrag.present.document_view import Highlight as Highlight
    from graphrag.present.document_view import open_cited_document as open_cited_document
    from graphrag.present.document_view import text_html as text_html
    from graphrag.present.outline import Block as Block
    from graphrag.present.outline import answer_blocks as answer_blocks
    from graphrag.present.outline import answer_html as answer_html
    from graphrag.present.outline import offers_themes as offers_themes
    from graphrag.present.page_kinds import KIND_COLOURS as KIND_COLOURS
    from graphrag.present.page_kinds import render_kinds as render_kinds
    from graphrag.present.pages import pages_to_show as pages_to_show
    from graphrag.present.pages import render_page as render_page
    from graphrag.present.reading import cited_words as cited_words
    from graphrag.present.reading import citing_claims as citing_claims
    from graphrag.present.reading import display_numbers as display_numbers
    from graphrag.present.reading import renumbered as renumbered
    from graphrag.present.rewrap import WRAP_LINES as WRAP_LINES
    from graphrag.present.serialize import VERBATIM as VERBATIM
    from graphrag.present.serialize import VERBATIM_CHECKS as VERBATIM_CHECKS
    from graphrag.present.serialize import answer_json as answer_json
    from graphrag.present.serialize import cited_keys as cited_keys
    from graphrag.present.serialize import closest_passages as closest_passages
    from graphrag.present.serialize import entity_json as entity_json
    from graphrag.present.serialize import is_verbatim as is_verbatim
    from graphrag.present.serialize import offers_scope as offers_scope
    from graphrag.present.serialize import quoted_documents as quoted_documents
    from graphrag.present.serialize import route_text as route_text
    from graphrag.present.serialize import status_words as status_words
    from graphrag.present.serialize import support_json as support_json
    from graphrag.present.sheets import AnswerSources as AnswerSources
    from graphrag.present.sheets import answer_sources as answer_sources
    from graphrag.present.sheets import checker_in_use as checker_in_use
    from graphrag.present.sheets import has_documents as has_documents
    from graphrag.present.sheets import route_steps as route_steps
    from graphrag.present.viz import neighbourhood as neighbourhood
    from graphrag.present.viz import neighbourhood_html as neighbourhood_html
    from graphrag.present.viz import route_height as route_height
    from graphrag.present.viz import route_html as route_html
    from graphrag.present.viz import route_list_html as route_list_html
    from graphrag.present.viz import shown_steps as shown_steps

__getattr__ = lazy_exports(__name__)
