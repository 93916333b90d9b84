"""Row <-> record conversions shared by the aggregates (JSON columns, vectors, times)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from graphrag.model import Document, Route, RouteStart, Seed, Support, SupportLabel

Row = Mapping[Any, Any]  # a result row by column name (SQLAlchemy types RowMapping keys wider than str)


def now() -> str:
    """The current UTC time, ISO 8601 to the second (the store's timestamp format)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def sha256_text(text: str) -> str:
    """Hex SHA-256 of the text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def blob(vec: np.ndarray | None) -> bytes | None:
    """float32 bytes: the same portable column on SQLite (BLOB) and PostgreSQL (BYTEA)."""
    return None if vec is None else np.asarray(vec, dtype=np.float32).tobytes()


def fill_vectors(out: np.ndarray, start: int, blobs: Sequence[bytes | None]) -> None:
    """Write float32 blobs into rows ``start``.. of ``out`` (C-contiguous), each copied straight into its row's
    bytes (no joined buffer: one pass over a gigabyte of vectors, not two); a missing vector leaves its row as it
    was, a blob of the wrong size raises ValueError."""
    if not out.flags.c_contiguous:
        raise ValueError("vectors are written into a C-contiguous matrix")  # reshape would copy it
    width = out.shape[1] * out.itemsize
    flat = out.reshape(-1).view(np.uint8).data  # a writable memoryview over the matrix
    for i, b in enumerate(blobs, start):
        if b is not None:
            flat[i * width:(i + 1) * width] = b


def document(r: Row) -> Document:
    """A document record from its row."""
    return Document(r["doc_id"], r["title"], r["version"], r["text"], r["sha256"], r["effective_date"],
                    tuple(json.loads(r["access"])), r["path"], bool(r["superseded"]))


def route_json(r: Route) -> dict[str, Any]:
    """A route as stored (JSON)."""
    return r.to_record()


def route(d: dict[str, Any]) -> Route:
    """A route from its stored JSON."""
    return Route.from_record(d)


def seed_json(s: Seed) -> list[Any]:
    """A seed as stored: [entity, score, start, mention, how]."""
    return [s.entity, s.score, s.start.value, s.mention, s.how]


def seed(x: list[Any]) -> Seed:
    """A stored seed: [entity, score, start, mention, how]; rows written before anchors hold two."""
    return Seed(x[0], x[1], *((RouteStart(x[2]), *x[3:]) if len(x) > 2 else ()))


def _support_dict(s: Support) -> dict[str, Any]:
    d: dict[str, Any] = {"score": s.score, "label": s.label.value, "checker": s.checker, "reason": s.reason}
    if s.advisory is not None:
        d["advisory"] = _support_dict(s.advisory)
    return d


def _support_of(d: dict[str, Any]) -> Support:
    advisory = d.get("advisory")
    return Support(float(d["score"]), SupportLabel(d["label"]), d["checker"], d["reason"],
                   _support_of(advisory) if isinstance(advisory, dict) else None)


def support_json(s: Support | None) -> str | None:
    """A support score as stored JSON text (with the model judge's advice beside it, when given); None when there
    is none."""
    return None if s is None else json.dumps(_support_dict(s))


def support(raw: str | None) -> Support | None:
    """A support score from its stored JSON text."""
    if raw is None:
        return None
    return _support_of(json.loads(raw))
