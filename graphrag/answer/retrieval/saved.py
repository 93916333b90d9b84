"""A large graph saved beside its store, so a process starting on a million sentences maps the graph's arrays
instead of building them from every stored row again.

The store stays the only source of truth: the files are a cache of one ``build_graph`` result. ``read`` trusts
them only when, read in one snapshot, the store still holds what they were built from: every saved document
version (id, number, content hash, ingest time) and a sample of relations, sentence vectors and entity vectors
equal to the stored rows. It says whether the store is still exactly at the saved state (same generation, table
sizes and last ids); a store that has only gained documents since is reached by ``load.extend_graph``, and
anything else (a removal, a relabelling) rebuilds the graph and saves it again. Labels, superseded flags and
titles always come from the store, never from the files.

Files: ``<store file>.graph.json`` (the state: format, generation, marks, relation types and the document
versions in graph order) names a folder ``<store file>.graph.<token>/`` holding ``arrays.npz`` (entity keys and
names, mentions, sentence rows, relations) and the two vector matrices ``sentences.npy`` and ``entities.npy``,
mapped read-only: their pages come from the file cache, shared by every process on the host, and cost no fresh
memory; the scattered rows a question reads are read from the files (``file_rows.FileRows``). A save writes a new
folder and then replaces the state file, so a reader sees the old files or the new ones, never a mix; the folder
it replaced is removed after (a process still mapping it keeps its pages). For PostgreSQL the same names sit in the
cache folder ``indexed.folder`` gives.
"""

from __future__ import annotations

import json
import logging
import secrets
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.retrieval.edges import Edges
from graphrag.answer.retrieval.file_rows import FileRows
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.indexed import folder
from graphrag.answer.retrieval.records import GraphMark, doc_version
from graphrag.store import Store
from graphrag.store.codec import Row
from graphrag.store.graph import GraphSample, GraphState

log = logging.getLogger(__name__)
FORMAT = 1  # bump when what is written changes
SAVE_FROM = 100_000  # sentence rows; below, a whole build takes about a second and no files are written
SAMPLE = 16  # relations, sentence vectors and entity vectors compared with the store on every read
STRAY_AGE_S = 3600  # a folder no state file names, this old: left by a save that crashed
_ARRAYS = ("mention_entity", "mention_row", "sentence_doc", "sentence_idx", "rel_id", "rel_src", "rel_dst",
           "rel_type", "rel_doc", "rel_row")


def _state_path(store: Store) -> Path:
    base = folder(store)
    return base.with_name(f"{base.name}.graph.json")


_saving: list[threading.Thread] = []


def save_soon(store: Store, graph: KnowledgeGraph) -> None:
    """``save`` in a thread of its own, so the question that waited for a whole build does not also wait for
    gigabytes to be written; not a daemon, so a command that exits right after still leaves the files."""
    if graph.n_sentences < SAVE_FROM or graph.edges.extra is not None:
        return
    thread = threading.Thread(target=save, args=(store, graph), name="graphrag-save-graph")
    thread.start()
    _saving.append(thread)


def wait() -> None:
    """Until every save started by ``save_soon`` has finished."""
    while _saving:
        _saving.pop().join()


def save(store: Store, graph: KnowledgeGraph) -> bool:
    """Write ``graph`` (a whole build: nothing added beside its first load) beside the store when it is large
    enough to be worth it; False when nothing was written."""
    if graph.n_sentences < SAVE_FROM or graph.edges.extra is not None:
        return False
    state_path = _state_path(store)
    target = state_path.with_name(f"{folder(store).name}.graph.{secrets.token_hex(6)}")
    try:
        started = time.perf_counter()
        target.mkdir(parents=True)
        seg = graph.edges.base
        keys, names = _strings(graph.keys), _strings(graph.names)
        np.savez(target / "arrays.npz", mention_entity=graph.mentions.entity, mention_row=graph.mentions.row,
                 sentence_doc=graph.sentence_doc, sentence_idx=graph.sentence_idx, rel_id=seg.id, rel_src=seg.src,
                 rel_dst=seg.dst, rel_type=seg.type, rel_doc=seg.doc, rel_row=seg.row, keys=keys[0],
                 key_ends=keys[1], names=names[0], name_ends=names[1])
        np.save(target / "sentences.npy", graph.sentence_vectors, allow_pickle=False)
        np.save(target / "entities.npy", graph.vectors, allow_pickle=False)
        previous = _named_folder(state_path)
        state = {"format": FORMAT, "folder": target.name, "generation": graph.generation,
                 "mention_id": graph.mark.mention_id, "relation_id": graph.mark.relation_id,
                 "types": graph.edges.types,
                 "docs": [[d.id, d.version, d.sha256, d.ingested_at] for d in graph.docs]}
        tmp = state_path.with_name(state_path.name + ".tmp")
        tmp.write_text(json.dumps(state), encoding="utf-8")
        tmp.replace(state_path)
    except OSError as exc:  # a read-only folder, a full disk: the graph still serves this process
        log.warning("could not save the graph beside the store at %s (%s)", target, exc)
        shutil.rmtree(target, ignore_errors=True)
        return False
    if previous is not None and previous != target:
        shutil.rmtree(previous, ignore_errors=True)
    _remove_strays(state_path, target)
    log.info("saved the graph (%d sentence rows) to %s in %.1f s", graph.n_sentences, target,
             time.perf_counter() - started)
    return True


