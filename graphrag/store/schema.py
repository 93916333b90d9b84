"""The schema, one definition for SQLite and PostgreSQL, and its numbered migrations.

Tables are SQLAlchemy Core ``Table`` objects, so each database gets its own DDL from one
source (BLOB on SQLite, BYTEA on PostgreSQL; integer keys become rowid aliases or sequences).
A migration is a function in ``MIGRATIONS`` that brings a store from the version before it to
its own number; the store runs the missing ones in one transaction on open. Adding a table is
a ``Table`` here plus a step, e.g.::

    span_layout = Table("span_layout", metadata, ...)
    def _v2(c: Connection) -> None:
        create_tables(c, span_layout)
    MIGRATIONS[2] = _v2

Things SQLAlchemy does not model (the verification record's append-only triggers) are the
only per-dialect DDL, in ``append_only`` and, on PostgreSQL, ``guards.py`` (schema 8).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    inspect,
    text,
)

from graphrag.store.guards import install as install_guards

metadata = MetaData()


def _key(*cols: str) -> PrimaryKeyConstraint:
    return PrimaryKeyConstraint(*cols)


meta = Table("meta", metadata, Column("key", Text, primary_key=True), Column("value", Text, nullable=False))

documents = Table(
    "documents", metadata,
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("title", Text, nullable=False), Column("effective_date", Text), Column("access", Text, nullable=False),
    Column("sha256", Text, nullable=False), Column("text", Text, nullable=False), Column("path", Text),
    Column("superseded", Integer, nullable=False, server_default="0"), Column("status", Text, nullable=False),
    Column("extractor", Text, nullable=False), Column("ingested_at", Text, nullable=False),
    _key("doc_id", "version"),
)

sentences = Table(
    "sentences", metadata,
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("idx", Integer, nullable=False), Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False), Column("text", Text, nullable=False),
    Column("vector", LargeBinary),  # float32 little-endian bytes: portable, no pgvector needed
    _key("doc_id", "version", "idx"),
)

entities = Table(
    "entities", metadata,
    Column("key", Text, primary_key=True), Column("name", Text, nullable=False), Column("type", Text, nullable=False),
    Column("vector", LargeBinary),
)

mentions = Table(
    "mentions", metadata,
    Column("id", Integer, primary_key=True), Column("entity_key", Text, ForeignKey("entities.key"), nullable=False),
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("sentence_idx", Integer, nullable=False), Column("description", Text, nullable=False),
    Column("extractor", Text, nullable=False), Column("implied", Integer, nullable=False, server_default="0"),
    Index("mentions_entity", "entity_key"),
)

relations = Table(
    "relations", metadata,
    Column("id", Integer, primary_key=True),
    Column("source_key", Text, ForeignKey("entities.key"), nullable=False),
    Column("target_key", Text, ForeignKey("entities.key"), nullable=False),
    Column("type", Text, nullable=False), Column("description", Text, nullable=False),
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("sentence_idx", Integer, nullable=False), Column("extractor", Text, nullable=False),
    Index("relations_source", "source_key"), Index("relations_target", "target_key"),
)

ingest_log = Table(
    "ingest_log", metadata,
    Column("id", Integer, primary_key=True), Column("doc_id", Text, nullable=False), Column("path", Text),
    Column("sha256", Text), Column("status", Text, nullable=False), Column("error", Text),
    Column("at", Text, nullable=False),
)

reply_cache = Table(
    "reply_cache", metadata,
    Column("key", Text, primary_key=True), Column("value", Text, nullable=False), Column("at", Text, nullable=False),
    Column("sources", Text),  # since v6: JSON list of the sha256 of each sentence the reply is about
)

answers = Table(
    "answers", metadata,
    Column("id", Integer, primary_key=True), Column("question", Text, nullable=False),
    Column("settings", Text, nullable=False), Column("text", Text, nullable=False),
    Column("status", Text, nullable=False), Column("generator", Text, nullable=False),
    Column("generator_model", Text), Column("seeds", Text, nullable=False), Column("reached", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    Column("disagreements", Text),  # since v7: JSON list of the cited sources that disagree
    # since v8: 0 when the documents do not answer (the reader abstained); NULL on older answers (answered)
    Column("answered", Integer), Column("answerable", Float),  # and the reader's probability that they answer
)

context_items = Table(
    "context_items", metadata,
    Column("answer_id", Integer, ForeignKey("answers.id"), nullable=False), Column("n", Integer, nullable=False),
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("sentence_idx", Integer, nullable=False), Column("route", Text, nullable=False),
    Column("score", Float, nullable=False), Column("via", Text, nullable=False),
    _key("answer_id", "n"),
)

claims = Table(
    "claims", metadata,
    Column("answer_id", Integer, ForeignKey("answers.id"), nullable=False), Column("idx", Integer, nullable=False),
    Column("text", Text, nullable=False), Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False), Column("flags", Text, nullable=False), Column("support", Text),
    _key("answer_id", "idx"),
)

citations = Table(
    "citations", metadata,
    Column("answer_id", Integer, nullable=False), Column("claim_idx", Integer, nullable=False),
    Column("pos", Integer, nullable=False), Column("marker", Text, nullable=False),
    Column("valid", Integer, nullable=False), Column("n", Integer), Column("support", Text),
    Column("irrelevant", Integer, nullable=False, server_default="0"),
    _key("answer_id", "claim_idx", "pos"),
)

verdicts = Table(
    "verdicts", metadata,
    Column("id", Integer, primary_key=True), Column("answer_id", Integer, ForeignKey("answers.id"), nullable=False),
    Column("claim_idx", Integer, nullable=False), Column("marker", Text), Column("doc_id", Text),
    Column("version", Integer), Column("start", Integer), Column("end", Integer),
    Column("span_sha256", Text, nullable=False), Column("verdict", Text, nullable=False),
    Column("reviewer", Text, nullable=False), Column("note", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    Column("role", Text, nullable=False, server_default="reviewer"),  # since v3: reviewer or adjudicator
    # since v5, team mode: who gave the verdict as the identity provider names them (None in local mode)
    Column("subject", Text), Column("email", Text),
    # since v8: sha256 of the judged claim's words (NULL on older verdicts: not checked)
    Column("claim_sha256", Text),
    Column("kind", Text, nullable=False, server_default="backs"),  # since v10: the question judged
    Index("verdicts_claim", "answer_id", "claim_idx"),
)

TABLES_V1 = (meta, documents, sentences, entities, mentions, relations, ingest_log, reply_cache, answers,
             context_items, claims, citations, verdicts)

# v2: where each sentence of a PDF, HTML or DOCX document sits, and the original PDF.
span_layout = Table(
    "span_layout", metadata,
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("idx", Integer, nullable=False), Column("page", Integer), Column("page_end", Integer),
    Column("page_label", Text), Column("boxes", Text, nullable=False),  # JSON [[page, x0, y0, x1, y1], ...]
    Column("heading_path", Text), Column("paragraph", Integer),
    Column("kind", Text),  # schema 11: the reader's block kind ("caption", "row", ...); NULL: not known
    Column("ocr_confidence", Float),  # since v12: read by OCR, the least sure line's confidence (NULL: not OCR)
    _key("doc_id", "version", "idx"),
)
page_sizes = Table(
    "page_sizes", metadata,
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("page", Integer, nullable=False), Column("width", Float, nullable=False),
    Column("height", Float, nullable=False), Column("label", Text),
    _key("doc_id", "version", "page"),
)
document_files = Table(
    "document_files", metadata,
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("media_type", Text, nullable=False), Column("data", LargeBinary, nullable=False),
    _key("doc_id", "version"),
)


# The verification record: rows are only ever added (append_only below). On PostgreSQL the
# application's role may only read and insert them (graphrag/store/roles.py); only the owner,
# which migrates, could drop the triggers.
RECORD_TABLES = ("verdicts", "audit", "removals")


def create_tables(c: Connection, *tables: Table) -> None:
    """Create the tables that do not exist yet."""
    for t in tables:
        t.create(c, checkfirst=True)


def append_only(c: Connection, table: str) -> None:
    """UPDATE and DELETE on ``table`` are refused by the database itself, whatever the client."""
    assert table in RECORD_TABLES, f"{table}: an append-only table is one of RECORD_TABLES"
    if c.dialect.name == "sqlite":
        for op in ("UPDATE", "DELETE"):
            c.exec_driver_sql(f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
                              f"BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END")
        return
    c.exec_driver_sql(f"""
        CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION '{table} are append-only' USING ERRCODE = 'restrict_violation'; END $$""")
    # statement-level: refused even when no row matches, and TRUNCATE too
    c.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
    c.exec_driver_sql(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON {table} "
                      f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_append_only()")


def _v1(c: Connection) -> None:
    create_tables(c, *TABLES_V1)
    append_only(c, "verdicts")
    c.execute(text("INSERT INTO meta (key, value) VALUES ('generation', '0') ON CONFLICT (key) DO NOTHING"))


# Schema 4: versions of the embedded support checker's parameters fitted from the team's
# verdicts (graphrag/store/checkers.py). Rows are never deleted; ``active`` marks the one in use
# (none active: the shipped parameters).
checker_versions = Table(
    "checker_versions", metadata,
    Column("version", Integer, primary_key=True, autoincrement=False), Column("created_at", Text, nullable=False),
    Column("params", Text, nullable=False), Column("source", Text, nullable=False),
    Column("metrics", Text, nullable=False), Column("active", Integer, nullable=False, server_default="0"),
    Column("activated_at", Text),
)


def _v2(c: Connection) -> None:
    create_tables(c, span_layout, page_sizes, document_files)


def _v3(c: Connection) -> None:
    # A verdict is a reviewer's or an adjudicator's (graphrag.verify.policy); earlier rows are
    # reviewers'. A store created at v3 already has the column (from the table above).
    if "role" not in {col["name"] for col in inspect(c).get_columns("verdicts")}:
        c.exec_driver_sql("ALTER TABLE verdicts ADD COLUMN role TEXT NOT NULL DEFAULT 'reviewer'")


def _v4(c: Connection) -> None:
    create_tables(c, checker_versions)


# Schema 5: who did what (graphrag/store/audit.py): sign-ins, ingests, exports, verdicts and settings,
# with the identity and time; append-only like the verdicts.
audit = Table(
    "audit", metadata,
    Column("id", Integer, primary_key=True), Column("at", Text, nullable=False), Column("event", Text, nullable=False),
    Column("subject", Text), Column("email", Text), Column("detail", Text, nullable=False),
    Index("audit_event", "event", "id"),  # since v15: the policy in force is read by event on every held ask
)


def _v5(c: Connection) -> None:
    # Verdicts carry the signed-in identity; a store created at v5 has the columns from the table above.
    have = {col["name"] for col in inspect(c).get_columns("verdicts")}
    for col in ("subject", "email"):
        if col not in have:
            c.exec_driver_sql(f"ALTER TABLE verdicts ADD COLUMN {col} TEXT")
    create_tables(c, audit)
    append_only(c, "audit")


# Schema 6: removed document versions (graphrag/store/removals.py). A row per removed version
# keeps what the verification record needs once the document is gone: which version, its access
# labels (who may still see the verdicts given on it), when, by whom and why; never its text.
# The reply cache learns where each reply came from (the sha256 of each sentence it was asked
# about), so a removal can drop exactly the replies that would bring a removed text back.
removals = Table(
    "removals", metadata,
    Column("id", Integer, primary_key=True), Column("doc_id", Text, nullable=False),
    Column("version", Integer, nullable=False), Column("sha256", Text, nullable=False),
    Column("access", Text, nullable=False), Column("removed_at", Text, nullable=False),
    Column("actor", Text, nullable=False), Column("reason", Text, nullable=False),
    Index("removals_doc", "doc_id", "version", unique=True),
)


def _v6(c: Connection) -> None:
    create_tables(c, removals)
    append_only(c, "removals")  # the record of what was removed is kept like the verdicts
    if "sources" not in {col["name"] for col in inspect(c).get_columns("reply_cache")}:
        c.exec_driver_sql("ALTER TABLE reply_cache ADD COLUMN sources TEXT")


def _v7(c: Connection) -> None:
    # Schema 7: an answer records the cited sources that disagree (graphrag.verify.disagreement), so the
    # review page shows the disagreement beside the claim. Older answers have none recorded (NULL).
    if "disagreements" not in {col["name"] for col in inspect(c).get_columns("answers")}:
        c.exec_driver_sql("ALTER TABLE answers ADD COLUMN disagreements TEXT")


def _v8(c: Connection) -> None:
    # Schema 8: a verdict keeps the sha256 of the claim's words it judged (beside span_sha256, the cited
    # sentence's), so words changed after the verdict show as tampering wherever it is read. On PostgreSQL the
    # owner's guards (graphrag/store/guards.py) bound what the application role may change: server times,
    # digests computed by the database, labels, settings and removals only with their audit rows.
    if "claim_sha256" not in {col["name"] for col in inspect(c).get_columns("verdicts")}:
        c.exec_driver_sql("ALTER TABLE verdicts ADD COLUMN claim_sha256 TEXT")
    if c.dialect.name == "postgresql":
        install_guards(c)


def _v9(c: Connection) -> None:
    # Schema 9: an answer records whether the documents answered (the reader's abstention) and the reader's
    # probability that they do; older answers have NULL (they were answered, or empty).
    have = {col["name"] for col in inspect(c).get_columns("answers")}
    if "answered" not in have:
        c.exec_driver_sql("ALTER TABLE answers ADD COLUMN answered INTEGER")
    if "answerable" not in have:
        c.exec_driver_sql("ALTER TABLE answers ADD COLUMN answerable DOUBLE PRECISION")


def _v10(c: Connection) -> None:
    # Schema 10: a verdict names the question it answers (graphrag.model.VerdictKind): "backs" (does the source
    # back the claim?) or "answers" (does the quote answer the question?). Every earlier verdict was given to
    # "supported?", so it keeps meaning "backs".
    if "kind" not in {col["name"] for col in inspect(c).get_columns("verdicts")}:
        c.exec_driver_sql("ALTER TABLE verdicts ADD COLUMN kind TEXT NOT NULL DEFAULT 'backs'")


def _v11(c: Connection) -> None:
    # Schema 11: a sentence keeps the kind of block the reader found it in ("caption", "row", "heading"), so a
    # quote of a picture's caption says so on Ask, Review and in the export. Sentences stored before: NULL (not
    # known; shown as before).
    if "kind" not in {col["name"] for col in inspect(c).get_columns("span_layout")}:
        c.exec_driver_sql("ALTER TABLE span_layout ADD COLUMN kind TEXT")


def _v12(c: Connection) -> None:
    # Schema 12: a sentence read by OCR from a scan keeps the recogniser's confidence (its least sure line), so the
    # Ask and Review pages say so beside the citation. Sentences stored before were all from a text layer or had
    # no OCR confidence kept (NULL).
    if "ocr_confidence" not in {col["name"] for col in inspect(c).get_columns("span_layout")}:
        c.exec_driver_sql("ALTER TABLE span_layout ADD COLUMN ocr_confidence DOUBLE PRECISION")


# Schema 13: the reader's second view of each sentence (graphrag/store/passage_vectors.py): a vector per sentence of a
# document version and per model, a cache of the text (older stores fill it as questions read their sentences).
passage_vectors = Table(
    "passage_vectors", metadata,
    Column("doc_id", Text, nullable=False), Column("version", Integer, nullable=False),
    Column("idx", Integer, nullable=False), Column("model", Text, nullable=False),
    Column("vector", LargeBinary, nullable=False),  # float32 little-endian bytes, like the sentences' vectors
    _key("doc_id", "version", "idx", "model"),
)


def _v13(c: Connection) -> None:
    create_tables(c, passage_vectors)


def _v14(c: Connection) -> None:
    # Schema 14: on PostgreSQL the owner's guards (graphrag/store/guards.py) also bound what the application role may
    # add: a document version's rows only with the version, an answer's only with the answer, a version superseded
    # only by a newer one stored with it, a removal and a withdrawal only for a version really deleted. Installed
    # again (they replace schema 8's); SQLite has no roles and nothing to install.
    if c.dialect.name == "postgresql":
        install_guards(c)


def _v15(c: Connection) -> None:
    # Schema 15: the audit log read by event (the review policy in force, the estimate's sample) without a scan of
    # every sign-in and verdict: 17.5 ms a read at 300,000 rows before, on each ask a held team reader makes.
    c.exec_driver_sql("CREATE INDEX IF NOT EXISTS audit_event ON audit (event, id)")


MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _v1, 2: _v2, 3: _v3, 4: _v4, 5: _v5, 6: _v6, 7: _v7,
                                                       8: _v8, 9: _v9, 10: _v10, 11: _v11, 12: _v12, 13: _v13,
                                                       14: _v14, 15: _v15}
SCHEMA_VERSION = max(MIGRATIONS)
