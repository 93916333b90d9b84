"""``Store``: the one handle the rest of the product writes and reads through.

It names the store (a SQLite file or a PostgreSQL URL, see ``url.py``), opens it with the
schema migrated (``schema.py``), and forwards each call to the aggregate module that owns those
tables, inside the transaction plumbing of ``db.py``. Thread-safe: every call takes a pooled
connection; an ``in_snapshot()`` or a write on one thread keeps its own connection.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from graphrag.access.identity import Viewer
from graphrag.access.rule import Footprint, Sources
from graphrag.config import STORE_RETRY_S
from graphrag.errors import StoreError
from graphrag.model import (
    PUBLIC,
    Answer,
    AuditEvent,
    Document,
    Entity,
    PageSize,
    Relation,
    Span,
    SpanLayout,
    Verdict,
)
from graphrag.store import (
    answers,
    audit,
    cache,
    checkers,
    documents,
    graph,
    layout,
    removals,
    vector_enable,
    verdicts,
)
from graphrag.store import passage_vectors as sentence_views
from graphrag.store import vector_search as pgvec
from graphrag.store.codec import Row, now
from graphrag.store.db import Database
from graphrag.store.documents import (  # DocumentWrite: also re-exported
    DocumentWrite,
    Guard,
    Relabelled,
    Written,
)
from graphrag.store.passage_vectors import Key as SentenceKey
from graphrag.store.url import StoreURL, parse_store

T = TypeVar("T")
log = logging.getLogger(__name__)
VECTOR_STATUS_S = 5.0  # how old the vector search's status may be before it is read again
# How far the database's clock may be behind this process's when a lost verdict is looked for again.
_CLOCK_SKEW = timedelta(minutes=10)
LAYOUT_SCHEMA = 2  # the schema that added pages and boxes
PASSAGE_VECTORS_SCHEMA = 13  # the schema that added the reader's passage vectors of each sentence
REMOVALS_SCHEMA = 6  # the schema that added document removal
CLAIM_DIGEST_SCHEMA = 8  # the schema that added the judged claim's digest to verdicts


class _Preview(Exception):
    """Carries a removal's figures out of a transaction that is then rolled back."""

    def __init__(self, result: removals.Removal) -> None:
        super().__init__("preview")
        self.result = result


