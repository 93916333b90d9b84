"""A saved vector matrix whose scattered rows are read from the file, not through its mapping.

A saved graph's vectors (``saved.py``) are mapped read-only so that a whole scan costs no fresh memory and every
process on a host shares one copy in the file cache. But retrieval on an indexed graph reads scattered rows (a
question's few hundred candidates, the rows the walk passes), and a fault on a mapping maps the page cache's
folio around it: on kernels whose file cache holds large folios (ext4 on Linux 6.x, 2 MB each here), a thousand
scattered rows put most of a million-row file into the process's resident set (measured: 300 rows of a
100,000-row file mapped 144 of its 150 MB). ``FileRows`` answers an integer or an integer array with ``pread``
(a copy of just those rows) and everything else (a slice, a whole scan) from the mapping as before.

Results are plain ``numpy.ndarray``: the subclass never leaks into what is computed from it.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import Any

import numpy as np


class FileRows(np.ndarray):
    """A read-only float32 matrix mapped from an ``.npy`` file; row gathers read the file (see the module)."""

    _fd: int | None
    _offset: int

    @classmethod
    def open(cls, path: Path) -> FileRows:
        """The matrix saved at ``path`` (``numpy.save`` format, 2-D, float32 little-endian, C order)."""
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
        if mapped.ndim != 2 or mapped.dtype != np.dtype("<f4") or not mapped.flags.c_contiguous:
            raise ValueError(f"{path.name} is not a C-ordered float32 matrix")
        out = np.asarray(mapped).view(cls)
        fd = os.open(path, os.O_RDONLY)
        weakref.finalize(out, os.close, fd)  # the last view gone: the file closes (a removed file stays readable)
        out._fd, out._offset = fd, int(mapped.offset)
        return out

    def __array_finalize__(self, obj: Any) -> None:
        # a view keeps the file only when it is the whole matrix (a slice's row numbers would be off)
        self._fd = getattr(obj, "_fd", None) if obj is not None and getattr(obj, "shape", None) == self.shape \
            else None
        self._offset = getattr(obj, "_offset", 0)

    def __array_wrap__(self, arr: Any, context: Any = None, return_scalar: bool = False) -> Any:
        plain = np.asarray(arr)
        return plain[()] if return_scalar else plain

    def __getitem__(self, key: Any) -> Any:
        if self._fd is not None and self.ndim == 2:
            if isinstance(key, (int, np.integer)):
                return self._gather(np.array([int(key)], dtype=np.int64))[0]
            if isinstance(key, (np.ndarray, list)):
                index = np.asarray(key)
                if index.ndim == 1 and index.dtype.kind in "iu":
                    return self._gather(index.astype(np.int64, copy=False))
        return np.asarray(self)[key]

    def _gather(self, rows: np.ndarray) -> np.ndarray:
        n, dim = self.shape
        rows = np.where(rows < 0, rows + n, rows)
        if len(rows) and (int(rows.min()) < 0 or int(rows.max()) >= n):
            raise IndexError(f"row out of range for a matrix of {n} rows")
        out = np.empty((len(rows), dim), dtype=np.float32)
        if not len(rows):
            return out
        order = np.argsort(rows, kind="stable")
        wanted = rows[order]
        unique = np.unique(wanted)
        got = np.empty((len(unique), dim), dtype=np.float32)
        width = dim * 4  # adjacent rows are read in one call
        breaks = np.flatnonzero(np.diff(unique) > 1) + 1
        fd = self._fd
        assert fd is not None
        for start, stop in zip(np.concatenate([[0], breaks]).tolist(), np.concatenate([breaks, [len(unique)]]).tolist()):
            row = int(unique[start])
            size = (stop - start) * width
            data = os.pread(fd, size, self._offset + row * width)
            if len(data) != size:
                raise OSError(f"the saved vectors file ended early at row {row}")
            got[start:stop] = np.frombuffer(data, dtype="<f4").reshape(stop - start, dim)
        # each wanted row's place among the unique ones, back in the asked order
        place = np.searchsorted(unique, wanted)
        out[order] = got[place]
        return out
