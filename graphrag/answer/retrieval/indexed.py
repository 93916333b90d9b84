"""A graph's nearest-neighbour indexes (``index.VectorIndex``: one over its sentence rows, one over its entity
names), kept beside the store so a process starting on a large store does not build them again.

``attach`` gives a loaded graph its indexes (``graph.indexes``), reusing, in this order, the indexes of the graph
it replaces, then the files, and building only when neither holds rows of this graph; rows it lacks are added.
Below ``index.EXACT_BELOW`` rows a kind has no index and retrieval scans exactly.

Each row has an identity (``digests``): a sentence row, its document version (id, number, content hash, ingest
time) and its index in it; an entity, its key. An index records the identity of every row it holds, so it serves a
graph whose rows are those and more, in any order (a graph extended after ingests holds them in ingest order, one
loaded whole by document): the rows are renumbered, the missing ones added. The staleness rule: an index is used
only when its files agree (row count, identities) and every row they hold is still a row of the graph with the
vectors sampled in the state file (another encoder changes them); anything else is rebuilt. An index in memory also
follows a removal: the removed rows (or those of a version written again) are dropped, the rest renumbered.

Files: for a SQLite store, ``<store file>.sentences.faiss``, ``.sentences.ids.npy`` (the identities) and
``.sentences.json`` (the state: format and faiss version, rows, fingerprint, and the generation and append marks
it was written at, for people), the same for ``entities``, next to it; for PostgreSQL, the same names in a cache
folder named by a hash of the store's URL key (``store.url.key``, no password).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphrag.answer.retrieval import index as ann
from graphrag.answer.retrieval.records import GraphIndexes, Kept
from graphrag.answer.retrieval.server import ServerIndex
from graphrag.store import Store
from graphrag.store.vector_search import check_encoder

if TYPE_CHECKING:
    from graphrag.answer.retrieval.graph import KnowledgeGraph

log = logging.getLogger(__name__)
FORMAT = 1  # part of every state file: bump it when what is written changes
# Rows added since the last write before the files are written again: an ingest of a few documents into a
# million rows would otherwise rewrite ~400 MB; a process starting from older files adds the missing rows.
SAVE_SHARE = 0.05
SAMPLE = 1024  # vectors hashed into a file's fingerprint, evenly spread over its rows
_MIX = np.uint64(0x9E3779B97F4A7C15)  # spreads a sentence's index over the bits of its document's digest
KINDS = ("sentences", "entities")


def folder(store: Store) -> Path:
    """Where the store's index files go, with the file name's start (``<folder>/<stem>.sentences.faiss``)."""
    url = store.url
    if url.kind == "sqlite" and url.path is not None:
        return url.path.resolve()
    digest = hashlib.sha256(url.key.encode()).hexdigest()[:16]
    return Path.home() / ".cache" / "graphrag" / "index" / digest / "store"


def _hash64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def digests(graph: KnowledgeGraph, kind: str) -> np.ndarray:
    """The identity of each row of ``kind`` (see the module's docstring), as uint64."""
    if kind == "entities":
        return np.array([_hash64(k) for k in graph.keys], dtype=np.uint64)
    per_doc = np.array([_hash64(f"{d.id}\0{d.version}\0{d.sha256}\0{d.ingested_at}") for d in graph.docs],
                       dtype=np.uint64)
    with np.errstate(over="ignore"):
        out: np.ndarray = per_doc[graph.sentence_doc] ^ ((graph.sentence_idx.astype(np.uint64) + np.uint64(1)) * _MIX)
    return out


def fingerprint(ids: np.ndarray, vectors: np.ndarray, rows: np.ndarray | None = None) -> str:
    """A hash of the identities held and an even sample of their vectors (the row of the i-th held is
    ``rows[i]``, or i)."""
    h = hashlib.blake2b(ids.tobytes(), digest_size=16)
    if len(ids):
        sample = np.linspace(0, len(ids) - 1, min(len(ids), SAMPLE)).astype(np.int64)
        h.update(np.ascontiguousarray(vectors[sample if rows is None else rows[sample]], dtype=np.float32).tobytes())
    return h.hexdigest()


def _matrix(graph: KnowledgeGraph, kind: str) -> np.ndarray:
    return graph.sentence_vectors if kind == "sentences" else graph.vectors


def attach(graph: KnowledgeGraph, store: Store | None = None, previous: KnowledgeGraph | None = None) -> None:
    """Give ``graph`` its indexes (see the module's docstring); ``previous`` is the graph it replaces, whose
    indexes it takes over when they fit. Without ``store`` nothing is read or written. On a store whose database
    searches the vectors (pgvector) no index is built, read or held: the database's search stands in."""
    if store is not None and _in_database(store):
        graph.indexes = GraphIndexes(
            server_sentences=ServerIndex(store, graph, "sentences") if graph.n_sentences >= ann.EXACT_BELOW else None,
            server_entities=ServerIndex(store, graph, "entities") if len(graph.keys) >= ann.EXACT_BELOW else None)
        return
    base = folder(store) if store is not None else None
    old = previous.indexes if previous is not None else None
    out = GraphIndexes()
    for kind in KINDS:
        held = getattr(old, kind) if old is not None else None
        if held is not None and previous is not None and kind == "entities" and _vectors_changed(previous, graph):
            held = None  # a known entity got a vector it lacked: its codes are stale
        setattr(out, kind, _follow(graph, kind, held, base))
    graph.indexes = out


_told: set[str] = set()  # stores whose in-process search was logged, once per process


def _in_database(store: Store) -> bool:
    """Whether the store's database searches the vectors; refuses a store whose vectors another encoder made.
    A PostgreSQL store searched in process says so once, with how to change it."""
    found = store.vector_search()
    check_encoder(found)
    if not found.in_database and store.url.kind == "postgresql" and store.url.key not in _told:
        _told.add(store.url.key)
        log.warning("store %s: %s", store.url.display, found.note)
    return found.in_database


def _vectors_changed(previous: KnowledgeGraph, graph: KnowledgeGraph) -> bool:
    before = previous.vectors
    if len(before) > len(graph.vectors) or previous.keys != graph.keys[:len(before)]:
        return False  # not an extension: the identities decide
    now = graph.vectors[:len(before)]
    return not np.may_share_memory(before, now) and not np.array_equal(before, now)


def _follow(graph: KnowledgeGraph, kind: str, held: Kept | None, base: Path | None) -> Kept | None:
    vectors = _matrix(graph, kind)
    n = len(vectors)
    if n < ann.EXACT_BELOW:
        return None
    ids = digests(graph, kind)
    kept = _fit(held, ids, vectors, shared=True) if held is not None else None
    if kept is None and base is not None:
        read = _read(kind, base)
        kept = _fit(read[0], ids, vectors, shared=False, expect=read[1]) if read is not None else None
        if read is not None and kept is None:
            log.info("the %s index beside the store holds rows this graph does not: rebuilding it", kind)
    if kept is None:
        log.info("building the %s index over %d rows", kind, n)
        kept = Kept(ann.VectorIndex.build(vectors), ids, 0)
    if base is not None and n - kept.saved >= SAVE_SHARE * n:
        _write(graph, kind, kept, base)
    return kept


def _fit(kept: Kept, ids: np.ndarray, vectors: np.ndarray, *, shared: bool, expect: str | None = None
         ) -> Kept | None:
    """``kept`` made to hold exactly the graph's rows (identities ``ids``), or None when it holds a row the graph
    does not (or, read from a file, its vectors are not the graph's: ``expect``, the file's fingerprint). A
    ``shared`` index (an older graph may be searching it) is only added to; renumbering copies it."""
    if kept.index.rows != len(kept.digests):  # another graph added rows to it since
        return None
    held, n = kept.digests, len(ids)
    if len(held) <= n and np.array_equal(held, ids[:len(held)]):  # the graph's first rows: add the rest
        if expect is not None and fingerprint(held, vectors) != expect:
            return None
        if len(held) < n:
            kept.index.add(vectors, len(held))
        return Kept(kept.index, ids, kept.saved if len(held) == n else min(kept.saved, len(held)))
    order = np.argsort(ids, kind="stable")
    rows = order[np.minimum(np.searchsorted(ids, held, sorter=order), n - 1)]  # each held row's place now
    present = ids[rows] == held  # false: a row removed, or of a version written again
    if len(np.unique(rows[present])) != int(present.sum()):
        return None
    if expect is not None and (not present.all() or fingerprint(held, vectors, rows) != expect):
        return None  # a file is trusted only for rows all still there, with its vectors
    index = kept.index.copy() if shared else kept.index
    if not present.all():  # after a removal, in a process that had the index: drop the rows, not the index
        index.remove(np.flatnonzero(~present))
    index.renumber(np.where(present, rows, -1))
    missing = np.ones(n, dtype=bool)
    missing[rows[present]] = False
    index.add_rows(vectors, np.flatnonzero(missing), n)
    return Kept(index, ids, 0)  # renumbered: written again


def _paths(base: Path, kind: str) -> tuple[Path, Path, Path]:
    return (base.with_name(f"{base.name}.{kind}.faiss"), base.with_name(f"{base.name}.{kind}.ids.npy"),
            base.with_name(f"{base.name}.{kind}.json"))


def _state() -> dict[str, object]:
    return {"format": FORMAT, "faiss": ann.version()}


def _read(kind: str, base: Path) -> tuple[Kept, str] | None:
    """The index beside the store with its fingerprint, when its files agree with each other and this version."""
    path, ids_path, meta = _paths(base, kind)
    try:
        state = json.loads(meta.read_text(encoding="utf-8"))
        ids = np.load(ids_path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    rows = state.get("rows")
    if (any(state.get(k) != v for k, v in _state().items()) or not isinstance(rows, int) or ids.dtype != np.uint64
            or len(ids) != rows or hashlib.blake2b(ids.tobytes(), digest_size=16).hexdigest() != state.get("ids")):
        log.info("the %s index at %s is of another format or store state: rebuilding it", kind, path)
        return None
    index = ann.read(path, rows)
    if index is None:
        log.info("the %s index at %s does not hold the rows its state says: rebuilding it", kind, path)
        return None
    return Kept(index, ids, rows), str(state.get("fingerprint"))


def _write(graph: KnowledgeGraph, kind: str, kept: Kept, base: Path) -> None:
    path, ids_path, meta = _paths(base, kind)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # first the index and identities, then the state naming them: a crash between leaves the old state,
        # whose row count or identities the new files then fail
        ann.write(kept.index, path)
        with open(ids_path.with_name(ids_path.name + ".tmp"), "wb") as f:
            np.save(f, kept.digests, allow_pickle=False)
        ids_path.with_name(ids_path.name + ".tmp").replace(ids_path)
        state = {**_state(), "rows": len(kept.digests),
                 "ids": hashlib.blake2b(kept.digests.tobytes(), digest_size=16).hexdigest(),
                 "fingerprint": fingerprint(kept.digests, _matrix(graph, kind)),
                 "generation": graph.mark.generation, "mention_id": graph.mark.mention_id,
                 "relation_id": graph.mark.relation_id}
        tmp = meta.with_name(meta.name + ".tmp")
        tmp.write_text(json.dumps(state, indent=1), encoding="utf-8")
        tmp.replace(meta)
        kept.saved = len(kept.digests)
    except OSError as exc:  # a read-only folder: the index still serves this process
        log.warning("could not write the %s index to %s (%s)", kind, path, exc)
