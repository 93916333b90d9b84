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

The search settings (an iterative scan, ``hnsw.ef_search``) are set once when a connection opens
(``db.PGVECTOR_SETTINGS``): no extra round trip per search. Half precision halves the table and index against
``vector`` (768 bytes a row at 384 dimensions); retrieval
re-scores the candidates exactly against float32 vectors, so it costs no ranking precision.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import Connection, text

from graphrag.errors import StoreError
from graphrag.language.encoding import DIM, MODEL_NAME

log = logging.getLogger(__name__)

MIN_PGVECTOR = (0, 8)  # halfvec (0.7) and iterative index scans (0.8), which keep a filtered search's recall
ENCODER_KEY = "vector_encoder"  # meta row: "<model>/<dimensions>" of the vectors in the embedding columns
KINDS = ("sentences", "entities")
ENABLE = ("run `graphrag store setup --owner-url <owner's URL> --app-role <role>` as a role that may CREATE "
          "EXTENSION vector (a superuser, or once the extension exists, the tables' owner)")


class VectorsMismatch(StoreError):
    """The store's vectors were made by another encoder or have another dimension than this version's."""


def encoder_id() -> str:
    """The encoder whose vectors this version writes and searches, as recorded in the store."""
    return f"{MODEL_NAME}/{DIM}"


@dataclass(frozen=True)
class VectorSearch:
    """Where a store's vectors are searched, and a line for people saying so (with how to change it)."""

    in_database: bool
    note: str
    pgvector: str | None = None  # the extension's version in this database, when installed
    encoder: str | None = None  # the encoder recorded for the embedding columns


def _version(v: str | None) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".")[:2] if p.isdigit()) if v else ()


def status(c: Connection) -> VectorSearch:
    """Where ``c``'s store has its vectors searched, read from the database."""
    if c.dialect.name != "postgresql":
        return VectorSearch(False, "vectors searched in each process (a SQLite store: faiss above 100,000 rows)")
    installed = c.execute(text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).scalar()
    available = c.execute(text("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")).scalar()
    columns = _has_columns(c)
    encoder = c.execute(text("SELECT value FROM meta WHERE key = :k"), {"k": ENCODER_KEY}).scalar()
    if installed and columns:
        return VectorSearch(True, f"vectors searched by the database (pgvector {installed}: HNSW over halfvec, "
                                  "cosine, the asker's labels in the query)", installed, encoder)
    in_process = "vectors searched in each process (faiss above 100,000 rows, an index per host)"
    if available is None:
        return VectorSearch(False, f"{in_process}: this PostgreSQL server has no pgvector; to let the database "
                                   "search them, install pgvector 0.8 or later on the server, then " + ENABLE)
    have = installed or available
    if _version(have) < MIN_PGVECTOR:
        return VectorSearch(False, f"{in_process}: pgvector {have} on this server is older than 0.8 (needed for "
                                   "halfvec and filtered iterative scans); upgrade it, then " + ENABLE, installed)
    return VectorSearch(False, f"{in_process}: pgvector {available} is available on this server but not enabled "
                               "for this store; " + ENABLE, installed)


def _has_columns(c: Connection) -> bool:
    n = c.execute(text("SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
                       "AND table_name IN ('sentences', 'entities') AND column_name = 'embedding'")).scalar()
    return n == len(KINDS)


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


def enable(c: Connection) -> int:
    """Create what the database's search needs, as the tables' owner (see ``may_enable``): the extension (when
    missing), the embedding columns, the trigger keeping them in step, the vectors already stored copied into
    them, then the HNSW indexes; the number of rows copied. Idempotent; refuses vectors of another dimension."""
    c.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    recorded = c.execute(text("SELECT value FROM meta WHERE key = :k"), {"k": ENCODER_KEY}).scalar()
    if recorded is not None and recorded != encoder_id():
        raise VectorsMismatch(mismatch_message(str(recorded)))
    for table in KINDS:
        stored = c.execute(text(f"SELECT length(vector) FROM {table} WHERE vector IS NOT NULL "
                                f"AND length(vector) <> :n LIMIT 1"), {"n": 4 * DIM}).scalar()
        if stored is not None:
            raise VectorsMismatch(f"the {table} of this store hold vectors of {int(stored) // 4} dimensions, this "
                                  f"version encodes {DIM} ({MODEL_NAME}): they were made by another encoder. Ingest "
                                  "the documents into a new store; the vector search was not enabled")
    c.execute(text(_CONVERT))
    c.execute(text(_TRIGGER_FUNCTION.replace("{dim}", str(DIM))))
    copied = 0
    for table in KINDS:
        c.execute(text(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS embedding halfvec({DIM})"))
        c.execute(text(f"DROP TRIGGER IF EXISTS graphrag_embedding ON {table}"))
        c.execute(text(f"CREATE TRIGGER graphrag_embedding BEFORE INSERT OR UPDATE OF vector ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION graphrag_embedding()"))
        copied += c.execute(text(f"UPDATE {table} SET embedding = graphrag_halfvec(vector) "
                                 "WHERE vector IS NOT NULL AND embedding IS NULL")).rowcount or 0
    for table in KINDS:
        build_index(c, table)
    c.execute(text("INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE SET value = "
                   "excluded.value"), {"k": ENCODER_KEY, "v": encoder_id()})
    return copied


def build_index(c: Connection, table: str) -> None:
    """The HNSW index over ``table``'s embeddings (a bulk load drops it first and builds it once after)."""
    c.execute(text("SET LOCAL maintenance_work_mem = '512MB'"))  # the graph in memory while it is built
    c.execute(text(f"CREATE INDEX IF NOT EXISTS {table}_embedding ON {table} "
                   "USING hnsw (embedding halfvec_cosine_ops)"))


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


# float32 little-endian bytes (the ``vector`` column) to halfvec, in SQL: sign, exponent and mantissa of each
# 4 bytes (a denormal, below 1e-38, is 0 in half precision anyway). About 1 ms a 384-dimension row.
_CONVERT = """
CREATE OR REPLACE FUNCTION graphrag_halfvec(b bytea) RETURNS halfvec LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
SELECT ('[' || string_agg(CASE WHEN e = 0 THEN '0' ELSE ((1 - 2 * sg) * (1 + m / 8388608.0::float8)
                                                         * power(2::float8, e - 127))::text END, ',' ORDER BY i)
        || ']')::halfvec
FROM (SELECT i, get_byte(b, 4 * i + 3) >> 7 AS sg,
             ((get_byte(b, 4 * i + 3) & 127) << 1) | (get_byte(b, 4 * i + 2) >> 7) AS e,
             ((get_byte(b, 4 * i + 2) & 127) << 16) | (get_byte(b, 4 * i + 1) << 8) | get_byte(b, 4 * i) AS m
      FROM generate_series(0, length(b) / 4 - 1) AS i) AS parts $$"""

# The embedding follows the float32 vector in the same statement; a writer may give it already (a bulk load).
_TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION graphrag_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.vector IS NULL THEN
    NEW.embedding := NULL;
  ELSIF length(NEW.vector) <> 4 * {dim} THEN
    RAISE EXCEPTION 'a vector of % dimensions: this store holds vectors of {dim} (%); they were made by another '
                    'encoder, so the row was not written', length(NEW.vector) / 4, TG_TABLE_NAME
      USING ERRCODE = 'data_exception';
  ELSIF NEW.embedding IS NULL OR (TG_OP = 'UPDATE' AND NEW.vector IS DISTINCT FROM OLD.vector) THEN
    NEW.embedding := graphrag_halfvec(NEW.vector);
  END IF;
  RETURN NEW;
END $$"""
