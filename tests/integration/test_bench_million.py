"""bench million's synthetic store at a tiny size: the graph loads it whole, the counts are the layout's, entity
degrees are heavy-tailed, the generation bookkeeping is an ingest's, and an asker restricted to one label gets
context from that label's documents only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphrag.answer.retrieval import build_graph, load_graph, retrieve_vector
from graphrag.model import AskSettings, RouteStart
from graphrag.store import Store
from lab import bench_million
from lab.million_store import Layout, build, entity_key, labels, matches

# heavy (builds the benchmark's store of 2,000 sentences): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]

LAYOUT = Layout(2000, 2000)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("million") / "tiny.db"
    with Store(path) as store:
        build(store, LAYOUT)
    return path


def test_the_graph_loads_the_layout_whole(built: Path) -> None:
    with Store(built) as store:
        counts = store.counts()
        graph = build_graph(store)
        assert store.append_run() == (LAYOUT.documents, 0, LAYOUT.documents)  # as one ingest of every document
        assert load_graph(store).generation == store.generation() == LAYOUT.documents
        assert matches(store, LAYOUT) and not matches(store, Layout(2000, 1999))
    assert (counts["sentences"], counts["documents"], counts["relations"], counts["entities"]) == (
        2000, 200, 2000, LAYOUT.entities)
    assert graph.n_sentences == 2000 and len(graph.keys) == LAYOUT.entities and len(graph.edges) == 2000
    assert len(graph.mentions.entity) == counts["mentions"] and 1.5 < counts["mentions"] / 2000 < 3
    assert np.allclose(np.linalg.norm(graph.sentence_vectors, axis=1), 1, atol=1e-5)
    assert np.allclose(np.linalg.norm(graph.vectors, axis=1), 1, atol=1e-5)
    assert entity_key(0) in graph.index


def test_entity_degrees_are_heavy_tailed(built: Path) -> None:
    with Store(built) as store:
        graph = build_graph(store)
    degree = np.bincount(graph.mentions.entity, minlength=len(graph.keys))
    assert degree.min() >= 1, "every entity is named somewhere"
    assert np.median(degree) <= 5 and degree.max() >= 10 * np.median(degree)
    top = np.sort(degree)[::-1]
    assert top[: len(top) // 10].sum() > 0.3 * degree.sum(), "a tenth of the entities hold over 30% of mentions"


def test_a_restricted_asker_gets_context_from_visible_documents_only(built: Path) -> None:
    with Store(built) as store:
        graph = build_graph(store)
        access = {(d.id, d.version): d.access for d in graph.docs}
        assert {"finance", "legal", "public"} <= set().union(*access.values())
        asked = bench_million.questions(LAYOUT, 8)
        for who in (("finance",), ("public",)):
            seen = 0
            for qvec, anchors in asked:
                got = retrieve_vector(store, graph, qvec, AskSettings(access=who), anchors)
                for item in got.context:
                    assert set(who) & access[(item.span.document_id, item.span.version)]
                    assert item.span.text == store.span(item.span.document_id, item.span.version,
                                                        item.span.sentence_index).text
                seen += len(got.context)
            assert seen
        public = retrieve_vector(store, graph, asked[0][0], AskSettings(), asked[0][1])
        assert public.seeding is RouteStart.QUESTION  # a head entity of the topic is named in public documents


def test_labels_give_mostly_public_documents() -> None:
    share = [json.dumps(labels(d)) for d in range(1000)]
    assert share.count('["public"]') == 850 and share.count('["finance", "legal"]') == 10


def test_ann_recall_is_measured_against_the_exact_scan(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrag.answer.retrieval import index

    asked = bench_million.questions(LAYOUT, 5)
    with Store(built) as store:
        graph = build_graph(store)
        assert bench_million.attach_indexes(store, graph)["index_built"] is False
        assert bench_million.ann_recall(graph, asked)[0] is None  # below the threshold: exact scans
        monkeypatch.setattr(index, "EXACT_BELOW", 100)  # an index over the 2,000 rows
        figures = bench_million.attach_indexes(store, graph)
    assert figures["index_built"] is True and figures["index_rows"] == 2000 and figures["index_files_mb"] > 0
    recall = bench_million.ann_recall(graph, asked)[0]
    assert recall is not None and recall >= 0.9


def test_targets_say_met_unmet_or_unknown() -> None:
    got = bench_million.targets({"ask_p50_ms": 40.0, "graph_load_s": 12.0, "ann_recall_at_10": None})
    assert got["ask_p50_ms"]["met"] is True and got["graph_load_s"]["met"] is False
    assert got["ann_recall_at_10"]["met"] is None and got["peak_rss_mb"]["value"] is None


def test_decades_run_below_the_full_size() -> None:
    assert bench_million.decades(1_000_000) == [10_000, 100_000] and bench_million.decades(10_000) == []


def test_a_run_with_decades_saves_reads_back_and_clears_each_graph(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    """Every store of this run is large enough to be saved: each decade's files (a folder among them) are
    cleared before the next, and the figures say the graph was read back from them."""
    from graphrag.answer.retrieval import saved

    monkeypatch.setattr(saved, "SAVE_FROM", 1)
    assert bench_million.bench_million(sentences=20_000, relations=20_000, n_questions=2, encoder_sentences=0,
                                       data=tmp_path, per_decade=True) == 0
    out = capsys.readouterr().out
    decade = json.loads(out.splitlines()[0])
    whole = json.loads(out[out.index("\n") + 1:])
    for row in (decade, whole):
        assert row["graph_saved"] is True and row["graph_build_s"] >= 0 and row["graph_load_s"] >= 0
    assert decade["decade"] == 10_000 and whole["sentences"] == 20_000
    assert whole["targets"]["graph_load_s"]["value"] == whole["graph_load_s"]


def test_a_postgresql_store_is_built_in_the_database_and_measured_beside_sqlite(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """bench million --store postgresql+psycopg://... writes the synthetic store into that database (never a file
    named after the URL) and measures it beside a temporary SQLite store of the same sizes."""
    monkeypatch.chdir(tmp_path)
    assert bench_million.bench_million(sentences=2000, relations=2000, store=pg_url, n_questions=2,
                                       encoder_sentences=0, data=tmp_path) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["store_kind"] == "postgresql" and row["sqlite"]["store_kind"] == "sqlite"
    for r in (row, row["sqlite"]):
        assert (r["sentences"], r["relations"], r["documents"]) == (2000, 2000, 200) and r["ask_p50_ms"] > 0
    assert row["store_mb"] > 0 and list(tmp_path.iterdir()) == [], "nothing written under the working folder"
    with Store(pg_url) as store:
        assert matches(store, LAYOUT) and store.generation() == LAYOUT.documents


def test_on_a_pgvector_store_the_database_searches_and_no_index_is_built(
        pgvector_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The figures of a store whose server has pgvector are the database's search: no index built or written, its
    HNSW sizes, recall against the exact scan with and without a label filter, and a second process that answers
    with the database's search."""
    from graphrag.answer.retrieval import index as ann

    monkeypatch.setattr(ann, "EXACT_BELOW", 1000)
    monkeypatch.setattr(ann, "EXACT_SUBSET", 0)
    monkeypatch.chdir(tmp_path)
    assert bench_million.bench_million(sentences=2000, relations=2000, store=pgvector_url, n_questions=4,
                                       encoder_sentences=0, data=tmp_path, beside_sqlite=False) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["vector_search"] == "pgvector" and row["index_built"] is False and row["index_files_mb"] == 0
    assert row["pgvector_index_mb"]["sentences"] > 0 and row["build_phases_s"]["vector_index_s"] >= 0
    assert row["ann_recall_at_10"] >= 0.9 and row["ann_recall_at_10_filtered"] >= 0.9
    assert row["walk_rows_per_question_p50"] > 0 and "sqlite" not in row
