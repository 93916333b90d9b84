"""A synthetic store of any size, written straight into the store's tables (for ``graphrag bench million``).

Ingest would measure spaCy and MiniLM; this writes rows the ingest pipeline could have written, in one
transaction, so ``build_graph`` and retrieval read it unchanged. Everything is a function of the ``Layout``
(sizes and seed): a store built earlier is reused by checking its counts, and the questions asked of it are
drawn again from the same topic centres.

- documents of ``per_doc`` sentences; document ``d`` is on topic ``d % topics`` and carries labels by a fixed
  rule (mostly "public", some "finance", "legal" or both), so an asker's filter matters;
- sentence vectors around their topic's centre (with a per-document offset), unit-normalised float32;
- entities (a third as many as sentences), entity ``e`` on topic ``e % topics``, its name vector near the
  centre; every entity is mentioned at least once in its topic, and 1-3 mentions per sentence go to entities
  of the sentence's topic by a Zipf law (plus a share to global hubs, as "country" or "film" are named
  everywhere): a heavy-tailed degree distribution;
- relations between entities named in the same sentence or document, typed from a small set, each stated by
  the sentence of its source's mention;
- the ingest log and the generation bookkeeping as one ingest of every document on an empty store leaves them
  (a generation per document, all of them appends).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphrag.language.encoding import DIM
from graphrag.language.sentences import normalise
from graphrag.store import Store, now
from graphrag.store.vector_search import KINDS, stored_halfvec_text

RELATION_TYPES = ("part of", "located in", "founded", "member of", "works for", "created", "born in", "related to")
EXTRACTOR = "synthetic"
# Zipf exponents: within a topic (a few entities named in most of its sentences) and across the store (hubs).
LOCAL_ZIPF = 1.1
GLOBAL_ZIPF = 1.0
GLOBAL_SHARE = 0.1  # of the mentions drawn by the law, those that go to a store-wide hub
SAME_SENTENCE_SHARE = 0.5  # of the relations, those whose target is named in the stated sentence itself
# Vector noise (norms relative to the unit topic centre): sentences of one document resemble each other more
# than sentences of the topic's other documents; cosine to the centre ~0.7, as MiniLM gives on-topic text.
DOC_NOISE = 0.5
SENTENCE_NOISE = 0.8
ENTITY_NOISE = 0.7
CHUNK = 20_000  # rows generated and written at a time: the vectors never sit whole in memory
_SYLLABLES = ("ka", "lo", "ve", "ri", "ta", "mon", "dar", "el", "qui", "zan", "bo", "fe", "gu", "hal", "ne", "pi",
              "ro", "sa", "tu", "vin", "wen", "ya", "cor", "dul", "ix", "jo", "lem", "mar", "nor", "ol", "pen", "rud")


@dataclass(frozen=True)
class Layout:
    """The sizes of a synthetic store; the store is a function of them."""

    sentences: int
    relations: int
    seed: int = 0
    per_doc: int = 10

    @property
    def documents(self) -> int:
        """Documents (the last may hold fewer sentences)."""
        return -(-self.sentences // self.per_doc)

    @property
    def topics(self) -> int:
        """Topics: one per 50 sentences, between 2 and 2,000 (a million sentences: 500 per topic)."""
        return max(2, min(2000, self.sentences // 50))

    @property
    def entities(self) -> int:
        """Entities: a third as many as sentences (the rules extractor's ratio on MuSiQue), one per topic at
        least."""
        return max(self.topics, self.sentences // 3)

    def topic_of_document(self, d: np.ndarray | int) -> np.ndarray | int:
        """The topic of document ``d``."""
        return d % self.topics

    def entities_of_topic(self, t: int) -> np.ndarray:
        """The entities of topic ``t``, most named first (the order of the Zipf law's ranks)."""
        return np.arange(t, self.entities, self.topics)


def labels(d: int) -> list[str]:
    """Access labels of document ``d``: 85% public, 10% finance, 4% legal, 1% both of those."""
    h = (d * 7919) % 100
    if h < 10:
        return ["finance"]
    if h < 14:
        return ["legal"]
    if h < 15:
        return ["finance", "legal"]
    return ["public"]


def entity_name(e: int) -> str:
    """A pronounceable unique name: ``e`` in base 32 (four digits at least), a syllable per digit, as two
    words."""
    digits: list[str] = []
    n = e
    while n or len(digits) < 4:
        n, r = divmod(n, len(_SYLLABLES))
        digits.append(_SYLLABLES[r])
    half = len(digits) // 2
    return f"{''.join(digits[:half]).capitalize()} {''.join(digits[half:]).capitalize()}"


def entity_key(e: int) -> str:
    """The stored key of entity ``e``: its name normalised as ingest normalises names."""
    return normalise(entity_name(e))


def centres(layout: Layout) -> np.ndarray:
    """The topic centres (unit vectors), from their own random stream so questions can be drawn without
    rebuilding the store."""
    c = np.random.default_rng([layout.seed, 1]).standard_normal((layout.topics, DIM)).astype(np.float32)
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    return c


def _noise(rng: np.random.Generator, n: int, norm: float) -> np.ndarray:
    # Gaussian with expected norm ``norm`` in DIM dimensions
    return rng.standard_normal((n, DIM)).astype(np.float32) * np.float32(norm / np.sqrt(DIM))


def _unit(v: np.ndarray) -> np.ndarray:
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out.astype(np.float32)


def _zipf(rng: np.random.Generator, n_ranks: int, exponent: float, size: int) -> np.ndarray:
    """``size`` ranks in [0, n_ranks) drawn with probability proportional to 1 / (rank + 1) ** exponent."""
    cdf = np.cumsum(1.0 / np.arange(1, n_ranks + 1) ** exponent)
    drawn: np.ndarray = np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), n_ranks - 1)
    return drawn