def read(store: Store) -> tuple[KnowledgeGraph, bool] | None:
    """(the saved graph, whether the store is still exactly at its state), when files beside the store hold a
    graph the store agrees with (see the module's docstring); None otherwise."""
    state_path = _state_path(store)
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.info("the saved graph's state at %s is unreadable (%s): rebuilding", state_path, exc)
        return None
    try:
        parts = _read_parts(state, state_path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.info("the saved graph at %s is incomplete or of another format (%s): rebuilding", state_path, exc)
        return None
    if parts is None:
        return None
    arrays, keys, names, saved_docs, mark, types = parts
    sample = _Sample(arrays, keys, saved_docs, types)

    def compare() -> tuple[GraphState, list[Row], GraphSample] | None:  # one snapshot, run again whole if dropped
        now = store.graph_state()
        fresh = {(str(d["doc_id"]), int(d["version"])): d for d in store.graph_documents()}
        docs = []
        for doc_id, version, sha, ingested in saved_docs:
            row = fresh.get((doc_id, version))
            if row is None or str(row["sha256"]) != sha or str(row["ingested_at"]) != ingested:
                log.info("a saved graph's document version was removed or written again: rebuilding")
                return None
            docs.append(row)
        return now, docs, store.graph_sample(*sample.keys)

    found = store.in_snapshot(compare)
    if found is None:
        return None
    now, docs, stored = found
    if not sample.agrees(arrays, stored):  # before the graph's indices are built from the arrays
        log.warning("the graph saved at %s does not match the store's rows: rebuilding", state_path)
        return None
    graph = KnowledgeGraph(
        keys, names, arrays["entities"], [doc_version(d) for d in docs], arrays["mention_entity"],
        arrays["mention_row"], arrays["sentence_doc"], arrays["sentence_idx"], arrays["sentences"],
        Edges.of_columns(arrays["rel_id"], arrays["rel_src"], arrays["rel_dst"], arrays["rel_type"], types,
                         arrays["rel_doc"], arrays["rel_row"], len(keys)),
        mark.generation, mark)
    sizes = {"entities": len(keys), "mentions": len(arrays["mention_entity"]), "relations": len(arrays["rel_id"]),
             "sentences": len(arrays["sentence_doc"])}
    current = (now.generation == mark.generation and now.sizes == sizes and now.last_mention == mark.mention_id
               and now.last_relation == mark.relation_id)
    return graph, current


def _read_parts(state: dict[str, Any], state_path: Path) -> tuple[dict[str, np.ndarray], list[str], list[str],
                                                                  list[tuple[str, int, str, str]], GraphMark,
                                                                  list[str]] | None:
    if state.get("format") != FORMAT:
        log.info("the saved graph at %s is of another format: rebuilding", state_path)
        return None
    where = state_path.with_name(str(state["folder"]))
    if where.parent != state_path.parent:
        raise ValueError("the state names a folder elsewhere")
    with np.load(where / "arrays.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in _ARRAYS}
        keys, names = _unstrings(z["keys"], z["key_ends"]), _unstrings(z["names"], z["name_ends"])
    # mapped read-only, scattered rows read from the file (file_rows.py: what a gather costs in memory)
    arrays["sentences"] = FileRows.open(where / "sentences.npy")
    arrays["entities"] = FileRows.open(where / "entities.npy")
    docs = [(str(d), int(v), str(s), str(t)) for d, v, s, t in state["docs"]]
    n_rows, n_ents, n_rels = len(arrays["sentence_doc"]), len(keys), len(arrays["rel_id"])
    if (len(names) != n_ents or arrays["entities"].shape[0] != n_ents or arrays["sentences"].shape[0] != n_rows
            or len(arrays["sentence_idx"]) != n_rows or len(arrays["mention_row"]) != len(arrays["mention_entity"])
            or any(len(arrays[k]) != n_rels for k in _ARRAYS if k.startswith("rel_"))):
        raise ValueError("the saved arrays disagree on their lengths")
    if n_rows and int(arrays["sentence_doc"].max()) >= len(docs):
        raise ValueError("a sentence row points past the saved documents")
    mark = GraphMark(int(state["generation"]), int(state["mention_id"]), int(state["relation_id"]))
    return arrays, keys, names, docs, mark, [str(t) for t in state["types"]]


class _Sample:
    """Evenly spread relations, sentence rows and entities of a saved graph, to compare with the store."""

    def __init__(self, arrays: dict[str, np.ndarray], keys: list[str], docs: list[tuple[str, int, str, str]],
                 types: list[str]) -> None:
        self.rel_at = _spread(len(arrays["rel_id"]))
        self.row_at = _spread(len(arrays["sentence_doc"]))
        self.ent_at = _spread(len(keys))
        s_doc, s_idx = arrays["sentence_doc"], arrays["sentence_idx"]
        self.sentences = [(docs[int(s_doc[r])][0], docs[int(s_doc[r])][1], int(s_idx[r])) for r in self.row_at]
        self.entity_keys = [keys[int(e)] for e in self.ent_at]
        self.relations = sorted(
            (int(arrays["rel_id"][p]), keys[int(arrays["rel_src"][p])], keys[int(arrays["rel_dst"][p])],
             types[int(arrays["rel_type"][p])], docs[int(arrays["rel_doc"][p])][0],
             docs[int(arrays["rel_doc"][p])][1], int(s_idx[int(arrays["rel_row"][p])]))
            for p in self.rel_at)

    @property
    def keys(self) -> tuple[list[int], list[tuple[str, int, int]], list[str]]:
        return [r[0] for r in self.relations], self.sentences, self.entity_keys

    def agrees(self, arrays: dict[str, np.ndarray], stored: GraphSample) -> bool:
        if [tuple(r) for r in stored.relations] != self.relations:
            return False
        for row, key in zip(self.row_at, self.sentences):
            if not _same_vector(arrays["sentences"][int(row)], stored.sentence_vectors.get(key, b"")):
                return False
        return all(_same_vector(arrays["entities"][int(e)], stored.entity_vectors.get(k, b""))
                   for e, k in zip(self.ent_at, self.entity_keys))


def _same_vector(row: np.ndarray, blob: bytes | None) -> bool:
    if blob is None:  # a missing vector is a zero row in the graph
        return not row.any()
    return bytes(blob) == np.ascontiguousarray(row, dtype=np.float32).tobytes()


def _spread(n: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, min(n, SAMPLE)).astype(np.int64)) if n else np.zeros(0, np.int64)


def _strings(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one UTF-8 buffer and each one's end (in characters of the joined text)."""
    joined = "".join(values)
    return np.frombuffer(joined.encode("utf-8"), dtype=np.uint8), np.cumsum([len(v) for v in values],
                                                                            dtype=np.int64)


def _unstrings(buffer: np.ndarray, ends: np.ndarray) -> list[str]:
    text = buffer.tobytes().decode("utf-8")
    if len(ends) and int(ends[-1]) != len(text):
        raise ValueError("saved strings do not add up")
    starts = [0, *ends[:-1].tolist()]
    return [text[a:b] for a, b in zip(starts, ends.tolist())]


def _named_folder(state_path: Path) -> Path | None:
    try:
        name = json.loads(state_path.read_text(encoding="utf-8")).get("folder")
    except (OSError, ValueError, AttributeError):
        return None
    return state_path.with_name(str(name)) if name else None


def _remove_strays(state_path: Path, keep: Path) -> None:
    """Folders of saves that crashed before naming theirs (old enough that no save is still writing them)."""
    now = time.time()
    for path in state_path.parent.glob(f"{keep.name.rsplit('.', 1)[0]}.*"):
        try:
            if path.is_dir() and path != keep and now - path.stat().st_mtime > STRAY_AGE_S:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue
