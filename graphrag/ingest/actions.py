"""What a viewer does to the documents: the ingest door's use cases.

Each takes ``(store, viewer, config)`` and its own arguments, checks the viewer's role (an admin's, for every one
here), limits what it shows to what the viewer may see, and has the audit row written once: ``ingest`` here, a
relabel's ``relabel`` by the pipeline as it applies it, a removal's ``remove`` by the store in the removal's own
transaction. The CLI and the Ingest page call these and nothing below them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from graphrag.access.deployment import allowed_path, ingest_roots
from graphrag.access.identity import ADMIN, Viewer, require
from graphrag.access.rule import Access
from graphrag.config import Config
from graphrag.errors import InputError
from graphrag.ingest import removal
from graphrag.ingest.documents import DEFAULT_MAX_BYTES
from graphrag.ingest.passages import Filled, fill_passage_vectors
from graphrag.ingest.pipeline import Ingestor, IngestReport, ProgressFn, reading_progress
from graphrag.ingest.uploads import Upload, prepare_uploads
from graphrag.model import PUBLIC, Progress
from graphrag.store.audit import AuditKind, event

if TYPE_CHECKING:
    from graphrag.ingest.extract.base import Extractor
    from graphrag.ingest.jobs import Work
    from graphrag.language.encoding import Embedder
    from graphrag.language.passage_encoder import PassageEncoder
    from graphrag.store import Store
    from graphrag.store.removals import Removal


def held_labels(viewer: Viewer, *, bound: bool = False) -> frozenset[str] | None:
    """The labels the ingest rule (graphrag.access.rule.ingest_refusal) binds an ingest to: a team member's grant
    always; locally only when the caller acts with given labels (``bound``: the command line's ``--access``). None:
    the store's own access (local labels are a filter, not a permission)."""
    return viewer.labels if viewer.team or bound else None


def _ingestor(store: Store, viewer: Viewer, config: Config, extractor: Extractor,
              held: frozenset[str] | None, shown: Sequence[str] | None = None,
              embedder: Embedder | None = None) -> Ingestor:
    # the relabels it applies are audited as this viewer's; every document is checked against ``held``
    return Ingestor(store, extractor, embedder, config=config, actor=event(viewer, AuditKind.RELABEL), viewer=held,
                    shown=shown)


def _labels_detail(held: frozenset[str] | None) -> dict[str, list[str]]:
    # What the ingest could give, for the audit log's filter (graphrag.verify.audit): a bound actor's labels.
    return {} if held is None else {"labels": sorted(held)}


def ingest_paths(store: Store, viewer: Viewer, config: Config, paths: Sequence[str | Path], extractor: Extractor,
                 *, progress: ProgressFn | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 bound: bool = False, embedder: Embedder | None = None) -> IngestReport:
    """Ingest files and folders now (the command line). Audited before anything is written, as the other
    ingest doors are: an audit row that cannot be written stops the ingest, so no document arrives unaudited
    (each document is its own transaction; the totals are the report's). The row names the labels the
    viewer may give. ``bound``: act with the viewer's labels (see ``held_labels``). ``embedder``: one already
    loaded (default: all-MiniLM-L6-v2, loaded when needed)."""
    require(viewer, ADMIN, "ingest documents")
    held = held_labels(viewer, bound=bound)
    store.add_audit(event(viewer, AuditKind.INGEST, paths=[str(p) for p in paths], **_labels_detail(held)))
    return _ingestor(store, viewer, config, extractor, held, embedder=embedder).ingest_paths(paths, progress,
                                                                                           max_bytes)


def fill_passages(store: Store, viewer: Viewer, encoder: PassageEncoder,
                  progress: Callable[[Progress], None] | None = None, total: int | None = None) -> Filled:
    """Encode ``encoder``'s passage vector of every sentence ``store`` holds without one (``graphrag store
    passages``): a store's administrator's step, like an ingest; it adds no text and changes no answer's record."""
    require(viewer, ADMIN, "fill in the reader's passage vectors")
    return fill_passage_vectors(store, encoder, progress, total)


def upload_label_choices(store: Store, viewer: Viewer, config: Config) -> list[str]:
    """The labels the Ingest page offers for uploads: only those the viewer may give (a team member's grant);
    locally every label in the store, where the labels are a filter anyone may widen."""
    require(viewer, ADMIN, "ingest documents")
    held = held_labels(viewer)
    if held is not None:
        return sorted(held)
    return sorted({label for d in store.documents() for label in d.access} | {PUBLIC} | set(viewer.labels))


def upload_work(store: Store, viewer: Viewer, config: Config, extractor: Extractor, uploads: Sequence[Upload],
                labels: Sequence[str], new_versions: Sequence[str] = ()) -> Work:
    """The ingest of browser uploads, labelled ``labels``, as work for the job runner: the job reads them (the
    checks of a file on disk, from memory; a scan's OCR, page by page in its progress) and stores them. An upload
    named like a document the viewer can see becomes its new version only when listed in ``new_versions``. Audited
    now, counts only: an upload's name may say more than its labels allow."""
    require(viewer, ADMIN, "ingest documents")
    shown = sorted(viewer.labels)
    ingestor = _ingestor(store, viewer, config, extractor, held_labels(viewer), shown)
    store.add_audit(event(viewer, AuditKind.INGEST, source="upload", files=len(uploads), folder=None))

    def work(progress: ProgressFn) -> IngestReport:
        items = prepare_uploads(uploads, store, viewer_access=shown, labels=labels, new_versions=new_versions,
                                max_chars=config.max_document_chars, on_ocr_page=reading_progress(progress))
        return ingestor.ingest(items, progress)

    return work


def folder_work(store: Store, viewer: Viewer, config: Config, extractor: Extractor, folder: str) -> Work:
    """The ingest of a folder (or file) on the server, returned as work for the job runner: refused (InputError)
    unless it lies under the configured ingest roots, checked before anything is read. Files it does not attempt
    are counted, never named (the page may be reached by others than the folder's owner). Audited now."""
    require(viewer, ADMIN, "ingest documents")
    path = str(allowed_path(folder, ingest_roots(config)))
    held = held_labels(viewer)
    ingestor = _ingestor(store, viewer, config, extractor, held)
    store.add_audit(event(viewer, AuditKind.INGEST, source="folder", files=None, folder=folder.strip(),
                          **_labels_detail(held)))
    return lambda progress: ingestor.ingest_paths([path], progress, name_skipped=False)


def removal_choices(store: Store, viewer: Viewer, config: Config) -> list[removal.RemovalTarget]:
    """The documents the viewer may remove: those with a version (superseded ones too) their labels can see; a
    hidden document's id or title is never offered."""
    require(viewer, ADMIN, "remove a document")
    sees = Access.of(viewer.labels, include_superseded=True)
    return [t for t in removal.removal_targets(store) if any(sees.sees(v.access) for v in t.versions)]


def remove_document(store: Store, viewer: Viewer, config: Config, doc_id: str, versions: removal.Versions = None,
                    *, actor: str, reason: str = "") -> Removal:
    """Remove every version of ``doc_id``, or only ``versions``, in one transaction; audited as ``remove`` in it.
    ``actor`` is kept in the removal record; in team mode it is the signed-in identity, whatever was typed."""
    require(viewer, ADMIN, "remove a document")
    _may_remove(store, viewer, doc_id, versions)
    return removal.remove_document(store, doc_id, versions, actor=viewer.name if viewer.team else actor,
                                   reason=reason, by=viewer)


def _may_remove(store: Store, viewer: Viewer, doc_id: str, versions: removal.Versions) -> None:
    """A bound remover (a team member: see ``held_labels``) removes only versions their labels show, as they may
    write only documents they can see. A document none of whose chosen versions they see gets the unknown id's
    message, so a refusal tells nothing of a hidden document."""
    held = held_labels(viewer)
    if held is None:
        return
    chosen = None if versions is None else {versions} if isinstance(versions, int) else set(versions) or None
    targets = [d for d in store.documents(include_superseded=True)
               if d.id == doc_id and (chosen is None or d.version in chosen)]
    sees = Access.of(sorted(held), include_superseded=True)
    shown = [d for d in targets if sees.sees(d.access)]
    if not shown:
        raise InputError(f"no document {doc_id!r} in the store")
    if len(shown) < len(targets):
        raise InputError(f"document {doc_id!r} has versions your labels do not show: choose the versions you may "
                         "remove (nothing was removed)")
