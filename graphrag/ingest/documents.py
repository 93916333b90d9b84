"""Reading documents from files, folders, manifests and the MuSiQue corpus format.

Every file becomes either a ``Source`` (text plus metadata, ready to ingest) or a
``Rejected`` with a message a user can act on; one bad file never stops the others.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest import folders
from graphrag.ingest.manifest import (
    DEFAULTS_KEYS,
    ENTRY_KEYS,
    TOP_LEVEL_KEYS,
    exists_exact,
    match_entries,
    normalise_entry_path,
    unknown_keys,
)
from graphrag.ingest.readers import (
    DOCUMENT_SUFFIXES,
    Layout,
    PageProgress,
    ReadError,
    check_words,
    read_document,
    sniff,
    too_much_text,
)
from graphrag.language.sentences import without_footnote_marks
from graphrag.model import PUBLIC, Document

MANIFEST = "manifest.toml"
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".text", ".rst"})
# Bytes read from disk per file, before anything is parsed: bounds the memory of reading it. What
# bounds the work is the text: every format is held to one limit on a document's characters
# (GRAPHRAG_MAX_DOCUMENT_CHARS, counted while reading; see graphrag.ingest.readers.budget).
DEFAULT_MAX_BYTES = 50_000_000
DOCUMENT_MAX_BYTES = DEFAULT_MAX_BYTES
MAX_BYTES_PER_CHAR = 4  # UTF-8 and UTF-16 take at most 4 bytes a character
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | frozenset(DOCUMENT_SUFFIXES)
SUPPORTED_TEXT = "only .txt, .md, .pdf, .html, .htm, .docx and scanned pages (.png, .jpg, .jpeg, .tif, .tiff) are ingested"
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
        """The version key: the original file's hash for laid-out formats, else the text's."""
        # A PDF, HTML or DOCX file is identified by its bytes: the same text laid out anew must
        # become a new version, or the stored pages and boxes would not match the stored file.
        if self.layout is not None:
            return self.layout.sha256
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def as_document(self, version: int = 0) -> Document:
        """This source as a document record with the given version number."""
        return Document(self.id, self.title, version, self.text, self.sha256, self.effective_date,
                        self.access, self.path)


@dataclass(frozen=True)
class Rejected:
    """A file that was not ingested, and why."""

    id: str
    path: str | None
    reason: str


@dataclass(frozen=True)
class ManifestEntry:
    """A manifest's settings for one file; None leaves the folder's default."""

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
        return None, "binary file (contains NUL bytes): a text or Markdown file must hold text"
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
    # Line endings normalised and footnote marks out ("instead.[202]": see graphrag.language.sentences): offsets are taken on this
    # exact string from here on.
    return without_footnote_marks(text.replace("\r\n", "\n").replace("\r", "\n"), attached_only=True)


# ANSI escape sequences (CSI, OSC, and two-character ones), then any control or format character:
# neither may reach an id or a title, where a terminal would obey them or a page hide them.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]")


def clean_label(text: str) -> str:
    """``text`` without ANSI escapes and control/format characters, whitespace runs collapsed."""
    text = _ANSI.sub("", text)
    text = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"))
    return " ".join(text.split())


def _title(text: str, fallback: str) -> str:
    for line in text.splitlines():
        line = clean_label(line)
        if line:
            return re.sub(r"^#+\s*", "", line)[:200] or clean_label(fallback)
    return clean_label(fallback)


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


@dataclass(frozen=True)
class Manifest:
    """A manifest as read: entries by their raw ``file``, the default labels (empty: none valid, so files
    without their own access are held back), problems, and ``held``: why every file it governs is held
    back (it cannot be read or parsed, or it has a table or key outside the schema), else None."""

    entries: dict[str, ManifestEntry]
    defaults: tuple[str, ...]
    problems: list[str]
    held: str | None = None
    defaults_error: str | None = None  # why ``defaults`` is empty


NO_MANIFEST = Manifest({}, (PUBLIC,), [])


def _holding(path: Path, why: str) -> Manifest:
    return Manifest({}, (), [f"{path}: {why}; the files it governs are not ingested until it is fixed"],
                    f"held back by its manifest, {path}: {why}; fix it and ingest again")


def read_manifest(path: Path) -> Manifest:
    """Entries by file (relative path), default access labels, and problems found.

    Problems fail closed: a file whose entry is invalid, or every file when the manifest cannot
    be parsed or holds a table or key the schema does not know, is rejected rather than ingested
    with guessed (possibly broader) access labels.
    """
    problems: list[str] = []
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return _holding(path, f"malformed manifest ({exc})")
    # An unknown top-level key may be meant for any file (``[[document]]`` entries, a ``[default]``
    # table): every file the manifest governs is held back.
    if unknown := unknown_keys(raw, TOP_LEVEL_KEYS):
        return _holding(path, "; ".join(unknown))
    defaults: tuple[str, ...] = (PUBLIC,)
    defaults_error: str | None = None
    try:
        table = raw.get("defaults", {})
        if not isinstance(table, dict):
            raise ValueError(f"{path}: [defaults] must be a table, got {table!r}")
        if unknown := unknown_keys(table, DEFAULTS_KEYS):
            raise ValueError(f"{path} [defaults]: " + "; ".join(unknown))
        if "access" in table:
            defaults = _labels(table["access"], f"{path} [defaults]")
    except (ValueError, TypeError) as exc:
        # Fail closed here too: an invalid default must not fall back to public.
        defaults, defaults_error = (), f"it has no access of its own, and {exc}: fix it and ingest again"
        problems.append(f"{exc}; files without their own access are not ingested until it is fixed")
    entries: dict[str, ManifestEntry] = {}
    docs = raw.get("documents", [])
    if not isinstance(docs, list):
        return _holding(path, "[[documents]] must be an array of tables")
    for i, d in enumerate(docs):
        where = f"{path} document {i + 1}"
        file = d.get("file") if isinstance(d, dict) else None
        try:
            if not isinstance(d, dict):
                raise ValueError(f"{where}: must be a table, got {d!r}")
            if not isinstance(file, str):
                raise ValueError(f"{where}: needs a `file` string")
            if unknown := unknown_keys(d, ENTRY_KEYS):
                raise ValueError(f"{where}: " + "; ".join(unknown))
            title = d.get("title")
            if title is not None and (not isinstance(title, str) or len(title) > 500):
                raise ValueError(f"{where}: title must be a string of at most 500 characters")
            doc_id = d.get("id")
            if doc_id is not None and (not isinstance(doc_id, str) or not doc_id.strip() or len(doc_id) > 200):
                raise ValueError(f"{where}: id must be a non-empty string of at most 200 characters")
            if file in entries:
                raise ValueError(f"{where}: a second entry for {file!r}")
            entries[file] = ManifestEntry(
                clean_label(doc_id) if doc_id is not None else None, clean_label(title) if title is not None else None,
                _valid_date(d.get("effective_date")), _labels(d["access"], where) if "access" in d else None,
            )
        except (ValueError, TypeError) as exc:
            # Fail closed: defaults could be broader access than the entry meant (an
            # "internal" document with a typo in its title must not be ingested as public).
            # An entry without a usable `file` is kept under "": it matches no file, so the
            # folder's files that would get the defaults are held back (see manifest.py).
            key = file if isinstance(file, str) else ""
            entries[key] = ManifestEntry(error=str(exc))
            problems.append(f"{exc}; {key} is not ingested until its entry is fixed" if key else str(exc))
    return Manifest(entries, defaults, problems, None, defaults_error)


def _doc_id(path: Path, root: Path) -> str:
    rel = path.relative_to(root) if path.is_relative_to(root) else Path(path.name)
    return doc_id_from_name(rel.as_posix())


def doc_id_from_name(name: str) -> str:
    """A document id from a relative file name: folders kept, extension and control characters dropped."""
    parts = [clean_label(part) for part in name.replace("\\", "/").split("/")]
    parts = [p for p in parts if p and p not in (".", "..")]
    if parts:
        stem = Path(parts[-1]).stem.strip()
        parts[-1] = stem if stem and stem.strip(".") else parts[-1]
    return "/".join(parts)[:200] or "document"


def limit_for(name: str, max_bytes: int) -> int:
    """The byte limit on reading a file: PDF, HTML and DOCX may always reach DOCUMENT_MAX_BYTES (what
    bounds the work is the character limit, checked while reading)."""
    return max(max_bytes, DOCUMENT_MAX_BYTES) if Path(name).suffix.lower() in DOCUMENT_SUFFIXES else max_bytes


def source_from_bytes(doc_id: str, data: bytes, name: str, entry: ManifestEntry | None,
                      default_access: tuple[str, ...], path: str | None,
                      max_chars: int = MAX_DOCUMENT_CHARS, on_ocr_page: PageProgress | None = None) -> Source | Rejected:
    """A Source from a file's bytes (on disk or uploaded), or a Rejected with the reason (among them a
    text longer than ``max_chars`` characters, whatever the format). ``on_ocr_page``: told as each page of a
    scan is read by OCR."""
    if entry is not None and entry.error:
        return Rejected(doc_id, path, f"invalid manifest entry: {entry.error}")
    suffix = Path(name).suffix.lower()
    layout: Layout | None = None
    read_title: str | None = None
    if suffix in DOCUMENT_SUFFIXES:
        decoded = decode(data)[0] if DOCUMENT_SUFFIXES[suffix] == "text/html" else None
        try:
            doc = read_document(data, suffix, decoded, max_chars, on_ocr_page)
        except ReadError as exc:
            return Rejected(doc_id, path, str(exc))
        text, layout, read_title = doc.text, doc.layout, clean_label(doc.title) if doc.title else None
        note = "; ".join(layout.notes) or None
    else:
        kind = sniff(data)
        if kind in ("PDF", "DOCX", "PNG", "JPEG", "TIFF"):
            return Rejected(doc_id, path, f"the extension says text but it is a {kind} file: rename it to "
                                          f".{kind.lower()}")
        if len(data) > MAX_BYTES_PER_CHAR * max_chars + 4:  # 4: a byte-order mark
            return Rejected(doc_id, path, f"the file has {len(data):,} bytes, so more than {max_chars:,} characters "
                                          f"of text (a character takes at most {MAX_BYTES_PER_CHAR} bytes); the limit "
                                          f"is {max_chars:,} characters a document (GRAPHRAG_MAX_DOCUMENT_CHARS): "
                                          "split it, or raise the limit")
        decoded_text, note = decode(data)
        if decoded_text is None:
            return Rejected(doc_id, path, note or "not text")
        if len(decoded_text) > max_chars:
            return Rejected(doc_id, path, too_much_text(len(decoded_text), max_chars))
        text = _clean_text(decoded_text)
    try:
        check_words(text, max_chars)
    except ReadError as exc:
        return Rejected(doc_id, path, str(exc))
    title = (entry.title if entry and entry.title else None) or read_title or _title(text, Path(name).stem)
    access = (entry.access if entry and entry.access else None) or default_access
    if not access:
        return Rejected(doc_id, path, "no valid access labels: the manifest beside it is malformed or its "
                                      "[defaults] access is invalid; fix it and ingest again")
    return Source(doc_id, title, text, entry.effective_date if entry else None, access, path, note, layout)


def read_file(path: Path, root: Path, entry: ManifestEntry | None, default_access: tuple[str, ...],
              max_bytes: int = DEFAULT_MAX_BYTES, root_real: Path | None = None,
              max_chars: int = MAX_DOCUMENT_CHARS, on_ocr_page: PageProgress | None = None) -> Source | Rejected:
    """One file under ``root`` (never a file whose real path leaves ``root_real``, never a FIFO or device)."""
    doc_id = (entry.id if entry and entry.id else None) or _doc_id(path, root)
    if entry is not None and entry.error:
        return Rejected(doc_id, str(path), f"invalid manifest entry: {entry.error}")
    if root_real is None:
        root_real = Path(os.path.realpath(path))  # a file named on its own: its link was chosen
    try:
        data = folders.read_regular(path, root_real, limit_for(path.name, max_bytes))
    except folders.Refused as exc:
        return Rejected(doc_id, str(path), exc.reason)
    except OSError as exc:
        return Rejected(doc_id, str(path), f"cannot read: {exc.strerror or exc}")
    return source_from_bytes(doc_id, data, path.name, entry, default_access, str(path), max_chars, on_ocr_page)


@dataclass(frozen=True)
class Collected:
    """What a collect found: sources or rejections (in ingest order), manifest problems, and the
    files that were not attempted (unsupported type, links out of the folder, devices...)."""

    items: list[Source | Rejected]
    problems: list[str]
    skipped: list[folders.Skipped]

    def skipped_counts(self) -> list[str]:
        """"3 files skipped: unsupported type": counts only, never the names."""
        counts = Counter(s.kind for s in self.skipped)
        return [f"{n} {'file' if n == 1 else 'files'} skipped: {kind}" for kind, n in sorted(counts.items())]


def collect(paths: Iterable[str | Path], max_bytes: int = DEFAULT_MAX_BYTES,
            max_chars: int = MAX_DOCUMENT_CHARS, on_ocr_page: PageProgress | None = None) -> Collected:
    """Sources from files and folders (recursively), with manifest metadata, in ingest order.

    Documents sharing an id are ordered by effective date, so the later version supersedes.
    Inside a folder only regular files whose real path stays in the folder are read; a path on
    a kernel filesystem (/proc, /sys, /dev...) is refused whole. Every file is governed by the
    nearest ``manifest.toml`` in its folder or above it (see ``_governed``). ``on_ocr_page`` is told as each
    page of a scan is read by OCR.
    """
    items: list[Source | Rejected] = []
    problems: list[str] = []
    skipped: list[folders.Skipped] = []
    for p in map(Path, paths):
        if not p.exists():
            items.append(Rejected(doc_id_from_name(p.name), str(p), "no such file or folder"))
            continue
        try:
            real = folders.check_root(p)
        except folders.Refused as exc:
            items.append(Rejected(doc_id_from_name(p.name), str(p), exc.reason))
            continue
        if p.is_file() and p.suffix == ".json":
            items.extend(read_corpus_json(p, real, max_chars))
            continue
        if p.is_dir():
            root, root_real = p, real
            found, refused = folders.walk(root, root_real)
        else:
            root, root_real = p.parent, Path(os.path.realpath(p.parent))
            try:
                folders.check_file(p, real)
            except folders.Refused as exc:
                items.append(Rejected(_doc_id(p, root), str(p), exc.reason))
                continue
            found, refused = [folders.Found(p, p.name)], []
        # Manifests (readable or not: a link out or a FIFO named manifest.toml fails closed) are not documents.
        manifest_dirs = {"."} | {_parent(r) for r in [f.rel for f in found] + [s.rel for s in refused]
                                  if _name(r) == MANIFEST}
        skipped.extend(s for s in refused if _name(s.rel) != MANIFEST)
        found = [f for f in found if _name(f.rel) != MANIFEST]
        texts = []
        for f in found:
            if f.path.suffix.lower() in SUPPORTED_SUFFIXES:
                texts.append(f)
            elif _name(f.rel).lower() == MANIFEST:  # Manifest.toml: read on a case-insensitive disk, not here
                skipped.append(folders.Skipped(f.path, f.rel, f"a manifest must be named {MANIFEST!r} exactly, "
                                                              "case included: rename it", "misnamed manifest"))
                manifest_dirs.add(_parent(f.rel))
            else:
                skipped.append(folders.Skipped(f.path, f.rel, f"unsupported file type {f.path.suffix or '(none)'}: "
                                                              f"{SUPPORTED_TEXT}", "unsupported type"))
        for f, entry, defaults, why in _governed(root, root_real, manifest_dirs, found, texts, problems):
            if why is not None:
                items.append(Rejected(_doc_id(f.path, root), str(f.path), why))
            else:
                items.append(read_file(f.path, root, entry, defaults, max_bytes, root_real if p.is_dir() else real,
                                       max_chars, on_ocr_page))
    order = {id(x): i for i, x in enumerate(items)}
    items.sort(key=lambda x: (x.id, (x.effective_date or "") if isinstance(x, Source) else "", order[id(x)]))
    return Collected(items, problems, skipped)


def _name(rel: str) -> str:
    return rel.rsplit("/", 1)[-1]


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else "."


def _under(rel: str, folder: str) -> bool:
    return folder == "." or rel.startswith(folder + "/")


def _relative(rel: str, folder: str) -> str:
    return rel if folder == "." else rel[len(folder) + 1:]


def _nearest(rel: str, manifest_dirs: Iterable[str]) -> str:
    """The deepest folder holding a manifest that ``rel`` lies under ("." is always one)."""
    return max((d for d in manifest_dirs if _under(rel, d)), key=lambda d: 0 if d == "." else d.count("/") + 1)


def _governed(root: Path, root_real: Path, manifest_dirs: set[str], found: list[folders.Found],
              texts: list[folders.Found], problems: list[str],
              ) -> Iterator[tuple[folders.Found, ManifestEntry | None, tuple[str, ...], str | None]]:
    """Each text file with its entry and default labels from its nearest manifest, or the reason it is held back.

    The nearest manifest governs every file below it, never its parent's ``[defaults]``; for files with
    no manifest between them and the chosen folder, that is the nearest one above the folder, if any
    (ingesting ``parent/sub`` follows ``parent/manifest.toml`` as ingesting ``parent`` does). A parent
    manifest's entry naming a file that a nearer manifest governs is ambiguous (which labels were
    meant?): that file is held back until one of the two entries is removed.
    """
    ambiguous: dict[str, str] = {}  # file (relative to the ingest root) -> why it is held back
    for folder in sorted(manifest_dirs):  # a folder sorts before its subfolders
        mine = [f for f in texts if _nearest(f.rel, manifest_dirs) == folder]
        if not mine and folder == ".":  # (a manifest inside still says its problems, even with no files)
            continue
        here, prefix, manifest = _governing(root, root_real, folder)
        problems.extend(manifest.problems)
        where = str(here / MANIFEST)
        if manifest.held is not None:
            for f in mine:
                yield f, None, (), manifest.held
            continue
        held = [f for f in mine if f.rel in ambiguous]
        for f in held:
            yield f, None, (), ambiguous[f.rel]
        mine = [f for f in mine if f.rel not in ambiguous]

        def to_manifest(rel: str, folder: str = folder, prefix: str = prefix) -> str:
            """A path relative to the ingest root, relative to the manifest's folder."""
            return _join(prefix, _relative(rel, folder))

        # Entries pointing below a nearer manifest: the nearer one governs those files.
        nearer = {to_manifest(d): d for d in manifest_dirs if d != folder and _under(d, folder)}
        entries: dict[str, ManifestEntry] = {}
        for raw, entry in manifest.entries.items():
            norm, _ = normalise_entry_path(raw)
            inner = [d for d in nearer if norm is not None and _under(norm, d)]
            if norm is None or not inner or not exists_exact(here, norm):
                entries[raw] = entry
                continue
            other = root / nearer[max(inner, key=len)] / MANIFEST
            why = (f"{where} has an entry for it, but {other} is the nearest manifest and governs it: which labels "
                   "were meant cannot be told, so it is held back until the entry is removed from one of the two")
            ambiguous[_join(folder if folder != "." else "", norm[len(prefix) + 1:] if prefix else norm)] = why
            problems.append(f"{where}: file = {raw!r} is governed by {other} (the nearest manifest applies to the "
                            "files below it); it is not ingested until the entry is removed from one of the two")
        mine_found = [f for f in found if _nearest(f.rel, manifest_dirs) == folder]
        matched = match_entries(entries, here, [to_manifest(f.rel) for f in mine_found],
                                [to_manifest(f.rel) for f in mine], where)
        problems.extend(matched.problems)
        for f in mine:
            rel = to_manifest(f.rel)
            own = matched.entries.get(rel)
            if rel in matched.rejected:
                yield f, None, (), matched.rejected[rel]
            elif manifest.defaults_error and not (own and (own.access or own.error)):
                yield f, None, (), manifest.defaults_error
            else:
                yield f, own, manifest.defaults, None


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b