class Store:
    """A store: ``Store("data/graphrag.db")``, ``Store("sqlite:///x.db")`` or
    ``Store("postgresql+psycopg://user:password@host:5432/db")``. ``retry_s``: how long a busy or unreachable
    database is retried before a user is told (the caller passes its configuration's GRAPHRAG_STORE_RETRY_S)."""

    def __init__(self, path: str | os.PathLike[str] | StoreURL, *, readonly: bool = False,
                 busy_timeout_s: float = 30.0, retry_s: float = STORE_RETRY_S) -> None:
        self.url = parse_store(path)
        self.database = Database(self.url, readonly=readonly, busy_timeout_s=busy_timeout_s, retry_s=retry_s)
        self._footprints: dict[int, Footprint] = {}  # answers change only on removal: see answer_footprints
        self._footprints_generation = -1
        self._footprint_lock = threading.Lock()
        self._vector_read_at = 0.0
        try:
            self.database.migrate()
            self._vector_search = self._prepare_vector_search()
        except BaseException:
            self.database.close()
            raise

    def _prepare_vector_search(self) -> pgvec.VectorSearch:
        """Where this store's vectors are searched; on PostgreSQL, when the server offers pgvector 0.8 and this role
        may enable it (the owner; see ``pgvec.may_enable``), a small store is enabled (or its enabling finished)
        now, and a large one is left to ``graphrag store setup`` (see ``vector_enable``)."""
        found = self._read(pgvec.status)
        self._vector_read_at = time.monotonic()
        if found.stage == pgvec.Stage.READY or self.database.readonly or not self._read(pgvec.may_enable):
            if not found.in_database and self.url.kind == "postgresql":
                log.info("store %s: %s", self.url.display, found.note)
            return found
        if not self._read(vector_enable.is_small):
            log.info("store %s: %s", self.url.display, found.note if found.stage != pgvec.Stage.PROCESS else
                     f"{found.note} (a store of {vector_enable.OPEN_BELOW:,} rows or more is not enabled on open: "
                     "copying its vectors and building its index takes minutes)")
            return found
        try:
            done = vector_enable.enable(self.database, index_timeout_s=vector_enable.OPEN_INDEX_TIMEOUT_S)
        except StoreError as exc:  # another encoder's vectors, a privilege missing: the in-process search stays
            log.warning("store %s: the database's vector search was not enabled: %s", self.url.display, exc)
            return self._read(pgvec.status)
        except DBAPIError as exc:  # a table's lock not had in time, an index build cancelled: the next open resumes
            log.warning("store %s: enabling the database's vector search stopped (the next open goes on): %s",
                        self.url.display, str(exc.orig).splitlines()[0] if exc.orig else exc)
            return self._read(pgvec.status)
        if done is None:  # another process is enabling it
            return found
        if done.copied:
            log.info("store %s: %d stored vectors copied into pgvector columns", self.url.display, done.copied)
        return done.status

    def vector_search(self, refresh: bool = False) -> pgvec.VectorSearch:
        """Where this store's vectors are searched (the database, or each process), with a line for people; read
        again (one statement) when ``refresh`` or when the last read is ``VECTOR_STATUS_S`` old, so a process notices
        an index becoming ready, or going."""
        if refresh or time.monotonic() - self._vector_read_at >= VECTOR_STATUS_S:
            self._vector_search = self._read(pgvec.status)
            self._vector_read_at = time.monotonic()
        return self._vector_search

    def nearest_sentences(self, query: str, k: int, asker: pgvec.AskerFilter) -> list[tuple[str, int, int]]:
        """The database's search (pgvector): up to ``k`` visible sentences nearest ``query`` (a halfvec's text),
        as (document id, version, sentence index)."""
        return self._read(lambda c: pgvec.nearest_sentences(c, query, k, asker))

    def nearest_entities(self, query: str, k: int, asker: pgvec.AskerFilter) -> list[str]:
        """The database's search (pgvector): keys of up to ``k`` visible entities nearest ``query``."""
        return self._read(lambda c: pgvec.nearest_entities(c, query, k, asker))

    @property
    def path(self) -> Path | None:
        """The SQLite file (None for a PostgreSQL store; ``url`` names every kind)."""
        return self.url.path

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, for event hooks in tests and tools."""
        return self.database.engine

    # --- plumbing ---------------------------------------------------------------------

    def close(self) -> None:
        """Close the store's connections."""
        self.database.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One write transaction handing out the driver's own connection (sqlite3 or psycopg),
        for bulk SQL in benchmarks and tests. Rolled back on any error; not retried."""
        with self.database.begin(write=True) as conn:
            yield conn.connection.driver_connection

    def in_snapshot(self, fn: Callable[[], T]) -> T:
        """``fn()``, whose reads of this store all see one consistent state, whatever other processes commit
        meanwhile. When the connection drops (a database restart), ``fn`` runs again whole on a new one, within
        the retry bound, so it must only read and return: a snapshot is never resumed. Nested use joins the
        outer snapshot."""
        return self.database.in_snapshot(fn)

    def _write(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` in one transaction, retried on busy/serialisation/unreachable,
        failures as StoreError ("nothing was written")."""
        return self.database.write(fn)

    def _read(self, fn: Callable[[Connection], T]) -> T:
        return self.database.read(fn)

    def generation(self) -> int:
        """A counter bumped by every graph-changing commit: caches rebuild when it moves. The
        same on every instance sharing a PostgreSQL store."""
        rows = self.database.fetch(documents.GENERATION, {})
        return int(rows[0][0]) if rows else 0

    # --- documents ----------------------------------------------------------------------

    def current_document(self, doc_id: str) -> Document | None:
        """The newest version of ``doc_id``, or None."""
        return self._read(lambda c: documents.current(c, doc_id))

    def access_of(self, doc_id: str, version: int) -> tuple[tuple[str, ...], bool] | None:
        """(access labels, superseded) of a document version, read fresh; None if it is gone."""
        return documents.access_of(self.database.fetch(documents.ACCESS, {"d": doc_id, "v": version}))

    def version_with_content(self, doc_id: str, sha256: str) -> Document | None:
        """The stored version of ``doc_id`` with exactly this content, if any (newest first)."""
        return self._read(lambda c: documents.with_content(c, doc_id, sha256))

    def document(self, doc_id: str, version: int) -> Document | None:
        """This version of ``doc_id``, or None."""
        return self._read(lambda c: documents.one(c, doc_id, version))

    def documents(self, include_superseded: bool = True) -> list[Document]:
        """Every document version, or only current ones."""
        return self._read(lambda c: documents.all_documents(c, include_superseded))

    def version_labels(self) -> dict[tuple[str, int], tuple[str, ...]]:
        """The access labels of every document version, stored or removed, by (id, version)."""
        labels = {(r.document_id, r.version): r.access for r in self.removal_records()}
        return {**labels, **self._read(documents.version_labels)}

    def write_document(self, w: DocumentWrite) -> Written:
        """Add one document version with everything extracted from it, atomically. Returns the
        version written (an int) with the older versions its labels narrowed and those that kept theirs;
        earlier versions of the id are marked superseded, their spans kept."""
        return self._write(lambda c: documents.write(c, w))

    def relabel_document(self, doc_id: str, sha256: str, title: str, effective_date: str | None,
                         access: Sequence[str], event: AuditEvent,
                         guard: Guard | None = None) -> Relabelled | None:
        """Change the title, date and labels of the version of ``doc_id`` holding this content, with an audit
        row (``event`` names who, its detail is kept); see ``documents.relabel`` for the other versions.
        ``guard`` is called with the current and the changed version first, and may refuse by raising."""
        return self._write(lambda c: documents.relabel(c, doc_id, sha256, title, effective_date, access, event,
                                                       PUBLIC, guard))

    def log_ingest(self, doc_id: str, path: str | None, sha256: str | None, status: str, error: str | None) -> None:
        """Record an outcome that wrote no document (failed, unavailable, rejected, unchanged)."""
        self.database.write_one(lambda c: documents.log(c, doc_id, path, sha256, status, error))

    def existing_entity_keys(self, keys: Iterable[str]) -> set[str]:
        """Keys already stored with a vector (so their embedding is not computed again)."""
        keys = list(keys)
        return self._read(lambda c: documents.existing_entity_keys(c, keys))

    def sentences(self, doc_id: str, version: int, first: int = 0, last: int | None = None) -> list[Span]:
        """The sentences of a document version, in order; only those indexed ``first`` to ``last`` (both included)
        when given (a cited sentence's neighbours, without reading a long document's every sentence)."""
        return self._read(lambda c: documents.sentences(c, doc_id, version, first, last))

    def span(self, doc_id: str, version: int, idx: int) -> Span | None:
        """One sentence of a document version, or None (a hot read: one prepared statement)."""
        rows = self.database.fetch(documents.SPAN, {"d": doc_id, "v": version, "i": idx})
        return documents.span(rows, doc_id, version, idx)

    # --- removal ------------------------------------------------------------------------

    def remove_document(self, doc_id: str, versions: Sequence[int] | None = None, *, actor: str,
                        reason: str = "", by: Viewer) -> removals.Removal:
        """Remove every version of ``doc_id`` (or these), atomically: see graphrag.store.removals.
        ``by`` (whom the ingest door's use case let remove it) is audited in the same transaction."""
        return self._write(lambda c: removals.remove(c, doc_id, versions, actor, reason, audit.event(by, audit.AuditKind.REMOVE)))

    def preview_removal(self, doc_id: str, versions: Sequence[int] | None = None) -> removals.Removal:
        """What ``remove_document`` would take out, exactly: the same removal, rolled back."""
        def run(c: Any) -> None:  # its audit row is rolled back with the rest
            raise _Preview(removals.remove(c, doc_id, versions, "", "", AuditEvent(audit.AuditKind.REMOVE, None, None, {})))

        try:
            self._write(run)
        except _Preview as p:
            return p.result
        raise AssertionError("unreachable")

    def removal_records(self, doc_id: str | None = None) -> list[removals.RemovalRecord]:
        """Removed document versions, oldest first (none on a store older than schema 6)."""
        if self.database.version < REMOVALS_SCHEMA:
            return []
        return self._read(lambda c: removals.records(c, doc_id))

    # --- layout of PDF, HTML and DOCX documents -------------------------------------------

    # A read-only store written before schema 2 has no layout tables: it simply has no layout.

    def layout(self, doc_id: str, version: int, idx: int) -> SpanLayout | None:
        """Pages, boxes, heading path of one sentence; None for plain text."""
        return self.span_layouts([(doc_id, version, idx)]).get((doc_id, version, idx))

    def layouts(self, doc_id: str, version: int, indices: Iterable[int] | None = None) -> dict[int, SpanLayout]:
        """Sentence index -> layout for one document version (all sentences when ``indices`` is None)."""
        if self.database.version < LAYOUT_SCHEMA:
            return {}
        found = self._read(lambda c: layout.layouts(c, doc_id, version))
        return found if indices is None else {i: x for i, x in found.items() if i in set(indices)}

    def span_layouts(self, keys: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], SpanLayout]:
        """(doc_id, version, idx) -> layout, for the citations of an answer."""
        keys = list(keys)
        return self._read(lambda c: layout.span_layouts(c, keys)) if self.database.version >= LAYOUT_SCHEMA else {}

    def page_sizes(self, doc_id: str, version: int) -> list[PageSize]:
        """The page sizes of a document version; empty for stores older than the layout schema."""
        if self.database.version < LAYOUT_SCHEMA:
            return []
        return self._read(lambda c: layout.page_sizes(c, doc_id, version))

    def document_file(self, doc_id: str, version: int) -> tuple[str, bytes] | None:
        """(media type, original bytes) of a document version stored with its file (PDF)."""
        if self.database.version < LAYOUT_SCHEMA:
            return None
        return self._read(lambda c: layout.document_file(c, doc_id, version))

    # --- reply cache --------------------------------------------------------------------

    def cache_get(self, key: str) -> str | None:
        """The cached model reply under ``key``, or None."""
        return self._read(lambda c: cache.get(c, key))

    def cache_put(self, key: str, value: str, sources: Sequence[str] = ()) -> None:
        """Cache a model reply at once, outside any document's transaction."""
        self.database.write_one(lambda c: cache.put(c, key, value, sources))

    # --- the reader's passage vectors of each sentence (the second view's, the answer scorer's) ---------

    def passage_vectors(self, model: str, keys: Sequence[SentenceKey]) -> dict[SentenceKey, np.ndarray]:
        """The stored ``model`` vectors of these sentences (doc_id, version, index); those missing are absent."""
        if self.database.version < PASSAGE_VECTORS_SCHEMA or not keys:
            return {}
        return self._read(lambda c: sentence_views.get(c, model, keys))

    def save_passage_vectors(self, model: str, rows: Sequence[tuple[SentenceKey, np.ndarray]]) -> bool:
        """Keep vectors a question computed, outside any document's transaction; False when this store is read-only
        (or older than the table), so nothing was kept."""
        if self.database.readonly or self.database.version < PASSAGE_VECTORS_SCHEMA or not rows:
            return False
        self.database.write_one(lambda c: sentence_views.put(c, model, rows))
        return True

    def passage_vector_count(self, model: str) -> int:
        """How many sentences have a ``model`` vector stored."""
        if self.database.version < PASSAGE_VECTORS_SCHEMA:
            return 0
        return self._read(lambda c: sentence_views.count(c, model))

    def drop_superseded_passage_vectors(self, model: str) -> int:
        """Delete the vectors earlier weights of ``model``'s family left (``model`` named ``family@digest``); how
        many rows went (0 on a read-only or older store)."""
        if self.database.readonly or self.database.version < PASSAGE_VECTORS_SCHEMA:
            return 0
        return self.database.write_one(lambda c: sentence_views.drop_superseded(c, model))

    def sentences_without_passage_vectors(self, model: str, limit: int = 512) -> list[tuple[SentenceKey, str, str]]:
        """Up to ``limit`` sentences with no ``model`` vector: (key, title, text), in document order."""
        if self.database.version < PASSAGE_VECTORS_SCHEMA:
            return []
        return self._read(lambda c: sentence_views.missing(c, model, limit))

    def reply_cache(self) -> StoreCache:
        """This store as an extractor's reply cache."""
        return StoreCache(self)

    # --- entities and relations ---------------------------------------------------------

    def entity(self, key: str) -> Entity | None:
        """The entity with this key, with its mentions, or None."""
        return self._read(lambda c: graph.entity(c, key))

    def relations_of(self, key: str) -> list[Relation]:
        """Relations from or to the entity with this key."""
        return self._read(lambda c: graph.relations(c, "WHERE r.source_key=:k OR r.target_key=:k", {"k": key}))

    def relation(self, rel_id: int) -> Relation | None:
        """The relation with this id, or None."""
        rels = self._read(lambda c: graph.relations(c, "WHERE r.id=:id", {"id": rel_id}))
        return rels[0] if rels else None

    def all_relations(self) -> list[Relation]:
        """Every stored relation."""
        return self._read(graph.relations)

    def entities_at(self, doc_id: str, version: int, idx: int) -> list[str]:
        """Keys of the entities mentioned in one sentence (the review page looks for conflicts by them)."""
        return self._read(lambda c: graph.entities_at(c, doc_id, version, idx))

    def entity_names(self) -> dict[str, str]:
        """Display name by entity key."""
        return self._read(graph.entity_names)

    def counts(self) -> dict[str, int]:
        """Sizes of the whole store, every label's documents included (reports, empty-store checks); what
        one viewer may see is ``graphrag.answer.overview``."""
        return self._read(graph.counts)

    def activity_mark(self) -> tuple[str, ...]:
        """A cheap stamp that changes whenever documents, answers, verdicts or the review policy change."""
        return self._read(graph.activity_mark)

    def relation_counts(self) -> dict[tuple[str, int], int]:
        """The number of relations each document version states, by (doc id, version)."""
        return self._read(graph.relation_counts)

    def read_graph(self, sink: graph.GraphSink, spare_rows: Callable[[int], int] = lambda n: 0) -> None:
        """Hand ``sink`` every row the in-memory graph is built from (documents, entities, sentences, mentions,
        relations, a chunk at a time) and the vectors as matrices, read in one snapshot; ``spare_rows(n)`` zero
        rows follow a matrix's n. Should the connection drop, ``sink`` is handed every row again from the start."""
        self.in_snapshot(lambda: self._read(lambda c: graph.read_graph(c, sink, spare_rows)))

    def graph_state(self) -> graph.GraphState:
        """The generation, table sizes and last mention and relation ids; read it in the same ``in_snapshot()`` as
        the ``graph_documents`` it is compared with."""
        return self._read(graph.graph_state)

    def graph_sample(self, relation_ids: Sequence[int], sentences: Sequence[tuple[str, int, int]],
                     entity_keys: Sequence[str]) -> graph.GraphSample:
        """A few stored relations, sentence vectors and entity vectors by key (``store.graph.graph_sample``)."""
        return self._read(lambda c: graph.graph_sample(c, relation_ids, sentences, entity_keys))

    def append_run(self) -> tuple[int, int | None, int | None]:
        """(generation, appends_from, appends_to): the commits after ``appends_from`` up to
        ``appends_to`` only added document versions (see ``documents.mark_append``)."""
        return self._read(documents.append_run)

    def graph_documents(self) -> list[Row]:
        """Every document version's graph fields (labels, superseded, identity)."""
        return self._read(graph.graph_documents)

    def graph_additions(self, mention_after: int, relation_after: int,
                        new_documents: Iterable[tuple[str, int]]) -> graph.GraphAdditions:
        """Rows added after a loaded graph's last mention and relation ids; read it in the same
        ``in_snapshot()`` as the ``graph_documents`` the new versions were found in."""
        new = list(new_documents)
        return self._read(lambda c: graph.graph_additions(c, mention_after, relation_after, new))

    # --- answers ------------------------------------------------------------------------

    def save_answer(self, a: Answer) -> int:
        """Save an answer with its claims, citations and context; returns its id."""
        return self._write(lambda c: answers.save(c, a))

    def answer_ids(self, limit: int = 200) -> list[dict[str, Any]]:
        """The newest answers' id, question, time and status."""
        return self._read(lambda c: answers.ids(c, limit))

    def answer(self, answer_id: int) -> Answer | None:
        """A stored answer with the status it was saved (or withdrawn) with. Whether its claims' verdicts
        make it *verified* is the review policy's to say: ``graphrag.verify.status.load_answer``."""
        return self._read(lambda c: answers.load(c, answer_id))

    def unanswered_ids(self, limit: int = 20) -> list[int]:
        """The newest answers that say the documents do not answer (no claims: never in the review queue)."""
        return self._read(lambda c: answers.unanswered_ids(c, limit))

    def claim_summaries(self) -> list[dict[str, Any]]:
        """What a review queue needs without loading whole answers: the claims (answer id,
        question, index, text, flags, support), newest answer first."""
        return self._read(answers.claim_summaries)

    def answer_questions(self) -> list[tuple[int, str]]:
        """(id, question) of every answer with claims, newest first (a reused answer is looked up by its question)."""
        return self._read(answers.questions_with_claims)

    def claim_citations(self, answer_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Each valid citation of each claim with the claim's words and the cited sentence (carry-over's pairs)."""
        return self._read(lambda c: answers.claim_citations(c, answer_ids))

    def answer_footprints(self) -> dict[int, Footprint]:
        """Per answer with claims, everything it shows as references (see graphrag.access.rule).

        A stored answer changes only when a removal withdraws it, which bumps the generation, so
        each footprint is read once per handle and generation and kept: the review page asks for
        all of them on every rerun (parsing every answer's routes again took 4 s at 5,000 answers)."""
        gen = self.generation()  # a removal withdraws answers, and bumps the generation
        ids = self._read(answers.ids_with_claims)
        with self._footprint_lock:
            if gen != self._footprints_generation:
                self._footprints.clear()
                self._footprints_generation = gen
            missing = [i for i in ids if i not in self._footprints]
        if missing:
            found = self._read(lambda c: answers.footprints(c, missing))
            with self._footprint_lock:
                self._footprints.update(found)
        with self._footprint_lock:
            return {i: self._footprints[i] for i in ids if i in self._footprints}

    def visibility_sources(self, footprints: Iterable[Footprint]) -> Sources:
        """The labels, relation sources and seed mentions needed to judge these footprints."""
        fps = list(footprints)
        return self.in_snapshot(lambda: self._read(lambda c: graph.visibility_sources(c, fps)))

    # --- verification record ------------------------------------------------------------

    def add_verdict(self, v: Verdict, event: AuditEvent) -> int:
        """Append one verdict; its id. ``event``: its audit row, written in the same transaction (its
        detail gains ``verdict_id``), so there is never one without the other. If the connection is
        lost while the write is in flight, the retry first looks for the row the lost attempt may
        have committed (the same verdict, given since just before the first attempt; its audit row
        came with it), so a confirmed verdict is stored once."""
        v = replace(v, created_at=v.created_at or now())
        since = (datetime.fromisoformat(v.created_at or now()) - _CLOCK_SKEW).isoformat()
        attempts = 0

        def run(c: Any) -> int:
            nonlocal attempts
            attempts += 1
            if attempts > 1:
                found = verdicts.find_same(c, v, since)
                if found is not None:
                    return found
            vid = verdicts.add(c, v)
            audit.add(c, replace(event, detail={**event.detail, "verdict_id": vid}))
            return vid

        return self.database.write(run)

    def verdicts(self, answer_id: int | None = None, claim_index: int | None = None,
                 reviewer: str | None = None, *, spans: Sequence[str] | None = None) -> list[Verdict]:
        """Every verdict row (history included), oldest first, with staleness resolved; ``spans``: only those that
        judged a sentence with one of these digests."""
        removed = self.database.version >= REMOVALS_SCHEMA
        digests = self.database.version >= CLAIM_DIGEST_SCHEMA
        return self._read(lambda c: verdicts.history(c, answer_id, claim_index, reviewer, removed, digests, spans))

    # --- audit log (schema 5) -------------------------------------------------------------

    def add_audit(self, event: AuditEvent) -> int:
        """Append one event to the audit log; its id. Changes of the record are audited by the
        methods that make them; this is for events outside the store (sign-ins, exports, ingests)."""
        return self.database.write_one(lambda c: audit.add(c, event))

    def audit(self, since: str | None = None) -> list[AuditEvent]:
        """The audit log, oldest first."""
        return self._read(lambda c: audit.rows(c, since))

    def audit_of(self, event: str) -> list[AuditEvent]:
        """Every audit row of ``event``, oldest first."""
        return self._read(lambda c: audit.of_event(c, event))

    def latest_audit(self, event: str) -> AuditEvent | None:
        """The newest audit row of ``event``, if any."""
        return self._read(lambda c: audit.latest(c, event))

    def required_verdicts(self) -> int:
        """How many independent verdicts a claim needs: the team's review setting, kept as a plain number
        (1 when never set). Its rules are ``graphrag.verify.policy``'s (``verify.status.review_policy``)."""
        return self._read(verdicts.required_verdicts)

    def set_required_verdicts(self, required: int, *, by: Viewer, held_until_verified: bool | None = None) -> None:
        """Keep how many independent verdicts a claim needs (checked by ``graphrag.verify.policy.ReviewPolicy``
        before it comes here); ``by`` is audited with it. ``held_until_verified``, when given, goes into the same
        audit row, which is where that setting is kept (``verify.status.held_until_verified`` reads the latest)."""
        def run(c: Connection) -> None:
            held = {} if held_until_verified is None else {"held_until_verified": held_until_verified}
            # the audit row first: on PostgreSQL the application role's change needs it (guards.py)
            audit.add(c, audit.event(by, audit.AuditKind.REVIEW_POLICY, required=required, **held))
            verdicts.set_required_verdicts(c, required)

        self._write(run)

    # --- support checker versions (graphrag checker) ------------------------------------

    def add_checker_version(self, params: dict[str, Any], source: str, metrics: dict[str, Any],
                            activate: bool = True, *, by: Viewer) -> int:
        """Store a fitted checker version (active by default); returns its number. ``by`` is audited
        with it."""
        def run(c: Connection) -> int:
            version = checkers.add(c, params, source, metrics, activate)
            audit.add(c, audit.event(by, audit.AuditKind.CHECKER_REFIT, adopted=activate, version=version, source=source))
            return version

        return self._write(run)

    def active_checker(self) -> checkers.CheckerVersion | None:
        """The team's checker version in use; None: the shipped parameters."""
        return self._read(checkers.active)

    def checker_versions(self) -> list[checkers.CheckerVersion]:
        """Every version, oldest first (parameters left out)."""
        return self._read(checkers.listing)

    def rollback_checker(self, to: int | None = None, *, by: Viewer) -> int:
        """Activate version ``to`` (0 = shipped; default: the one before the active one); ``by``
        is audited with it."""
        def run(c: Connection) -> int:
            active = checkers.rollback(c, to)
            audit.add(c, audit.event(by, audit.AuditKind.CHECKER_ROLLBACK, active=active))
            return active

        return self._write(run)


class StoreCache:
    """The store's reply cache as a ReplyCache (graphrag.ingest.extract.base)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> str | None:
        """The cached reply under ``key``, or None."""
        return self.store.cache_get(key)

    def put(self, key: str, value: str, sources: Sequence[str] = ()) -> None:
        """Cache a reply at once (see ``Store.cache_put``)."""
        self.store.cache_put(key, value, sources)

