"""The SQLite store: the only module that writes.

One file holds documents (every version), their sentences, entities with all their mentions,
relations (many per pair), embeddings, the model-reply cache, answers with their claims and
citations, and the append-only verification record.

Writes to a document happen in one transaction, so a crash leaves the store as it was before
that document. WAL mode and a busy timeout let several processes (reviewers, an ingest, the
dashboard) share one file; a retry loop absorbs the rare "database is locked" that outlasts it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

import numpy as np

from graphrag.access import Footprint, Sources, footprint_of_routes
from graphrag.errors import StoreError
from graphrag.model import (
    Answer,
    AnswerStatus,
    AskSettings,
    Citation,
    Claim,
    ClaimFlag,
    ContextItem,
    Document,
    Entity,
    Mention,
    PageSize,
    Relation,
    Route,
    RouteStart,
    Seed,
    Span,
    SpanLayout,
    Support,
    SupportLabel,
    Verdict,
    VerdictLabel,
)

SCHEMA_VERSION = 2  # 2: span layout, page sizes and original files (see the section at the end)
DEFAULT_STORE = Path("data") / "graphrag.db"
log = logging.getLogger(__name__)
T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT NOT NULL, version INTEGER NOT NULL, title TEXT NOT NULL,
    effective_date TEXT, access TEXT NOT NULL, sha256 TEXT NOT NULL, text TEXT NOT NULL,
    path TEXT, superseded INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL,
    extractor TEXT NOT NULL, ingested_at TEXT NOT NULL,
    PRIMARY KEY (doc_id, version));
CREATE TABLE IF NOT EXISTS sentences (
    doc_id TEXT NOT NULL, version INTEGER NOT NULL, idx INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL, vector BLOB,
    PRIMARY KEY (doc_id, version, idx));
CREATE TABLE IF NOT EXISTS entities (
    key TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, vector BLOB);
CREATE TABLE IF NOT EXISTS mentions (
    id INTEGER PRIMARY KEY, entity_key TEXT NOT NULL REFERENCES entities(key),
    doc_id TEXT NOT NULL, version INTEGER NOT NULL, sentence_idx INTEGER NOT NULL,
    description TEXT NOT NULL, extractor TEXT NOT NULL, implied INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS mentions_entity ON mentions(entity_key);
CREATE TABLE IF NOT EXISTS relations (
    id INTEGER PRIMARY KEY, source_key TEXT NOT NULL REFERENCES entities(key),
    target_key TEXT NOT NULL REFERENCES entities(key), type TEXT NOT NULL,
    description TEXT NOT NULL, doc_id TEXT NOT NULL, version INTEGER NOT NULL,
    sentence_idx INTEGER NOT NULL, extractor TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS relations_source ON relations(source_key);
CREATE INDEX IF NOT EXISTS relations_target ON relations(target_key);
CREATE TABLE IF NOT EXISTS ingest_log (
    id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, path TEXT, sha256 TEXT, status TEXT NOT NULL,
    error TEXT, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reply_cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY, question TEXT NOT NULL, settings TEXT NOT NULL, text TEXT NOT NULL,
    status TEXT NOT NULL, generator TEXT NOT NULL, generator_model TEXT, seeds TEXT NOT NULL,
    reached TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS context_items (
    answer_id INTEGER NOT NULL REFERENCES answers(id), n INTEGER NOT NULL,
    doc_id TEXT NOT NULL, version INTEGER NOT NULL, sentence_idx INTEGER NOT NULL,
    route TEXT NOT NULL, score REAL NOT NULL, via TEXT NOT NULL,
    PRIMARY KEY (answer_id, n));
CREATE TABLE IF NOT EXISTS claims (
    answer_id INTEGER NOT NULL REFERENCES answers(id), idx INTEGER NOT NULL, text TEXT NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, flags TEXT NOT NULL, support TEXT,
    PRIMARY KEY (answer_id, idx));
CREATE TABLE IF NOT EXISTS citations (
    answer_id INTEGER NOT NULL, claim_idx INTEGER NOT NULL, pos INTEGER NOT NULL,
    marker TEXT NOT NULL, valid INTEGER NOT NULL, n INTEGER, support TEXT,
    irrelevant INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (answer_id, claim_idx, pos));
CREATE TABLE IF NOT EXISTS verdicts (
    id INTEGER PRIMARY KEY, answer_id INTEGER NOT NULL REFERENCES answers(id),
    claim_idx INTEGER NOT NULL, marker TEXT, doc_id TEXT, version INTEGER, start INTEGER,
    "end" INTEGER, span_sha256 TEXT NOT NULL, verdict TEXT NOT NULL, reviewer TEXT NOT NULL,
    note TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS verdicts_claim ON verdicts(answer_id, claim_idx);
-- Append-only: the verification record is never edited or deleted.
CREATE TRIGGER IF NOT EXISTS verdicts_no_update BEFORE UPDATE ON verdicts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER IF NOT EXISTS verdicts_no_delete BEFORE DELETE ON verdicts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
"""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _blob(vec: np.ndarray) -> bytes:
    return np.asarray(vec, dtype=np.float32).tobytes()