def _governing(root: Path, root_real: Path, folder: str) -> tuple[Path, str, Manifest]:
    """(the manifest's folder, the path of ``folder`` relative to it, the manifest) for the files of ``folder``."""
    here = root / folder if folder != "." else root
    if folder != ".":
        if (here / MANIFEST).exists() or (here / MANIFEST).is_symlink():  # a FIFO or a link out: held, with why
            return here, "", _manifest(here, root_real)
        return here, "", _misnamed(here)
    if (root / MANIFEST).exists() or (root / MANIFEST).is_symlink():
        return root, "", _manifest(root, root_real)
    above = _manifest_above(root)
    if above is None:
        return root, "", NO_MANIFEST
    top, prefix = above
    return top, prefix, _manifest(top, Path(os.path.realpath(top)), above=True)


def _manifest_above(root: Path) -> tuple[Path, str] | None:
    """The nearest folder above ``root`` holding a manifest.toml (named exactly so), and ``root`` relative to it."""
    here = Path(os.path.abspath(root))
    for up in here.parents:
        try:
            if MANIFEST in os.listdir(up):
                return up, here.relative_to(up).as_posix()
        except OSError:  # a folder above that cannot be listed holds no manifest we could read
            continue
    return None


def _misnamed(folder: Path) -> Manifest:
    return _holding(folder / MANIFEST, "not found, but a file named like it in another letter case is there "
                                       f"(a manifest must be named {MANIFEST!r} exactly: rename it)")


