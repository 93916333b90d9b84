"""Documents (every version), their sentences, and the ingest log.

``write_document`` is the one transaction that adds a version with everything extracted from
it; its first statement bumps the graph generation, which also serialises concurrent document
writers on PostgreSQL (the meta row is locked until commit), so two ingests of one id never
compute the same next version. It also records that this commit only added (``mark_append``),
so a graph held in memory can apply the new rows instead of reloading everything.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import Connection, bindparam, text

from graphrag.access.identity import library_viewer
from graphrag.model import PUBLIC, AuditEvent, Document, Span
from graphrag.store import audit, layout, passage_vectors
from graphrag.store.codec import blob, document, now
from graphrag.store.layout import LayoutWrite


class SentenceRow(NamedTuple):
    """A sentence to store: its character offsets and text."""

    start: int
    end: int
    text: str


class EntityRow(NamedTuple):
    """An entity to store: key, display name and type."""

    key: str
    name: str
    type: str


class MentionRow(NamedTuple):
    """A mention to store: the entity key, the sentence index, a description and whether it is implied."""

    key: str
    sentence: int
    description: str
    implied: bool


class RelationRow(NamedTuple):
    """A relation to store: source and target keys, type, description and the sentence index."""

    source: str
    target: str
    type: str
    description: str
    sentence: int


# (current version or None for a new id, the stored version a relabel changes or None): raises to refuse.
Guard = Callable[[Document | None, Document | None], None]


@dataclass(frozen=True)
class DocumentWrite:
    """Everything one document version adds, written in one transaction. The rows are named
    tuples; plain tuples in the same field order are accepted too (callers written before)."""

    document: Document
    extractor: str
    status: str
    sentences: Sequence[SentenceRow]
    sentence_vectors: np.ndarray | None
    entities: Sequence[EntityRow]
    entity_vectors: dict[str, np.ndarray]
    mentions: Sequence[MentionRow]
    relations: Sequence[RelationRow]
    layout: LayoutWrite | None = None  # PDF/HTML/DOCX provenance, written in the same transaction
    # Called under the writers' lock, before anything is written, to refuse the write by raising (the ingest's access
    # rule), so no other writer can come between the check and the write: see ``Guard``.
    guard: Guard | None = None
    # Who writes it: the audit row of a narrowing this version brings to the older ones (see ``write``).
    actor: AuditEvent | None = None
    # The reader's second view of each sentence (``graphrag.store.passage_vectors``) and the model that made it (the
    # answer scorer's vectors are written by the questions that read them, or ``graphrag store passages``).
    passage_vectors: np.ndarray | None = None
    passage_model: str = ""


class Written(int):
    """The version ``write`` stored (an int, as callers read it), with the older versions whose labels the new ones
    narrowed (``narrowed``) or left as they were (``kept``)."""

    narrowed: tuple[int, ...]
    kept: tuple[int, ...]

    def __new__(cls, version: int, narrowed: Sequence[int] = (), kept: Sequence[int] = ()) -> Written:
        """``version`` with what its labels did to the older versions."""
        written = super().__new__(cls, version)
        written.narrowed, written.kept = tuple(narrowed), tuple(kept)
        return written

    @property
    def version(self) -> int:
        """The version number, as a plain int."""
        return int(self)


_BUMP = text("UPDATE meta SET value=CAST(CAST(value AS INTEGER)+1 AS TEXT) WHERE key='generation'")
_LOG = text("INSERT INTO ingest_log (doc_id, path, sha256, status, error, at) "
            "VALUES (:doc_id, :path, :sha256, :status, :error, :at)")


def bump_generation(c: Connection) -> None:
    """Move the generation counter; also the lock that orders concurrent document writers."""
    c.execute(_BUMP)


_MARKS = text("SELECT key, value FROM meta WHERE key IN ('generation', 'appends_from', 'appends_to')")
_SET_META = text("INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE SET value=excluded.value")


def mark_append(c: Connection) -> None:
    """After ``bump_generation``, in the same transaction: this commit only adds a document version
    (marking earlier versions of its id superseded). Every commit from generation ``appends_from``
    (exclusive) to ``appends_to`` (inclusive) was such an addition; any other commit bumps the
    generation without extending the run, so a reader that finds ``appends_to`` behind the
    generation knows something else changed (a removal, a rewrite) and reloads everything."""
    marks = {k: int(v) for k, v in c.execute(_MARKS)}
    gen = marks["generation"]
    start = marks["appends_from"] if marks.get("appends_to") == gen - 1 and "appends_from" in marks else gen - 1
    c.execute(_SET_META, [{"k": "appends_from", "v": str(start)}, {"k": "appends_to", "v": str(gen)}])


def append_run(c: Connection) -> tuple[int, int | None, int | None]:
    """(generation, appends_from, appends_to), see ``mark_append``."""
    marks = {k: int(v) for k, v in c.execute(_MARKS)}
    return marks.get("generation", 0), marks.get("appends_from"), marks.get("appends_to")


def generation(c: Connection) -> int:
    """The generation counter; 0 before any write."""
    v = c.execute(GENERATION).scalar()
    return int(v) if v is not None else 0


# The stored versions of an id as records without their text (a write reads only their labels).
_VERSIONS_NO_TEXT = text("SELECT doc_id, version, title, '' AS text, sha256, effective_date, access, path, superseded "
                         "FROM documents WHERE doc_id=:d ORDER BY version")


def write(c: Connection, w: DocumentWrite, public: str = PUBLIC) -> Written:
    """Write one document version with its sentences, entities, mentions, relations and layout; returns the
    version number (the existing one when the content is unchanged) and the older versions it narrowed.

    A new version's labels reach every older version where they narrow who may see it (``narrows``): old text must
    not stay readable, as a superseded version, under labels the document no longer has. A broadening is for the
    new text only. A narrowing is audited (``relabel``) in this transaction and the write is then no mere append,
    so every in-memory graph reloads the labels."""
    d = w.document
    bump_generation(c)  # first: the lock that orders concurrent document writers
    # Identical content is a no-op even when two instances ingest the same file at once: each
    # checked before extracting, but only here, after the lock, is the other's commit visible.
    same = c.execute(text("SELECT MAX(version) FROM documents WHERE doc_id=:d AND sha256=:h"),
                     {"d": d.id, "h": d.sha256}).scalar()
    if same is not None:
        mark_append(c)  # nothing changed but the counter
        return Written(int(same))
    older = [document(r) for r in c.execute(_VERSIONS_NO_TEXT, {"d": d.id}).mappings()]
    if w.guard is not None:
        w.guard(older[-1] if older else None, None)
    version = last_version(c, d.id) + 1
    labels = sorted(set(d.access))
    differ = [o for o in older if set(o.access) != set(labels)]
    narrowed = tuple(o.version for o in differ if narrows(o.access, labels, public))
    kept = tuple(o.version for o in differ if o.version not in narrowed)
    if not narrowed:
        mark_append(c)
    c.execute(text("UPDATE documents SET superseded=1 WHERE doc_id=:d"), {"d": d.id})
    c.execute(text(
        "INSERT INTO documents (doc_id, version, title, effective_date, access, sha256, text, path, superseded, "
        "status, extractor, ingested_at) VALUES (:doc_id, :version, :title, :effective_date, :access, :sha256, "
        ":text, :path, 0, :status, :extractor, :at)"),
        {"doc_id": d.id, "version": version, "title": d.title, "effective_date": d.effective_date,
         "access": json.dumps(list(d.access)), "sha256": d.sha256, "text": d.text, "path": d.path,
         "status": w.status, "extractor": w.extractor, "at": now()})
    if narrowed:
        c.execute(text("UPDATE documents SET access=:a WHERE doc_id=:d AND version=:v"),
                  [{"a": json.dumps(labels), "d": d.id, "v": v} for v in narrowed])
        event = w.actor or audit.event(library_viewer(), audit.AuditKind.RELABEL)
        audit.add(c, replace(event, event=audit.AuditKind.RELABEL, detail={
            **event.detail, "doc_id": d.id, "version": version, "with_new_version": True,
            "to": {"access": labels},
            "narrowed": [{"version": o.version, "from": {"access": list(o.access)}}
                         for o in differ if o.version in narrowed],
            "also_narrowed": list(narrowed), "kept_labels": list(kept)}))
    vecs = w.sentence_vectors
    if w.sentences:
        c.execute(text('INSERT INTO sentences (doc_id, version, idx, start, "end", text, vector) '
                       "VALUES (:doc_id, :version, :idx, :start, :end, :text, :vector)"),
                  [{"doc_id": d.id, "version": version, "idx": i, "start": s.start, "end": s.end, "text": s.text,
                    "vector": None if vecs is None else blob(vecs[i])}
                   for i, s in enumerate(map(SentenceRow._make, w.sentences))])
    if w.sentences and w.passage_vectors is not None and w.passage_model:
        passage_vectors.put(c, w.passage_model, [((d.id, version, i), w.passage_vectors[i])
                                                 for i in range(len(w.sentences))])
    if w.entities:
        # sorted: concurrent writers touch shared entity rows in one order (no deadlock on PostgreSQL)
        c.execute(text("INSERT INTO entities (key, name, type, vector) VALUES (:key, :name, :type, :vector) "
                       "ON CONFLICT (key) DO UPDATE SET vector=COALESCE(entities.vector, excluded.vector)"),
                  [{"key": e.key, "name": e.name, "type": e.type, "vector": blob(w.entity_vectors.get(e.key))}
                   for e in sorted(map(EntityRow._make, w.entities))])
    if w.mentions:
        c.execute(text("INSERT INTO mentions (entity_key, doc_id, version, sentence_idx, description, extractor, "
                       "implied) VALUES (:k, :doc_id, :version, :s, :desc, :extractor, :implied)"),
                  [{"k": m.key, "doc_id": d.id, "version": version, "s": m.sentence, "desc": m.description,
                    "extractor": w.extractor, "implied": int(m.implied)} for m in map(MentionRow._make, w.mentions)])
    if w.relations:
        c.execute(text("INSERT INTO relations (source_key, target_key, type, description, doc_id, version, "
                       "sentence_idx, extractor) VALUES (:s, :t, :ty, :desc, :doc_id, :version, :si, :extractor)"),
                  [{"s": r.source, "t": r.target, "ty": r.type, "desc": r.description, "doc_id": d.id,
                    "version": version, "si": r.sentence, "extractor": w.extractor}
                   for r in map(RelationRow._make, w.relations)])
    if w.layout is not None:
        layout.write(c, d.id, version, w.layout)
    c.execute(_LOG, {"doc_id": d.id, "path": d.path, "sha256": d.sha256, "status": w.status, "error": None,
                     "at": now()})
    return Written(version, narrowed, kept)


def last_version(c: Connection, doc_id: str) -> int:
    """The highest version this id ever had, removed versions included: a version number is never
    given twice, so a verdict on a removed version never seems to judge a later text."""
    return int(c.execute(text("SELECT MAX(v) FROM (SELECT MAX(version) AS v FROM documents WHERE doc_id=:d "
                              "UNION ALL SELECT MAX(version) AS v FROM removals WHERE doc_id=:d) AS both_"),
                         {"d": doc_id}).scalar() or 0)


def log(c: Connection, doc_id: str, path: str | None, sha256: str | None, status: str, error: str | None) -> None:
    """Append a line to the ingest log."""
    c.execute(_LOG, {"doc_id": doc_id, "path": path, "sha256": sha256, "status": status, "error": error,
                     "at": now()})


def current(c: Connection, doc_id: str) -> Document | None:
    """The newest version of ``doc_id``, or None."""
    r = c.execute(text("SELECT * FROM documents WHERE doc_id=:d ORDER BY version DESC LIMIT 1"),
                  {"d": doc_id}).mappings().first()
    return document(r) if r else None


def one(c: Connection, doc_id: str, version: int) -> Document | None:
    """This version of ``doc_id``, or None."""
    r = c.execute(text("SELECT * FROM documents WHERE doc_id=:d AND version=:v"),
                  {"d": doc_id, "v": version}).mappings().first()
    return document(r) if r else None


def with_content(c: Connection, doc_id: str, sha256: str) -> Document | None:
    """The newest version of ``doc_id`` with this content hash, or None."""
    r = c.execute(text("SELECT * FROM documents WHERE doc_id=:d AND sha256=:h ORDER BY version DESC LIMIT 1"),
                  {"d": doc_id, "h": sha256}).mappings().first()
    return document(r) if r else None


def all_documents(c: Connection, include_superseded: bool) -> list[Document]:
    """Every document version (or only current ones), by id and version."""
    sql = "SELECT * FROM documents" + ("" if include_superseded else " WHERE superseded=0")
    return [document(r) for r in c.execute(text(sql + " ORDER BY doc_id, version")).mappings()]


def version_labels(c: Connection) -> dict[tuple[str, int], tuple[str, ...]]:
    """Every stored version's access labels, by (document id, version), without their text."""
    return {(d, int(v)): tuple(json.loads(a)) for d, v, a in c.execute(text(
        "SELECT doc_id, version, access FROM documents"))}


