"""Ingest: provenance kept, nothing overwritten, nothing dropped, failures visible (faults 3-6)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from doubles.extract import ScriptedExtractor, ScriptEntity, ScriptRelation
from graphrag.answer.retrieval.load import build_graph
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import ExtractionStatus
from graphrag.store import Store
from helpers import OLD_FAQ, POLICY, reference_corpus, reference_extractor, write_corpus

pytestmark = pytest.mark.model


def ingest(store: Store, embedder, paths, extractor=None):
    return Ingestor(store, extractor or reference_extractor(), embedder).ingest_paths(paths)


def test_old_faq_adds_a_mention_and_the_policy_mention_stays(store, embedder, tmp_path):
    """Fault 3: a later, older-dated FAQ must not replace the policy's description or source."""
    ingest(store, embedder, [reference_corpus(tmp_path / "c")])
    export = store.entity("export")
    assert export is not None
    by_doc = {m.span.document_id: m for m in export.mentions}
    assert set(by_doc) == {"policy", "faq", "internal"}
    assert by_doc["policy"].description == "a copy of account data (policy)"
    assert by_doc["faq"].description == "deleted after 7 days (old FAQ)"
    assert "7 days" in by_doc["faq"].span.text and "7 days" not in by_doc["policy"].span.text


def test_every_relation_is_stored_even_between_the_same_pair(store, embedder, tmp_path):
    """Fault 4: Export->Snapshot "use" and "related to" are two edges, each with its own span."""
    report = ingest(store, embedder, [reference_corpus(tmp_path / "c")])
    policy = next(d for d in report.documents if d.id == "policy")
    assert policy.relations == 4
    rels = [r for r in store.all_relations() if (r.source, r.target) == ("export", "snapshot")]
    assert sorted(r.type for r in rels) == ["related to", "use"]
    assert len({r.span.sentence_index for r in rels}) == 2
    g = build_graph(store).graph
    assert g.number_of_edges("export", "snapshot") == 2
    assert g.number_of_edges() == 5  # 4 policy + 1 internal


def test_relation_with_unextracted_endpoint_is_kept_and_reported(store, embedder, tmp_path):
    """Fault 5: the endpoint becomes an implied entity instead of the relation vanishing."""
    doc = write_corpus(tmp_path / "c", {"a.md": "Billing sends invoices to the finance team.\n"})
    x = ScriptedExtractor([ScriptEntity("Billing", "Billing")],
                          [ScriptRelation("Billing", "send invoices to", "Finance team", "Billing")])
    report = ingest(store, embedder, [doc], x)
    assert report.documents[0].relations == 1 and report.documents[0].implied_entities == 1
    team = store.entity("finance team")
    assert team is not None and team.implied
    assert team.mentions[0].span.text == "Billing sends invoices to the finance team."
    assert [r.type for r in store.relations_of("finance team")] == ["send invoices to"]


def test_model_unavailable_failed_and_nothing_found_are_different(store, embedder, tmp_path):
    """Fault 6: a missing model server is not an empty document."""
    doc = write_corpus(tmp_path / "c", {"a.md": POLICY})
    down = ingest(store, embedder, [doc], ScriptedExtractor(fail=ExtractionStatus.MODEL_UNAVAILABLE,
                                                            error="Ollama is not reachable"))
    assert down.documents[0].status == "model_unavailable"
    assert down.documents[0].error == "Ollama is not reachable"
    assert store.counts()["documents"] == 0  # nothing half-written: a re-run will ingest it
    failed = ingest(store, embedder, [doc], ScriptedExtractor(fail=ExtractionStatus.FAILED, error="bad JSON"))
    assert failed.documents[0].status == "failed" and failed.documents[0].error == "bad JSON"
    empty = ingest(store, embedder, [doc], ScriptedExtractor())
    assert empty.documents[0].status == "nothing_found" and empty.documents[0].error is None
    assert store.counts()["documents"] == 1


