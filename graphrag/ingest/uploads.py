"""Uploaded files -> Sources with ids and access labels the uploader chose, never a silent replace.

An upload takes its id from its file name (control characters and ANSI escapes dropped, the name
cut to a readable length). When that id is already a document's:

- if the uploader can see that document, the upload becomes its next version only when they
  confirm it (the page shows which document, its title, current version and labels); unconfirmed,
  it gets an id of its own (``billing-2``);
- if they cannot see it, it always gets an id of its own (``ops-2``), and nothing about that
  document is shown or said, not even that the id is taken;
- two uploads with the same name in one batch: the second gets an id of its own.

So an upload never replaces anything by accident, and a confirmed new version is a choice made
with the facts in view. Uploads are read from memory: no file name reaches the filesystem.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Protocol

from graphrag.access.rule import Access
from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.documents import (
    DEFAULT_MAX_BYTES,
    SUPPORTED_SUFFIXES,
    SUPPORTED_TEXT,
    Rejected,
    Source,
    clean_label,
    doc_id_from_name,
    limit_for,
    source_from_bytes,
)
from graphrag.ingest.readers import PageProgress
from graphrag.model import PUBLIC, Document

MAX_NAME_CHARS = 120  # longer upload names are cut (the extension kept): ids stay readable


class DocumentLookup(Protocol):
    """Finds a document's current version (the store)."""

    def current_document(self, doc_id: str) -> Document | None:
        """The current version of ``doc_id``, or None."""


@dataclass(frozen=True)
class Upload:
    """A file uploaded on the Ingest page: its name and bytes."""

    name: str
    data: bytes


@dataclass(frozen=True)
class Clash:
    """An upload whose id is a document the uploader can see: a new version only if confirmed."""

    name: str  # the upload's (cleaned) file name
    id: str
    title: str
    version: int
    access: tuple[str, ...]
    own_id: str  # the id it gets unless confirmed


@dataclass(frozen=True)
class Assigned:
    """The id an upload is stored under, with any clash to confirm and why the id differs from its name."""

    name: str  # cleaned file name
    id: str
    clash: Clash | None = None
    note: str | None = None  # why the id differs from the name


def default_labels(held: Sequence[str]) -> tuple[str, ...]:
    """The most restrictive labels the uploader holds: the non-public ones if any, else public."""
    restricted = sorted({label for label in held if label and label != PUBLIC})
    return tuple(restricted) or (PUBLIC,)


def clean_name(name: str) -> str:
    """The last part of an uploaded file name, without control characters, at most MAX_NAME_CHARS."""
    base = clean_label(name.replace("\\", "/").rsplit("/", 1)[-1]) or "upload"
    if len(base) > MAX_NAME_CHARS:
        suffix = PurePosixPath(base).suffix[:12]
        base = base[: MAX_NAME_CHARS - len(suffix)].rstrip(" .") + suffix
    return base


def assign_ids(names: Sequence[str], store: DocumentLookup, viewer_access: Collection[str],
               new_versions: Collection[str] = ()) -> list[Assigned]:
    """The id each upload gets. ``new_versions``: ids the uploader confirmed as new versions."""
    used: set[str] = set()
    out: list[Assigned] = []

    def own(base: str) -> str:
        n = 2
        while f"{base}-{n}" in used or store.current_document(f"{base}-{n}") is not None:
            n += 1
        return f"{base}-{n}"

    for raw in names:
        name = clean_name(raw)
        base = doc_id_from_name(name)
        existing = store.current_document(base)
        if base in used:
            doc_id, clash, note = own(base), None, f"another upload in this batch is already {base!r}"
        elif existing is None:
            doc_id, clash, note = base, None, None
        elif Access.of(viewer_access).sees(existing.access):
            mine = own(base)
            clash = Clash(name, base, existing.title, existing.version, existing.access, mine)
            if base in new_versions:
                doc_id, note = base, f"confirmed as version {existing.version + 1} of {base!r}"
            else:
                doc_id, note = mine, f"{base!r} is an existing document (not confirmed as a new version of it)"
        else:
            # Not theirs to see: a fresh id and not a word about why (no title, labels, version, nor
            # "taken"), so the report reads as for any upload. Ids are global, so the fresh id itself
            # still shows that the name is in use (see docs/limits.md).
            doc_id, clash, note = own(base), None, None
        used.add(doc_id)
        out.append(Assigned(name, doc_id, clash, note))
    return out


def prepare_uploads(uploads: Sequence[Upload], store: DocumentLookup, *, viewer_access: Collection[str],
                    labels: Sequence[str], new_versions: Collection[str] = (),
                    max_bytes: int = DEFAULT_MAX_BYTES, max_chars: int = MAX_DOCUMENT_CHARS,
                    on_ocr_page: PageProgress | None = None) -> list[Source | Rejected]:
    """Sources (or rejections with the reason) for uploaded files, labelled ``labels``; a file whose
    text passes ``max_chars`` characters is refused as it is read, like a file on disk. ``on_ocr_page`` is told
    as each page of a scan is read by OCR."""
    access = tuple(sorted({clean_label(label) for label in labels} - {""}))
    out: list[Source | Rejected] = []
    for up, a in zip(uploads, assign_ids([u.name for u in uploads], store, viewer_access, new_versions)):
        path = f"upload:{a.name}"
        suffix = PurePosixPath(a.name).suffix.lower()
        limit = limit_for(a.name, max_bytes)
        if suffix not in SUPPORTED_SUFFIXES:
            out.append(Rejected(a.id, path, f"unsupported file type {suffix or '(none)'}: {SUPPORTED_TEXT}"))
        elif not access:
            out.append(Rejected(a.id, path, "choose at least one access label for the uploaded files"))
        elif len(up.data) > limit:
            out.append(Rejected(a.id, path, f"{len(up.data):,} bytes is over the {limit:,}-byte limit on a file "
                                            "(split it)"))
        else:
            item = source_from_bytes(a.id, up.data, a.name, None, access, path, max_chars, on_ocr_page)
            if isinstance(item, Source) and a.note:
                note = f"stored as {a.id!r}: {a.note}" if a.id != doc_id_from_name(a.name) else a.note
                item = replace(item, note="; ".join(x for x in (item.note, note) if x))
            out.append(item)
    return out
