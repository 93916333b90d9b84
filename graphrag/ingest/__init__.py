"""Bringing documents in and taking them out: reading sources into documents and spans (``documents``, with the
file readers in ``readers``), folders and their ``manifest.toml`` (``folders``, ``manifest``), browser uploads
(``uploads``), the extractors that find entities and relations (``extract``), the pipeline that writes them to
the store (``pipeline``: ``Ingestor``), background ingest jobs (``jobs``) and removing a document version
(``removal``).

Import the names below from ``graphrag.ingest``; each is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.registry import lazy_exports

if TYPE_CHECKING:
    from graphrag.ingest.actions import (
        fill_passages,
        folder_work,
        held_labels,
        ingest_paths,
        removal_choices,
        remove_document,
        upload_label_choices,
        upload_work,
    )
    from graphrag.ingest.documents import DEFAULT_MAX_BYTES, DOCUMENT_MAX_BYTES, Rejected, Source
    from graphrag.ingest.extract import EXTRACTORS, make_extractor, store_extractor
    from graphrag.ingest.extract.base import Extractor
    from graphrag.ingest.folders import printable
    from graphrag.ingest.jobs import (
        DONE,
        FAILED,
        QUEUED,
        RUNNING,
        EtaClock,
        IngestJob,
        JobRunner,
        JobStatus,
        Work,
        format_eta,
    )
    from graphrag.ingest.pipeline import Ingestor, IngestReport, ProgressFn
    from graphrag.ingest.removal import RemovalTarget, clean_actor, describe, on_removed, preview_removal
    from graphrag.ingest.uploads import Upload, assign_ids, default_labels, prepare_uploads

# Name -> the module that defines it. Imported on first use, so importing the package (or one of its
# modules) loads nothing else and no import cycle can run through this door.
_EXPORTS = {
    "DEFAULT_MAX_BYTES": "graphrag.ingest.documents",
    "DOCUMENT_MAX_BYTES": "graphrag.ingest.documents",
    "DONE": "graphrag.ingest.jobs",
    "EXTRACTORS": "graphrag.ingest.extract",
    "EtaClock": "graphrag.ingest.jobs",
    "fill_passages": "graphrag.ingest.actions",
    "Extractor": "graphrag.ingest.extract.base",
    "FAILED": "graphrag.ingest.jobs",
    "IngestJob": "graphrag.ingest.jobs",
    "IngestReport": "graphrag.ingest.pipeline",
    "Ingestor": "graphrag.ingest.pipeline",
    "JobRunner": "graphrag.ingest.jobs",
    "JobStatus": "graphrag.ingest.jobs",
    "ProgressFn": "graphrag.ingest.pipeline",
    "QUEUED": "graphrag.ingest.jobs",
    "RUNNING": "graphrag.ingest.jobs",
    "Rejected": "graphrag.ingest.documents",
    "RemovalTarget": "graphrag.ingest.removal",
    "Source": "graphrag.ingest.documents",
    "Upload": "graphrag.ingest.uploads",
    "Work": "graphrag.ingest.jobs",
    "assign_ids": "graphrag.ingest.uploads",
    "clean_actor": "graphrag.ingest.removal",
    "default_labels": "graphrag.ingest.uploads",
    "describe": "graphrag.ingest.removal",
    "folder_work": "graphrag.ingest.actions",
    "format_eta": "graphrag.ingest.jobs",
    "held_labels": "graphrag.ingest.actions",
    "ingest_paths": "graphrag.ingest.actions",
    "make_extractor": "graphrag.ingest.extract",
    "on_removed": "graphrag.ingest.removal",
    "prepare_uploads": "graphrag.ingest.uploads",
    "preview_removal": "graphrag.ingest.removal",
    "printable": "graphrag.ingest.folders",
    "removal_choices": "graphrag.ingest.actions",
    "remove_document": "graphrag.ingest.actions",
    "store_extractor": "graphrag.ingest.extract",
    "upload_label_choices": "graphrag.ingest.actions",
    "upload_work": "graphrag.ingest.actions",
}

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DOCUMENT_MAX_BYTES",
    "DONE",
    "EXTRACTORS",
    "FAILED",
    "QUEUED",
    "RUNNING",
    "EtaClock",
    "Extractor",
    "IngestJob",
    "IngestReport",
    "Ingestor",
    "JobRunner",
    "JobStatus",
    "ProgressFn",
    "Rejected",
    "RemovalTarget",
    "Source",
    "Upload",
    "Work",
    "assign_ids",
    "clean_actor",
    "default_labels",
    "describe",
    "fill_passages",
    "folder_work",
    "format_eta",
    "held_labels",
    "ingest_paths",
    "make_extractor",
    "on_removed",
    "prepare_uploads",
    "preview_removal",
    "printable",
    "removal_choices",
    "remove_document",
    "store_extractor",
    "upload_label_choices",
    "upload_work",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)
