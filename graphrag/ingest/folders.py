"""Finding and opening files under a chosen folder without leaving it.

A folder ingest reads only regular files whose real path (links resolved) lies inside the
folder's real path, and nothing on a kernel filesystem (/proc, /sys, /dev and their kin): a link
to /etc/shadow or a FIFO placed in the folder is refused, never opened. What was refused is
reported as a ``Skipped`` (the CLI names it; the Ingest page shows only counts).
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

# Kernel and pseudo filesystems: their "files" are live system state (process memory maps,
# environment, devices), never documents. Matched by mount type, and by path as a fallback.
SPECIAL_FS_TYPES = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
    "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "binfmt_misc", "efivarfs", "autofs",
    "selinuxfs", "rpc_pipefs", "nsfs",
})
SPECIAL_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))


class Refused(Exception):
    """A path that is not read, with the reason (``kind`` groups refusals for counting)."""

    def __init__(self, reason: str, kind: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


@dataclass(frozen=True)
class Found:
    """A file found under a folder."""

    path: Path  # as found under the folder (a link keeps its own name)
    rel: str  # posix path relative to the folder


@dataclass(frozen=True)
class Skipped:
    """A file left out while walking a folder, with the reason to show."""

    path: Path
    rel: str
    reason: str  # for a person who named the file
    kind: str  # a short group name for counts, e.g. "unsupported type"


_MOUNTS: tuple[float, list[tuple[Path, str]]] = (0.0, [])


def _mounts() -> list[tuple[Path, str]]:
    """Mount points and their types, re-read at most every 10 s (a walk checks every file)."""
    global _MOUNTS
    if time.monotonic() - _MOUNTS[0] > 10:
        _MOUNTS = (time.monotonic(), _read_mounts())
    return _MOUNTS[1]


def _read_mounts() -> list[tuple[Path, str]]:
    try:
        lines = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 3:  # mount points escape spaces as \040
            out.append((Path(parts[1].replace("\\040", " ")), parts[2]))
    return out


def special_filesystem(path: Path) -> str | None:
    """The kind of kernel filesystem ``path`` lies on (checked by path and by mount type), or None."""
    for special in SPECIAL_ROOTS:
        if path == special or path.is_relative_to(special):
            return f"{special} is a kernel filesystem"
    best: tuple[int, str] | None = None
    for mount, fstype in _mounts():
        if path == mount or path.is_relative_to(mount):
            depth = len(mount.parts)
            if best is None or depth >= best[0]:
                best = (depth, fstype)
    if best and best[1] in SPECIAL_FS_TYPES:
        return f"it lies on a {best[1]} filesystem"
    return None


def check_root(path: Path) -> Path:
    """The real path of a folder or file the user chose; Refused when it is a kernel filesystem."""
    given = Path(os.path.abspath(path))
    real = Path(os.path.realpath(path))
    for p in (given, real):
        why = special_filesystem(p)
        if why:
            raise Refused(f"not ingested: {why}", "special filesystem")
    return real


def check_file(path: Path, root_real: Path) -> os.stat_result:
    """The file's status when it may be read: inside ``root_real``, regular, not a kernel file."""
    real = Path(os.path.realpath(path))
    if real != root_real and not real.is_relative_to(root_real):
        raise Refused("a link to a file outside the chosen folder: not followed", "outside the folder")
    why = special_filesystem(real)
    if why:
        raise Refused(f"not ingested: {why}", "special filesystem")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise Refused("a broken link", "broken link") from None
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not a regular file (a device, FIFO or socket): not opened", "not a regular file")
    return st


def read_regular(path: Path, root_real: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file inside ``root_real``.

    Raises Refused (outside, special, not regular, over ``max_bytes``) or OSError (cannot read).
    The type is checked before opening (opening a device can have effects) and again on the
    open descriptor, so a file swapped for a FIFO in between is still never read.
    """
    st = check_file(path, root_real)
    if st.st_size > max_bytes:
        raise Refused(f"{st.st_size:,} bytes is over the {max_bytes:,}-byte limit on reading a file (split the file, "
                      "or raise the limit with --max-bytes)",
                      "too large")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused("not a regular file (a device, FIFO or socket): not opened", "not a regular file")
        real = Path(os.path.realpath(f"/proc/self/fd/{fd}")) if Path("/proc/self/fd").is_dir() else None
        if real is not None and real.is_absolute() and real != root_real and not real.is_relative_to(root_real):
            raise Refused("a link to a file outside the chosen folder: not followed", "outside the folder")
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:  # in pieces: one read(max_bytes) would reserve that much memory
            piece = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not piece:
                break
            chunks.append(piece)
            total += len(piece)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise Refused(f"over the {max_bytes:,}-byte limit (raise it with --max-bytes, or split the file)", "too large")
    return data


def printable(text: str) -> str:
    """``text`` with bytes that were not UTF-8 (surrogate-escaped by Python) shown as ``\\xff``."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _valid_name(rel: str) -> bool:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8, surrogate-escaped by Python
        return False
    return True


def walk(root: Path, root_real: Path, skip_names: frozenset[str] = frozenset()) -> tuple[list[Found], list[Skipped]]:
    """Files under ``root`` (sorted), and what was refused. Linked subfolders are never entered."""
    found: list[Found] = []
    skipped: list[Skipped] = []

    def unreadable(exc: OSError) -> None:
        p = Path(printable(str(exc.filename or root)))
        skipped.append(Skipped(p, _rel(p, root), f"cannot read the folder: {exc.strerror or exc}", "unreadable folder"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable, followlinks=False):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            p = here / d
            real = Path(os.path.realpath(p))
            if p.is_symlink():  # not entered; said rather than dropped silently
                inside = real == root_real or real.is_relative_to(root_real)
                skipped.append(Skipped(p, _rel(p, root), "a link to a folder (links to folders are not followed)",
                                       "linked folder" if inside else "outside the folder"))
            elif special_filesystem(real):  # e.g. /proc under a folder chosen as "/"
                skipped.append(Skipped(p, _rel(p, root), "a kernel filesystem: not entered", "special filesystem"))
            else:
                keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            p = here / name
            rel = _rel(p, root)
            if name.startswith(".") or (here == root and name in skip_names):
                continue
            if not _valid_name(rel):
                shown = printable(rel)
                skipped.append(Skipped(Path(printable(str(p))), shown, "its name is not valid UTF-8: rename it",
                                       "name not UTF-8"))
                continue
            try:
                check_file(p, root_real)
            except Refused as exc:
                skipped.append(Skipped(p, rel, exc.reason, exc.kind))
                continue
            except OSError as exc:
                skipped.append(Skipped(p, rel, f"cannot read: {exc.strerror or exc}", "unreadable"))
                continue
            found.append(Found(p, rel))
    found.sort(key=lambda f: f.rel)
    return found, skipped


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name
