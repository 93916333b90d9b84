"""Read models of the Ask, Graph, Record and Ingest pages, beside ``boards`` (the Review page's): each takes
``(store, viewer, config)`` like every use case, reads the store for the page and writes nothing, so a page file
never reads the store itself. Tested without a page (tests/unit/present/test_sheets.py).

- ``answer_sources``: what the Ask page names of an answer's sources (each document's title, each cited sentence's
  place on its page, the entities' display names).
- ``route_steps``: a route's steps as the Graph page draws them, steps from documents the viewer cannot see left
  unread.
- ``has_documents``: whether the store holds any document yet (the Ask and Ingest pages' empty-store notice).
- ``checker_in_use``: the team's support checker version the Record page names (None: the shipped one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphrag.access.identity import Viewer
from graphrag.access.rule import Access
from graphrag.config import Config
from graphrag.model import Answer, Document, Route, Span, SpanLayout
from graphrag.present.serialize import closest_passages, quoted_documents
from graphrag.present.viz import ShownStep, shown_steps

if TYPE_CHECKING:
    from graphrag.store import Store

Version = tuple[str, int]  # (document id, version)
Place = tuple[str, int, int]  # (document id, version, sentence index)


@dataclass(frozen=True)
class AnswerSources:
    """The sources one answer names, as the Ask page shows them."""

    documents: dict[Version, Document | None]  # every document version the answer cites or offers as a passage
    layouts: dict[Place, SpanLayout | None]  # each cited sentence's pages and headings (None: plain text)
    names: dict[str, str]  # entity key -> display name, for its seeds and routes

    def title(self, document_id: str, version: int) -> str:
        """The document's title, else its id (a version gone since the answer)."""
        doc = self.documents.get((document_id, version))
        return doc.title if doc else document_id

    def layout(self, span: Span) -> SpanLayout | None:
        """Where the cited ``span`` sits on its page; None for plain text or a sentence not cited."""
        return self.layouts.get((span.document_id, span.version, span.sentence_index))


def answer_sources(store: Store, viewer: Viewer, config: Config, answer: Answer) -> AnswerSources:
    """The sources of ``answer``, which the page has checked ``viewer`` may see (``verify.visible_to``): a visible
    answer's sources are all visible to them."""
    cited = [c.item.span for cl in answer.claims for c in cl.citations if c.item is not None]
    versions = dict.fromkeys([*((sp.document_id, sp.version) for sp in cited),
                              *((c.span.document_id, c.span.version) for c in closest_passages(answer)),
                              *quoted_documents(answer)])
    places = [(sp.document_id, sp.version, sp.sentence_index) for sp in cited]
    layouts = store.span_layouts(places)
    return AnswerSources({v: store.document(*v) for v in versions}, {p: layouts.get(p) for p in places},
                         store.entity_names())


def route_steps(store: Store, viewer: Viewer, config: Config, route: Route) -> list[ShownStep]:
    """The steps of ``route`` as drawn for ``viewer``: superseded versions shown (marked), a step whose document
    their labels do not show is never read."""
    reader = Access.of(viewer.labels, include_superseded=True)

    def visible(doc_id: str, version: int) -> bool:
        acc = store.access_of(doc_id, version)
        return acc is not None and reader.sees(*acc)

    return shown_steps(route, store.span, visible=visible)


def has_documents(store: Store, viewer: Viewer, config: Config) -> bool:
    """Whether the store holds any document version, whoever may see it: an empty store asks for an ingest, a
    store whose documents this viewer cannot see asks for labels (the pages say which)."""
    return bool(store.counts()["versions"])


def checker_in_use(store: Store, viewer: Viewer, config: Config) -> int | None:
    """The version of the team's support checker new scores use; None: the shipped parameters."""
    active = store.active_checker()
    return active.version if active else None
