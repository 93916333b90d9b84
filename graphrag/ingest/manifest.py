"""Matching manifest entries to the files of their folder, failing closed.

An entry's ``file`` is normalised (``./`` dropped, ``\\`` read as ``/``, ``a/../b`` collapsed) and
then matched *exactly*, letter case included: on a case-insensitive disk ``board.md`` and
``Board.md`` are one file, on Linux two, so a match that only works ignoring case is an error
rather than a guess. An entry that matches no file never lets a file fall back to the
``[defaults]`` labels: the files it could have meant (same path ignoring case, same name in
another subfolder, same name with another extension) are rejected with the reason, and when
none can be told, every file of the folder that would get the default labels is.

The schema is closed (``unknown_keys``): a table or key outside it is a problem naming the nearest
valid key, never dropped. Which manifest governs which file is decided in ``documents.collect``.
"""

from __future__ import annotations

import difflib
import os
import posixpath
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Generic, TypeVar

E = TypeVar("E")


@dataclass(frozen=True)
class Matched(Generic[E]):
    """The outcome for a folder: entry per file, files held back (with the reason), problems."""

    entries: dict[str, E]
    rejected: dict[str, str]
    problems: list[str]


def normalise_entry_path(file: str) -> tuple[str | None, str | None]:
    """(normalised posix path relative to the manifest's folder, None) or (None, why it is invalid)."""
    p = file.strip().replace("\\", "/")
    if not p:
        return None, "the file name is empty"
    if p.startswith("/") or (len(p) > 1 and p[1] == ":"):
        return None, "the path is absolute; name files relative to the manifest's folder"
    norm = posixpath.normpath(p)
    if norm == "." or norm == ".." or norm.startswith("../"):
        return None, "the path leads out of the manifest's folder"
    return norm, None


def exists_exact(root: Path, rel: str) -> bool:
    """True when ``rel`` names a file under ``root`` with exactly this spelling, case included
    (``Path.is_file`` alone says yes to ``board.md`` for ``Board.md`` on a case-insensitive disk)."""
    cur = root
    for part in rel.split("/"):
        try:
            if part not in os.listdir(cur):
                return False
        except OSError:
            return False
        cur = cur / part
    return cur.is_file()


def _case_insensitive(root: Path, rel: str) -> list[str]:
    """Files under ``root`` whose path equals ``rel`` ignoring letter case."""
    paths = [""]
    for part in rel.split("/"):
        nxt = []
        for base in paths:
            try:
                names = os.listdir(root / base) if base else os.listdir(root)
            except OSError:
                continue
            nxt += [f"{base}/{n}" if base else n for n in names if n.lower() == part.lower()]
        paths = nxt
    return [p for p in paths if (root / p).is_file()]


def _similar(name: str, rels: Sequence[str]) -> list[str]:
    """Files with the same name (ignoring case) elsewhere, or the same name with another extension."""
    want = PurePosixPath(name.replace("\\", "/"))
    out = []
    for rel in rels:
        p = PurePosixPath(rel)
        if p.name.lower() == want.name.lower() or p.stem.lower() == want.stem.lower():
            out.append(rel)
    return out


def match_entries(entries: dict[str, E], root: Path, rels: Sequence[str],
                  defaults_apply: Sequence[str], where: str) -> Matched[E]:
    """Assign manifest entries (by their raw ``file`` string) to the files ``rels`` being ingested.

    ``defaults_apply`` are the files of ``rels`` that would get the ``[defaults]`` labels if no
    entry were theirs; ``where`` names the manifest in messages.
    """
    problems: list[str] = []
    rejected: dict[str, str] = {}
    by_norm: dict[str, list[str]] = defaultdict(list)
    unmatched: list[tuple[str, str]] = []  # (raw file, why)
    for raw in entries:
        norm, bad = normalise_entry_path(raw)
        if norm is None:
            unmatched.append((raw, f"file = {raw!r} is invalid: {bad}"))
        else:
            by_norm[norm].append(raw)
    assigned: dict[str, E] = {}
    for norm, raws in by_norm.items():
        if len(raws) > 1:
            reason = f"{len(raws)} manifest entries name it ({', '.join(repr(r) for r in raws)}); keep one"
            problems.append(f"{where}: {reason.replace('name it', f'name {norm!r}')}")
            rejected[norm] = reason
            continue
        if exists_exact(root, norm):
            assigned[norm] = entries[raws[0]]
        else:
            unmatched.append((raws[0], f"file = {raws[0]!r} matches no file"))
    for raw, why in unmatched:
        norm, _ = normalise_entry_path(raw)
        meant = set(_case_insensitive(root, norm) if norm else []) | set(_similar(raw, rels))
        meant -= {norm}
        if meant:
            for rel in sorted(meant):
                hint = ("it differs only in letter case" if norm and rel.lower() == norm.lower()
                        else "it has the same name" if PurePosixPath(rel).name.lower() == PurePosixPath(
                            raw.replace("\\", "/")).name.lower() else "it has the same name with another extension")
                rejected.setdefault(rel, f"the manifest entry {why} exactly, and may mean this file ({hint}); "
                                         f"names are matched exactly, case included: write file = {rel!r}")
            # (no names here: the files concerned say so in their own rows, and only those attempted)
            problems.append(f"{where}: {why} exactly; {len(meant)} file(s) it may mean are not ingested until "
                            "it is fixed")
        else:
            held = [rel for rel in defaults_apply if rel not in assigned]
            for rel in held:
                rejected.setdefault(rel, f"the manifest entry {why}, and which file it means cannot be told; files "
                                         "without their own entry are held back so none gets the [defaults] labels "
                                         "by mistake: fix or remove that entry")
            problems.append(f"{where}: {why} in its folder; {len(held)} file(s) without their own entry are not "
                            "ingested until it is fixed or removed")
    return Matched({k: v for k, v in assigned.items() if k not in rejected}, rejected, problems)


# The manifest's schema is closed: a misspelt table or key (``[[document]]``, ``[default]``,
# ``acess``) would otherwise be dropped without a word and its files take broader labels.
TOP_LEVEL_KEYS = ("defaults", "documents")
DEFAULTS_KEYS = ("access",)
ENTRY_KEYS = ("file", "id", "title", "effective_date", "access")


def unknown_keys(table: dict[str, object], allowed: Sequence[str]) -> list[str]:
    """A message per key of ``table`` that is not in ``allowed``, naming the nearest valid one."""
    out = []
    for key in table:
        if key in allowed:
            continue
        near = difflib.get_close_matches(key.lower(), allowed, n=1, cutoff=0.5)
        hint = f"did you mean {near[0]!r}?" if near else f"valid keys here: {', '.join(allowed)}"
        out.append(f"unknown key {key!r} ({hint})")
    return out
