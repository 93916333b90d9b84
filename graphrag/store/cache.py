"""The model-reply cache: each put commits on its own, outside any document transaction, so
replies paid for survive a document that later fails."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection, bindparam, text

from graphrag.language.sentences import sentence_hash
from graphrag.store.codec import now


def get(c: Connection, key: str) -> str | None:
    """The cached reply under ``key``, or None."""
    return c.execute(text("SELECT value FROM reply_cache WHERE key=:k"), {"k": key}).scalar()


def put(c: Connection, key: str, value: str, sources: Sequence[str] = ()) -> None:
    """``sources``: the sha256 of each sentence the reply is about (``sentence_hash``), so removing
    a document can find the replies that hold its text."""
    c.execute(text("INSERT INTO reply_cache (key, value, at, sources) VALUES (:k, :v, :at, :src) "
                   "ON CONFLICT (key) DO UPDATE SET value=excluded.value, at=excluded.at, sources=excluded.sources"),
              {"k": key, "v": value, "at": now(), "src": json.dumps(sorted(set(sources))) if sources else None})


def purge(c: Connection, sentences: Sequence[str]) -> int:
    """Delete every reply about one of these sentences, and every reply whose sources are unknown
    (written before schema 6): either could hold their text. Returns how many went."""
    wanted = {sentence_hash(s) for s in sentences}
    doomed = [k for k, src in c.execute(text("SELECT key, sources FROM reply_cache"))
              if src is None or wanted & set(json.loads(src))]
    for i in range(0, len(doomed), 500):
        c.execute(text("DELETE FROM reply_cache WHERE key IN :keys").bindparams(bindparam("keys", expanding=True)),
                  {"keys": doomed[i:i + 500]})
    return len(doomed)