def test_a_crashing_extractor_fails_one_document_and_others_continue(store, embedder, tmp_path):
    docs = write_corpus(tmp_path / "c", {"a.md": "Alpha uses Beta.\n", "b.md": "Gamma uses Delta.\n"})

    def boom(sentences):
        if "Alpha" in sentences[0].text:
            raise RuntimeError("parser exploded")

    x = ScriptedExtractor([ScriptEntity("Gamma", "Gamma"), ScriptEntity("Alpha", "Alpha")], on_extract=boom)
    report = ingest(store, embedder, [docs], x)
    status = {d.id: (d.status, d.error) for d in report.documents}
    assert status["a"] == ("failed", "RuntimeError: parser exploded")
    assert status["b"][0] == "ok"


def test_new_version_supersedes_old_spans_without_deleting_them(store, embedder, tmp_path):
    v1 = write_corpus(tmp_path / "v1", {"policy.md": POLICY})
    ingest(store, embedder, [v1])
    v2 = write_corpus(tmp_path / "v2", {"policy.md": POLICY.replace("30 days", "45 days")})
    report = ingest(store, embedder, [v2])
    assert report.documents[0].version == 2 and report.documents[0].supersedes == 1
    old, new = store.document("policy", 1), store.document("policy", 2)
    assert old is not None and old.superseded and new is not None and not new.superseded
    assert any("30 days" in s.text for s in store.sentences("policy", 1))
    mentions = store.entity("snapshot").mentions
    assert {(m.span.version, m.superseded) for m in mentions} == {(1, True), (2, False)}


def test_identical_content_is_a_no_op(store, embedder, tmp_path):
    doc = write_corpus(tmp_path / "c", {"policy.md": POLICY})
    x = reference_extractor()
    ingest(store, embedder, [doc], x)
    calls, texts = x.calls, len(embedder.texts)
    again = ingest(store, embedder, [doc], x)
    assert again.documents[0].status == "unchanged" and again.documents[0].version == 1
    assert x.calls == calls and len(embedder.texts) == texts
    assert store.counts()["versions"] == 1


def test_entity_embeddings_only_for_new_entities(store, embedder, tmp_path):
    ingest(store, embedder, [write_corpus(tmp_path / "a", {"policy.md": POLICY})])
    embedder.texts.clear()
    ingest(store, embedder, [write_corpus(tmp_path / "b", {"faq.md": OLD_FAQ})])
    # the FAQ names Exports (known as "export"): its sentences are encoded, no entity name is
    assert "Exports" not in embedder.texts and "Export" not in embedder.texts


def test_span_offsets_are_exact_for_every_stored_sentence(store, embedder, tmp_path):
    ingest(store, embedder, [reference_corpus(tmp_path / "c")])
    for d in store.documents():
        spans = store.sentences(d.id, d.version)
        assert spans
        for s in spans:
            assert d.text[s.start:s.end] == s.text


def test_a_crash_inside_the_document_transaction_leaves_the_store_as_before(store, embedder, tmp_path, monkeypatch):
    ingest(store, embedder, [write_corpus(tmp_path / "a", {"faq.md": OLD_FAQ})])
    before = store.counts()
    real = Store.write_document

    def crash_midway(self, w):
        # Let the document row and sentences go in, then fail inside the same transaction.
        def run(db) -> int:  # the store's SQLAlchemy connection
            db.exec_driver_sql("UPDATE documents SET superseded=1")
            db.exec_driver_sql("INSERT INTO documents VALUES ('x',1,'x',NULL,'[]','h','t',NULL,0,'ok','rules','now')")
            raise sqlite3.OperationalError("disk I/O error")
        return self._write(run)

    monkeypatch.setattr(Store, "write_document", crash_midway)
    report = ingest(store, embedder, [write_corpus(tmp_path / "b", {"policy.md": POLICY})])
    assert report.documents[0].status == "failed" and "nothing was written" in (report.documents[0].error or "")
    assert store.counts() == before
    assert not store.document("faq", 1).superseded
    monkeypatch.setattr(Store, "write_document", real)
    rerun = ingest(store, embedder, [write_corpus(tmp_path / "b", {"policy.md": POLICY})])
    assert rerun.documents[0].status == "ok"


