"""Vectors held for a graph: float32 matrices with spare rows, so a graph derived after an ingest writes its
new rows after the old ones instead of copying every vector."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from graphrag.language.encoding import DIM
from graphrag.store.codec import fill_vectors


class Rows:
    """A float32 matrix with spare rows at its end. Graphs hold views of its first rows; the
    graph derived from the newest one writes its new rows after them (rows no earlier view
    contains) instead of copying every vector."""

    def __init__(self, data: np.ndarray, filled: int) -> None:
        self.data = data
        self.filled = filled
        self.lock = threading.Lock()

    @classmethod
    def holding(cls, rows: np.ndarray) -> tuple[np.ndarray, Rows]:
        """``rows`` may be the first rows of a larger matrix (``stack`` leaves spare rows)."""
        base = rows.base
        data = base if isinstance(base, np.ndarray) and _prefix_of(rows, base) else rows
        return rows, cls(data, len(rows))

    def extended(self, view: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, Rows]:
        """``view`` (this holder's first rows) followed by ``new``, written in place when no later view holds
        the rows after it, else in a grown copy."""
        n, k = len(view), len(new)
        if not k:  # nothing to write (the matrix may be a read-only mapping of saved vectors)
            return view, self
        with self.lock:
            if self.filled == n and n + k <= len(self.data) and (view is self.data or _prefix_of(view, self.data)):
                self.data[n:n + k] = new
                self.filled = n + k
                return self.data[:n + k], self
        grown = np.zeros((n + k + max(1024, (n + k) // 4), view.shape[1]), dtype=np.float32)  # lazily paged in
        grown[:n] = view
        grown[n:n + k] = new
        holder = Rows(grown, n + k)
        return grown[:n + k], holder


def _prefix_of(view: np.ndarray, data: object) -> bool:
    return (isinstance(data, np.ndarray) and view.base is data and data.ndim == 2 and view.ndim == 2
            and data.shape[1] == view.shape[1] and view.ctypes.data == data.ctypes.data)


def stack(blobs: Sequence[bytes | None], spare: bool = True) -> np.ndarray:
    """Vectors from blobs, as the first rows of a matrix with spare rows for later additions
    (untouched pages of a large zeroed allocation cost no memory)."""
    n = len(blobs)
    out = np.zeros((n + (spare_rows(n) if spare else 0), DIM), dtype=np.float32)
    fill_vectors(out, 0, blobs)
    return out[:n]


def spare_rows(n: int) -> int:
    """Rows left after ``n`` vectors for what later ingests add."""
    return max(1024, n // 16)
