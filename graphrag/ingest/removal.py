"""Removing a document: the one entry point the CLI (`graphrag delete`) and the Ingest page share.

The store does the work in one transaction (graphrag.store.removals): the document's spans stop
being citable at once, what came only from it leaves the graph, the reply cache forgets it,
answers that drew on it are withdrawn, and its verdicts stay, shown as "source removed". Here:
who and why are checked, the figures are put into words, and the layers above that keep
something of a version in this process are told it is gone (``on_removed``: the page-image cache
of graphrag.present.pages listens); the in-memory graph reloads by itself because the store's
generation moved.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphrag.access.identity import Viewer
from graphrag.errors import InputError
from graphrag.language.sentences import counted
from graphrag.model import Document
from graphrag.store import Store
from graphrag.store.removals import Removal, RemovalRecord

__all__ = [
    "MAX_REASON_CHARS",
    "Removal",
    "RemovalRecord",
    "RemovalTarget",
    "clean_actor",
    "describe",
    "on_removed",
    "preview_removal",
    "removal_targets",
    "remove_document",
]

MAX_REASON_CHARS = 2000
MAX_ACTOR_CHARS = 200

RemovedListener = Callable[[Sequence[Document]], None]
_listeners: list[RemovedListener] = []
_listeners_lock = threading.Lock()


def on_removed(listener: RemovedListener) -> None:
    """Call ``listener`` with the removed versions' records after each removal this process makes
    (once per listener, however often registered). A layer above that keeps something of a
    version registers here when it is loaded, so every removal path reaches it without ingest
    importing it: the page-image cache (graphrag.present.pages) drops the version's renders."""
    with _listeners_lock:
        if listener not in _listeners:
            _listeners.append(listener)


def _clean(value: str, what: str, limit: int) -> str:
    text = unicodedata.normalize("NFKC", value)
    if any(unicodedata.category(ch) in ("Cc", "Cf") and ch not in " \t\n" for ch in text):
        raise InputError(f"{what} cannot contain control or invisible characters")
    text = " ".join(text.split())
    if len(text) > limit:
        raise InputError(f"{what} has at most {limit} characters")
    return text


def clean_actor(actor: str) -> str:
    """Who removed it, as recorded (free text until sign-in identity replaces it)."""
    actor = _clean(actor, "the name of who removes a document", MAX_ACTOR_CHARS)
    if not actor:
        raise InputError("a removal needs the name of who removes the document")
    return actor


@dataclass(frozen=True)
class RemovalTarget:
    """A stored document with its versions, as offered for removal."""

    document_id: str
    title: str
    versions: tuple[Document, ...]  # oldest first

    @property
    def current(self) -> Document:
        """The newest version."""
        return self.versions[-1]


def removal_targets(store: Store) -> list[RemovalTarget]:
    """Every stored document id with its versions (every label: removal is an administrator's act)."""
    by_id: dict[str, list[Document]] = {}
    for d in store.documents(include_superseded=True):
        by_id.setdefault(d.id, []).append(d)
    return [RemovalTarget(i, vs[-1].title, tuple(vs)) for i, vs in sorted(by_id.items())]


Versions = int | Sequence[int] | None  # one version, several, or None: every version


def _versions(v: Versions) -> list[int] | None:
    return None if v is None else [v] if isinstance(v, int) else list(v) or None


def preview_removal(store: Store, doc_id: str, versions: Versions = None) -> Removal:
    """Exactly what ``remove_document`` would take out now (the removal run and rolled back)."""
    return store.preview_removal(doc_id, _versions(versions))


def remove_document(store: Store, doc_id: str, versions: Versions = None, *, actor: str,
                    reason: str = "", by: Viewer) -> Removal:
    """Remove every version of ``doc_id``, or only ``versions`` (all of them in one transaction).
    Raises InputError for an unknown id or version (nothing is written). ``by``: who acts (an
    admin), audited in the removal's transaction."""
    actor = clean_actor(actor)
    reason = _clean(reason, "a removal reason", MAX_REASON_CHARS)
    chosen = _versions(versions)
    gone = [d for d in store.documents(include_superseded=True)
            if d.id == doc_id and (chosen is None or d.version in chosen)]
    done = store.remove_document(doc_id, chosen, actor=actor, reason=reason, by=by)
    with _listeners_lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(gone)
    return done


def describe(r: Removal, *, done: bool = True) -> list[str]:
    """The removal in a few lines, for the CLI and the Ingest page. Counts and ids only: never
    the document's text or title, so the message can be shown or logged anywhere."""
    which = (f"version {r.versions[0]}" if len(r.versions) == 1
             else f"versions {', '.join(str(v) for v in r.versions)}")
    verb = "removed" if done else "would remove"
    lines = [f"{verb} {r.document_id} {which}: {counted(r.spans, 'span')} no longer citable, "
             f"{counted(r.mentions, 'mention')}, {counted(r.relations, 'relation')}, "
             f"{counted(r.entities, 'entity', 'entities')} left with no mention"
             + (f", {counted(r.cached_replies, 'cached model reply', 'cached model replies')}" if r.cached_replies
                else "")]
    kept = f"{counted(r.verdicts_kept, 'verdict')} on its spans kept, shown as \"source removed\""
    if r.answers_withdrawn:
        kept += f"; {counted(r.answers_withdrawn, 'answer')} that drew on it withdrawn (question and verdicts kept)"
    lines.append(kept)
    if r.current_version is not None:
        lines.append(f"{r.document_id} version {r.current_version} is the current version")
    elif done:
        lines.append(f"no version of {r.document_id} is left; ingesting it again makes a new version")
    return lines
