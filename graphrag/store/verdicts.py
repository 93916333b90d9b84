"""The verification record: append-only verdicts (the database refuses UPDATE and DELETE, see
schema.append_only), each with the sha256 of the span judged."""

from __future__ import annotations

from sqlalchemy import Connection, text

from graphrag.model import Verdict, VerdictLabel
from graphrag.store.codec import now


def add(c: Connection, v: Verdict) -> int:
    """Append a verdict; returns its id."""
    return int(c.execute(text(
        'INSERT INTO verdicts (answer_id, claim_idx, marker, doc_id, version, start, "end", span_sha256, verdict, '
        "reviewer, note, created_at, role, subject, email) VALUES (:a, :ci, :marker, :d, :v, :s, :e, :sha, :verdict, "
        ":reviewer, :note, :at, :role, :subject, :email) RETURNING id"),
        {"a": v.answer_id, "ci": v.claim_index, "marker": v.marker, "d": v.document_id, "v": v.version,
         "s": v.start, "e": v.end, "sha": v.span_sha256, "verdict": v.verdict.value, "reviewer": v.reviewer,
         "note": v.note, "at": v.created_at or now(), "role": v.role, "subject": v.subject,
         "email": v.email}).scalar_one())


def find_same(c: Connection, v: Verdict) -> int | None:
    """The id of a stored verdict identical to ``v`` (its time included), if any."""
    found = c.execute(text(
        "SELECT id FROM verdicts WHERE answer_id=:a AND claim_idx=:ci AND reviewer=:reviewer AND verdict=:verdict "
        "AND note=:note AND created_at=:at AND span_sha256=:sha AND role=:role ORDER BY id DESC LIMIT 1"),
        {"a": v.answer_id, "ci": v.claim_index, "reviewer": v.reviewer, "verdict": v.verdict.value, "note": v.note,
         "at": v.created_at, "sha": v.span_sha256, "role": v.role}).scalar()
    return None if found is None else int(found)


def history(c: Connection, answer_id: int | None = None, claim_index: int | None = None,
            reviewer: str | None = None, removals: bool = True) -> list[Verdict]:
    """Every verdict row (history included), oldest first, with staleness resolved: a verdict on a
    superseded or removed version is stale, and one on a removed version says so (``removals``:
    the store has the table, schema 6)."""
    where, params = [], {}
    for col, name, val in (("v.answer_id", "a", answer_id), ("v.claim_idx", "ci", claim_index),
                           ("v.reviewer", "r", reviewer)):
        if val is not None:
            where.append(f"{col}=:{name}")
            params[name] = val
    removed = ("x.id IS NOT NULL", "LEFT JOIN removals x ON x.doc_id=v.doc_id AND x.version=v.version") \
        if removals else ("0=1", "")
    rows = c.execute(text(
        f"SELECT v.*, d.superseded, {removed[0]} AS removed FROM verdicts v LEFT JOIN documents d ON "
        f"d.doc_id=v.doc_id AND d.version=v.version {removed[1]}" + (" WHERE " + " AND ".join(where) if where else "")
        + " ORDER BY v.id"), params).mappings()
    return [
        Verdict(r["answer_id"], r["claim_idx"], VerdictLabel(r["verdict"]), r["reviewer"], r["span_sha256"],
                r["marker"], r["doc_id"], r["version"], r["start"], r["end"], r["note"], r["created_at"],
                r["id"], bool(r["superseded"]) or bool(r["removed"]), r.get("role") or "reviewer",  # role: schema 3
                bool(r["removed"]), r.get("subject"), r.get("email"))  # identity: schema 5
        for r in rows
    ]


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
