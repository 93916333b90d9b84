"""The reader's passage vectors of each sentence: one vector per sentence of a document version and per model (the
second view, ``graphrag.language.passage_encoder``, and the answer scorer when it reads "title. sentence" alone),
written by the ingest beside the sentence or by the first question that reads them (``graphrag store passages``
fills the rest). A cache of the text: removing a version removes its rows with its sentences
(``removals._PER_VERSION``), a new title clears them (the title is in the text encoded), and a model's refitted
weights (a new ``@digest`` in its name) supersede its earlier rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from sqlalchemy import Connection, bindparam, text

from graphrag.store.codec import blob

Key = tuple[str, int, int]  # (doc_id, version, sentence index)


def get(c: Connection, model: str, keys: Sequence[Key]) -> dict[Key, np.ndarray]:
    """The stored vectors of these sentences under ``model`` (those missing are absent)."""
    out: dict[Key, np.ndarray] = {}
    by_version: dict[tuple[str, int], list[int]] = {}
    for d, v, i in keys:
        by_version.setdefault((d, v), []).append(i)
    stmt = text("SELECT idx, vector FROM passage_vectors WHERE model=:m AND doc_id=:d AND version=:v "
                "AND idx IN :ids").bindparams(bindparam("ids", expanding=True))
    for (d, v), ids in by_version.items():
        for idx, vec in c.execute(stmt, {"m": model, "d": d, "v": v, "ids": sorted(set(ids))}):
            out[(d, v, int(idx))] = np.frombuffer(bytes(vec), dtype=np.float32)
    return out


def put(c: Connection, model: str, rows: Iterable[tuple[Key, np.ndarray]]) -> None:
    """Store vectors (a row already there, written by another asker meanwhile, is kept)."""
    params = [{"d": d, "v": v, "i": i, "m": model, "vec": blob(vec)} for (d, v, i), vec in rows]
    if params:
        c.execute(text("INSERT INTO passage_vectors (doc_id, version, idx, model, vector) "
                       "VALUES (:d, :v, :i, :m, :vec) ON CONFLICT DO NOTHING"), params)


def clear(c: Connection, doc_id: str, version: int) -> None:
    """Forget a version's vectors (its title changed)."""
    c.execute(text("DELETE FROM passage_vectors WHERE doc_id=:d AND version=:v"), {"d": doc_id, "v": version})


def missing(c: Connection, model: str, limit: int) -> list[tuple[Key, str, str]]:
    """Up to ``limit`` sentences with no ``model`` vector yet: (key, its document version's title, its text)."""
    rows = c.execute(text(
        "SELECT s.doc_id, s.version, s.idx, d.title, s.text FROM sentences s JOIN documents d "
        "ON d.doc_id = s.doc_id AND d.version = s.version WHERE NOT EXISTS (SELECT 1 FROM passage_vectors p "
        "WHERE p.doc_id = s.doc_id AND p.version = s.version AND p.idx = s.idx AND p.model = :m) "
        "ORDER BY s.doc_id, s.version, s.idx LIMIT :n"), {"m": model, "n": limit})
    return [((str(d), int(v), int(i)), str(title), str(body)) for d, v, i, title, body in rows]


def count(c: Connection, model: str) -> int:
    """How many sentences have a ``model`` vector."""
    return int(c.execute(text("SELECT COUNT(*) FROM passage_vectors WHERE model=:m"), {"m": model}).scalar() or 0)


def drop_superseded(c: Connection, model: str) -> int:
    """Delete the vectors of earlier weights of ``model``'s family (a name ``family@digest``: a refitted model keeps
    its vectors under a new digest, and no reader asks for the old ones again); how many rows went."""
    family, sep, _ = model.partition("@")
    if not sep:
        return 0
    result = c.execute(text("DELETE FROM passage_vectors WHERE model LIKE :f ESCAPE '!' AND model <> :m"),
                       {"f": _literal(family) + "@%", "m": model})
    return int(result.rowcount or 0)


def _literal(s: str) -> str:
    """``s`` matched literally by LIKE ... ESCAPE '!'."""
    return s.replace("!", "!!").replace("%", "!%").replace("_", "!_")