def _manifest(root: Path, root_real: Path, *, above: bool = False) -> Manifest:
    """The manifest beside the files, read as safely as they are (a link out or a FIFO fails closed).

    ``above``: a manifest above the chosen folder, applied only when it is the user's own (or root's):
    one that another user placed in a shared folder such as /tmp could otherwise give the files ids
    or labels; it holds them back instead, with the reason."""
    path = root / MANIFEST
    if not path.exists() and not path.is_symlink():
        return NO_MANIFEST
    try:
        st = folders.check_file(path, root_real)
    except (folders.Refused, OSError) as exc:
        why = exc.reason if isinstance(exc, folders.Refused) else (exc.strerror or str(exc))
        return _holding(path, f"cannot be read ({why})")
    if above and hasattr(os, "getuid") and st.st_uid not in (os.getuid(), 0):
        return _holding(path, f"lies above the chosen folder and belongs to another user (uid {st.st_uid}), so it "
                              "is not applied; ingest from its folder if it is meant, or move it away")
    return read_manifest(path)


def read_corpus_json(path: Path, real: Path | None = None, max_chars: int = MAX_DOCUMENT_CHARS
                     ) -> list[Source | Rejected]:
    """A JSON list of {"title", "text"} paragraphs (the MuSiQue corpus format), one document each."""
    try:
        rows = json.loads(folders.read_regular(path, real or Path(os.path.realpath(path)), 1 << 31).decode("utf-8"))
        if not isinstance(rows, list):
            raise ValueError("expected a JSON list of {title, text} objects")
    except (OSError, ValueError, folders.Refused) as exc:
        return [Rejected(path.stem, str(path), f"not a corpus file: {exc}")]
    out: list[Source | Rejected] = []
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or not isinstance(r.get("text"), str) or not r["text"].strip():
            out.append(Rejected(f"{path.stem}/{i}", str(path), f"item {i} has no text"))
            continue
        if len(r["text"]) > max_chars:
            out.append(Rejected(f"{path.stem}/{i}", str(path), f"item {i}: {too_much_text(len(r['text']), max_chars)}"))
            continue
        title = clean_label(str(r.get("title") or "")) or f"{path.stem} {i}"
        out.append(Source(corpus_doc_id(i, title), title, _clean_text(r["text"]), path=f"{path}#{i}"))
    return out


def corpus_doc_id(index: int, title: str) -> str:
    """Stable id of a corpus paragraph: titles repeat across paragraphs, so the index is part of it."""
    return f"{index:05d}:{clean_label(title)[:80]}"
