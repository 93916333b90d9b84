"""Entities with all their mentions, relations (many per pair), and the rows the in-memory
graph is built from."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from typing import Any, NamedTuple, Protocol, cast

import numpy as np
from sqlalchemy import Connection, bindparam, text

from graphrag.access.rule import Footprint, Sources
from graphrag.language.encoding import DIM
from graphrag.model import Entity, Mention, Relation, Span
from graphrag.store import documents
from graphrag.store.codec import Row, fill_vectors


def entity(c: Connection, key: str) -> Entity | None:
    """The entity with this key and its mentions, or None."""
    r = c.execute(text("SELECT key, name, type FROM entities WHERE key=:k"), {"k": key}).first()
    if r is None:
        return None
    rows = c.execute(text(
        'SELECT m.*, s.start, s."end", s.text, d.superseded FROM mentions m '
        "JOIN sentences s ON s.doc_id=m.doc_id AND s.version=m.version AND s.idx=m.sentence_idx "
        "JOIN documents d ON d.doc_id=m.doc_id AND d.version=m.version "
        "WHERE m.entity_key=:k ORDER BY m.doc_id, m.version, m.sentence_idx, m.id"), {"k": key}).mappings()
    mentions = tuple(
        Mention(key, m["description"], Span(m["doc_id"], m["version"], m["sentence_idx"], m["start"], m["end"],
                                            m["text"]), m["extractor"], bool(m["implied"]), bool(m["superseded"]))
        for m in rows
    )
    return Entity(r[0], r[1], r[2], mentions)


def relations(c: Connection, where: str = "", params: dict[str, Any] | None = None) -> list[Relation]:
    """Relations matching the ``where`` clause, each with the sentence that states it."""
    rows = c.execute(text(
        'SELECT r.*, s.start, s."end", s.text, d.superseded FROM relations r '
        "JOIN sentences s ON s.doc_id=r.doc_id AND s.version=r.version AND s.idx=r.sentence_idx "
        "JOIN documents d ON d.doc_id=r.doc_id AND d.version=r.version " + where + " ORDER BY r.id"),
        params or {}).mappings()
    return [
        Relation(r["id"], r["source_key"], r["target_key"], r["type"], r["description"],
                 Span(r["doc_id"], r["version"], r["sentence_idx"], r["start"], r["end"], r["text"]),
                 r["extractor"], bool(r["superseded"]))
        for r in rows
    ]


def entities_at(c: Connection, doc_id: str, version: int, idx: int) -> list[str]:
    """Keys of the entities mentioned in one sentence."""
    return list(c.execute(text("SELECT DISTINCT entity_key FROM mentions WHERE doc_id=:d AND version=:v AND "
                               "sentence_idx=:i ORDER BY entity_key"), {"d": doc_id, "v": version, "i": idx}).scalars())


def entity_names(c: Connection) -> dict[str, str]:
    """Display name by entity key."""
    # .all(): given the Result itself, dict() would take it for a mapping (it has keys()) and fail
    return dict(c.execute(text("SELECT key, name FROM entities")).tuples().all())


_COUNTS = text(
    "SELECT (SELECT COUNT(*) FROM documents WHERE superseded=0) AS documents, "
    "(SELECT COUNT(*) FROM documents) AS versions, (SELECT COUNT(*) FROM sentences) AS sentences, "
    "(SELECT COUNT(*) FROM entities) AS entities, (SELECT COUNT(*) FROM mentions) AS mentions, "
    "(SELECT COUNT(*) FROM relations) AS relations, (SELECT COUNT(*) FROM answers) AS answers, "
    "(SELECT COUNT(*) FROM verdicts) AS verdicts")


def relation_counts(c: Connection) -> dict[tuple[str, int], int]:
    """Relations stated per document version (doc id, version): the caller decides which it may count."""
    rows = c.execute(text("SELECT doc_id, version, COUNT(*) FROM relations GROUP BY doc_id, version")).tuples()
    return {(d, int(v)): int(n) for d, v, n in rows}


_MARK = text(
    "SELECT (SELECT value FROM meta WHERE key='generation'), (SELECT value FROM meta WHERE "
    "key='review_required_verdicts'), (SELECT MAX(id) FROM answers), (SELECT MAX(id) FROM verdicts)")


def activity_mark(c: Connection) -> tuple[str, ...]:
    """What moves whenever a count a viewer sees could change: the generation (documents, removals), the review
    policy, the newest answer and the newest verdict (both tables only grow). Index lookups only."""
    row = c.execute(_MARK).one()
    return tuple("" if v is None else str(v) for v in row)


def counts(c: Connection) -> dict[str, int]:
    """Sizes for the sidebar and reports, in one statement (one consistent state)."""
    row = c.execute(_COUNTS).mappings().one()
    return {k: int(v) for k, v in row.items()}


_MENTIONS = "SELECT id, entity_key, doc_id, version, sentence_idx, implied FROM mentions"
_RELATIONS = "SELECT id, source_key, target_key, type, doc_id, version, sentence_idx FROM relations"


def graph_documents(c: Connection) -> list[Row]:
    """Every document version's row as the graph needs it (access, superseded, title, dates)."""
    return _rows(c, "SELECT doc_id, version, access, superseded, title, effective_date, sha256, ingested_at "
                    "FROM documents")