def test_bad_inputs_get_clear_messages_and_the_rest_still_ingest(store, embedder, tmp_path):
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "empty.md").write_text("")
    (root / "binary.txt").write_bytes(b"\x00\x01\x02PNG\x00" * 100)
    (root / "latin.txt").write_bytes("Exports café are kept for 30 days after cancellation.\n".encode("cp1252"))
    (root / "huge.txt").write_bytes(b"Exports are big. " * (20_000_000 // 17 + 1))
    (root / "image.png").write_bytes(b"\x89PNG\r\n")
    (root / "good.md").write_text(POLICY)
    other = write_corpus(tmp_path / "other", {"faq.md": OLD_FAQ, "notes.md": "Notes on exports."},
                         "[[documents]\nfile = 'notes.md'\n")  # malformed TOML
    report = Ingestor(store, reference_extractor(), embedder).ingest_paths([root, other])
    by_id = {d.id: d for d in report.documents}
    assert by_id["empty"].status == "rejected" and by_id["empty"].error == "empty file"
    assert by_id["binary"].status == "rejected" and "binary" in (by_id["binary"].error or "")
    assert by_id["huge"].status == "rejected" and "characters a document" in (by_id["huge"].error or "")
    # a picture is read by OCR, so a file named .png that is not one is refused for what it is
    assert by_id["image"].status == "rejected" and "not a picture of that format" in (by_id["image"].error or "")
    assert by_id["latin"].status in ("ok", "nothing_found") and "not UTF-8" in (by_id["latin"].note or "")
    assert "café" in store.current_document("latin").text
    assert by_id["good"].status == "ok"
    # a malformed manifest fails closed: its folder's files are not ingested with guessed access
    assert any("malformed manifest" in p for p in report.problems)
    assert by_id["faq"].status == by_id["notes"].status == "rejected"
    assert "manifest" in (by_id["notes"].error or "")


def test_manifest_metadata_and_version_order(store, embedder, tmp_path):
    root = write_corpus(tmp_path / "c", {"old.md": "Exports last 7 days.\n", "new.md": "Exports last 30 days.\n"}, """
[defaults]
access = ["staff"]

[[documents]]
file = "new.md"
id = "exports"
title = "Exports"
effective_date = "2026-01-01"

[[documents]]
file = "old.md"
id = "exports"
title = "Exports (old)"
effective_date = "2024-01-01"
""")
    ingest(store, embedder, [root], ScriptedExtractor([ScriptEntity("Exports", "Exports")]))
    v1, v2 = store.document("exports", 1), store.document("exports", 2)
    assert v1 is not None and v1.effective_date == "2024-01-01" and v1.superseded
    assert v2 is not None and v2.title == "Exports" and "30 days" in v2.text and not v2.superseded
    assert v2.access == ("staff",)


def test_store_from_a_newer_version_is_refused(tmp_path: Path):
    from graphrag.errors import StoreError

    path = tmp_path / "s.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(StoreError, match="newer version"):
        Store(path)


def test_read_only_store_gives_a_clear_error(store, embedder, tmp_path):
    ingest(store, embedder, [write_corpus(tmp_path / "a", {"faq.md": OLD_FAQ})])
    ro = Store(store.path, readonly=True)
    report = Ingestor(ro, reference_extractor(), embedder).ingest_paths([write_corpus(tmp_path / "b", {"p.md": POLICY})])
    assert report.documents[0].status == "failed"
    assert "read-only" in (report.documents[0].error or "")
    assert store.counts()["documents"] == 1
