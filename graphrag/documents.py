"""Reading documents from files, folders, manifests and the MuSiQue corpus format.

Every file becomes either a ``Source`` (text plus metadata, ready to ingest) or a
``Rejected`` with a message a user can act on; one bad file never stops the others.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from graphrag.model import PUBLIC, Document
from graphrag.readers import DOCUMENT_SUFFIXES, Layout, ReadError, read_document, sniff

MANIFEST = "manifest.toml"
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".text", ".rst"})
DEFAULT_MAX_BYTES = 5_000_000
# PDF, HTML and DOCX files are routinely larger than text: they may reach this or --max-bytes,
# whichever is larger (page and character limits in graphrag.readers bound the work).
DOCUMENT_MAX_BYTES = 50_000_000
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | frozenset(DOCUMENT_SUFFIXES)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Source:
    """A document read from disk (or memory), not yet ingested. Version is assigned by the store."""

    id: str
    title: str
    text: str
    effective_date: str | None = None
    access: tuple[str, ...] = (PUBLIC,)
    path: str | None = None
    note: str | None = None  # e.g. "decoded as cp1252"
    # PDF/HTML/DOCX: where each part of the text came from, and the original bytes' hash.
    layout: Layout | None = None

    @property
    def sha256(self) -> str:
        # A PDF, HTML or DOCX file is identified by its bytes: the same text laid out anew must
        # become a new version, or the stored pages and boxes would not match the stored file.
        if self.layout is not None:
            return self.layout.sha256
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def as_document(self, version: int = 0) -> Document:
        return Document(self.id, self.title, version, self.text, self.sha256, self.effective_date,
                        self.access, self.path)


@dataclass(frozen=True)
class Rejected:
    id: str
    path: str | None
    reason: str


@dataclass(frozen=True)
class ManifestEntry:
    id: str | None = None
    title: str | None = None
    effective_date: str | None = None
    access: tuple[str, ...] | None = None
    error: str | None = None  # the entry is invalid: its file is rejected, never given defaults


def decode(data: bytes) -> tuple[str | None, str | None]:
    """(text, note) for a file's bytes, or (None, reason) when it is not text."""
    if not data.strip():
        return None, "empty file"
    text, note = _decode(data)
    if text is not None and not text.strip():  # e.g. a byte-order mark alone, or only Unicode spaces
        return None, "empty file (no text after decoding)"
    return text, note


def _decode(data: bytes) -> tuple[str | None, str | None]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "decoded as UTF-16"
        except UnicodeDecodeError:
            return None, "invalid UTF-16"
    if b"\x00" in data[:8192]:
        return None, "binary file (contains NUL bytes); only plain text and Markdown are ingested"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or best.percent_chaos > 20:
        return None, "not UTF-8 and no other text encoding fits; convert it to UTF-8 (e.g. with iconv)"
    return str(best), f"not UTF-8: decoded as {best.encoding}"


def _clean_text(text: str) -> str:
    # Normalise line endings only: offsets are taken on this exact string from here on.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _title(text: str, fallback: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return re.sub(r"^#+\s*", "", line)[:200] or fallback
    return fallback


def _valid_date(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):  # a TOML date-time: the date is what matters
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise ValueError(f"effective_date {value!r} is not an ISO date (YYYY-MM-DD)") from None