@dataclass(frozen=True)
class Rows:
    """The graph's index arrays: mentions (sentence, entity) sorted by sentence, and relations."""

    mention_sentence: np.ndarray
    mention_entity: np.ndarray
    rel_source: np.ndarray
    rel_target: np.ndarray
    rel_sentence: np.ndarray
    rel_type: np.ndarray


def plan(layout: Layout) -> Rows:
    """Who is mentioned where, and which relations are stated where (no text or vectors yet)."""
    rng = np.random.default_rng([layout.seed, 2])
    s_total, n_ent, n_top, per_doc = layout.sentences, layout.entities, layout.topics, layout.per_doc
    # 1-3 mentions per sentence by the Zipf laws
    slots = np.repeat(np.arange(s_total, dtype=np.int64), rng.integers(1, 4, s_total))
    topic = (slots // per_doc) % n_top
    per_topic = n_ent // n_top  # ranks every topic has (entities past them get only their own mention)
    drawn = topic + _zipf(rng, per_topic, LOCAL_ZIPF, len(slots)) * n_top
    hub = rng.random(len(slots)) < GLOBAL_SHARE
    drawn[hub] = _zipf(rng, n_ent, GLOBAL_ZIPF, int(hub.sum()))
    # every entity once in a sentence of its topic: an entity exists because some sentence names it
    ents = np.arange(n_ent, dtype=np.int64)
    t = ents % n_top
    docs_in_topic = (layout.documents - t + n_top - 1) // n_top
    doc = t + n_top * (rng.random(n_ent) * docs_in_topic).astype(np.int64)
    own = np.minimum(doc * per_doc + rng.integers(0, per_doc, n_ent), s_total - 1)
    code = np.unique(np.concatenate([slots * n_ent + drawn, own * n_ent + ents]))  # one mention per pair
    m_sent, m_ent = code // n_ent, code % n_ent
    src, dst, sent = _relations(rng, layout, m_sent, m_ent)
    order = np.argsort(sent, kind="stable")  # ids in document order, as ingest writes them
    return Rows(m_sent, m_ent, src[order], dst[order], sent[order],
                rng.integers(0, len(RELATION_TYPES), len(order))[order])


def _relations(rng: np.random.Generator, layout: Layout, m_sent: np.ndarray, m_ent: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relations from a mention to another entity named in its sentence (or, failing that or by chance, in its
    document), stated by the first mention's sentence."""
    m_doc = m_sent // layout.per_doc
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    have = 0
    for _ in range(20):  # a few rounds: draws naming one entity twice are dropped
        n = int((layout.relations - have) * 1.2) + 16
        first = rng.integers(0, len(m_sent), n)
        same = rng.random(n) < SAME_SENTENCE_SHARE
        key = np.where(same, m_sent[first], m_doc[first])
        lo = np.where(same, np.searchsorted(m_sent, key, "left"), np.searchsorted(m_doc, key, "left"))
        hi = np.where(same, np.searchsorted(m_sent, key, "right"), np.searchsorted(m_doc, key, "right"))
        second = lo + (rng.random(n) * (hi - lo)).astype(np.int64)
        ok = m_ent[first] != m_ent[second]
        take = np.flatnonzero(ok)[: layout.relations - have]
        out.append((m_ent[first[take]], m_ent[second[take]], m_sent[first[take]]))
        have += len(take)
        if have >= layout.relations:
            break
    return tuple(np.concatenate([o[i] for o in out]) for i in range(3))  # type: ignore[return-value]


def _sentence_texts(layout: Layout, rows: Rows) -> list[str]:
    """Each sentence names the entities it mentions, so a quote reads as it would."""
    names: list[list[str]] = [[] for _ in range(layout.sentences)]
    for s, e in zip(rows.mention_sentence.tolist(), rows.mention_entity.tolist()):
        names[s].append(entity_name(e))
    out = []
    for s, named in enumerate(names):
        d, i = divmod(s, layout.per_doc)
        where = f"(record {d}.{i})"
        if len(named) == 1:
            out.append(f"{named[0]} is described in this passage {where}.")
        elif len(named) == 2:
            out.append(f"{named[0]} is linked to {named[1]} {where}.")
        else:
            out.append(f"{', '.join(named[:-1])} and {named[-1]} appear together {where}.")
    return out


def _documents(layout: Layout, texts: list[str], at: str) -> tuple[list[tuple[Any, ...]], list[tuple[int, int]]]:
    """Document rows, and each sentence's (start, end) in its document's text."""
    docs, offsets = [], []
    for d in range(layout.documents):
        parts = texts[d * layout.per_doc:(d + 1) * layout.per_doc]
        pos = 0
        for p in parts:
            offsets.append((pos, pos + len(p)))
            pos += len(p) + 1
        text = " ".join(parts)
        sha = hashlib.sha256(text.encode()).hexdigest()
        docs.append((doc_id(d), 1, f"Synthetic document {d}", None, json.dumps(labels(d)), sha, text, None, 0,
                     "ok", EXTRACTOR, at))
    return docs, offsets


def doc_id(d: int) -> str:
    """Zero-padded, so the store's (doc_id, version, idx) order is the sentences' order."""
    return f"syn{d:08d}"


def _sentence_rows(layout: Layout, texts: list[str], offsets: list[tuple[int, int]],
                   centre: np.ndarray) -> Iterator[tuple[Any, ...]]:
    rng = np.random.default_rng([layout.seed, 3])
    per_doc = layout.per_doc
    for first in range(0, layout.sentences, CHUNK - CHUNK % per_doc):  # whole documents per chunk
        last = min(layout.sentences, first + CHUNK - CHUNK % per_doc)
        s = np.arange(first, last)
        d = s // per_doc
        doc_offset = _noise(rng, int(d[-1] - d[0] + 1), DOC_NOISE)[d - d[0]]
        vec = _unit(centre[layout.topic_of_document(d)] + doc_offset + _noise(rng, len(s), SENTENCE_NOISE))
        for j, row in enumerate(s.tolist()):
            dd, i = divmod(row, per_doc)
            yield doc_id(dd), 1, i, offsets[row][0], offsets[row][1], texts[row], vec[j].tobytes()


def _entity_rows(layout: Layout, centre: np.ndarray) -> Iterator[tuple[Any, ...]]:
    rng = np.random.default_rng([layout.seed, 4])
    for first in range(0, layout.entities, CHUNK):
        e = np.arange(first, min(layout.entities, first + CHUNK))
        vec = _unit(centre[e % layout.topics] + _noise(rng, len(e), ENTITY_NOISE))
        for j, ent in enumerate(e.tolist()):
            yield entity_key(ent), entity_name(ent), "concept", vec[j].tobytes()


_SECONDARY = ("mentions", "relations")  # tables whose indexes are dropped while loading and built once after


def build(store: Store, layout: Layout) -> dict[str, float]:
    """Write the synthetic store into ``store`` (an empty SQLite or PostgreSQL store) in one transaction; the
    seconds each phase took."""
    if store.counts()["versions"]:
        raise ValueError(f"{store.url.display} already holds documents, not the synthetic store of these sizes: "
                         "give a new path or an empty database")
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    rows = plan(layout)
    keys = [entity_key(e) for e in range(layout.entities)]
    if len(set(keys)) != len(keys):
        raise AssertionError("two synthetic entity names normalise to one key")
    texts = _sentence_texts(layout, rows)
    at = now()
    docs, offsets = _documents(layout, texts, at)
    tables = _Tables(docs, _sentence_rows(layout, texts, offsets, centres(layout)),
                     _entity_rows(layout, centres(layout)),
                     ((keys[e], doc_id(s // layout.per_doc), s % layout.per_doc, EXTRACTOR)
                      for s, e in zip(rows.mention_sentence.tolist(), rows.mention_entity.tolist())),
                     ((keys[a], keys[b], RELATION_TYPES[ty], f"{RELATION_TYPES[ty]} (synthetic)",
                       doc_id(s // layout.per_doc), s % layout.per_doc, EXTRACTOR)
                      for a, b, s, ty in zip(rows.rel_source.tolist(), rows.rel_target.tolist(),
                                             rows.rel_sentence.tolist(), rows.rel_type.tolist())),
                     ((d[0], d[5], at) for d in docs))
    seconds["plan_s"] = time.perf_counter() - t0
    write = _write_sqlite if store.url.kind == "sqlite" else _write_postgresql
    seconds.update(write(store, tables, str(layout.documents)))
    return {k: round(v, 2) for k, v in seconds.items()}


@dataclass
class _Tables:
    """The synthetic rows of each table, generated as they are written."""

    documents: list[tuple[Any, ...]]
    sentences: Iterator[tuple[Any, ...]]  # doc_id, version, idx, start, end, text, float32 vector bytes
    entities: Iterator[tuple[Any, ...]]  # key, name, type, float32 vector bytes
    mentions: Iterator[tuple[Any, ...]]  # entity key, doc_id, sentence idx, extractor
    relations: Iterator[tuple[Any, ...]]  # source, target, type, description, doc_id, sentence idx, extractor
    ingest_log: Iterator[tuple[Any, ...]]  # doc_id, sha256, at


def _write_sqlite(store: Store, t: _Tables, generation: str) -> dict[str, float]:
    seconds: dict[str, float] = {}
    with store.transaction() as db:
        t0 = time.perf_counter()
        db.execute("PRAGMA cache_size=-262144")  # 256 MB of page cache while the indexes are built
        indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL AND "
                             f"tbl_name IN ({', '.join('?' * len(_SECONDARY))})", _SECONDARY).fetchall()
        for name, _ in indexes:  # built once at the end, the same statement the schema made them with
            db.execute(f'DROP INDEX "{name}"')
        db.executemany("INSERT INTO documents (doc_id, version, title, effective_date, access, sha256, text, path, "
                       "superseded, status, extractor, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", t.documents)
        db.executemany('INSERT INTO sentences (doc_id, version, idx, start, "end", text, vector) '
                       "VALUES (?,?,?,?,?,?,?)", t.sentences)
        db.executemany("INSERT INTO entities (key, name, type, vector) VALUES (?,?,?,?)", t.entities)
        db.executemany("INSERT INTO mentions (entity_key, doc_id, version, sentence_idx, description, extractor, "
                       "implied) VALUES (?,?,1,?,'named in the sentence',?,0)", t.mentions)
        db.executemany("INSERT INTO relations (source_key, target_key, type, description, doc_id, version, "
                       "sentence_idx, extractor) VALUES (?,?,?,?,?,1,?,?)", t.relations)
        db.executemany("INSERT INTO ingest_log (doc_id, path, sha256, status, error, at) VALUES (?,NULL,?,'ok',NULL,?)",
                       t.ingest_log)
        seconds["insert_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _, sql in indexes:
            db.execute(sql)
        # As one ingest of every document on an empty store: a generation per document write, each an append
        # (documents.mark_append), so a loaded graph is current and an extension would be allowed.
        db.execute("UPDATE meta SET value=? WHERE key='generation'", (generation,))
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
                       "value=excluded.value", [("appends_from", "0"), ("appends_to", generation)])
        seconds["index_s"] = time.perf_counter() - t0
    return seconds


def _copy(cur: Any, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
    with cur.copy(sql) as cp:
        for r in rows:
            cp.write_row(r)


def _with_embedding(rows: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Rows whose last value is a float32 vector's bytes, with the halfvec's text after it (as the enabling's copy
    writes it, so a bulk-loaded store holds the halfvecs the trigger would have made)."""
    for r in rows:
        yield (*r, stored_halfvec_text(r[-1]))


def _write_postgresql(store: Store, t: _Tables, generation: str) -> dict[str, float]:
    """The same rows through COPY (psycopg), in one transaction."""
    seconds: dict[str, float] = {}
    with store.transaction() as db, db.cursor() as cur:
        t0 = time.perf_counter()
        cur.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND "
                    "tablename = ANY(%s) AND indexname NOT LIKE '%%pkey'", (list(_SECONDARY),))
        indexes = cur.fetchall()
        for name, _ in indexes:
            cur.execute(f'DROP INDEX "{name}"')
        embedding = store.vector_search().in_database
        if embedding:  # an HNSW index is built once after the load, far faster than row by row
            for table in KINDS:
                cur.execute(f"DROP INDEX IF EXISTS {table}_embedding")
        _copy(cur, "COPY documents (doc_id, version, title, effective_date, access, sha256, text, path, superseded, "
                   "status, extractor, ingested_at) FROM STDIN", t.documents)
        if embedding:  # the halfvec given (the trigger would convert each row in SQL: ~1 ms a row)
            _copy(cur, 'COPY sentences (doc_id, version, idx, start, "end", text, vector, embedding) FROM STDIN',
                  _with_embedding(t.sentences))
            _copy(cur, "COPY entities (key, name, type, vector, embedding) FROM STDIN", _with_embedding(t.entities))
        else:
            _copy(cur, 'COPY sentences (doc_id, version, idx, start, "end", text, vector) FROM STDIN', t.sentences)
            _copy(cur, "COPY entities (key, name, type, vector) FROM STDIN", t.entities)
        _copy(cur, "COPY mentions (entity_key, doc_id, version, sentence_idx, description, extractor, implied) "
                   "FROM STDIN", ((k, d, 1, i, "named in the sentence", x, 0) for k, d, i, x in t.mentions))
        _copy(cur, "COPY relations (source_key, target_key, type, description, doc_id, version, sentence_idx, "
                   "extractor) FROM STDIN", ((a, b, ty, de, d, 1, i, x) for a, b, ty, de, d, i, x in t.relations))
        _copy(cur, "COPY ingest_log (doc_id, path, sha256, status, error, at) FROM STDIN",
              ((d, None, h, "ok", None, at) for d, h, at in t.ingest_log))
        seconds["insert_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _, sql in indexes:
            cur.execute(sql)
        cur.execute("UPDATE meta SET value=%s WHERE key='generation'", (generation,))
        cur.executemany("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET "
                        "value=excluded.value", [("appends_from", "0"), ("appends_to", generation)])
        seconds["index_s"] = time.perf_counter() - t0
        if embedding:
            t0 = time.perf_counter()
            cur.execute("SET LOCAL maintenance_work_mem = '1GB'")
            for table in KINDS:
                cur.execute(f"CREATE INDEX {table}_embedding ON {table} USING hnsw (embedding halfvec_cosine_ops)")
            seconds["vector_index_s"] = time.perf_counter() - t0
    with store.transaction() as db:  # fresh statistics, so the planner sees the tables' real sizes
        db.execute("ANALYZE")
    return seconds


def matches(store: Store, layout: Layout) -> bool:
    """Whether ``store`` holds the synthetic store of ``layout`` (by its counts and one entity key)."""
    c = store.counts()
    return (c["sentences"] == layout.sentences and c["documents"] == layout.documents
            and c["entities"] == layout.entities and c["relations"] == layout.relations
            and store.entity(entity_key(layout.entities - 1)) is not None)
