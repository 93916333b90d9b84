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
    from graphrag.ingest.actions import fill_passages as fill_passages
    from graphrag.ingest.actions import folder_work as folder_work
    from graphrag.ingest.actions import held_labels as held_labels
    from graphrag.ingest.actions import ingest_paths as ingest_paths
    from graphrag.ingest.actions import removal_choices as removal_choices
    from graphrag.ingest.actions import remove_document as remove_document
    from graphrag.ingest.actions import upload_label_choices as upload_label_choices
    from graphrag.ingest.actions import upload_work as upload_work
    from graphrag.ingest.documents import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from graphrag.ingest.documents import DOCUMENT_MAX_BYTES as DOCUMENT_MAX_BYTES
    from graphrag.ingest.documents import Rejected as Rejected
    from graphrag.ingest.documents import Source as Source
    from graphrag.ingest.extract import EXTRACTORS as EXTRACTORS
    from graphrag.ingest.extract import make_extractor as make_extractor
    from graphrag.ingest.extract import store_extractor as store_extractor
    from graphrag.ingest.extract.base import Extractor as Extractor
    from graphrag.ingest.folders import printable as printable
    from graphrag.ingest.jobs import DONE as DONE
    from graphrag.ingest.jobs import FAILED as FAILED
    from graphrag.ingest.jobs import QUEUED as QUEUED
    from graphrag.ingest.jobs import RUNNING as RUNNING
    from graphrag.ingest.jobs import EtaClock as EtaClock
    from graphrag.ingest.jobs import IngestJob as IngestJob
    from graphrag.ingest.jobs import JobRunner as JobRunner
    from graphrag.ingest.jobs import JobStatus as JobStatus
    from graphrag.ingest.jobs import Work as Work
    from graphrag.ingest.jobs import format_eta as format_eta
    from graphrag.ingest.pipeline import Ingestor as Ingestor
    from graphrag.ingest.pipeline import IngestReport as IngestReport
    from graphrag.ingest.pipeline import ProgressFn as ProgressFn
    from graphrag.ingest.removal import RemovalTarget as RemovalTarget
    from graphrag.ingest.removal import clean_actor as clean_actor
    from graphrag.ingest.removal import describe as describe
    from graphrag.ingest.removal import on_removed as on_removed
    from graphrag.ingest.removal import preview_removal as preview_removal
    from graphrag.ingest.uploads import Upload as Upload
    from graphrag.ingest.uploads import assign_ids as assign_ids
    from graphrag.ingest.uploads import default_labels as default_labels
    from graphrag.ingest.uploads import prepare_uploads as prepare_uploads

__getattr__ = lazy_exports(__name__)
