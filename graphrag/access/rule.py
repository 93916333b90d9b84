"""Who may see what: the visibility rule for documents and for everything an answer shows.

A document version is visible to a viewer who holds one of its access labels (and, unless
asked for, only when it is current). An answer shows more than its context sentences: the
routes beside each citation follow relations, each stated by a sentence of some document, and
start at seed entities found in some document. An answer is shown to a viewer only when all
of that is visible to them; otherwise it is withheld whole (see ``answer_visible``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from graphrag.errors import GraphRAGError
from graphrag.model import Answer, AnswerStatus, Route

DocKey = tuple[str, int]  # (document id, version)


@dataclass(frozen=True)
class Access:
    """A viewer's access: labels, and whether superseded versions count as visible."""

    labels: frozenset[str]
    include_superseded: bool = False

    @classmethod
    def of(cls, labels: Iterable[str], include_superseded: bool = False) -> Access:
        """An access from any iterable of labels."""
        return cls(frozenset(labels), include_superseded)

    def sees(self, labels: Iterable[str], superseded: bool = False) -> bool:
        """A document version with these labels (and superseded state) is visible."""
        return bool(self.labels.intersection(labels)) and (self.include_superseded or not superseded)

    def holds(self, labels: Iterable[str]) -> bool:
        """Every one of ``labels`` is the viewer's: whatever carries any of them is visible to them."""
        return set(labels) <= self.labels


@dataclass(frozen=True)
class Footprint:
    """Everything of the store that an answer shows, as references.

    ``documents``: the document versions of its context sentences and of every route step's
    sentence (a co-mention step has no relation, only its sentence); ``relations``: every
    relation a stored route follows (context routes and the walk's reached routes); ``seeds``:
    entities the routes start from, whose names are shown.
    """

    documents: frozenset[DocKey]
    relations: frozenset[int]
    seeds: frozenset[str]
    # A withdrawn answer (a document it drew on was removed) keeps no references; it is shown to
    # a viewer who holds every label it was asked with, which covered everything it showed.
    withdrawn_labels: frozenset[str] | None = None


def _route_refs(routes: Iterable[Route]) -> tuple[set[int], set[str], set[DocKey]]:
    rels: set[int] = set()
    seeds: set[str] = set()
    docs: set[DocKey] = set()
    for r in routes:
        if r.seed:
            seeds.add(r.seed)
        for s in r.steps:
            if s.relation_id is not None:
                rels.add(s.relation_id)
            if s.document_id is not None and s.version is not None:
                docs.add((s.document_id, s.version))
    return rels, seeds, docs


def footprint(answer: Answer) -> Footprint:
    """Everything ``answer`` shows (documents, routes, entities) that a viewer must be able to see."""
    if answer.status == AnswerStatus.WITHDRAWN:
        return withdrawn_footprint(answer.settings.access)
    return footprint_of_routes(((c.span.document_id, c.span.version) for c in answer.context),
                               [*(c.route for c in answer.context), *answer.reached],
                               (s.entity for s in answer.seeds))


def footprint_of_routes(documents: Iterable[DocKey], routes: Iterable[Route], seeds: Iterable[str]) -> Footprint:
    """What an answer shows, from its context documents, its stored routes and its seeds."""
    rels, route_seeds, step_docs = _route_refs(routes)
    return Footprint(frozenset(documents) | frozenset(step_docs), frozenset(rels),
                     frozenset(route_seeds | set(seeds)))


def withdrawn_footprint(asked_with: Iterable[str]) -> Footprint:
    """The footprint of a withdrawn answer: nothing but the labels it was asked with."""
    return Footprint(frozenset(), frozenset(), frozenset(), frozenset(asked_with))


@dataclass(frozen=True)
class Sources:
    """Where the store's pieces come from, for resolving footprints: read from the store."""

    labels: Mapping[DocKey, frozenset[str]]  # every document version's access labels
    relation_docs: Mapping[int, DocKey]  # relation id -> the document version that states it
    entity_docs: Mapping[str, frozenset[DocKey]]  # entity key -> document versions that mention it


def answer_visible(fp: Footprint, access: Access, sources: Sources) -> bool:
    """Withhold, don't redact: an answer is visible only when every context sentence, every
    relation on its routes and at least one mention of every seed is visible to the viewer.

    Redacting a hidden step would still show that the answer's evidence was reached through
    something the viewer cannot see, and the entity behind it; withholding shows nothing. A
    piece that no longer exists hides the answer too; an answer withdrawn because a document it
    drew on was removed is shown (its question, scores and verdicts) to a viewer who holds every
    label it was asked with.
    """
    if fp.withdrawn_labels is not None:
        return fp.withdrawn_labels <= access.labels
    def doc_ok(key: DocKey) -> bool:
        labels = sources.labels.get(key)
        return labels is not None and access.sees(labels)

    if not all(doc_ok(d) for d in fp.documents):
        return False
    for rel in fp.relations:
        doc = sources.relation_docs.get(rel)
        if doc is None or not doc_ok(doc):
            return False
    return all(any(doc_ok(d) for d in sources.entity_docs.get(seed, ())) for seed in fp.seeds)


# --- who may write a document version ---------------------------------------------------------------------------


class IngestRefused(GraphRAGError):
    """A document version the actor may not store (see ``ingest_refusal``); the message says why."""


def ingest_refusal(held: frozenset[str] | None, doc_id: str, labels: Iterable[str],
                   current: Iterable[str] | None, target: Iterable[str] | None = None) -> str | None:
    """Why an actor holding ``held`` may not store ``doc_id`` with ``labels``, or None when they may: the one rule
    every ingest path (folder, upload, command line, Python) applies, before extracting and again inside the
    write's transaction.

    ``held`` None is the store's own access (the command line or Python with no labels given, a local dashboard):
    nothing is refused. Otherwise the actor may give only labels they hold, and may add a version to, or relabel,
    only a document whose current version (``current``: its labels, None for a new id) they can see; a relabel's
    ``target`` (the stored version holding the same content) must be visible too. The reason names no hidden
    version, title or label: only the id, which the actor gave.
    """
    if held is None:
        return None
    given = set(labels)
    foreign = sorted(given - held)
    if foreign:
        return (f"not stored: you may give only labels you hold ({', '.join(sorted(held)) or 'none'}); "
                f"{doc_id!r} would get {', '.join(foreign)}")
    sees = Access.of(held, include_superseded=True)
    if any(stored is not None and not sees.sees(stored) for stored in (current, target)):
        return (f"not stored: {doc_id!r} is the id of a document your labels do not show; a new version or new "
                "labels for it need someone who can see it (or give this file another id)")
    return None