# --- records the pipeline hands to the store ----------------------------------------------


@dataclass(frozen=True)
class DocumentWrite:
    """Everything one document version adds, written in one transaction."""

    document: Document
    extractor: str
    status: str
    sentences: Sequence[tuple[int, int, str]]  # (start, end, text)
    sentence_vectors: np.ndarray | None
    entities: Sequence[tuple[str, str, str]]  # (key, display name, type)
    entity_vectors: dict[str, np.ndarray]
    mentions: Sequence[tuple[str, int, str, bool]]  # (key, sentence, description, implied)
    relations: Sequence[tuple[str, str, str, str, int]]  # (source, target, type, description, sentence)
    layout: LayoutWrite | None = None  # PDF/HTML/DOCX provenance, written in the same transaction


class Store:
    """A handle on one store file. Thread-safe: one connection guarded by a lock."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        try:
            if not readonly:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            uri = f"file:{self.path}?mode=ro" if readonly else f"file:{self.path}"
            self._db = sqlite3.connect(uri, uri=True, timeout=busy_timeout_s, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
            if not readonly:
                self._db.execute("PRAGMA journal_mode=WAL")
                # FULL: a committed verdict survives a power cut too, not only a crashed process.
                self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate(readonly)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"cannot create the store {self.path}: {exc}") from exc

    # --- plumbing ---------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self, readonly: bool) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer version (schema {version}, this one knows "
                f"{SCHEMA_VERSION}); upgrade graphrag"
            )
        if version == SCHEMA_VERSION or readonly:
            return
        with self.transaction():
            for stmt in _split_sql(_SCHEMA + _LAYOUT_SCHEMA):
                self._db.execute(stmt)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error (the store stays as before)."""
        with self._lock:
            self._retry(lambda: self._db.execute("BEGIN IMMEDIATE"))
            try:
                yield self._db
            except BaseException:
                self._rollback()
                raise
            else:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error:
                    self._rollback()
                    raise

    def _rollback(self) -> None:
        """Roll back if a transaction is still open. SQLite ends the transaction itself on some
        errors (SQLITE_FULL, SQLITE_IOERR...); a second ROLLBACK would then raise "no transaction
        is active" and hide the real error from the caller."""
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error as exc:  # the original error is the one to report
                log.warning("rollback failed: %s", exc)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one consistent state of the store, whatever other processes commit
        meanwhile (a WAL read transaction). Nested use joins the outer snapshot."""
        with self._lock:
            if self._db.in_transaction:
                yield
                return
            self._db.execute("BEGIN")
            try:
                yield
            finally:
                if self._db.in_transaction:
                    self._db.execute("COMMIT")

    def _retry(self, fn: Callable[[], T], attempts: int = 8) -> T:
        for i in range(attempts):
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc) or i == attempts - 1:
                    raise
                time.sleep(0.05 * (2**i))
        raise AssertionError("unreachable")

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in a transaction, translating SQLite failures into StoreError."""
        try:
            with self.transaction() as db:
                return fn(db)
        except sqlite3.OperationalError as exc:
            msg = str(exc)
            if "readonly" in msg or "read-only" in msg:
                raise StoreError(f"the store {self.path} is read-only: nothing was written") from exc
            if "full" in msg:
                raise StoreError(f"the disk holding {self.path} is full: nothing was written") from exc
            raise StoreError(f"could not write to {self.path}: {msg}; nothing was written") from exc

    def _q(self, sql: str, params: Sequence[object] = ()) -> list[dict]:
        with self._lock:
            cur = self._db.execute(sql, params)
            cols = [d[0] for d in cur.description or ()]
            return [dict(zip(cols, row)) for row in cur.fetchall()]

    def generation(self) -> int:
        """A counter bumped by every graph-changing commit: caches rebuild when it moves."""
        row = self._q("SELECT value FROM meta WHERE key='generation'")
        return int(row[0]["value"]) if row else 0

    # --- documents ----------------------------------------------------------------------

    def current_document(self, doc_id: str) -> Document | None:
        rows = self._q("SELECT * FROM documents WHERE doc_id=? ORDER BY version DESC LIMIT 1", (doc_id,))
        return _document(rows[0]) if rows else None

    def access_of(self, doc_id: str, version: int) -> tuple[tuple[str, ...], bool] | None:
        """(access labels, superseded) of a document version, read fresh; None if it is gone."""
        rows = self._q("SELECT access, superseded FROM documents WHERE doc_id=? AND version=?", (doc_id, version))
        return (tuple(json.loads(rows[0]["access"])), bool(rows[0]["superseded"])) if rows else None

    def version_with_content(self, doc_id: str, sha256: str) -> Document | None:
        """The stored version of ``doc_id`` with exactly this content, if any (newest first)."""
        rows = self._q("SELECT * FROM documents WHERE doc_id=? AND sha256=? ORDER BY version DESC LIMIT 1",
                       (doc_id, sha256))
        return _document(rows[0]) if rows else None

    def document(self, doc_id: str, version: int) -> Document | None:
        rows = self._q("SELECT * FROM documents WHERE doc_id=? AND version=?", (doc_id, version))
        return _document(rows[0]) if rows else None

    def documents(self, include_superseded: bool = True) -> list[Document]:
        sql = "SELECT * FROM documents" + ("" if include_superseded else " WHERE superseded=0")
        return [_document(r) for r in self._q(sql + " ORDER BY doc_id, version")]

    def write_document(self, w: DocumentWrite) -> int:
        """Add one document version with everything extracted from it, atomically.

        Returns the version written. Earlier versions of the same id are marked superseded,
        their spans and mentions kept.
        """

        def run(db: sqlite3.Connection) -> int:
            d = w.document
            prev = db.execute("SELECT MAX(version) FROM documents WHERE doc_id=?", (d.id,)).fetchone()[0]
            version = (prev or 0) + 1
            db.execute("UPDATE documents SET superseded=1 WHERE doc_id=?", (d.id,))
            db.execute(
                "INSERT INTO documents VALUES (?,?,?,?,?,?,?,?,0,?,?,?)",
                (d.id, version, d.title, d.effective_date, json.dumps(list(d.access)), d.sha256, d.text,
                 d.path, w.status, w.extractor, now()),
            )
            vecs = w.sentence_vectors
            db.executemany(
                "INSERT INTO sentences VALUES (?,?,?,?,?,?,?)",
                [(d.id, version, i, s, e, t, None if vecs is None else _blob(vecs[i]))
                 for i, (s, e, t) in enumerate(w.sentences)],
            )
            for key, name, etype in w.entities:
                vec = w.entity_vectors.get(key)
                db.execute(
                    "INSERT INTO entities VALUES (?,?,?,?) ON CONFLICT(key) DO UPDATE SET "
                    "vector=COALESCE(entities.vector, excluded.vector)",
                    (key, name, etype, None if vec is None else _blob(vec)),
                )
            db.executemany(
                "INSERT INTO mentions (entity_key, doc_id, version, sentence_idx, description, extractor, implied)"
                " VALUES (?,?,?,?,?,?,?)",
                [(k, d.id, version, s, desc, w.extractor, int(imp)) for k, s, desc, imp in w.mentions],
            )
            db.executemany(
                "INSERT INTO relations (source_key, target_key, type, description, doc_id, version, sentence_idx,"
                " extractor) VALUES (?,?,?,?,?,?,?,?)",
                [(s, t, ty, desc, d.id, version, si, w.extractor) for s, t, ty, desc, si in w.relations],
            )
            if w.layout is not None:
                _write_layout(db, d.id, version, w.layout)
            db.execute(
                "INSERT INTO ingest_log (doc_id, path, sha256, status, error, at) VALUES (?,?,?,?,?,?)",
                (d.id, d.path, d.sha256, w.status, None, now()),
            )
            db.execute("UPDATE meta SET value=CAST(value AS INTEGER)+1 WHERE key='generation'")
            return version

        return self._write(run)

    def log_ingest(self, doc_id: str, path: str | None, sha256: str | None, status: str, error: str | None) -> None:
        """Record an outcome that wrote no document (failed, unavailable, rejected, unchanged)."""
        self._write(lambda db: db.execute(
            "INSERT INTO ingest_log (doc_id, path, sha256, status, error, at) VALUES (?,?,?,?,?,?)",
            (doc_id, path, sha256, status, error, now()),
        ))

    def existing_entity_keys(self, keys: Iterable[str]) -> set[str]:
        """Keys already stored with a vector (so their embedding is not computed again)."""
        keys = list(set(keys))
        found: set[str] = set()
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            rows = self._q(
                f"SELECT key FROM entities WHERE vector IS NOT NULL AND key IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            found.update(r["key"] for r in rows)
        return found

    def sentences(self, doc_id: str, version: int) -> list[Span]:
        rows = self._q(
            'SELECT idx, start, "end", text FROM sentences WHERE doc_id=? AND version=? ORDER BY idx',
            (doc_id, version),
        )
        return [Span(doc_id, version, r["idx"], r["start"], r["end"], r["text"]) for r in rows]

    def span(self, doc_id: str, version: int, idx: int) -> Span | None:
        rows = self._q(
            'SELECT start, "end", text FROM sentences WHERE doc_id=? AND version=? AND idx=?',
            (doc_id, version, idx),
        )
        return Span(doc_id, version, idx, rows[0]["start"], rows[0]["end"], rows[0]["text"]) if rows else None

    # --- reply cache (commits on its own, outside any document transaction) -------------

    def cache_get(self, key: str) -> str | None:
        rows = self._q("SELECT value FROM reply_cache WHERE key=?", (key,))
        return rows[0]["value"] if rows else None

    def cache_put(self, key: str, value: str) -> None:
        self._write(lambda db: db.execute(
            "INSERT OR REPLACE INTO reply_cache VALUES (?,?,?)", (key, value, now())))

    def reply_cache(self) -> StoreCache:
        return StoreCache(self)

    # --- entities and relations ---------------------------------------------------------

    def entity(self, key: str) -> Entity | None:
        rows = self._q("SELECT key, name, type FROM entities WHERE key=?", (key,))
        if not rows:
            return None
        mrows = self._q(
            'SELECT m.*, s.start, s."end", s.text, d.superseded FROM mentions m '
            "JOIN sentences s ON s.doc_id=m.doc_id AND s.version=m.version AND s.idx=m.sentence_idx "
            "JOIN documents d ON d.doc_id=m.doc_id AND d.version=m.version "
            "WHERE m.entity_key=? ORDER BY m.doc_id, m.version, m.sentence_idx, m.id",
            (key,),
        )
        mentions = tuple(
            Mention(key, r["description"], Span(r["doc_id"], r["version"], r["sentence_idx"], r["start"], r["end"],
                                                r["text"]), r["extractor"], bool(r["implied"]), bool(r["superseded"]))
            for r in mrows
        )
        r = rows[0]
        return Entity(r["key"], r["name"], r["type"], mentions)

    def relations_of(self, key: str) -> list[Relation]:
        return self._relations("WHERE r.source_key=? OR r.target_key=?", (key, key))

    def relation(self, rel_id: int) -> Relation | None:
        rels = self._relations("WHERE r.id=?", (rel_id,))
        return rels[0] if rels else None

    def all_relations(self) -> list[Relation]:
        return self._relations("", ())

    def _relations(self, where: str, params: Sequence[object]) -> list[Relation]:
        rows = self._q(
            'SELECT r.*, s.start, s."end", s.text, d.superseded FROM relations r '
            "JOIN sentences s ON s.doc_id=r.doc_id AND s.version=r.version AND s.idx=r.sentence_idx "
            "JOIN documents d ON d.doc_id=r.doc_id AND d.version=r.version " + where + " ORDER BY r.id",
            params,
        )
        return [
            Relation(r["id"], r["source_key"], r["target_key"], r["type"], r["description"],
                     Span(r["doc_id"], r["version"], r["sentence_idx"], r["start"], r["end"], r["text"]),
                     r["extractor"], bool(r["superseded"]))
            for r in rows
        ]

    def entities_at(self, doc_id: str, version: int, idx: int) -> list[str]:
        """Keys of the entities mentioned in one sentence (the review page looks for conflicts by them)."""
        rows = self._q("SELECT DISTINCT entity_key FROM mentions WHERE doc_id=? AND version=? AND sentence_idx=? "
                       "ORDER BY entity_key", (doc_id, version, idx))
        return [r["entity_key"] for r in rows]

    def entity_names(self) -> dict[str, str]:
        return {r["key"]: r["name"] for r in self._q("SELECT key, name FROM entities")}

    def counts(self) -> dict[str, int]:
        """Sizes for the sidebar and reports."""
        q = {
            "documents": "SELECT COUNT(*) FROM documents WHERE superseded=0",
            "versions": "SELECT COUNT(*) FROM documents",
            "sentences": "SELECT COUNT(*) FROM sentences",
            "entities": "SELECT COUNT(*) FROM entities",
            "mentions": "SELECT COUNT(*) FROM mentions",
            "relations": "SELECT COUNT(*) FROM relations",
            "answers": "SELECT COUNT(*) FROM answers",
            "verdicts": "SELECT COUNT(*) FROM verdicts",
        }
        with self._lock:
            return {k: self._db.execute(sql).fetchone()[0] for k, sql in q.items()}

    def graph_rows(self) -> tuple[list[dict], list[dict], list[dict], list[dict]]:
        """Raw rows to build the in-memory graph: entities, mentions, relations, documents.

        Read in one snapshot: an ingest committing between two of these queries would leave
        mentions pointing at entities or documents the other lists lack. A caller that also
        needs ``sentence_rows()`` wraps both in ``snapshot()``."""
        with self.snapshot():
            ents = self._q("SELECT key, name, type, vector FROM entities ORDER BY key")
            ments = self._q("SELECT entity_key, doc_id, version, sentence_idx, implied FROM mentions ORDER BY id")
            rels = self._q("SELECT id, source_key, target_key, type, doc_id, version, sentence_idx FROM relations "
                           "ORDER BY id")
            docs = self._q("SELECT doc_id, version, access, superseded, title, effective_date FROM documents")
        return ents, ments, rels, docs

    def sentence_rows(self) -> list[dict]:
        return self._q('SELECT doc_id, version, idx, vector FROM sentences ORDER BY doc_id, version, idx')

    # --- answers ------------------------------------------------------------------------

    def save_answer(self, a: Answer) -> int:
        def run(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT INTO answers (question, settings, text, status, generator, generator_model, seeds, reached,"
                " created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (a.question, json.dumps(asdict(a.settings)), a.text, a.status.value, a.settings.generator,
                 a.generator_model, json.dumps([[s.entity, s.score, s.start.value, s.mention, s.how] for s in a.seeds]),
                 json.dumps([_route_json(r) for r in a.reached]), now()),
            )
            aid = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT INTO context_items VALUES (?,?,?,?,?,?,?,?)",
                [(aid, c.n, c.span.document_id, c.span.version, c.span.sentence_index, json.dumps(_route_json(c.route)),
                  c.score, c.via) for c in a.context],
            )
            for cl in a.claims:
                db.execute(
                    'INSERT INTO claims VALUES (?,?,?,?,?,?,?)',
                    (aid, cl.index, cl.text, cl.start, cl.end, json.dumps([f.value for f in cl.flags]),
                     _support_json(cl.support)),
                )
                db.executemany(
                    "INSERT INTO citations VALUES (?,?,?,?,?,?,?,?)",
                    [(aid, cl.index, pos, c.marker, int(c.valid), c.item.n if c.item else None,
                      _support_json(c.support), int(c.irrelevant)) for pos, c in enumerate(cl.citations)],
                )
            return aid

        return self._write(run)

    def answer_ids(self, limit: int = 200) -> list[dict]:
        return self._q("SELECT id, question, created_at, status FROM answers ORDER BY id DESC LIMIT ?", (limit,))

    def answer(self, answer_id: int) -> Answer | None:
        rows = self._q("SELECT * FROM answers WHERE id=?", (answer_id,))
        if not rows:
            return None
        a = rows[0]
        settings = AskSettings(**{k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(a["settings"]).items()})
        items: dict[int, ContextItem] = {}
        for r in self._q(
            'SELECT c.*, s.start, s."end", s.text, d.superseded, d.effective_date FROM context_items c '
            "JOIN sentences s ON s.doc_id=c.doc_id AND s.version=c.version AND s.idx=c.sentence_idx "
            "JOIN documents d ON d.doc_id=c.doc_id AND d.version=c.version WHERE c.answer_id=? ORDER BY c.n",
            (answer_id,),
        ):
            span = Span(r["doc_id"], r["version"], r["sentence_idx"], r["start"], r["end"], r["text"])
            items[r["n"]] = ContextItem(r["n"], span, _route(json.loads(r["route"])), r["score"], r["via"],
                                        bool(r["superseded"]), r["effective_date"])
        cites: dict[int, list[Citation]] = {}
        for r in self._q("SELECT * FROM citations WHERE answer_id=? ORDER BY claim_idx, pos", (answer_id,)):
            cites.setdefault(r["claim_idx"], []).append(
                Citation(r["marker"], bool(r["valid"]), items.get(r["n"]) if r["n"] is not None else None,
                         _support(r["support"]), bool(r["irrelevant"])))
        claims = tuple(
            Claim(r["idx"], r["text"], r["start"], r["end"], tuple(cites.get(r["idx"], [])),
                  tuple(ClaimFlag(f) for f in json.loads(r["flags"])), _support(r["support"]))
            for r in self._q("SELECT * FROM claims WHERE answer_id=? ORDER BY idx", (answer_id,))
        )
        status = AnswerStatus(a["status"])
        if claims and self._all_claims_judged(answer_id, len(claims)):
            status = AnswerStatus.VERIFIED
        return Answer(
            question=a["question"], settings=settings, text=a["text"],
            seeds=tuple(_seed(x) for x in json.loads(a["seeds"])),
            reached=tuple(_route(r) for r in json.loads(a["reached"])),
            context=tuple(items[n] for n in sorted(items)), claims=claims, status=status,
            id=a["id"], created_at=a["created_at"], generator_model=a["generator_model"],
        )

    def claim_summaries(self) -> tuple[list[dict], dict[int, set[tuple[str, int]]], dict[tuple[str, int], set[str]]]:
        """What a review queue needs without loading whole answers, read in one snapshot.

        Returns the claims (answer id, question, index, text, flags, support), newest answer
        first; each answer's source document versions; and each document version's labels.
        """
        with self.snapshot():
            claims = [
                {"answer_id": r["answer_id"], "question": r["question"], "index": r["idx"], "text": r["text"],
                 "flags": tuple(ClaimFlag(f) for f in json.loads(r["flags"])), "support": _support(r["support"])}
                for r in self._q("SELECT c.answer_id, a.question, c.idx, c.text, c.flags, c.support FROM claims c "
                                 "JOIN answers a ON a.id=c.answer_id ORDER BY c.answer_id DESC, c.idx")
            ]
            sources: dict[int, set[tuple[str, int]]] = {}
            for r in self._q("SELECT DISTINCT answer_id, doc_id, version FROM context_items"):
                sources.setdefault(r["answer_id"], set()).add((r["doc_id"], r["version"]))
            labels = {(r["doc_id"], r["version"]): set(json.loads(r["access"]))
                      for r in self._q("SELECT doc_id, version, access FROM documents")}
        return claims, sources, labels

    def answer_footprints(self) -> dict[int, Footprint]:
        """Per answer with claims, everything it shows as references (see graphrag.access)."""
        with self.snapshot():
            docs: dict[int, set[tuple[str, int]]] = {}
            routes: dict[int, list[Route]] = {}
            for r in self._q("SELECT answer_id, doc_id, version, route FROM context_items"):
                docs.setdefault(r["answer_id"], set()).add((r["doc_id"], r["version"]))
                routes.setdefault(r["answer_id"], []).append(_route(json.loads(r["route"])))
            out: dict[int, Footprint] = {}
            for r in self._q("SELECT id, seeds, reached FROM answers WHERE id IN (SELECT answer_id FROM claims)"):
                aid = r["id"]
                reached = [_route(x) for x in json.loads(r["reached"])]
                out[aid] = footprint_of_routes(docs.get(aid, ()), [*routes.get(aid, ()), *reached],
                                               (x[0] for x in json.loads(r["seeds"])))
        return out

    def visibility_sources(self, footprints: Iterable[Footprint]) -> Sources:
        """The labels, relation sources and seed mentions needed to judge these footprints."""
        fps = list(footprints)
        rel_ids = sorted({i for fp in fps for i in fp.relations})
        seeds = sorted({k for fp in fps for k in fp.seeds})
        with self.snapshot():
            labels = {(r["doc_id"], r["version"]): frozenset(json.loads(r["access"]))
                      for r in self._q("SELECT doc_id, version, access FROM documents")}
            rel_docs: dict[int, tuple[str, int]] = {}
            for chunk in _chunks(rel_ids):
                for r in self._q(f"SELECT id, doc_id, version FROM relations WHERE id IN ({_marks(chunk)})", chunk):
                    rel_docs[r["id"]] = (r["doc_id"], r["version"])
            ent_docs: dict[str, set[tuple[str, int]]] = {}
            for chunk in _chunks(seeds):
                for r in self._q("SELECT DISTINCT entity_key, doc_id, version FROM mentions "
                                 f"WHERE entity_key IN ({_marks(chunk)})", chunk):
                    ent_docs.setdefault(r["entity_key"], set()).add((r["doc_id"], r["version"]))
        return Sources(labels, rel_docs, {k: frozenset(v) for k, v in ent_docs.items()})

    def _all_claims_judged(self, answer_id: int, n_claims: int) -> bool:
        rows = self._q("SELECT COUNT(DISTINCT claim_idx) AS n FROM verdicts WHERE answer_id=?", (answer_id,))
        return rows[0]["n"] >= n_claims

    # --- verification record ------------------------------------------------------------

    def add_verdict(self, v: Verdict) -> int:
        def run(db: sqlite3.Connection) -> int:
            cur = db.execute(
                'INSERT INTO verdicts (answer_id, claim_idx, marker, doc_id, version, start, "end", span_sha256,'
                " verdict, reviewer, note, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (v.answer_id, v.claim_index, v.marker, v.document_id, v.version, v.start, v.end, v.span_sha256,
                 v.verdict.value, v.reviewer, v.note, v.created_at or now()),
            )
            return int(cur.lastrowid or 0)

        return self._write(run)

    def verdicts(self, answer_id: int | None = None, claim_index: int | None = None,
                 reviewer: str | None = None) -> list[Verdict]:
        """Every verdict row (history included), oldest first, with staleness resolved."""
        where, params = [], []
        for col, val in (("v.answer_id", answer_id), ("v.claim_idx", claim_index), ("v.reviewer", reviewer)):
            if val is not None:
                where.append(f"{col}=?")
                params.append(val)
        rows = self._q(
            "SELECT v.*, d.superseded FROM verdicts v LEFT JOIN documents d ON d.doc_id=v.doc_id AND "
            "d.version=v.version" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY v.id",
            params,
        )
        return [
            Verdict(r["answer_id"], r["claim_idx"], VerdictLabel(r["verdict"]), r["reviewer"], r["span_sha256"],
                    r["marker"], r["doc_id"], r["version"], r["start"], r["end"], r["note"], r["created_at"],
                    r["id"], bool(r["superseded"]))
            for r in rows
        ]

    def current_verdicts(self, answer_id: int | None = None) -> list[Verdict]:
        """The latest verdict per (claim, reviewer): a changed mind is a new row."""
        latest: dict[tuple[int, int, str], Verdict] = {}
        for v in self.verdicts(answer_id):
            latest[(v.answer_id, v.claim_index, v.reviewer)] = v
        return list(latest.values())

    # --- layout of PDF/HTML/DOCX documents (schema v2; see the section at the end) -------

    def layout(self, doc_id: str, version: int, idx: int) -> SpanLayout | None:
        """Pages, boxes, heading path of one sentence; None for plain text (or a v1 store)."""
        return self.span_layouts([(doc_id, version, idx)]).get((doc_id, version, idx))

    def layouts(self, doc_id: str, version: int, indices: Iterable[int] | None = None) -> dict[int, SpanLayout]:
        """Sentence index -> layout for one document version (all sentences when ``indices`` is None)."""
        rows = _tolerant(lambda: self._q("SELECT * FROM span_layout WHERE doc_id=? AND version=? ORDER BY idx",
                                         (doc_id, version)), [])
        wanted = None if indices is None else set(indices)
        return {r["idx"]: _span_layout(r) for r in rows if wanted is None or r["idx"] in wanted}

    def span_layouts(self, keys: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], SpanLayout]:
        """(doc_id, version, idx) -> layout, for the citations of an answer."""
        out: dict[tuple[str, int, int], SpanLayout] = {}
        for key in set(keys):
            rows = _tolerant(lambda k=key: self._q(  # type: ignore[misc]
                "SELECT * FROM span_layout WHERE doc_id=? AND version=? AND idx=?", k), [])
            if rows:
                out[key] = _span_layout(rows[0])
        return out

    def page_sizes(self, doc_id: str, version: int) -> list[PageSize]:
        rows = _tolerant(lambda: self._q("SELECT page, width, height, label FROM page_sizes WHERE doc_id=? AND "
                                         "version=? ORDER BY page", (doc_id, version)), [])
        return [PageSize(r["page"], r["width"], r["height"], r["label"]) for r in rows]

    def document_file(self, doc_id: str, version: int) -> tuple[str, bytes] | None:
        """(media type, original bytes) of a document version stored with its file (PDF)."""
        rows = _tolerant(lambda: self._q("SELECT media_type, data FROM document_files WHERE doc_id=? AND version=?",
                                         (doc_id, version)), [])
        return (rows[0]["media_type"], bytes(rows[0]["data"])) if rows else None