ACCESS = text("SELECT access, superseded FROM documents WHERE doc_id=:d AND version=:v")
SPAN = text('SELECT start, "end", text FROM sentences WHERE doc_id=:d AND version=:v AND idx=:i')
GENERATION = text("SELECT value FROM meta WHERE key='generation'")


def access_of(rows: list[tuple[Any, ...]]) -> tuple[tuple[str, ...], bool] | None:
    """From the rows of ``_ACCESS`` (read through ``Database.fetch``, a hot path)."""
    return (tuple(json.loads(rows[0][0])), bool(rows[0][1])) if rows else None


def sentences(c: Connection, doc_id: str, version: int, first: int = 0, last: int | None = None) -> list[Span]:
    """The sentences of a document version with index ``first`` to ``last`` (both included; None: to the end),
    in order."""
    upto = "" if last is None else " AND idx <= :hi"
    rows = c.execute(text('SELECT idx, start, "end", text FROM sentences WHERE doc_id=:d AND version=:v '
                          f"AND idx >= :lo{upto} ORDER BY idx"), {"d": doc_id, "v": version, "lo": first, "hi": last})
    return [Span(doc_id, version, idx, s, e, t) for idx, s, e, t in rows]


def span(rows: list[tuple[Any, ...]], doc_id: str, version: int, idx: int) -> Span | None:
    """From the rows of ``_SPAN`` (read through ``Database.fetch``, a hot path)."""
    return Span(doc_id, version, idx, rows[0][0], rows[0][1], rows[0][2]) if rows else None


