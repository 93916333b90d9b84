"""The graph after an ingest: additions are applied to a new graph beside the one in use, and
the answers from it are the answers a full reload gives; anything else reloads whole."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from graphrag.answer.retrieval.load import build_graph, load_graph
from graphrag.answer.retrieval.retrieve import retrieve
from graphrag.ingest.documents import Source, collect
from graphrag.ingest.extract.rules import RulesExtractor
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings

pytestmark = pytest.mark.model

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"
QUESTIONS = [
    "In which city are workspaces created in Europe hosted?",
    "How long are snapshots kept?",
    "How do I export my data after cancelling?",
    "Who do I contact for a billing question?",
    "What happens to backups when an account is closed?",
]
ACCESS = [("public",), ("internal", "public")]


def _sources() -> list[Source]:
    """The sample handbook's Markdown documents, in ingest order (the two exports versions last)."""
    items = [s for s in collect([SAMPLE]).items if isinstance(s, Source) and s.path and s.path.endswith(".md")]
    exports = [s for s in items if s.id == "exports"]
    return [s for s in items if s.id != "exports"] + exports


def _answers(store, graph, embedder, superseded: bool = False):
    return [retrieve(store, graph, embedder, q, AskSettings(access=a, include_superseded=superseded))
            for q in QUESTIONS for a in ACCESS]


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    return RulesExtractor()


def test_an_ingest_extends_the_graph_and_answers_as_a_full_reload(any_store, embedder, extractor):
    docs = _sources()
    ingestor = Ingestor(any_store, extractor, embedder)
    ingestor.ingest(docs[:4])
    before = load_graph(any_store)
    ingestor.ingest(docs[4:-2])
    after = load_graph(any_store)
    assert after is not before and after.edges.added > 0, "the additions were applied, not a reload"
    full = build_graph(any_store)
    assert sorted(after.keys) == sorted(full.keys) and len(after.edges) == len(full.edges)
    assert len(after.sentence_doc) == len(full.sentence_doc) and len(after.docs) == len(full.docs)
    assert _answers(any_store, after, embedder) == _answers(any_store, full, embedder)
    assert any(c.span.document_id == "regions" for r in _answers(any_store, after, embedder) for c in r.context)


def test_the_graph_in_use_is_left_as_it_was(store, embedder, extractor):
    docs = _sources()
    ingestor = Ingestor(store, extractor, embedder)
    ingestor.ingest(docs[:5])
    old = load_graph(store)
    keys, vectors, rows, edges = list(old.keys), old.vectors.copy(), old.sentence_vectors.copy(), len(old.edges)
    answers = _answers(store, old, embedder)
    for doc in docs[5:-2]:  # one commit at a time: each load extends the graph before it
        ingestor.ingest([doc])
        assert load_graph(store).edges.added > 0
    assert old.keys == keys and len(old.edges) == edges and len(old.vectors) == len(keys)
    assert (old.vectors == vectors).all() and (old.sentence_vectors == rows).all()
    assert _answers(store, old, embedder) == answers, "a graph being answered from never changes"
    assert _answers(store, load_graph(store), embedder) == _answers(store, build_graph(store), embedder)


def test_a_new_version_supersedes_in_the_extended_graph(store, embedder, extractor):
    docs = _sources()
    ingestor = Ingestor(store, extractor, embedder)
    ingestor.ingest(docs[:-1])  # everything up to the first exports version
    before = load_graph(store)
    assert not before.docs[before.doc_index[("exports", 1)]].superseded
    ingestor.ingest(docs[-1:])
    after = load_graph(store)
    assert after.edges.added > 0
    assert after.docs[after.doc_index[("exports", 1)]].superseded
    full = build_graph(store)
    for superseded in (False, True):
        assert _answers(store, after, embedder, superseded) == _answers(store, full, embedder, superseded)


def test_a_change_that_is_not_an_addition_reloads_the_whole_graph(store, embedder, extractor):
    docs = _sources()
    ingestor = Ingestor(store, extractor, embedder)
    ingestor.ingest(docs[:6])
    load_graph(store)
    gone = docs[0].id
    with store.transaction() as db:  # a removal as a delete command would write it: rows gone, generation bumped
        for table, col in (("relations", "doc_id"), ("mentions", "doc_id"), ("sentences", "doc_id"),
                           ("documents", "doc_id")):
            db.execute(f"DELETE FROM {table} WHERE {col}=?", (gone,))
        db.execute("UPDATE meta SET value=CAST(CAST(value AS INTEGER)+1 AS TEXT) WHERE key='generation'")
    ingestor.ingest(docs[6:8])  # additions after the removal: still a reload, from before the removal
    after = load_graph(store)
    assert after.edges.added == 0, "reloaded whole"
    assert all(d.id != gone for d in after.docs)
    assert _answers(store, after, embedder) == _answers(store, build_graph(store), embedder)
    ingestor.ingest(docs[8:-2])  # and the next ingest extends the reloaded graph again
    assert load_graph(store).edges.added > 0


def test_a_rewrite_between_ingests_reloads_the_whole_graph(store, embedder, extractor):
    """A commit that changes rows in place (here an entity renamed, as a merge of names might)
    bumps the generation without marking an addition: the next load must not keep the old name."""
    docs = _sources()
    ingestor = Ingestor(store, extractor, embedder)
    ingestor.ingest(docs[:4])
    before = load_graph(store)
    key = before.keys[0]
    with store.transaction() as db:
        db.execute("UPDATE entities SET name='Renamed' WHERE key=?", (key,))
        db.execute("UPDATE meta SET value=CAST(CAST(value AS INTEGER)+1 AS TEXT) WHERE key='generation'")
    ingestor.ingest(docs[4:6])
    after = load_graph(store)
    assert after.names[after.index[key]] == "Renamed"


def test_concurrent_asks_see_the_old_or_the_new_graph_never_a_mix(store, embedder, extractor):
    """Askers on other threads answer while documents are committed one by one and the graph is
    extended; each answer must be the one a full load of some generation gives."""
    docs = _sources()
    ingestor = Ingestor(store, extractor, embedder)
    ingestor.ingest(docs[:3])
    question = QUESTIONS[0]
    settings = AskSettings(access=("internal", "public"))
    expected = {store.generation(): retrieve(store, build_graph(store), embedder, question, settings)}
    seen: list[tuple[int, object]] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def ask() -> None:
        try:
            while not stop.is_set():
                g = load_graph(store)
                seen.append((g.generation, retrieve(store, g, embedder, question, settings)))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for doc in docs[3:-2]:
            ingestor.ingest([doc])
            expected[store.generation()] = retrieve(store, build_graph(store), embedder, question, settings)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors
    assert seen and {g for g, _ in seen} <= set(expected)
    assert len({g for g, _ in seen}) > 1, "askers answered across several generations"
    wrong = [g for g, answer in seen if answer != expected[g]]
    assert not wrong, f"answers that match no full load, at generations {sorted(set(wrong))}"