class StoreCache:
    """The store's reply cache as a ReplyCache (graphrag.extract.base)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> str | None:
        return self.store.cache_get(key)

    def put(self, key: str, value: str) -> None:
        self.store.cache_put(key, value)


# --- row <-> record -----------------------------------------------------------------------


def _split_sql(script: str) -> list[str]:
    """Statements of the schema script; trigger bodies keep their inner semicolons."""
    out, buf = [], []
    for line in script.strip().splitlines():
        if line.strip().startswith("--"):
            continue
        buf.append(line)
        joined = "\n".join(buf).strip()
        if joined.endswith(";") and (not joined.upper().startswith("CREATE TRIGGER") or joined.upper().endswith("END;")):
            out.append(joined)
            buf = []
    return out


def _chunks(items: Sequence[T], size: int = 500) -> Iterator[list[T]]:
    for i in range(0, len(items), size):
        yield list(items[i:i + size])


def _marks(chunk: Sequence[object]) -> str:
    return ",".join("?" * len(chunk))


def _document(r: dict) -> Document:
    return Document(r["doc_id"], r["title"], r["version"], r["text"], r["sha256"], r["effective_date"],
                    tuple(json.loads(r["access"])), r["path"], bool(r["superseded"]))


def _route_json(r: Route) -> dict:
    return r.to_record()


def _route(d: dict) -> Route:
    return Route.from_record(d)


def _seed(x: list) -> Seed:  # type: ignore[type-arg]
    return Seed(x[0], x[1], *((RouteStart(x[2]), *x[3:]) if len(x) > 2 else ()))


def _support_json(s: Support | None) -> str | None:
    return None if s is None else json.dumps({"score": s.score, "label": s.label.value, "checker": s.checker,
                                              "reason": s.reason})


def _support(raw: str | None) -> Support | None:
    if raw is None:
        return None
    d = json.loads(raw)
    return Support(float(d["score"]), SupportLabel(d["label"]), d["checker"], d["reason"])


# --- schema v2: layout of PDF, HTML and DOCX documents --------------------------------------
# Pages and boxes are provenance attached to spans: the sentences table and everything that
# cites it are unchanged. Written in write_document's transaction, so a document is never
# stored without its layout. A v1 store is migrated by creating these tables (nothing else moves).

_LAYOUT_SCHEMA = """
CREATE TABLE IF NOT EXISTS span_layout (
    doc_id TEXT NOT NULL, version INTEGER NOT NULL, idx INTEGER NOT NULL,
    page INTEGER, page_end INTEGER, page_label TEXT,
    boxes TEXT NOT NULL,
    heading_path TEXT, paragraph INTEGER,
    PRIMARY KEY (doc_id, version, idx));