_KEYS_WITH_VECTOR = text("SELECT key FROM entities WHERE vector IS NOT NULL AND key IN :keys").bindparams(
    bindparam("keys", expanding=True))


def existing_entity_keys(c: Connection, keys: Iterable[str]) -> set[str]:
    """Keys already stored with a vector (so their embedding is not computed again)."""
    wanted = sorted(set(keys))
    found: set[str] = set()
    for i in range(0, len(wanted), 500):
        found.update(c.execute(_KEYS_WITH_VECTOR, {"keys": wanted[i:i + 500]}).scalars())
    return found


@dataclass(frozen=True)
class Relabelled:
    """What a metadata change on stored content did: the version with that content, what it held before,
    the other versions whose labels were narrowed with it, and those that kept theirs (the change would
    have shown their different text to someone new)."""

    version: int
    before: Document
    narrowed: tuple[int, ...]
    kept: tuple[int, ...]
    held_back: bool = False  # a superseded version kept its labels: the current version's are narrower


def narrows(old: Sequence[str], new: Sequence[str], public: str) -> bool:
    """True when labels ``new`` show a version to no one that ``old`` did not: ``old`` is public (everyone saw
    it), or ``new`` is a subset of ``old``."""
    return public in old or set(new) <= set(old)


def relabel_labels(target: Document, current: Document, wanted: Sequence[str], public: str) -> tuple[str, ...]:
    """The labels a relabel gives the stored version ``target``: ``wanted``, unless ``target`` is superseded and
    ``wanted`` would show it to someone the current version's labels do not; then its own. A narrowing reaches every
    version of a document, and ingesting an older file again (a folder holding a document's drafts) must not undo
    it."""
    if target.version == current.version or narrows(current.access, wanted, public):
        return tuple(sorted(set(wanted)))
    return tuple(target.access)


