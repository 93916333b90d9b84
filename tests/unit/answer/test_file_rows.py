"""A saved vector matrix (file_rows.py): a question's scattered rows are read from the file, so they never put
the mapped file into the process's resident memory; every read gives exactly what the saved matrix holds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphrag.answer.retrieval.file_rows import FileRows
from graphrag.answer.retrieval.vectors import Rows

pytestmark = pytest.mark.unit

N, DIM = 4_000, 384


def saved_matrix(tmp_path: Path) -> tuple[Path, np.ndarray]:
    m = np.random.default_rng(5).standard_normal((N, DIM)).astype(np.float32)
    path = tmp_path / "sentences.npy"
    np.save(path, m, allow_pickle=False)
    return path, m


def mapped_kb(path: Path) -> int:
    """Resident kB of this process's mappings of ``path`` (Linux's /proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        parts = line.split()
        if parts and "-" in parts[0] and len(parts) >= 5:
            inside = parts[-1] == str(path)
        elif inside and line.startswith("Rss:"):
            total += int(parts[1])
    return total


def test_reads_give_exactly_the_saved_rows(tmp_path: Path) -> None:
    path, m = saved_matrix(tmp_path)
    rows = FileRows.open(path)
    assert rows.shape == (N, DIM) and not rows.flags.writeable
    scattered = np.array([3_999, 7, 7, 0, 1, 2, 2_500, -1], dtype=np.int64)  # unsorted, repeated, adjacent, negative
    assert np.array_equal(rows[scattered], m[scattered])
    assert np.array_equal(rows[[5, 4]], m[[5, 4]])
    assert np.array_equal(rows[42], m[42]) and np.array_equal(rows[np.int64(-2)], m[-2])
    assert rows[np.zeros(0, dtype=np.int64)].shape == (0, DIM)
    assert np.array_equal(rows[10:20], m[10:20]) and np.array_equal(rows[:, :3], m[:, :3])
    assert np.array_equal(rows[m[:, 0] > 0], m[m[:, 0] > 0])  # a boolean mask: the mapping, as before
    with pytest.raises(IndexError):
        rows[np.array([N])]


def test_results_are_plain_arrays_never_the_file_matrix(tmp_path: Path) -> None:
    rows = FileRows.open(saved_matrix(tmp_path)[0])
    q = np.ones(DIM, dtype=np.float32)
    for got in (rows[[1, 2]], rows[3], rows[:5], np.einsum("ij,j->i", rows, q), rows * 2, rows.sum(axis=1)):
        assert type(got) is np.ndarray
    view, holder = Rows.holding(rows)  # a graph derived after an ingest writes its new rows after a copy
    grown, _ = holder.extended(view, np.zeros((3, DIM), dtype=np.float32))
    assert grown.shape == (N + 3, DIM) and np.array_equal(grown[:N], np.load(saved_matrix(tmp_path)[0]))


def test_scattered_rows_do_not_map_the_file_into_memory(tmp_path: Path) -> None:
    path, _ = saved_matrix(tmp_path)
    wanted = np.random.default_rng(1).choice(N, 300, replace=False)
    plain = np.load(path, mmap_mode="r")
    np.asarray(plain[wanted]).sum()
    through_mapping = mapped_kb(path)
    del plain
    rows = FileRows.open(path)
    got = rows[wanted]
    for r in wanted[:50].tolist():
        got[0] += rows[r]
    assert through_mapping >= 300 * 4  # at least a page a row the plain mapping faulted in
    assert mapped_kb(path) == 0


def test_the_file_stays_readable_once_removed(tmp_path: Path) -> None:
    path, m = saved_matrix(tmp_path)
    rows = FileRows.open(path)
    path.unlink()  # a later save removes the folder a running process reads
    assert np.array_equal(rows[[9, 1]], m[[9, 1]])
