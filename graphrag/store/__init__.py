"""The store: the only part of the product that writes.

A package: ``url`` (which store, from a path or URL), ``db`` (connections, transactions and
retries per database), ``schema`` (tables and numbered migrations, one definition for SQLite and
PostgreSQL), one module per aggregate (``documents``, ``graph``, ``cache``, ``answers``,
``verdicts``, ``removals``, ``audit``: the typed audit events), ``core`` (the ``Store`` handle) and ``transfer`` (`graphrag store migrate`: SQLite to PostgreSQL).
"""

from graphrag.config import DEFAULT_STORE  # the default lives with every other setting
from graphrag.store.audit import EVENTS, AuditKind
from graphrag.store.codec import now, sha256_text
from graphrag.store.core import Store, StoreCache
from graphrag.store.db import StoreUnreachable
from graphrag.store.documents import DocumentWrite, EntityRow, MentionRow, RelationRow, SentenceRow
from graphrag.store.layout import LayoutWrite
from graphrag.store.roles import setup_roles
from graphrag.store.schema import SCHEMA_VERSION
from graphrag.store.transfer import copy_store
from graphrag.store.url import StoreURL, UnsupportedStore, parse_store, sqlite_file

__all__ = ["DEFAULT_STORE", "EVENTS", "SCHEMA_VERSION", "AuditKind", "DocumentWrite", "EntityRow", "LayoutWrite", "MentionRow",
           "RelationRow",
           "SentenceRow", "Store", "StoreCache", "StoreURL", "StoreUnreachable",
           "UnsupportedStore", "copy_store", "now", "parse_store", "setup_roles", "sha256_text", "sqlite_file"]