def relabel(c: Connection, doc_id: str, sha256: str, title: str, effective_date: str | None,
            access: Sequence[str], event: AuditEvent, public: str, guard: Guard | None = None) -> Relabelled | None:
    """Give the stored version of ``doc_id`` with content ``sha256`` this title, date and labels, in one
    transaction with its audit row; None when no version holds that content (any more).

    The text is the same, so the labels are the document's: every other stored version takes the new
    labels too where that narrows who may see it (its text is a draft of this one), and keeps its own
    where the new labels would show its different text to someone new (a broadening is for the new
    content only). Title and date are this version's own. The generation moves without marking an
    append, so every in-memory graph and footprint cache is read again.
    """
    rows = [document(r) for r in c.execute(text("SELECT * FROM documents WHERE doc_id=:d ORDER BY version"),
                                           {"d": doc_id}).mappings()]
    same = [d for d in rows if d.sha256 == sha256]
    if not same:
        return None
    target = same[-1]
    bump_generation(c)  # not mark_append: readers reload everything, labels included
    if guard is not None:
        guard(rows[-1], target)
    wanted = access
    access = relabel_labels(target, rows[-1], wanted, public)
    held_back = set(access) != set(wanted)
    labels = json.dumps(sorted(set(access)))
    narrowed: list[int] = []
    kept: list[int] = []
    for d in rows:
        if held_back or d.version == target.version or set(d.access) == set(access):
            continue
        (narrowed if narrows(d.access, access, public) else kept).append(d.version)
    detail = {**event.detail, "doc_id": doc_id, "version": target.version,
              "from": {"title": target.title, "effective_date": target.effective_date, "access": list(target.access)},
              "to": {"title": title, "effective_date": effective_date, "access": sorted(set(access))},
              "also_narrowed": list(narrowed), "kept_labels": list(kept)}
    # the audit row first: on PostgreSQL the application role may change labels only after it (guards.py)
    audit.add(c, replace(event, detail=detail))
    c.execute(text("UPDATE documents SET title=:t, effective_date=:e, access=:a WHERE doc_id=:d AND version=:v"),
              {"t": title, "e": effective_date, "a": labels, "d": doc_id, "v": target.version})
    if title != target.title:
        passage_vectors.clear(c, doc_id, target.version)  # the title is part of the text they encode
    for v in narrowed:
        c.execute(text("UPDATE documents SET access=:a WHERE doc_id=:d AND version=:v"),
                  {"a": labels, "d": doc_id, "v": v})
    out = Relabelled(target.version, target, tuple(narrowed), tuple(kept), held_back)
    c.execute(_LOG, {"doc_id": doc_id, "path": None, "sha256": sha256, "status": "relabelled", "error": None,
                     "at": now()})
    return out
