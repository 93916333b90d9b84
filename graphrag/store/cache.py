"""The model-reply cache: each put commits on its own, outside any document transaction, so
replies paid for survive a document that later fails."""

from __future__ import annotations

from sqlalchemy import Connection, text

from graphrag.store.codec import now


def get(c: Connection, key: str) -> str | None:
    return c.execute(text("SELECT value FROM reply_cache WHERE key=:k"), {"k": key}).scalar()


def put(c: Connection, key: str, value: str) -> None:
    c.execute(text("INSERT INTO reply_cache (key, value, at) VALUES (:k, :v, :at) "
                   "ON CONFLICT (key) DO UPDATE SET value=excluded.value, at=excluded.at"),
              {"k": key, "v": value, "at": now()})