Chunk = list[tuple[Any, ...]]  # rows as the driver's plain tuples
CHUNK_ROWS = 32768  # rows fetched and handed on at a time


class GraphSink(Protocol):
    """Takes the whole graph's rows from ``read_graph``, table by table in the order of these methods, so each
    table can be turned into indices with the tables before it. A table comes as an iterator of chunks of the
    driver's plain tuples, which the sink consumes whole: a million rows are never all held as Python tuples at
    once (fresh memory is the slow part of a load)."""

    def documents(self, rows: list[Row]) -> None:
        """Every document version's row, as ``graph_documents``."""

    def entities(self, chunks: Iterator[Chunk], vectors: np.ndarray) -> None:
        """(key, name) by key. ``vectors``: a row per entity (zeros where none is stored), written as the chunks
        are read; ``spare_rows(n)`` zero rows follow them in the matrix it is a view of."""

    def sentences(self, chunks: Iterator[Chunk], vectors: np.ndarray) -> None:
        """(doc_id, version, idx) in document order (by all three); ``vectors`` as for entities."""

    def mentions(self, chunks: Iterator[Chunk], last_id: int) -> None:
        """(entity_key, doc_id, version, sentence_idx) by id; ``last_id`` the highest id (0 when there is none)."""

    def relations(self, chunks: Iterator[Chunk]) -> None:
        """(id, source_key, target_key, type, doc_id, version, sentence_idx) by id."""


def read_graph(c: Connection, sink: GraphSink, spare_rows: Callable[[int], int]) -> None:
    """Every row the in-memory graph is built from, handed to ``sink``; the caller reads in one snapshot
    (``Store.read_graph`` does). The vectors are written a chunk at a time into float32 matrices: at a million
    rows, a mapping per row would cost more than the whole rest of the build."""
    sink.documents(graph_documents(c))
    with _keyed_vectors(c, "entities", "key, name", "key", spare_rows) as (chunks, vectors):
        sink.entities(chunks, vectors)
    by = "doc_id, version, idx"
    with _keyed_vectors(c, "sentences", by, by, spare_rows) as (chunks, vectors):
        sink.sentences(chunks, vectors)
    last = int(_scalar(c, "SELECT COALESCE(MAX(id), 0) FROM mentions"))
    with closing(_chunks(c, "SELECT entity_key, doc_id, version, sentence_idx FROM mentions ORDER BY id")) as chunks:
        sink.mentions(chunks, last)
    with closing(_chunks(c, _RELATIONS + " ORDER BY id")) as chunks:
        sink.relations(chunks)


def _chunks(c: Connection, sql: str) -> Generator[Chunk]:
    # The driver's own cursor on this connection (so inside its snapshot): plain tuples, without SQLAlchemy's
    # per-row objects. No parameters, so no paramstyle differs between SQLite and PostgreSQL. sqlite3 steps
    # through the rows as they are fetched; psycopg's plain cursor would receive the whole result at once, a
    # named (server-side) one fetches each chunk (it needs the transaction the snapshot holds).
    pg = c.dialect.name == "postgresql"
    cur = c.connection.cursor(name="graph_rows") if pg else c.connection.cursor()
    try:
        cur.execute(sql)
        while chunk := cur.fetchmany(CHUNK_ROWS):
            yield cast(Chunk, chunk)  # a list on both drivers
    finally:
        cur.close()


