"""A large graph's indexes (indexed.py) and retrieval through them (scores.py), on a small store written
directly (no model) with the size threshold forced down: the indexes follow an ingest, are kept beside the store
and read back, are rebuilt when the files describe another store state or after a removal; and retrieval through
them never returns a row the asker may not see, scores every row it ranks exactly, and finds what the exact scan
finds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphrag.access.identity import VIA_CLI, local_principal
from graphrag.answer.retrieval import index as ann
from graphrag.answer.retrieval import indexed, load, scores
from graphrag.answer.retrieval.load import build_graph, load_graph
from graphrag.answer.retrieval.retrieve import retrieve_vector
from graphrag.language.encoding import DIM
from graphrag.model import AskSettings, Seed
from graphrag.store import Store
from vector_docs import ENTITIES, TOPICS, centres, unit, write_doc

# heavy (builds faiss indexes and writes them beside the store): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]

@pytest.fixture()
def small_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every graph of this test is "large": indexed, the index probing one list of a few, no exact fallback."""
    monkeypatch.setattr(ann, "EXACT_BELOW", 20)
    monkeypatch.setattr(ann, "EXACT_SUBSET", 0)
    monkeypatch.setattr(ann, "NPROBE", 1)
    monkeypatch.setattr(ann, "lists_for", lambda rows: 4)
    monkeypatch.setattr(scores, "CANDIDATES", 30)
    monkeypatch.setattr(scores, "NAME_CANDIDATES", 5)
    monkeypatch.setattr(load, "_cache", {})  # a process starting afresh


@pytest.fixture()
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The row count of every index built (not read from a file nor followed)."""
    out: list[int] = []
    real = ann.VectorIndex.build.__func__  # type: ignore[attr-defined]

    def counting(cls: type[ann.VectorIndex], vectors: np.ndarray) -> ann.VectorIndex:
        out.append(len(vectors))
        return real(cls, vectors)  # type: ignore[no-any-return]

    monkeypatch.setattr(ann.VectorIndex, "build", classmethod(counting))
    return out


def filled(store: Store, docs: int = 12) -> Store:
    for n in range(docs):
        write_doc(store, n, "internal" if n % 4 == 3 else "public")
    return store


def state(store_path: Path, kind: str) -> dict[str, object]:
    return dict(json.loads(Path(f"{store_path}.{kind}.json").read_text(encoding="utf-8")))


def assert_holds_its_rows(kept: indexed.Kept | None, vectors: np.ndarray) -> None:
    """Each row once, under its own number: the code stored under row i decodes to row i's vector."""
    assert kept is not None
    raw = ann._faiss().clone_index(kept.index.index)
    raw.make_direct_map()
    assert raw.ntotal == kept.index.rows == len(vectors) == len(kept.digests)
    decoded = raw.reconstruct_n(0, len(vectors))  # raises for a row number the index does not hold
    assert np.array_equal(np.argmax(decoded @ vectors.T, axis=1), np.arange(len(vectors)))
    assert np.min(np.sum(decoded * vectors, axis=1)) > 0.95  # 8-bit codes


def test_the_indexes_follow_an_ingest_and_are_read_back_not_rebuilt(store: Store, tmp_path: Path, small_index: None,
                                                                   builds: list[int]) -> None:
    filled(store)
    graph = load_graph(store)
    assert graph.indexes is not None and graph.indexes.sentences is not None and graph.indexes.entities is not None
    assert builds == [240, ENTITIES] == [graph.n_sentences, len(graph.keys)]
    written = state(tmp_path / "store.db", "sentences")
    assert written["rows"] == 240 and written["generation"] == graph.mark.generation
    # an ingest: the graph is extended, its indexes take the new rows (nothing built)
    write_doc(store, 12, "public")
    bigger = load_graph(store)
    assert bigger is not graph and bigger.indexes is not None and bigger.indexes.sentences is not None
    assert bigger.indexes.sentences.index is graph.indexes.sentences.index
    assert bigger.indexes.sentences.index.rows == bigger.n_sentences == 260 and len(builds) == 2
    # the graph in use meanwhile still searches only its own rows
    q = bigger.sentence_vectors[250]
    assert ann.nearest(graph.sentence_vectors, q, 30, graph.n_sentences, None,
                       graph.indexes.sentences.index)[0].max() < 240
    # a new process: the files are read, not rebuilt, though the graph loaded whole orders its rows by document
    # (d12 between d1 and d2) where the extended one had them in ingest order: the index is renumbered
    load.forget_graphs()
    again = load_graph(store)
    assert len(builds) == 2 and again.indexes is not None and again.indexes.sentences is not None
    assert again.indexes.sentences.index.rows == 260
    assert again.document(240).id != bigger.document(240).id
    a = ann.nearest(again.sentence_vectors, q, 30, 260, None, again.indexes.sentences.index)
    b = ann.nearest(bigger.sentence_vectors, q, 30, 260, None, bigger.indexes.sentences.index)
    assert [(again.document(r).id, again.sentence_index(r)) for r in a[0].tolist()] == [
        (bigger.document(r).id, bigger.sentence_index(r)) for r in b[0].tolist()]
    assert np.array_equal(a[1], b[1])
    assert_holds_its_rows(again.indexes.sentences, again.sentence_vectors)
    # the renumbered index was written again; a third process reads it as it is
    assert np.array_equal(np.load(f"{tmp_path / 'store.db'}.sentences.ids.npy"), indexed.digests(again, "sentences"))
    load.forget_graphs()
    load_graph(store)
    assert len(builds) == 2