def _labels(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: access must be a non-empty list of labels, got {value!r}")
    return tuple(sorted({v.strip() for v in value}))


def read_manifest(path: Path) -> tuple[dict[str, ManifestEntry], tuple[str, ...], list[str]]:
    """Entries by file (relative path), default access labels, and problems found.

    Problems fail closed: a file whose entry is invalid, or every file when the manifest cannot
    be parsed, is rejected rather than ingested with guessed (possibly broader) access labels.
    """
    problems: list[str] = []
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, (), [f"{path}: malformed manifest ({exc}); its folder's files are not ingested until it is fixed"]
    defaults: tuple[str, ...] = (PUBLIC,)
    try:
        if "defaults" in raw and "access" in raw["defaults"]:
            defaults = _labels(raw["defaults"]["access"], f"{path} [defaults]")
    except (ValueError, TypeError) as exc:
        # Fail closed here too: an invalid default must not fall back to public.
        defaults = ()
        problems.append(f"{exc}; files without their own access are not ingested until it is fixed")
    entries: dict[str, ManifestEntry] = {}
    docs = raw.get("documents", [])
    if not isinstance(docs, list):
        return {}, defaults, problems + [f"{path}: [[documents]] must be an array of tables"]
    for i, d in enumerate(docs):
        where = f"{path} document {i + 1}"
        file = d.get("file") if isinstance(d, dict) else None
        try:
            if not isinstance(file, str):
                raise ValueError(f"{where}: needs a `file` string")
            title = d.get("title")
            if title is not None and (not isinstance(title, str) or len(title) > 500):
                raise ValueError(f"{where}: title must be a string of at most 500 characters")
            doc_id = d.get("id")
            if doc_id is not None and (not isinstance(doc_id, str) or not doc_id.strip() or len(doc_id) > 200):
                raise ValueError(f"{where}: id must be a non-empty string of at most 200 characters")
            entries[d["file"]] = ManifestEntry(
                doc_id, title, _valid_date(d.get("effective_date")),
                _labels(d["access"], where) if "access" in d else None,
            )
        except (ValueError, TypeError) as exc:
            # Fail closed: defaults could be broader access than the entry meant (an
            # "internal" document with a typo in its title must not be ingested as public).
            if isinstance(file, str):
                entries[file] = ManifestEntry(error=str(exc))
                problems.append(f"{exc}; {file} is not ingested until its entry is fixed")
            else:
                problems.append(str(exc))
    return entries, defaults, problems


def _doc_id(path: Path, root: Path) -> str:
    rel = path.relative_to(root) if path.is_relative_to(root) else Path(path.name)
    return str(rel.with_suffix("")).replace("\\", "/")


def read_file(path: Path, root: Path, entry: ManifestEntry | None, default_access: tuple[str, ...],
              max_bytes: int = DEFAULT_MAX_BYTES) -> Source | Rejected:
    doc_id = (entry.id if entry and entry.id else None) or _doc_id(path, root)
    if entry is not None and entry.error:
        return Rejected(doc_id, str(path), f"invalid manifest entry: {entry.error}")
    try:
        size = path.stat().st_size
        if path.suffix.lower() in DOCUMENT_SUFFIXES:
            max_bytes = max(max_bytes, DOCUMENT_MAX_BYTES)
        if size > max_bytes:
            return Rejected(doc_id, str(path), f"{size:,} bytes is over the {max_bytes:,}-byte limit "
                                               "(raise it with --max-bytes, or split the file)")
        data = path.read_bytes()
    except OSError as exc:
        return Rejected(doc_id, str(path), f"cannot read: {exc.strerror or exc}")
    layout: Layout | None = None
    read_title: str | None = None
    if path.suffix.lower() in DOCUMENT_SUFFIXES:
        decoded = decode(data)[0] if DOCUMENT_SUFFIXES[path.suffix.lower()] == "text/html" else None
        try:
            doc = read_document(data, path.suffix, decoded)
        except ReadError as exc:
            return Rejected(doc_id, str(path), str(exc))
        text, layout, read_title = doc.text, doc.layout, doc.title
        note = "; ".join(layout.notes) or None
    else:
        kind = sniff(data)
        if kind in ("PDF", "DOCX"):
            return Rejected(doc_id, str(path), f"the extension says text but it is a {kind} file: rename it to "
                                               f".{kind.lower()}")
        text, note = decode(data)
        if text is None:
            return Rejected(doc_id, str(path), note or "not text")
        text = _clean_text(text)
    title = (entry.title if entry and entry.title else None) or read_title or _title(text, path.stem)
    access = (entry.access if entry and entry.access else None) or default_access
    if not access:
        return Rejected(doc_id, str(path), "no valid access labels: the manifest beside it is malformed or its "
                                           "[defaults] access is invalid; fix it and ingest again")
    return Source(doc_id, title, text, entry.effective_date if entry else None, access, str(path), note, layout)


def collect(paths: Iterable[str | Path], max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[list[Source | Rejected], list[str]]:
    """Sources from files and folders (recursively), with manifest metadata, in ingest order.

    Documents sharing an id are ordered by effective date, so the later version supersedes.
    Returns (sources or rejections, manifest problems).
    """
    items: list[Source | Rejected] = []
    problems: list[str] = []
    for p in map(Path, paths):
        if not p.exists():
            items.append(Rejected(p.stem, str(p), "no such file or folder"))
            continue
        if p.is_file() and p.suffix == ".json":
            items.extend(read_corpus_json(p))
            continue
        root = p if p.is_dir() else p.parent
        manifest = root / MANIFEST
        entries, defaults, probs = read_manifest(manifest) if manifest.exists() else ({}, (PUBLIC,), [])
        problems.extend(probs)
        files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
        for f in files:
            if f.name == MANIFEST or f.name.startswith("."):
                continue
            rel = str(f.relative_to(root))
            if f.suffix.lower() not in SUPPORTED_SUFFIXES:
                items.append(Rejected(_doc_id(f, root), str(f), f"unsupported file type {f.suffix or '(none)'}: "
                                                                "only .txt, .md, .pdf, .html, .htm and .docx are "
                                                                "ingested"))
                continue
            items.append(read_file(f, root, entries.get(rel), defaults, max_bytes))
    order = {id(x): i for i, x in enumerate(items)}
    items.sort(key=lambda x: (x.id, (x.effective_date or "") if isinstance(x, Source) else "", order[id(x)]))
    return items, problems


def read_corpus_json(path: Path) -> list[Source | Rejected]:
    """A JSON list of {"title", "text"} paragraphs (the MuSiQue corpus format), one document each."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list):
            raise ValueError("expected a JSON list of {title, text} objects")
    except (OSError, ValueError) as exc:
        return [Rejected(path.stem, str(path), f"not a corpus file: {exc}")]
    out: list[Source | Rejected] = []
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or not isinstance(r.get("text"), str) or not r["text"].strip():
            out.append(Rejected(f"{path.stem}/{i}", str(path), f"item {i} has no text"))
            continue
        title = str(r.get("title") or f"{path.stem} {i}")
        out.append(Source(corpus_doc_id(i, title), title, _clean_text(r["text"]), path=f"{path}#{i}"))
    return out


def corpus_doc_id(index: int, title: str) -> str:
    """Stable id of a corpus paragraph: titles repeat across paragraphs, so the index is part of it."""
    return f"{index:05d}:{title[:80]}"
