"""Approximate nearest-neighbour search over one matrix of a graph's vectors (its sentence rows or entity names),
for graphs too large for the exact scan retrieval does below ``EXACT_BELOW`` rows.

The library is faiss (faiss-cpu, MIT): an inverted file (IVF) over k-means lists, each vector stored as 8-bit
scalar-quantised codes (a quarter of its float32 size), and every candidate re-scored exactly against the float32
rows the graph already holds. Chosen over an HNSW graph (usearch, hnswlib, or faiss's own) for what was measured
or needed here: the build is the cheaper one on two shared cores (1M x 384: 22 s, 96 s while the machine was busy;
HNSW, M 32, took 41 s for 100k rows where IVF took 17 s, and grows faster than linearly); an HNSW graph also
keeps the float32 vectors a second time (1.5 GB at 1M) where the codes take 377 MB; rows are added after an ingest
without rebalancing anything; and an ``IDSelectorBitmap`` restricts the search itself to the rows an asker may see,
so an access filter is exact rather than a post-filter that may come back empty. Figures: docs/figures.md,
"Nearest-neighbour index".

Row numbers are the faiss ids, so results need no mapping; an index shared by graphs derived one from another
may hold rows a graph does not (added after it): the search is restricted to the graph's first ``n`` rows.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

# Below this many rows a question scans every vector exactly, as it always has (all evaluation sets, every
# store of a few thousand documents): 100k x 384 float32 is 150 MB, a scan of ~10 ms on this 2-core machine,
# about what the index costs; above it the scan grows linearly (1M: 1.5 GB of reads, >100 ms).
EXACT_BELOW = 100_000
# Inverted lists: about 2 sqrt(rows) (1M: 2,000 lists of ~500 rows), capped so k-means training stays short. At
# sqrt(rows) lists, 1M rows around 2,000 topics (lab/bench_index.py) fell to recall@10 0.91 (min 0.0): k-means
# merged several topics into one list and their rows scattered; at 2 sqrt(rows), 1.0.
MAX_LISTS = 4096
# Lists scanned per query: 16 of 2,000 at 1M (0.8% of the rows) gives recall@10 >= 0.95 with room.
NPROBE = 16
# k-means trains on at most this many rows (50 per list at 1M), sampled evenly, for this many rounds: the lists
# need only be good enough to probe, and training is most of the build on two cores.
TRAIN_ROWS = 100_000
TRAIN_ROUNDS = 10
# An asker who sees this few rows is served by an exact scan of those rows: the lists the search probes could
# hold fewer visible rows than it asks for, and a scan of 20k rows costs ~2 ms.
EXACT_SUBSET = 20_000


def _faiss() -> Any:
    import faiss  # a second to import: only where a graph crosses EXACT_BELOW

    return faiss


def version() -> str:
    """The faiss version, recorded with every file written (another version may read it differently)."""
    return str(_faiss().__version__)


def lists_for(rows: int) -> int:
    """How many inverted lists an index over ``rows`` rows gets."""
    return max(1, min(MAX_LISTS, round(2 * math.sqrt(rows)), rows // 39 or 1))


class VectorIndex:
    """An IVF index of scalar-quantised codes over the first ``rows`` rows of a float32 matrix of unit vectors
    (inner product = cosine). Thread safe: a search and an addition never overlap."""

    def __init__(self, index: Any, rows: int) -> None:
        self.index = index
        self.rows = rows
        self.lock = threading.Lock()

    @classmethod
    def build(cls, vectors: np.ndarray) -> VectorIndex:
        """An index over every row of ``vectors``."""
        faiss = _faiss()
        n, dim = vectors.shape
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFScalarQuantizer(quantizer, dim, lists_for(n), faiss.ScalarQuantizer.QT_8bit,
                                              faiss.METRIC_INNER_PRODUCT)
        step = max(1, n // TRAIN_ROWS)
        index.cp.max_points_per_centroid = max(39, TRAIN_ROWS // index.nlist + 1)  # no second sampling
        index.cp.niter = TRAIN_ROUNDS
        index.train(np.ascontiguousarray(vectors[::step][:TRAIN_ROWS], dtype=np.float32))
        out = cls(index, 0)
        out.add(vectors, 0)
        return out

    def add(self, vectors: np.ndarray, start: int) -> None:
        """Rows ``start`` onwards of ``vectors`` (rows already held before ``start``, any after it are added)."""
        with self.lock:
            if start != self.rows:
                raise ValueError(f"rows are added in order: the index holds {self.rows}, not {start}")
            new = np.ascontiguousarray(vectors[start:], dtype=np.float32)
            for i in range(0, len(new), 100_000):  # bounded temporary memory for the codes
                part = new[i:i + 100_000]
                self.index.add_with_ids(part, np.arange(start + i, start + i + len(part), dtype=np.int64))
            self.rows = start + len(new)

    def add_rows(self, vectors: np.ndarray, rows: np.ndarray, total: int) -> None:
        """``rows`` of ``vectors`` (those a renumbered index lacks), after which it holds rows below ``total``."""
        with self.lock:
            for i in range(0, len(rows), 100_000):
                part = np.asarray(rows[i:i + 100_000], dtype=np.int64)
                self.index.add_with_ids(np.ascontiguousarray(vectors[part], dtype=np.float32), part)
            self.rows = total

    def remove(self, rows: np.ndarray) -> None:
        """Drop these rows (documents removed, or written again), before a ``renumber``."""
        with self.lock:
            self.index.remove_ids(np.ascontiguousarray(rows, dtype=np.int64))

    def renumber(self, new_rows: np.ndarray) -> None:
        """Give each held row its place in a graph loaded whole (``new_rows[old row]``): the rows of a graph
        extended after ingests are in ingest order, a graph loaded whole orders them by document."""
        faiss = _faiss()
        with self.lock:
            lists = self.index.invlists
            for i in range(self.index.nlist):
                size = lists.list_size(i)
                if not size:
                    continue
                ids = faiss.rev_swig_ptr(lists.get_ids(i), size)
                codes = faiss.rev_swig_ptr(lists.get_codes(i), size * lists.code_size).copy()
                lists.update_entries(i, 0, size, faiss.swig_ptr(np.ascontiguousarray(new_rows[ids], dtype=np.int64)),
                                     faiss.swig_ptr(codes))

    def copy(self) -> VectorIndex:
        """An independent copy (to renumber without touching the index an older graph searches)."""
        with self.lock:
            return VectorIndex(_faiss().clone_index(self.index), self.rows)

    def candidates(self, query: np.ndarray, k: int, n: int, visible: np.ndarray | None = None) -> np.ndarray:
        """Up to ``k`` rows below ``n`` (and ``visible``, a boolean array over rows, where given) near ``query``,
        in no particular order: the quantised codes only rank them roughly, the caller scores them exactly."""
        faiss = _faiss()
        selector = None
        if visible is not None or n < self.rows:  # else every row may be returned
            allowed = np.ones(n, dtype=bool) if visible is None else visible[:n]
            bitmap = np.packbits(allowed, bitorder="little")  # faiss's order: row i is bit i % 8 of byte i // 8
            selector = faiss.IDSelectorBitmap(len(bitmap), faiss.swig_ptr(bitmap))
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        nprobe = NPROBE
        while True:
            params = faiss.SearchParametersIVF(sel=selector, nprobe=min(nprobe, self.index.nlist))
            with self.lock:
                _, ids = self.index.search(q, k, params=params)
            found: np.ndarray = ids[0][ids[0] >= 0]
            if len(found) >= k or nprobe >= self.index.nlist:
                return found
            nprobe *= 4  # the probed lists held too few rows the asker sees: probe more


class Searcher(Protocol):
    """What retrieval asks a nearest-neighbour index: up to ``k`` rows below ``n`` (and ``visible``) near
    ``query``, for the caller to score exactly; None when it cannot answer for that ``visible`` (then the caller
    scans exactly)."""

    def candidates(self, query: np.ndarray, k: int, n: int, visible: np.ndarray | None = None
                   ) -> np.ndarray | None:
        """Candidate rows, in no particular order."""
        ...


def nearest(vectors: np.ndarray, query: np.ndarray, k: int, n: int, visible: np.ndarray | None,
            index: Searcher | None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` rows below ``n`` (and ``visible``) most similar to ``query`` with their exact cosine
    similarities, best first (ties by row). Exact when there is no index or the asker sees few rows;
    otherwise the index's candidates (a faiss index held, or the database's search) re-scored against
    ``vectors``."""
    q = query.astype(np.float32, copy=False)
    seen = int(np.count_nonzero(visible[:n])) if visible is not None else n
    found = None
    if index is not None and (visible is None or seen > EXACT_SUBSET):
        found = index.candidates(query, k, n, visible)
    if found is not None:
        rows = found
    elif visible is not None and seen <= EXACT_SUBSET:  # a gather of the few rows seen
        rows = np.flatnonzero(visible[:n])
    else:  # a scan of every row, in place
        sims = np.einsum("ij,j->i", vectors[:n], q)
        if visible is not None:
            sims[~visible[:n]] = -np.inf
        rows = np.argpartition(-sims, k - 1)[:k] if k < n else np.arange(n)
        rows = rows[np.isfinite(sims[rows])]
    sims = np.einsum("ij,j->i", vectors[rows], q)
    order = np.lexsort((rows, -sims))[:k]
    return rows[order], sims[order].astype(np.float32)


# --- files ------------------------------------------------------------------------------------------------------

def write(index: VectorIndex, path: Path) -> None:
    """The index to ``path``, replaced whole (a reader never sees half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    with index.lock:
        _faiss().write_index(index.index, str(tmp))
    tmp.replace(path)


def read(path: Path, rows: int) -> VectorIndex | None:
    """The index at ``path`` when it holds exactly ``rows`` rows (else None: written by another state)."""
    try:
        raw = _faiss().read_index(str(path))
    except RuntimeError:  # missing or unreadable: faiss raises RuntimeError for both
        return None
    return VectorIndex(raw, rows) if raw.ntotal == rows else None
