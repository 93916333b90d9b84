"""Removing a document (all its versions or one), in one transaction with everything it brought.

What goes: the version's text, sentences (so its spans stop being citable), mentions and
relations, the layout and the original file, entities left with no mention (and their vectors),
and every cached model reply about one of its sentences. Answers that drew on it are withdrawn
(their text, claims' text, routes and context go; the question, the claims' scores and the
verdicts stay). What stays: the verdicts, untouched (the database refuses to change them), and a
``removals`` row per version (no text: id, version, hash, access labels, when, who, why), through
which the record shows those verdicts as "source removed".

The first statement bumps the graph generation, as a document write does: every in-memory graph
is rebuilt before its next question, and on PostgreSQL the row lock orders a removal with
concurrent ingests of the same id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Connection, TextClause, bindparam, text

from graphrag.errors import InputError
from graphrag.model import AnswerStatus, AuditEvent, ClaimFlag
from graphrag.store import answers, audit, cache
from graphrag.store.codec import now
from graphrag.store.documents import bump_generation


@dataclass(frozen=True)
class Removal:
    """What one removal took out (or, previewed, would take out)."""

    document_id: str
    versions: tuple[int, ...]
    spans: int  # sentences that stopped being citable
    mentions: int
    relations: int
    entities: int  # entities left with no mention, removed with their vectors
    answers_withdrawn: int
    verdicts_kept: int  # verdicts on its spans: kept, shown as "source removed"
    cached_replies: int  # model replies dropped from the reply cache
    current_version: int | None  # the version of this id that is current afterwards (None: none left)
    removed_at: str
    actor: str
    reason: str


@dataclass(frozen=True)
class RemovalRecord:
    """A ``removals`` row: one removed version."""

    document_id: str
    version: int
    removed_at: str
    actor: str
    reason: str
    access: tuple[str, ...]


_PER_VERSION = ("passage_vectors", "span_layout", "page_sizes", "document_files", "sentences", "documents")


def _in(sql: str, name: str) -> TextClause:
    return text(sql).bindparams(bindparam(name, expanding=True))


def _count(c: Connection, table: str, doc_id: str, versions: Sequence[int]) -> int:
    return int(c.execute(_in(f"SELECT COUNT(*) FROM {table} WHERE doc_id=:d AND version IN :vs", "vs"),
                         {"d": doc_id, "vs": list(versions)}).scalar() or 0)


def remove(c: Connection, doc_id: str, versions: Sequence[int] | None, actor: str, reason: str,
           event: AuditEvent) -> Removal:
    """Remove ``doc_id`` (every version, or only ``versions``), audited by ``event`` (who acts; the detail
    gains what is removed and the answers withdrawn). Raises InputError for an unknown id or version,
    naming what is stored (and what was removed before).

    The audit row comes before any change and the ``removals`` rows before any deletion: on PostgreSQL
    the application role may do neither without them (graphrag/store/guards.py)."""
    bump_generation(c)  # first: the lock that orders document writers (see documents.write)
    stored = {int(v): (sha, acc) for v, sha, acc in c.execute(
        text("SELECT version, sha256, access FROM documents WHERE doc_id=:d ORDER BY version"), {"d": doc_id})}
    gone = records(c, doc_id)
    earlier = (f"; removed before: version {', '.join(str(r.version) for r in gone)}" if gone else "")
    if not stored:
        raise InputError(f"no document {doc_id!r} in the store{earlier}")
    missing = sorted(set(versions or ()) - set(stored))
    if missing:
        raise InputError(f"document {doc_id!r} has no version {', '.join(str(v) for v in missing)} (stored: "
                         f"{', '.join(str(v) for v in sorted(stored))}){earlier}")
    versions = sorted(stored) if not versions else sorted(set(versions))
    at = now()
    removed_keys = {(doc_id, v) for v in versions}

    spans = _count(c, "sentences", doc_id, versions)
    sentence_texts = list(c.execute(_in("SELECT text FROM sentences WHERE doc_id=:d AND version IN :vs", "vs"),
                                    {"d": doc_id, "vs": versions}).scalars())
    rel_ids = set(c.execute(_in("SELECT id FROM relations WHERE doc_id=:d AND version IN :vs", "vs"),
                            {"d": doc_id, "vs": versions}).scalars())
    candidates = sorted(set(c.execute(_in("SELECT DISTINCT entity_key FROM mentions WHERE doc_id=:d AND version "
                                          "IN :vs", "vs"), {"d": doc_id, "vs": versions}).scalars()))
    mentions = _count(c, "mentions", doc_id, versions)
    verdicts_kept = _count(c, "verdicts", doc_id, versions)

    hit = _answers_drawing_on(c, removed_keys, rel_ids)
    audit.add(c, replace(event, detail={**event.detail, "document": doc_id, "versions": versions, "actor": actor,
                                        "answers_withdrawn": len(hit), "answers": hit}))
    c.execute(text("INSERT INTO removals (doc_id, version, sha256, access, removed_at, actor, reason) "
                   "VALUES (:d, :v, :sha, :acc, :at, :actor, :reason)"),
              [{"d": doc_id, "v": v, "sha": stored[v][0], "acc": stored[v][1], "at": at, "actor": actor,
                "reason": reason} for v in versions])
    for aid in hit:
        _withdraw(c, aid)

    c.execute(_in("DELETE FROM mentions WHERE doc_id=:d AND version IN :vs", "vs"), {"d": doc_id, "vs": versions})
    c.execute(_in("DELETE FROM relations WHERE doc_id=:d AND version IN :vs", "vs"), {"d": doc_id, "vs": versions})
    for table in _PER_VERSION:
        c.execute(_in(f"DELETE FROM {table} WHERE doc_id=:d AND version IN :vs", "vs"), {"d": doc_id, "vs": versions})
    entities = 0
    for i in range(0, len(candidates), 500):  # an entity another document still mentions stays
        entities += c.execute(_in(
            "DELETE FROM entities WHERE key IN :keys AND NOT EXISTS (SELECT 1 FROM mentions m WHERE "
            "m.entity_key=entities.key) AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.source_key=entities.key "
            "OR r.target_key=entities.key)", "keys"), {"keys": candidates[i:i + 500]}).rowcount or 0
    replies = cache.purge(c, sentence_texts)

    # The newest version left is the current one again (removing v2 of two makes v1 citable).
    left = sorted(set(stored) - set(versions))
    if left:
        c.execute(text("UPDATE documents SET superseded=CASE WHEN version=:v THEN 0 ELSE 1 END WHERE doc_id=:d"),
                  {"d": doc_id, "v": left[-1]})
    return Removal(doc_id, tuple(versions), spans, mentions, len(rel_ids), entities, len(hit), verdicts_kept,
                   replies, left[-1] if left else None, at, actor, reason)


def _answers_drawing_on(c: Connection, removed: set[tuple[str, int]], rel_ids: set[int]) -> list[int]:
    """The answers to withdraw: every one that drew on a removed version (a context sentence or a route
    step in it, or a relation it states). Withheld whole, not redacted (as graphrag.access.rule withholds
    an answer a viewer cannot fully see): any claim, even one citing another document, may repeat it."""
    ids = [int(i) for i in c.execute(text("SELECT id FROM answers WHERE status<>:w"),
                                     {"w": AnswerStatus.WITHDRAWN.value}).scalars()]
    fps = answers.footprints(c, ids)
    return sorted(aid for aid, fp in fps.items() if fp.documents & removed or fp.relations & rel_ids)


def _withdraw(c: Connection, aid: int) -> None:
    """Blank one answer's text, claims' words, routes and context. On PostgreSQL the owner's function does it
    (the application role may not UPDATE answers or claims); the same statements on SQLite."""
    if c.dialect.name == "postgresql":
        c.execute(text("SELECT graphrag_withdraw_answer(CAST(:a AS BIGINT))"), {"a": aid})
        return
    c.execute(text("UPDATE answers SET text='', seeds='[]', reached='[]', disagreements=NULL, status=:w WHERE id=:a"),
              {"a": aid, "w": AnswerStatus.WITHDRAWN.value})
    for idx, flags, support in c.execute(text("SELECT idx, flags, support FROM claims WHERE answer_id=:a"),
                                         {"a": aid}).all():
        kept = [f for f in json.loads(flags) if f != ClaimFlag.SOURCE_REMOVED.value]
        scored = json.loads(support) if support else None
        if scored is not None:
            scored["reason"] = ""  # a checker's reason may quote the evidence
        c.execute(text('UPDATE claims SET text=\'\', start=0, "end"=0, flags=:f, support=:s '
                       "WHERE answer_id=:a AND idx=:i"),
                  {"a": aid, "i": idx, "f": json.dumps([*kept, ClaimFlag.SOURCE_REMOVED.value]),
                   "s": json.dumps(scored) if scored is not None else None})
    c.execute(text("DELETE FROM citations WHERE answer_id=:a"), {"a": aid})
    c.execute(text("DELETE FROM context_items WHERE answer_id=:a"), {"a": aid})


def records(c: Connection, doc_id: str | None = None) -> list[RemovalRecord]:
    """Removed versions, oldest removal first (of one id, or all)."""
    sql = "SELECT doc_id, version, removed_at, actor, reason, access FROM removals"
    rows = c.execute(text(sql + (" WHERE doc_id=:d" if doc_id is not None else "") + " ORDER BY id"),
                     {"d": doc_id} if doc_id is not None else {})
    return [RemovalRecord(d, int(v), at, actor, reason, tuple(json.loads(acc))) for d, v, at, actor, reason, acc
            in rows]
