"""The verification record: append-only verdicts (the database refuses UPDATE and DELETE, see
schema.append_only), each with the sha256 of the span judged and (schema 8) of the claim's words."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection, text

from graphrag.model import ClaimFlag, Verdict, VerdictKind, VerdictLabel
from graphrag.store.codec import now, sha256_text


def add(c: Connection, v: Verdict) -> int:
    """Append a verdict; returns its id. On PostgreSQL the application role's time and digests are the
    database's (graphrag/store/guards.py), whatever ``v`` says."""
    return int(c.execute(text(
        'INSERT INTO verdicts (answer_id, claim_idx, marker, doc_id, version, start, "end", span_sha256, verdict, '
        "reviewer, note, created_at, role, subject, email, claim_sha256, kind) VALUES (:a, :ci, :marker, :d, :v, :s, "
        ":e, :sha, :verdict, :reviewer, :note, :at, :role, :subject, :email, :claim_sha, :kind) RETURNING id"),
        {"a": v.answer_id, "ci": v.claim_index, "marker": v.marker, "d": v.document_id, "v": v.version,
         "s": v.start, "e": v.end, "sha": v.span_sha256, "verdict": v.verdict.value, "reviewer": v.reviewer,
         "note": v.note, "at": v.created_at or now(), "role": v.role, "subject": v.subject,
         "email": v.email, "claim_sha": v.claim_sha256, "kind": v.kind.value}).scalar_one())


def find_same(c: Connection, v: Verdict, since: str) -> int | None:
    """The id of the newest stored verdict identical to ``v``, if any: by its time on SQLite; on PostgreSQL,
    where the database may have stamped its own time (guards.py), one given at or after ``since`` (ISO time)."""
    when = "created_at>=:since" if c.dialect.name == "postgresql" else "created_at=:at"
    found = c.execute(text(
        "SELECT id FROM verdicts WHERE answer_id=:a AND claim_idx=:ci AND reviewer=:reviewer AND verdict=:verdict "
        f"AND note=:note AND {when} AND span_sha256=:sha AND role=:role AND kind=:kind ORDER BY id DESC LIMIT 1"),
        {"a": v.answer_id, "ci": v.claim_index, "reviewer": v.reviewer, "verdict": v.verdict.value, "note": v.note,
         "at": v.created_at, "since": since, "sha": v.span_sha256, "role": v.role, "kind": v.kind.value}).scalar()
    return None if found is None else int(found)


def history(c: Connection, answer_id: int | None = None, claim_index: int | None = None,
            reviewer: str | None = None, removals: bool = True, claim_digests: bool = True,
            spans: Sequence[str] | None = None) -> list[Verdict]:
    """Every verdict row (history included), oldest first, with staleness resolved: a verdict on a
    superseded or removed version is stale, and one on a removed version says so (``removals``:
    the store has the table, schema 6); one whose claim's or cited sentence's words changed since says
    ``tampered``, and the review policy counts it no more than a stale one (``claim_digests``: the store has the column, schema 8)."""
    where, params = [], {}
    for col, name, val in (("v.answer_id", "a", answer_id), ("v.claim_idx", "ci", claim_index),
                           ("v.reviewer", "r", reviewer)):
        if val is not None:
            where.append(f"{col}=:{name}")
            params[name] = val
    if spans is not None:  # the verdicts on these sentences (carry-over looks them up)
        if not spans:
            return []
        where.append("v.span_sha256 IN (" + ",".join(f":sp{i}" for i in range(len(spans))) + ")")
        params.update({f"sp{i}": sp for i, sp in enumerate(spans)})
    removed = ("x.id IS NOT NULL", "LEFT JOIN removals x ON x.doc_id=v.doc_id AND x.version=v.version") \
        if removals else ("0=1", "")
    claim = ("c.text AS claim_text, c.flags AS claim_flags, " + _SPAN_NOW, "LEFT JOIN claims c ON "
             "c.answer_id=v.answer_id AND c.idx=v.claim_idx") if claim_digests else \
        ("NULL AS claim_text, NULL AS claim_flags, NULL AS span_text", "")
    rows = c.execute(text(
        f"SELECT v.*, d.superseded, {removed[0]} AS removed, {claim[0]} FROM verdicts v LEFT JOIN documents d ON "
        f"d.doc_id=v.doc_id AND d.version=v.version {removed[1]} {claim[1]}"
        + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY v.id"), params).mappings()
    out = []
    for r in rows:
        tampered = claim_tampered(r.get("claim_sha256"), r["claim_text"], r["claim_flags"]) or \
            (SPAN_TAMPERED if r["span_text"] is not None and sha256_text(r["span_text"]) != r["span_sha256"] else "")
        out.append(Verdict(
            r["answer_id"], r["claim_idx"], VerdictLabel(r["verdict"]), r["reviewer"], r["span_sha256"],
            r["marker"], r["doc_id"], r["version"], r["start"], r["end"], r["note"], r["created_at"],
            r["id"], bool(r["superseded"]) or bool(r["removed"]),
            r.get("role") or "reviewer",  # role: schema 3
            bool(r["removed"]), r.get("subject"), r.get("email"),  # identity: schema 5
            r.get("claim_sha256"), tampered,  # schema 8
            VerdictKind(r.get("kind") or VerdictKind.BACKS.value)))  # schema 10
    return out


# The cited sentence as stored now, found through the claim's citation (primary keys only); NULL when the
# answer was withdrawn (its citations went with the removal) or the verdict judged no citation.
_SPAN_NOW = ("(SELECT s.text FROM citations ci JOIN context_items x ON x.answer_id=ci.answer_id AND x.n=ci.n "
             "JOIN sentences s ON s.doc_id=x.doc_id AND s.version=x.version AND s.idx=x.sentence_idx "
             "WHERE ci.answer_id=v.answer_id AND ci.claim_idx=v.claim_idx AND ci.marker=v.marker "
             "AND x.doc_id=v.doc_id AND x.version=v.version AND s.start=v.start ORDER BY ci.pos LIMIT 1) AS span_text")
CLAIM_TAMPERED = "tampered: the claim's words changed after this verdict"
SPAN_TAMPERED = "tampered: the cited sentence's words changed after this verdict"


def claim_tampered(judged: str | None, text_now: str | None, flags: str | None) -> str:
    """CLAIM_TAMPERED when the claim's stored words are not the ones judged (digest ``judged``), else "".
    Unchecked: a verdict from before schema 8, and a claim withdrawn by a removal (its words were blanked by
    design; the record shows "source removed")."""
    if judged is None or text_now is None:
        return ""
    if flags and ClaimFlag.SOURCE_REMOVED.value in json.loads(flags) and text_now == "":
        return ""
    return "" if sha256_text(text_now) == judged else CLAIM_TAMPERED


# The review policy is the team's, so it lives in the store, shared by every dashboard instance.
_POLICY_KEY = "review_required_verdicts"


def required_verdicts(c: Connection) -> int:
    """How many independent verdicts a claim needs (the review policy; 1 when never set)."""
    v = c.execute(text("SELECT value FROM meta WHERE key=:k"), {"k": _POLICY_KEY}).scalar()
    return int(v) if v is not None else 1


def set_required_verdicts(c: Connection, n: int) -> None:
    """Set how many independent verdicts a claim needs."""
    c.execute(text("INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE SET value=excluded.value"),
              {"k": _POLICY_KEY, "v": str(int(n))})