def test_files_of_another_store_state_are_rebuilt_not_trusted(tmp_path: Path, small_index: None,
                                                              builds: list[int]) -> None:
    one, two = Store(tmp_path / "one.db"), Store(tmp_path / "two.db")
    try:
        load_graph(filled(one))
        filled(two, 11)
        write_doc(two, 40, "public")  # as many rows as ``one``, other documents
        assert len(builds) == 2
        for kind in indexed.KINDS:  # ``one``'s files put beside ``two``
            for ext in ("faiss", "json"):
                Path(f"{tmp_path / 'two.db'}.{kind}.{ext}").write_bytes(
                    Path(f"{tmp_path / 'one.db'}.{kind}.{ext}").read_bytes())
        graph = load_graph(two)
        assert len(builds) == 4  # both rebuilt
        assert state(tmp_path / "two.db", "sentences")["rows"] == graph.n_sentences == 240
        assert np.array_equal(np.load(f"{tmp_path / 'two.db'}.sentences.ids.npy"), indexed.digests(graph, "sentences"))
        # a removal, in this process: the graph is loaded whole, the index it had drops the removed rows and
        # renumbers the others (the graph in use keeps its own); the entity index (every entity still named) is kept
        admin = local_principal(["public", "internal"], via=VIA_CLI)
        two.remove_document("d4", actor="test", by=admin)
        after = load_graph(two)
        assert len(builds) == 4 and after.indexes is not None and after.indexes.sentences is not None
        assert after.indexes.sentences.index is not graph.indexes.sentences.index  # type: ignore[union-attr]
        assert after.indexes.entities is not None and after.indexes.entities.index is graph.indexes.entities.index
        assert_holds_its_rows(after.indexes.sentences, after.sentence_vectors)
        assert_holds_its_rows(graph.indexes.sentences, graph.sentence_vectors)  # type: ignore[union-attr]
        # a removal another process made: the files hold a removed row, and are not trusted
        two.remove_document("d40", actor="test", by=admin)
        load.forget_graphs()
        after = load_graph(two)
        assert builds[4:] == [200] and after.indexes is not None and after.indexes.sentences is not None
        assert after.indexes.sentences.index.rows == after.n_sentences == 200
        # files whose state does not match them (a row count, the vectors' sample: another encoder): rebuilt too
        meta = Path(f"{tmp_path / 'two.db'}.sentences.json")
        for change in ({"rows": 150}, {"fingerprint": "0" * 32}):
            load.forget_graphs()
            meta.write_text(json.dumps({**state(tmp_path / "two.db", "sentences"), **change}), encoding="utf-8")
            load_graph(two)
        assert builds[5:] == [200, 200]
        load.forget_graphs()
        load_graph(two)
        assert len(builds) == 7  # and the rebuilt files are trusted
    finally:
        one.close()
        two.close()


def test_below_the_threshold_nothing_is_indexed_or_written(store: Store, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load, "_cache", {})
    graph = load_graph(filled(store, 3))
    assert graph.indexes is not None and graph.indexes.sentences is None and graph.indexes.entities is None
    assert not list(tmp_path.glob("*.faiss"))


def exact_and_indexed(store: Store, monkeypatch: pytest.MonkeyPatch):
    exact = build_graph(store)
    assert exact.indexes is None
    big = build_graph(store)
    indexed.attach(big)  # no store: nothing read or written
    assert big.indexes is not None and big.indexes.sentences is not None
    return exact, big


@pytest.mark.parametrize("anchored", [False, True])
def test_retrieval_through_the_index_is_the_exact_retrieval_of_the_rows_it_reads(
        store: Store, small_index: None, monkeypatch: pytest.MonkeyPatch, anchored: bool) -> None:
    filled(store)
    exact, big = exact_and_indexed(store, monkeypatch)
    settings = AskSettings(access=("public",), k=3, hops=2)
    visible = exact.visible_rows(settings.access)
    assert not visible.all()
    for topic in range(TOPICS):
        qvec = unit(centres()[topic] + np.random.default_rng(topic + 50).standard_normal(DIM).astype(np.float32)
                    * 0.6 / np.sqrt(DIM))
        anchors = [Seed(f"e{topic}", 1.0)] if anchored else []
        want = retrieve_vector(store, exact, qvec, settings, anchors)
        got = retrieve_vector(store, big, qvec, settings, anchors)
        rows = [big.row_of(c.span.document_id, c.span.version, c.span.sentence_index) for c in got.context]
        assert got.context and all(r is not None and visible[r] for r in rows)  # never a row the asker can't see
        assert all(c.span.document_id not in {"d3", "d7", "d11"} for c in got.context)
        sims = big.sentence_vectors @ qvec
        for c, r in zip(got.context, rows):  # every score is the row's exact similarity
            assert c.score == pytest.approx(float(sims[r]), abs=1e-4)
        # the same seeds, and the best items (by similarity and reach) found as the exact scan finds them
        assert [s.entity for s in got.seeds] == [s.entity for s in want.seeds]
        assert [c.span for c in got.context[:3]] == [c.span for c in want.context[:3]]
        assert {c.span for c in got.context} & {c.span for c in want.context} >= {c.span for c in want.context[:6]}


def test_without_an_index_retrieval_is_unchanged(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact path: scores over every row at once, weights as before the index existed."""
    filled(store, 4)
    graph = build_graph(store)
    qvec = unit(centres()[1])
    visible = graph.visible_rows(("public",))
    s = scores.QuestionScores(graph, qvec, visible)
    assert not s.indexed and s.done.all()
    want = np.where(visible, graph.sentence_vectors @ qvec, -np.inf).astype(np.float32)
    assert np.allclose(s.scores, want, atol=1e-6) and np.array_equal(np.isfinite(s.scores), visible)
    weights = np.clip(np.where(visible, want, 0.0), scores.MIN_STEP_WEIGHT, 1.0)
    weights[~visible] = 0.0
    assert np.allclose(s.step_weight, weights, atol=1e-6)
