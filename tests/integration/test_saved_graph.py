"""A large graph saved beside its store (saved.py), on small stores written directly (no model) with the size
threshold forced down: a later start reads the files instead of building, answers exactly as a whole build, takes
an ingest made since, and rebuilds (never serving what the files hold) after a removal, a relabelling, or when the
files disagree with the store."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import numpy as np
import pytest

from graphrag.access.identity import VIA_CLI, local_principal
from graphrag.answer.retrieval import load, saved
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.load import load_graph
from graphrag.answer.retrieval.retrieve import retrieve_vector
from graphrag.language.encoding import DIM
from graphrag.model import AskSettings, AuditEvent, Seed
from graphrag.store import Store
from vector_docs import TOPICS, centres, unit, write_doc


@pytest.fixture()
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every graph this test saves; the row count of every whole build (a start that did not read the files)."""
    monkeypatch.setattr(saved, "SAVE_FROM", 1)
    monkeypatch.setattr(load, "_cache", {})
    out: list[int] = []
    real = load.build_graph

    def counting(store: Store) -> KnowledgeGraph:
        graph = real(store)
        out.append(graph.n_sentences)
        return graph

    monkeypatch.setattr(load, "build_graph", counting)
    return out


def filled(store: Store, docs: int = 8) -> Store:
    for n in range(docs):
        write_doc(store, n, "internal" if n % 4 == 3 else "public", sentences=10)
    return store


def started(store: Store) -> KnowledgeGraph:
    """``load_graph``, and the save it may have started, finished."""
    graph = load_graph(store)
    saved.wait()
    return graph


def restart() -> None:
    load.forget_graphs()  # a process starting afresh: only the files beside the store remain


def answers(store: Store, graph: KnowledgeGraph, access: tuple[str, ...] = ("public",)) -> list[object]:
    """What retrieval gives for a question per topic: each context item's span, score and route."""
    settings = AskSettings(access=access)
    out = []
    for topic in range(TOPICS):
        qvec = unit(centres()[topic] + np.random.default_rng(topic).standard_normal(DIM).astype(np.float32)
                    * 0.6 / np.sqrt(DIM))
        got = retrieve_vector(store, graph, qvec, settings, (Seed(f"e{topic}", 1.0),))
        out.append([(c.span.document_id, c.span.version, c.span.sentence_index, round(c.score, 6), c.route)
                    for c in got.context])
    return out