def _scalar(c: Connection, sql: str) -> Any:
    cur = c.connection.cursor()
    try:
        cur.execute(sql)
        return cur.fetchall()[0][0]
    finally:
        cur.close()


@contextmanager
def _keyed_vectors(c: Connection, table: str, columns: str, order: str,
                   spare_rows: Callable[[int], int]) -> Iterator[tuple[Iterator[Chunk], np.ndarray]]:
    """(chunks of the key columns of ``table``'s rows, their vectors' matrix): each chunk's vectors are written
    into the matrix as it is read, so a million blobs are never all held at once."""
    n = int(_scalar(c, f"SELECT COUNT(*) FROM {table}"))  # table and columns: fixed names, never input
    out = np.zeros((n + spare_rows(n), DIM), dtype=np.float32)

    def chunks() -> Generator[Chunk]:
        done = 0
        for chunk in _chunks(c, f"SELECT {columns}, vector FROM {table} ORDER BY {order}"):
            if done + len(chunk) > n:
                raise ValueError(f"{table} grew while it was read (read it in a snapshot)")
            fill_vectors(out, done, [r[-1] for r in chunk])
            done += len(chunk)
            yield [r[:-1] for r in chunk]
        if done != n:
            raise ValueError(f"{table} shrank while it was read (read it in a snapshot)")

    with closing(chunks()) as it:  # its cursor closed even when the sink raises
        yield it, out[:n]


class GraphAdditions(NamedTuple):
    """What commits added after a graph was loaded: rows past its last mention and relation ids,
    the entities they name (new ones, and known ones whose stored row may have gained a vector),
    the sentences of the new document versions, and the table sizes to check the sum against."""

    entities: list[Row]
    mentions: list[Row]
    relations: list[Row]
    sentences: list[Row]
    sizes: dict[str, int]  # entities, mentions, relations, sentences


_SIZES = text("SELECT (SELECT COUNT(*) FROM entities) AS entities, (SELECT COUNT(*) FROM mentions) AS mentions, "
              "(SELECT COUNT(*) FROM relations) AS relations, (SELECT COUNT(*) FROM sentences) AS sentences")
_NAMED_SINCE = ("SELECT key, name, type, vector FROM entities WHERE key IN ("
                "SELECT entity_key FROM mentions WHERE id > :m UNION SELECT source_key FROM relations WHERE id > :r "
                "UNION SELECT target_key FROM relations WHERE id > :r) ORDER BY key")
_SENTENCES_OF = text("SELECT doc_id, version, idx, vector FROM sentences WHERE doc_id IN :ids").bindparams(
    bindparam("ids", expanding=True))


def graph_additions(c: Connection, mention_after: int, relation_after: int,
                    new_documents: Sequence[tuple[str, int]]) -> GraphAdditions:
    """The caller reads them in the same snapshot as the documents it found new."""
    p = {"m": mention_after, "r": relation_after}
    wanted = set(new_documents)
    ids = sorted({d for d, _ in wanted})
    sentences: list[Row] = []
    for i in range(0, len(ids), 500):
        sentences += [r for r in c.execute(_SENTENCES_OF, {"ids": ids[i:i + 500]}).mappings()
                      if (r["doc_id"], r["version"]) in wanted]
    sentences.sort(key=lambda r: (r["doc_id"], r["version"], r["idx"]))
    return GraphAdditions(
        _rows(c, _NAMED_SINCE, p),
        _rows(c, _MENTIONS + " WHERE id > :m ORDER BY id", p),
        _rows(c, _RELATIONS + " WHERE id > :r ORDER BY id", p),
        sentences,
        {k: int(v) for k, v in c.execute(_SIZES).mappings().one().items()},
    )



class GraphState(NamedTuple):
    """What a saved graph is checked against before it is trusted: the generation, each table's size and the
    last mention and relation ids (cheap to read: counts and index ends)."""

    generation: int
    sizes: dict[str, int]  # entities, mentions, relations, sentences
    last_mention: int
    last_relation: int


_LAST = text("SELECT (SELECT COALESCE(MAX(id), 0) FROM mentions), (SELECT COALESCE(MAX(id), 0) FROM relations)")


def graph_state(c: Connection) -> GraphState:
    """The caller reads it in the same snapshot as the documents it compares."""
    last_m, last_r = c.execute(_LAST).one()
    return GraphState(documents.generation(c), {k: int(v) for k, v in c.execute(_SIZES).mappings().one().items()},
                      int(last_m), int(last_r))


class GraphSample(NamedTuple):
    """Stored rows a saved graph's copies are compared with: relations by id (id, source, target, type, document
    id, version, sentence index), sentence vectors by (document id, version, index), entity vectors by key."""

    relations: list[tuple[Any, ...]]
    sentence_vectors: dict[tuple[str, int, int], bytes | None]
    entity_vectors: dict[str, bytes | None]


_REL_ROWS = text(_RELATIONS + " WHERE id IN :ids").bindparams(bindparam("ids", expanding=True))
_ENT_VECTORS = text("SELECT key, vector FROM entities WHERE key IN :keys").bindparams(
    bindparam("keys", expanding=True))
_SENT_VECTOR = text("SELECT vector FROM sentences WHERE doc_id=:d AND version=:v AND idx=:i")


def graph_sample(c: Connection, relation_ids: Sequence[int], sentences: Sequence[tuple[str, int, int]],
                 entity_keys: Sequence[str]) -> GraphSample:
    """A few stored rows by their keys (a handful each: one statement per sentence)."""
    rels = [tuple(r) for r in c.execute(_REL_ROWS, {"ids": list(relation_ids)})] if relation_ids else []
    ents = dict(c.execute(_ENT_VECTORS, {"keys": list(entity_keys)}).tuples().all()) if entity_keys else {}
    sent = {}
    for d, v, i in sentences:
        row = c.execute(_SENT_VECTOR, {"d": d, "v": v, "i": i}).first()
        if row is not None:
            sent[(d, v, i)] = row[0]
    return GraphSample(sorted(rels), sent, ents)


def _rows(c: Connection, sql: str, params: Mapping[str, Any] | None = None) -> list[Row]:
    # Mappings read like the dicts the graph builder indexes by column name; vectors come back as
    # bytes on SQLite and as bytes (BYTEA) on PostgreSQL, so np.frombuffer works on both.
    return list(c.execute(text(sql), params or {}).mappings())


_REL_DOCS = text("SELECT id, doc_id, version FROM relations WHERE id IN :ids").bindparams(
    bindparam("ids", expanding=True))
_ENT_DOCS = text("SELECT DISTINCT entity_key, doc_id, version FROM mentions WHERE entity_key IN :keys").bindparams(
    bindparam("keys", expanding=True))


def visibility_sources(c: Connection, footprints: Iterable[Footprint]) -> Sources:
    """The labels, relation sources and seed mentions needed to judge these footprints. The
    caller reads in one snapshot."""
    fps = list(footprints)
    rel_ids = sorted({i for fp in fps for i in fp.relations})
    seeds = sorted({k for fp in fps for k in fp.seeds})
    labels = {(d, v): frozenset(json.loads(acc)) for d, v, acc in
              c.execute(text("SELECT doc_id, version, access FROM documents"))}
    rel_docs: dict[int, tuple[str, int]] = {}
    for i in range(0, len(rel_ids), 500):
        for rid, d, v in c.execute(_REL_DOCS, {"ids": rel_ids[i:i + 500]}):
            rel_docs[rid] = (d, v)
    ent_docs: dict[str, set[tuple[str, int]]] = {}
    for i in range(0, len(seeds), 500):
        for key, d, v in c.execute(_ENT_DOCS, {"keys": seeds[i:i + 500]}):
            ent_docs.setdefault(key, set()).add((d, v))
    return Sources(labels, rel_docs, {k: frozenset(v) for k, v in ent_docs.items()})