CREATE TABLE IF NOT EXISTS page_sizes (
    doc_id TEXT NOT NULL, version INTEGER NOT NULL, page INTEGER NOT NULL,
    width REAL NOT NULL, height REAL NOT NULL, label TEXT,
    PRIMARY KEY (doc_id, version, page));
CREATE TABLE IF NOT EXISTS document_files (
    doc_id TEXT NOT NULL, version INTEGER NOT NULL, media_type TEXT NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (doc_id, version));
"""


@dataclass(frozen=True)
class LayoutWrite:
    """The layout rows of one document version. ``spans`` is parallel to DocumentWrite.sentences
    (None for a sentence with no layout); boxes are JSON [[page, x0, y0, x1, y1], ...]."""

    media_type: str
    spans: Sequence[SpanLayout | None]
    pages: Sequence[PageSize] = ()
    data: bytes | None = None  # the original file, kept so the review page can render its pages


def _write_layout(db: sqlite3.Connection, doc_id: str, version: int, w: LayoutWrite) -> None:
    db.executemany(
        "INSERT INTO span_layout VALUES (?,?,?,?,?,?,?,?,?)",
        [(doc_id, version, i, s.page, s.page_end, s.page_label, json.dumps([list(b) for b in s.boxes]),
          s.heading_path, s.paragraph) for i, s in enumerate(w.spans) if s is not None],
    )
    db.executemany("INSERT INTO page_sizes VALUES (?,?,?,?,?,?)",
                   [(doc_id, version, p.number, p.width, p.height, p.label) for p in w.pages])
    if w.data is not None:
        db.execute("INSERT INTO document_files VALUES (?,?,?,?)", (doc_id, version, w.media_type, w.data))


def _span_layout(r: dict) -> SpanLayout:
    return SpanLayout(r["page"], r["page_end"], r["page_label"],
                      tuple((int(b[0]), *map(float, b[1:])) for b in json.loads(r["boxes"])),  # type: ignore[misc]
                      r["heading_path"], r["paragraph"])


def _tolerant(fn: Callable[[], T], default: T) -> T:
    """A read-only store opened on a v1 file has no layout tables: it simply has no layout."""
    try:
        return fn()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return default
        raise
