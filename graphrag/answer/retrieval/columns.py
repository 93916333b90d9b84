"""The store's rows, read as plain tuples a chunk at a time, turned into the graph's arrays a column at a time:
what a million relations cost is a few passes in C over each column, not a Python statement per row.

``Codes`` finds integer codes in a sorted table; ``DocIndex`` and ``SentenceRows`` use it to turn (document id,
version) and (document, sentence index) columns into document indices and sentence rows. ``KeyIndex`` turns
entity keys into entity indices.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from graphrag.answer.retrieval.records import DocVersion


class Codes:
    """Positions of integer codes: ``of`` maps codes to the positions they had in the table."""

    def __init__(self, codes: np.ndarray, what: str) -> None:
        self.order = np.argsort(codes, kind="stable")
        self.sorted = codes[self.order]
        self.what = what

    def of(self, codes: np.ndarray) -> np.ndarray:
        """The position of each code; KeyError naming the first that is not in the table."""
        at = np.searchsorted(self.sorted, codes)
        found = at < len(self.sorted)
        found[found] = self.sorted[at[found]] == codes[found]
        if not found.all():
            raise KeyError(f"{self.what} {int(codes[np.flatnonzero(~found)[0]])} is not in the graph")
        out: np.ndarray = self.order[at]
        return out


class KeyIndex:
    """Positions of keys (entity keys: a few hundred thousand, looked up millions of times). A dict lookup per key
    misses the cache a few times over the table's strings (~0.6 us a key here); instead each key's hash (Python's
    own, computed in C) is searched among the table's sorted hashes, the queries sorted first so the searches walk
    the table in order (~0.2 us). Exact while the table's hashes are distinct (else ``of`` uses the dict): a key
    the table lacks raises KeyError unless its 64-bit hash equals a held key's, and the store's foreign keys (every
    mention and relation names an entity) leave no such key."""

    def __init__(self, keys: Sequence[Any]) -> None:
        self.index = {k: i for i, k in enumerate(keys)}
        hashes = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
        self.order = np.argsort(hashes)
        self.sorted = hashes[self.order]
        self.distinct = bool(np.all(self.sorted[1:] != self.sorted[:-1]))

    def of(self, keys: Sequence[Any], dtype: Any) -> np.ndarray:
        """The position of each key, as ``dtype``; KeyError naming the first that is not in the table."""
        if not self.distinct or not len(self.sorted):
            return lookup(self.index, keys, dtype)
        hashes = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
        by = np.argsort(hashes)
        wanted = hashes[by]
        at = np.minimum(np.searchsorted(self.sorted, wanted), len(self.sorted) - 1)
        missing = np.flatnonzero(self.sorted[at] != wanted)
        if len(missing):
            raise KeyError(keys[int(by[missing[0]])])
        out = np.empty(len(keys), dtype=dtype)
        out[by] = self.order[at]
        return out


class DocIndex:
    """Document versions' indices by (document id, version) columns. Ids go through a dict of strings, versions
    stay numbers: a tuple key per row would be built and hashed a million times."""

    def __init__(self, docs: Sequence[DocVersion]) -> None:
        self.ids: dict[str, int] = {}
        for d in docs:
            self.ids.setdefault(d.id, len(self.ids))
        self.width = max((d.version for d in docs), default=0) + 1
        self.codes = Codes(np.array([self.ids[d.id] * self.width + d.version for d in docs], dtype=np.int64),
                           "document code")

    def of(self, doc_ids: Sequence[str], versions: Sequence[int]) -> np.ndarray:
        """The index in ``docs`` of each (id, version); KeyError for one the graph does not hold. Rows come
        grouped by document, so ids are looked up once per run of equal ones."""
        v = np.array(versions, dtype=np.int64)
        ids = np.zeros(len(v), dtype=np.int64)
        if len(v):
            names = np.array(doc_ids, dtype=object)
            starts = np.flatnonzero(np.concatenate([[True], names[1:] != names[:-1]]))
            ids = np.repeat(lookup(self.ids, names[starts].tolist(), np.int64), np.diff(np.append(starts, len(v))))
        if len(v) and (v.min() < 0 or v.max() >= self.width):
            raise KeyError(f"a document version outside 0..{self.width - 1}")
        return self.codes.of(ids * self.width + v)


class SentenceRows:
    """Sentence rows by (document index, sentence index) columns."""

    def __init__(self, doc: np.ndarray, idx: np.ndarray) -> None:
        self.width = int(idx.max()) + 1 if len(idx) else 1
        self.codes = Codes(doc * self.width + idx, "sentence code")

    def of(self, doc: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The row of each (document, index); KeyError for one the graph does not hold."""
        if len(idx) and (idx.min() < 0 or idx.max() >= self.width):
            raise KeyError(f"a sentence index outside 0..{self.width - 1}")
        return self.codes.of(doc * self.width + idx)


def columns(rows: Sequence[tuple[Any, ...]], n: int) -> list[tuple[Any, ...]]:
    """The n columns of ``rows`` (empty ones when there are no rows)."""
    cols = list(zip(*rows))
    return cols if cols else [()] * n


def lookup(table: Mapping[Any, int], keys: Iterable[Any], dtype: Any) -> np.ndarray:
    """``table[k]`` for every key, as an array (KeyError for a key it does not hold)."""
    return np.fromiter(map(table.__getitem__, keys), dtype=dtype)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Without Python's cycle collector: reading millions of row tuples would start a full collection over all
    of them again and again (tuples of plain values never form a cycle). Process-wide, for the seconds a load
    takes; restored after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