def same_graph(a: KnowledgeGraph, b: KnowledgeGraph) -> None:
    assert a.keys == b.keys and a.names == b.names and a.mark == b.mark
    assert [(d.id, d.version, d.access, d.superseded, d.sha256) for d in a.docs] == [
        (d.id, d.version, d.access, d.superseded, d.sha256) for d in b.docs]
    for name in ("sentence_doc", "sentence_idx", "sentence_vectors", "vectors"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(a.mentions.entity, b.mentions.entity) and np.array_equal(a.mentions.row, b.mentions.row)
    assert a.edges.types == b.edges.types
    for col in ("id", "src", "dst", "type", "doc", "row"):
        assert np.array_equal(getattr(a.edges.base, col), getattr(b.edges.base, col)), col


def test_a_start_reads_the_saved_graph_and_answers_as_a_whole_build(any_store: Store, builds: list[int],
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # PostgreSQL's files go to the cache folder under it
    filled(any_store)
    built = started(any_store)
    assert builds == [80]
    state = saved._state_path(any_store)
    assert state.is_file() and state.parent.is_relative_to(tmp_path)
    restart()
    read = started(any_store)
    assert builds == [80] and read is not built  # read from the files, not built
    same_graph(read, built)
    assert not read.sentence_vectors.flags.writeable  # mapped from the file, not copied
    assert answers(any_store, read) == answers(any_store, built)
    assert answers(any_store, read, ("public", "internal")) == answers(any_store, built, ("public", "internal"))


def test_an_ingest_since_the_save_is_added_to_the_saved_graph(store: Store, builds: list[int]) -> None:
    filled(store)
    started(store)
    write_doc(store, 8, "public", sentences=10)
    write_doc(store, 9, "public", sentences=10)
    restart()
    grown = started(store)
    assert builds == [80] and grown.n_sentences == 100 and "d9" in {d.id for d in grown.docs}
    whole = load.build_graph(store)
    assert answers(store, grown) == answers(store, whole)


def test_after_a_removal_a_start_rebuilds_and_the_removed_document_is_gone(store: Store, builds: list[int]) -> None:
    filled(store)
    first = started(store)
    assert "d2" in {d.id for d in first.docs}
    store.remove_document("d2", actor="test", by=local_principal(["public", "internal"], via=VIA_CLI))
    restart()
    graph = started(store)
    assert builds == [80, 70] and "d2" not in {d.id for d in graph.docs}
    assert all(doc_id != "d2" for ctx in answers(store, graph) for doc_id, *_ in ctx)
    restart()
    assert started(store).n_sentences == 70 and builds == [80, 70]  # saved again after the rebuild


def test_a_relabelled_document_is_seen_with_its_new_labels(store: Store, builds: list[int]) -> None:
    filled(store)
    before = answers(store, started(store))
    assert any(doc_id == "d0" for ctx in before for doc_id, *_ in ctx)
    doc = store.current_document("d0")
    assert doc is not None
    store.relabel_document("d0", doc.sha256, doc.title, doc.effective_date, ["internal"],
                           AuditEvent("relabel", "sub-1", "ana@example.com", {"via": "test"}))
    restart()
    graph = started(store)
    assert graph.docs[graph.doc_index[("d0", 1)]].access == frozenset({"internal"})
    assert all(doc_id != "d0" for ctx in answers(store, graph) for doc_id, *_ in ctx)


def test_files_that_disagree_with_the_store_are_not_trusted(store: Store, builds: list[int], tmp_path: Path,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    filled(store)
    built = started(store)
    state = saved._state_path(store)
    where = state.with_name(json.loads(state.read_text())["folder"])
    vectors = np.load(where / "sentences.npy")
    vectors[0] = -vectors[0]  # the first row is always among those compared with the store
    np.save(where / "sentences.npy", vectors)
    restart()
    with caplog.at_level(logging.WARNING):
        graph = started(store)
    assert len(builds) == 2 and np.array_equal(graph.sentence_vectors, built.sentence_vectors)
    assert "does not match the store" in caplog.text
    # a saved version the store holds under another ingest (removed and written again, elsewhere)
    written = json.loads(state.read_text())
    written["docs"][3][3] = "2001-01-01T00:00:00+00:00"
    state.write_text(json.dumps(written))
    assert saved.read(store) is None
    # another store's files, beside this one: its documents are not this store's
    other = Store(tmp_path / "other.db")
    try:
        write_doc(other, 0, "public", sentences=10)
        for src in (state, state.with_name(json.loads(state.read_text())["folder"])):
            dst = tmp_path / src.name.replace("store.db", "other.db")
            os.rename(src, dst) if src.is_dir() else dst.write_text(
                src.read_text().replace(src.name.split(".graph")[0], "other.db"))
        assert saved.read(other) is None
    finally:
        other.close()


@pytest.mark.parametrize("damage", ["garbage state", "no folder", "short arrays", "other format"])
def test_damaged_files_are_rebuilt_without_an_error(store: Store, builds: list[int], damage: str) -> None:
    filled(store)
    started(store)
    state = saved._state_path(store)
    written = json.loads(state.read_text())
    where = state.with_name(written["folder"])
    if damage == "garbage state":
        state.write_text("{not json")
    elif damage == "no folder":
        for p in where.iterdir():
            p.unlink()
        where.rmdir()
    elif damage == "short arrays":
        np.save(where / "entities.npy", np.zeros((3, DIM), dtype=np.float32))
    else:
        state.write_text(json.dumps({**written, "format": saved.FORMAT + 1}))
    restart()
    assert started(store).n_sentences == 80 and len(builds) == 2
    restart()
    started(store)
    assert len(builds) == 2  # the rebuild saved good files again


def test_a_save_that_cannot_write_leaves_the_graph_serving(store: Store, builds: list[int], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(saved, "folder", lambda s: blocker / "store")
    filled(store)
    with caplog.at_level(logging.WARNING):
        graph = started(store)
    assert graph.n_sentences == 80 and "could not save the graph" in caplog.text


def test_a_new_save_replaces_the_old_folder_and_clears_crashed_ones(store: Store, builds: list[int]) -> None:
    filled(store)
    started(store)
    state = saved._state_path(store)
    first = state.with_name(json.loads(state.read_text())["folder"])
    crashed = state.with_name(f"{state.name.removesuffix('.json')}.0123456789ab")
    crashed.mkdir()
    old = time.time() - 2 * saved.STRAY_AGE_S
    os.utime(crashed, (old, old))
    store.remove_document("d1", actor="test", by=local_principal(["public", "internal"], via=VIA_CLI))
    restart()
    started(store)
    second = state.with_name(json.loads(state.read_text())["folder"])
    assert second != first and second.is_dir() and not first.exists() and not crashed.exists()
