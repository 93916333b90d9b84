"""Vector search by the database: on a PostgreSQL server with pgvector 0.8 or later the sentence and entity vectors
also live in ``halfvec(DIM)`` columns (``embedding``) with an HNSW index each (cosine), and retrieval asks the
server for the rows nearest a question, with the asker's labels in the query (``nearest_sentences``,
``nearest_entities``). Elsewhere (SQLite, a server without pgvector) every process searches its own copy
(``graphrag.answer.retrieval.index``), and ``status`` says why and how to change it.

The float32 ``vector`` column stays the source of every row's vector: a trigger (``graphrag_embedding``) fills
``embedding`` from it in the transaction that writes the row, whoever writes it (ingest, ``store migrate``, a bulk
load), so the halfvec column and its index are always in step with the rows, their versions and removals (a
removal deletes the row, and PostgreSQL its index entries). A vector of another dimension is refused by the
trigger with a message; the encoder that made the vectors is recorded (meta ``vector_encoder``) and retrieval
refuses a store whose vectors another encoder made (``check_encoder``).

Enabling it on a store is ``vector_enable`` (in short, resumable steps); ``status`` tells its stages apart
(``Stage``): vectors still being copied (each process searches its own copy), an HNSW index missing, being built or
invalid (the database searches by an exact scan: the same rows, slower; ``index_ready`` False, and the note says
so), ready.

The search settings (an iterative scan, ``hnsw.ef_search``) are set once when a connection opens
(``db.PGVECTOR_SETTINGS``): no extra round trip per search. Half precision halves the table and index against
``vector`` (768 bytes a row at 384 dimensions); retrieval
re-scores the candidates exactly against float32 vectors, so it costs no ranking precision.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from sqlalchemy import Connection, text

from graphrag.errors import StoreError
from graphrag.language.encoding import DIM, MODEL_NAME

log = logging.getLogger(__name__)

MIN_PGVECTOR = (0, 8)  # halfvec (0.7) and iterative index scans (0.8), which keep a filtered search's recall
ENCODER_KEY = "vector_encoder"  # meta row: "<model>/<dimensions>" of the vectors in the embedding columns
KINDS = ("sentences", "entities")
COPY_KEY = "vector_copy"  # meta row while the stored vectors are copied: "<copied>/<to copy>"
ENABLE = ("run `graphrag store setup --owner-url <owner's URL> --app-role <role>` as a role that may CREATE "
          "EXTENSION vector (a superuser, or once the extension exists, the tables' owner)")
RESUME = ("`graphrag store setup --owner-url <owner's URL> --app-role <role>` finishes it (it goes on where it "
          "stopped; dashboards keep answering meanwhile)")


class VectorsMismatch(StoreError):
    """The store's vectors were made by another encoder or have another dimension than this version's."""


def encoder_id() -> str:
    """The encoder whose vectors this version writes and searches, as recorded in the store."""
    return f"{MODEL_NAME}/{DIM}"


class Stage(StrEnum):
    """How far a store is in having the database search its vectors (``graphrag.store.vector_enable``)."""

    PROCESS = "process"  # no pgvector columns (SQLite, a server without pgvector, not enabled yet)
    COPYING = "copying"  # the columns exist, the stored vectors are being copied into them: searched in process
    INDEXING = "indexing"  # every vector copied, an HNSW index missing, being built or invalid: an exact scan
    READY = "ready"  # searched by the database through the HNSW indexes


@dataclass(frozen=True)
class VectorSearch:
    """Where a store's vectors are searched, and a line for people saying so (with how to change it)."""

    in_database: bool
    note: str
    pgvector: str | None = None  # the extension's version in this database, when installed
    encoder: str | None = None  # the encoder recorded for the embedding columns
    stage: Stage = Stage.PROCESS
    # the HNSW indexes are built and valid; while not, the database's search is an exact scan (correct, slower)
    index_ready: bool = False
    index_state: str = ""  # while not ready: the HNSW index "being built (progress)", or missing or invalid


def _version(v: str | None) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".")[:2] if p.isdigit()) if v else ()


# Everything ``status`` needs in one statement (it is read again every few seconds: ``Store.vector_search``).
# pg_available_extensions reads the server's extension files: only asked when the extension is not installed.
_STATUS = text(f"""
SELECT x.installed,
       CASE WHEN x.installed IS NULL THEN (SELECT default_version FROM pg_available_extensions
                                           WHERE name = 'vector') END,
       (SELECT count(*) FROM pg_attribute WHERE attrelid IN (to_regclass('sentences'), to_regclass('entities'))
                                            AND attname = 'embedding' AND NOT attisdropped),
       (SELECT value FROM meta WHERE key = '{ENCODER_KEY}'),
       (SELECT value FROM meta WHERE key = '{COPY_KEY}'),
       (SELECT count(*) FROM pg_index WHERE indisvalid AND indexrelid IN
            (to_regclass('sentences_embedding'), to_regclass('entities_embedding'))),
       (SELECT string_agg(c.relname || ': ' || p.phase || CASE
                WHEN p.tuples_total > 0 THEN ' ' || (100 * p.tuples_done / p.tuples_total) || '%'
                WHEN p.blocks_total > 0 THEN ' ' || (100 * p.blocks_done / p.blocks_total) || '%' ELSE '' END, '; ')
          FROM pg_stat_progress_create_index p JOIN pg_class c ON c.oid = p.relid
         WHERE p.relid IN (to_regclass('sentences'), to_regclass('entities')))
FROM (SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed) AS x""")


def status(c: Connection) -> VectorSearch:
    """Where ``c``'s store has its vectors searched, read from the database (one statement on PostgreSQL)."""
    if c.dialect.name != "postgresql":
        return VectorSearch(False, "vectors searched in each process (a SQLite store: faiss above 100,000 rows)")
    row = c.execute(_STATUS).one()
    installed, available, columns, encoder, copied, valid, building = row
    if installed and columns == len(KINDS):
        if encoder is None:  # the copy is not complete: the columns cannot answer for every row yet
            return VectorSearch(False, "vectors searched in each process while the stored vectors are copied into "
                                       f"pgvector columns ({_copy_progress(copied)}); " + RESUME, installed,
                                stage=Stage.COPYING)
        if valid == len(KINDS):
            return VectorSearch(True, f"vectors searched by the database (pgvector {installed}: HNSW over halfvec, "
                                      "cosine, the asker's labels in the query)", installed, encoder, Stage.READY,
                                index_ready=True)
        doing = f"being built ({building})" if building else "missing or left invalid by an interrupted build"
        return VectorSearch(True, f"vectors searched by the database by an exact scan (the same rows, slower): its "
                                  f"HNSW index is {doing}; " + (RESUME if not building else "the search speeds up "
                                  "when it is ready"), installed, encoder, Stage.INDEXING, index_state=doing)
    in_process = "vectors searched in each process (faiss above 100,000 rows, an index per host)"
    if installed is None and available is None:
        return VectorSearch(False, f"{in_process}: this PostgreSQL server has no pgvector; to let the database "
                                   "search them, install pgvector 0.8 or later on the server, then " + ENABLE)
    have = installed or available
    if _version(have) < MIN_PGVECTOR:
        return VectorSearch(False, f"{in_process}: pgvector {have} on this server is older than 0.8 (needed for "
                                   "halfvec and filtered iterative scans); upgrade it, then " + ENABLE, installed)
    return VectorSearch(False, f"{in_process}: pgvector {have} is available on this server but not enabled "
                               "for this store; " + ENABLE, installed)


def _copy_progress(copied: str | None) -> str:
    """'12,000 of 100,000 copied (12%)' from the meta row the copy keeps (``<copied>/<to copy>``)."""
    done, _, total = (copied or "").partition("/")
    if not (done.isdigit() and total.isdigit()):
        return "not started"
    share = f" ({100 * int(done) // int(total)}%)" if int(total) else ""
    return f"{int(done):,} of {int(total):,} copied{share}"


def may_enable(c: Connection) -> bool:
    """Whether this role can enable the search here: the server offers pgvector 0.8 or later, and the role owns
    the tables and either may create the extension (a superuser) or finds it created."""
    if c.dialect.name != "postgresql":
        return False
    available = c.execute(text("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")).scalar()
    installed = c.execute(text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).scalar()
    if _version(installed or available) < MIN_PGVECTOR:
        return False
    owner = c.execute(text("SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c "
                           "WHERE c.oid = 'meta'::regclass")).scalar()
    superuser = c.execute(text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).scalar()
    return bool(owner) and bool(installed or superuser)


def mismatch_message(recorded: str) -> str:
    """What a person reads when the store's vectors are another encoder's."""
    return (f"this store's vectors were made by {recorded}, this version encodes with {encoder_id()}: searching "
            "one with the other would mix two spaces. Ingest the documents into a new store with this version, or "
            "use the version that made them")


def check_encoder(vs: VectorSearch) -> None:
    """Refuse a store whose embedding columns hold another encoder's vectors."""
    if vs.in_database and vs.encoder is not None and vs.encoder != encoder_id():
        raise VectorsMismatch(mismatch_message(vs.encoder))


def halfvec_text(vector: object) -> str:
    """A vector as pgvector's text form (``[x,y,...]``)."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"  # type: ignore[attr-defined]


def stored_halfvec_text(blob: bytes) -> str:
    """A stored float32 vector (the ``vector`` column's little-endian bytes) as pgvector's text form, its exact
    values: the server rounds them to half precision as the trigger's conversion does."""
    return halfvec_text(np.frombuffer(blob, dtype="<f4").tolist())


@dataclass(frozen=True)
class AskerFilter:
    """Whose search it is: the labels they hold (None: every row), whether superseded versions count, and the
    document ids a question is scoped to (empty: all)."""

    labels: frozenset[str] | None
    include_superseded: bool = False
    documents: frozenset[str] = frozenset()

    def where(self, doc: str) -> tuple[str, dict[str, object]]:
        """SQL conditions on the documents row ``doc`` (its alias) and their parameters."""
        parts, params = [], dict[str, object]()
        if not self.include_superseded:
            parts.append(f"{doc}.superseded = 0")
        if self.labels is not None:
            parts.append(f"jsonb_exists_any({doc}.access::jsonb, CAST(:labels AS text[]))")
            params["labels"] = sorted(self.labels)
        if self.documents:
            parts.append(f"{doc}.doc_id = ANY(CAST(:scope AS text[]))")
            params["scope"] = sorted(self.documents)
        return " AND ".join(parts) or "TRUE", params


def nearest_sentences(c: Connection, query: str, k: int, asker: AskerFilter) -> list[tuple[str, int, int]]:
    """(document id, version, sentence index) of up to ``k`` sentences the asker may see nearest ``query`` (a
    halfvec's text), roughly best first (the HNSW order; the caller scores them exactly)."""
    cond, params = asker.where("d")
    rows = c.execute(text(
        "SELECT s.doc_id, s.version, s.idx FROM sentences s JOIN documents d ON d.doc_id = s.doc_id AND "
        f"d.version = s.version WHERE s.embedding IS NOT NULL AND {cond} "
        "ORDER BY s.embedding <=> CAST(:q AS halfvec) LIMIT :k"), {**params, "q": query, "k": k})
    return [(str(r[0]), int(r[1]), int(r[2])) for r in rows]


def nearest_entities(c: Connection, query: str, k: int, asker: AskerFilter) -> list[str]:
    """Keys of up to ``k`` entities nearest ``query`` that the asker may see (one of their mentions is in a
    document version they see)."""
    cond, params = asker.where("d")
    seen = "" if asker.labels is None and asker.include_superseded and not asker.documents else (
        "AND EXISTS (SELECT 1 FROM mentions m JOIN documents d ON d.doc_id = m.doc_id AND d.version = m.version "
        f"WHERE m.entity_key = e.key AND {cond})")
    rows = c.execute(text(
        f"SELECT e.key FROM entities e WHERE e.embedding IS NOT NULL {seen} "
        "ORDER BY e.embedding <=> CAST(:q AS halfvec) LIMIT :k"), {**params, "q": query, "k": k})
    return [str(r[0]) for r in rows]


def sizes(c: Connection) -> dict[str, int]:
    """Bytes on disk of each HNSW index and of the embedding columns' tables (for the figures)."""
    out: dict[str, int] = {}
    for table in KINDS:
        out[f"{table}_index_bytes"] = int(c.execute(text(
            "SELECT COALESCE(pg_relation_size(to_regclass(:i)), 0)"), {"i": f"{table}_embedding"}).scalar() or 0)
        out[f"{table}_table_bytes"] = int(c.execute(text(
            "SELECT pg_total_relation_size(to_regclass(:t))"), {"t": table}).scalar() or 0)
    return out
