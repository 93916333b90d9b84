"""Removing a document (`graphrag delete`, the Ingest page's admin action): nothing of it reaches
seeds, routes, context, answers, the graph page or exports afterwards; verdicts on it stay and say
"source removed"; versions, re-ingest, the reply cache, the command line. On SQLite and PostgreSQL."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from sqlalchemy import LargeBinary, select

from doc_helpers import PDF_PATH
from graphrag.access import library_viewer
from graphrag.answer.ask import Asker
from graphrag.answer.retrieval.load import load_graph
from graphrag.cli import main
from graphrag.errors import InputError
from graphrag.ingest.extract import make_extractor
from graphrag.ingest.pipeline import Ingestor
from graphrag.ingest.removal import remove_document
from graphrag.language.sentences import sentence_hash
from graphrag.model import AnswerStatus, AskSettings, ClaimFlag
from graphrag.present import pages
from graphrag.present.viz import neighbourhood, neighbourhood_html
from graphrag.store import Store
from graphrag.store.schema import metadata
from graphrag.verify.review import export_rows, record_verdict, review_queue, rows_to_csv, visible_claims
from helpers import ADMIN, ScriptedChecker, write_corpus

pytestmark = [pytest.mark.model]

TOKEN = "qzr"  # in the removed document's text, names and relations only
DOCS = {
    "exports.md": "# Data exports\n\nOwners can export a workspace from the settings page. Exports use the latest "
                  "snapshot.\nSnapshot exports remain available for 30 days after an account is cancelled.\n",
    "vault.md": "# Vault\n\nExports are copied into the Qzrvault archive every night. The Qzrvault archive keeps "
                "exports for 90 days. Qzrwarden Lee approves every restore from the Qzrvault archive.\n",
}
MANIFEST = """
[[documents]]
file = "exports.md"
id = "exports"
title = "Data exports"

[[documents]]
file = "vault.md"
id = "vault"
title = "Vault"
"""
QUESTION = "How long does the Qzrvault archive keep exports?"


def _ingest(store: Store, corpus: Path, embedder) -> None:
    report = Ingestor(store, make_extractor("rules"), embedder).ingest_paths([corpus])
    assert {d.status for d in report.documents} <= {"ok", "unchanged"}, report


def _asker(store: Store, embedder) -> Asker:
    return Asker(store, embedder=embedder, checker=ScriptedChecker())


def _render_pages_of(store: Store, *doc_ids: str) -> dict[str, str]:
    """A page drawn for each document's version 1 into this process's page-image cache (as the
    Review page draws a cited page: keyed by the version's file hash); the hashes by id."""
    shas = {}
    for doc_id in doc_ids:
        doc = store.document(doc_id, 1)
        assert doc is not None
        shas[doc_id] = doc.sha256
        pages.render_page(PDF_PATH.read_bytes(), 1, file_sha256=doc.sha256)
    return shas


def _cached(sha: str) -> bool:
    return any(key[0] == sha for key in pages._cache)


def _everything_stored(store: Store) -> list[tuple[str, str]]:
    """Every text value in every table, with where it is (vectors left out)."""
    out = []
    with store.database.begin(write=False) as c:
        for t in metadata.sorted_tables:
            cols = [col for col in t.columns if not isinstance(col.type, LargeBinary)]
            for row in c.execute(select(*cols)):
                out += [(t.name, str(v)) for v in row if v is not None]
    return out


def _answer_shows(answer) -> str:
    """Everything an answer carries as text: its words, context, routes and seeds."""
    parts = [answer.text, *(c.text for c in answer.claims), *(s.entity for s in answer.seeds)]
    for item in answer.context:
        parts += [item.span.document_id, item.span.text, *item.route.entities(),
                  *(s.relation_type for s in item.route.steps), *(str(s.document_id) for s in item.route.steps)]
    for r in answer.reached:
        parts += [*r.entities(), *(s.relation_type for s in r.steps), *(str(s.document_id) for s in r.steps)]
    return " ".join(parts).lower()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus", DOCS, MANIFEST)


def test_nothing_of_a_removed_document_reaches_asking_the_graph_or_exports(any_store: Store, corpus: Path,
                                                                           embedder) -> None:
    _ingest(any_store, corpus, embedder)
    asker = _asker(any_store, embedder)
    before = asker.ask(QUESTION).answer
    assert TOKEN in _answer_shows(before) and any(c.span.document_id == "vault" for c in before.context)
    claim = next(cl for cl in before.claims if any(c.item and c.item.span.document_id == "vault" for c in cl.citations))
    cit = next(c for c in claim.citations if c.item and c.item.span.document_id == "vault")
    record_verdict(any_store, before, claim, cit, "supported", "ana", "checked against the archive policy")
    load_graph(any_store)  # a graph cached before the removal must not answer after it
    shared = any_store.entity("export")
    assert shared is not None and {m.span.document_id for m in shared.mentions} == {"exports", "vault"}

    done = remove_document(any_store, "vault", actor="admin", reason="uploaded by mistake", by=ADMIN)

    assert done.versions == (1,) and done.spans == 4 and done.relations > 0 and done.entities > 0
    assert done.verdicts_kept == 1 and done.answers_withdrawn == 1 and done.current_version is None
    # Its spans are not citable, its own entities and relations are gone, shared ones keep the rest.
    assert any_store.document("vault", 1) is None and any_store.span("vault", 1, 0) is None
    assert any_store.access_of("vault", 1) is None
    assert {m.span.document_id for m in any_store.entity("export").mentions} == {"exports"}
    assert all(r.span.document_id == "exports" for r in any_store.all_relations())
    kg = load_graph(any_store)
    assert not [k for k in kg.index if TOKEN in k] and {d.id for d in kg.docs} == {"exports"}
    # Asking again: no seed, route, context item or quote comes from it, even naming its entities.
    for q in (QUESTION, "Who approves a restore from the archive?", "How long do snapshot exports remain available?"):
        again = asker.ask(q).answer
        assert TOKEN not in _answer_shows(again), q
        assert all(c.span.document_id == "exports" for c in again.context)
    # The graph page's neighbourhood of a shared entity.
    nb = neighbourhood(kg, "export", library_viewer(["public"]), hops=2)
    assert TOKEN not in neighbourhood_html(nb, {k: kg.names[kg.index[k]] for k in nb.depth}).lower()
    # The answer that drew on it is withdrawn: no text left, no claim to review, the verdict kept.
    old = any_store.answer(before.id)
    assert old is not None and old.status == AnswerStatus.WITHDRAWN
    assert old.text == "" and old.context == () and old.reached == () and all(c.text == "" for c in old.claims)
    assert all(ClaimFlag.SOURCE_REMOVED in c.flags for c in old.claims)
    assert [q for q in review_queue(any_store, library_viewer(["public"])) if q.answer_id == before.id] == []
    with pytest.raises(InputError, match="withdrawn"):
        record_verdict(any_store, old, old.claims[0], None, "supported", "bo")
    rows = [r for r in export_rows(any_store, ["public"]) if r["answer_id"] == before.id]
    assert len(rows) == 1 and rows[0]["source"] == "source removed" and rows[0]["stale"] is True
    assert rows[0]["span"] == "" and rows[0]["claim"] == "" and rows[0]["note"] == "checked against the archive policy"
    assert "source removed" in rows_to_csv(rows)
    # Nothing of its text is stored anywhere: not in answers, claims, routes, the cache or the record
    # (the questions asked are the askers' own words).
    asked = {QUESTION, "Who approves a restore from the archive?"}
    assert [(t, v[:80]) for t, v in _everything_stored(any_store) if TOKEN in v.lower() and v not in asked] == []
    (rec,) = any_store.removal_records("vault")
    assert (rec.version, rec.actor, rec.reason, rec.access) == (1, "admin", "uploaded by mistake", ("public",))


def test_removing_one_version_of_two_leaves_the_other_citable(any_store: Store, tmp_path: Path,
                                                              embedder) -> None:
    v1 = write_corpus(tmp_path / "v1", {"policy.md": "# Policy\n\nSnapshot exports remain available for 30 days "
                                                     "after cancellation.\n"})
    v2 = write_corpus(tmp_path / "v2", {"policy.md": "# Policy\n\nSnapshot exports remain available for 45 days "
                                                     "after cancellation.\n"})
    _ingest(any_store, v1, embedder)
    _ingest(any_store, v2, embedder)
    asker = _asker(any_store, embedder)
    q = "How long do snapshot exports remain available after cancellation?"
    assert "45 days" in asker.ask(q).answer.text

    done = remove_document(any_store, "policy", 2, actor="admin", by=ADMIN)

    assert done.versions == (2,) and done.current_version == 1
    assert any_store.current_document("policy").superseded is False
    answer = asker.ask(q).answer
    assert "30 days" in answer.text and "45 days" not in answer.text
    assert {(c.span.document_id, c.span.version) for c in answer.context} == {("policy", 1)}
    # The other way round: removing the superseded v1 of two keeps v2 current.
    _ingest(any_store, v2, embedder)  # v3: the v2 text again, a new version (numbers are never reused)
    assert any_store.current_document("policy").version == 3
    remove_document(any_store, "policy", 1, actor="admin", by=ADMIN)
    assert [(d.version, d.superseded) for d in any_store.documents()] == [(3, False)]
    assert "45 days" in asker.ask(q).answer.text


def test_reingesting_a_removed_file_is_a_new_version_and_old_verdicts_stay_removed(
        any_store: Store, corpus: Path, embedder) -> None:
    _ingest(any_store, corpus, embedder)
    asker = _asker(any_store, embedder)
    answer = asker.ask(QUESTION).answer
    claim = answer.claims[0]
    record_verdict(any_store, answer, claim, next(c for c in claim.citations if c.valid), "supported", "ana")
    remove_document(any_store, "vault", actor="admin", by=ADMIN)

    report = Ingestor(any_store, make_extractor("rules"), embedder).ingest_paths([corpus])

    status = {d.id: (d.status, d.version) for d in report.documents}
    assert status == {"exports": ("unchanged", 1), "vault": ("ok", 2)}
    assert any(c.span.document_id == "vault" for c in asker.ask(QUESTION).answer.context)
    (v,) = any_store.verdicts(answer.id)
    assert v.source_removed or v.document_id != "vault"  # the old verdict never judges the new text


def test_unknown_ids_and_versions_are_refused_and_nothing_changes(any_store: Store, corpus: Path,
                                                                  embedder) -> None:
    _ingest(any_store, corpus, embedder)
    counts, gen = any_store.counts(), any_store.generation()
    with pytest.raises(InputError, match="no document 'nope' in the store"):
        remove_document(any_store, "nope", actor="admin", by=ADMIN)
    with pytest.raises(InputError, match=r"document 'vault' has no version 7 \(stored: 1\)"):
        remove_document(any_store, "vault", 7, actor="admin", by=ADMIN)
    with pytest.raises(InputError, match="name of who removes"):
        remove_document(any_store, "vault", actor="  ", by=ADMIN)
    assert any_store.counts() == counts and any_store.generation() == gen
    remove_document(any_store, "vault", actor="admin", by=ADMIN)
    with pytest.raises(InputError, match="removed before: version 1"):
        remove_document(any_store, "vault", actor="admin", by=ADMIN)


def test_the_reply_cache_keeps_nothing_about_the_removed_sentences(any_store: Store, corpus: Path,
                                                                   embedder) -> None:
    _ingest(any_store, corpus, embedder)
    removed = [s.text for s in any_store.sentences("vault", 1)]
    kept = [s.text for s in any_store.sentences("exports", 1)]
    any_store.cache_put("about-vault", '{"entities": ["Qzrvault"]}', [sentence_hash(t) for t in removed[:2]])
    any_store.cache_put("mixed", "{}", [sentence_hash(kept[0]), sentence_hash(removed[2])])
    any_store.cache_put("about-exports", "{}", [sentence_hash(t) for t in kept])
    any_store.cache_put("unknown-sources", "{}")  # written before replies named their sources

    done = remove_document(any_store, "vault", actor="admin", by=ADMIN)

    assert done.cached_replies == 3
    assert [k for k in ("about-vault", "mixed", "about-exports", "unknown-sources")
            if any_store.cache_get(k) is not None] == ["about-exports"]


def test_a_removal_drops_the_removed_versions_page_images_and_keeps_the_others(any_store: Store, corpus: Path,
                                                                              embedder) -> None:
    # ingest sits below the page-image cache: the cache listens to removals (ingest.removal.on_removed)
    _ingest(any_store, corpus, embedder)
    shas = _render_pages_of(any_store, "vault", "exports")
    assert _cached(shas["vault"]) and _cached(shas["exports"])
    remove_document(any_store, "vault", actor="ops", by=ADMIN)
    assert not _cached(shas["vault"]) and _cached(shas["exports"])


def test_a_preview_changes_nothing_and_says_what_a_removal_would_do(any_store: Store, corpus: Path,
                                                                    embedder) -> None:
    _ingest(any_store, corpus, embedder)
    counts, gen = any_store.counts(), any_store.generation()
    plan = any_store.preview_removal("vault")
    assert any_store.counts() == counts and any_store.generation() == gen and not any_store.removal_records()
    done = remove_document(any_store, "vault", actor="admin", by=ADMIN)
    assert (plan.spans, plan.relations, plan.entities) == (done.spans, done.relations, done.entities)


# --- the command line -----------------------------------------------------------------------------


@pytest.fixture
def cli_store(tmp_path: Path, corpus: Path, embedder) -> list[str]:
    path = tmp_path / "cli.db"
    with Store(path) as s:
        _ingest(s, corpus, embedder)
    return ["--store", str(path)]


def test_delete_refuses_without_yes_when_stdin_is_not_a_terminal(cli_store, capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert main(["delete", "vault", *cli_store]) == 2
    assert "stdin is not a terminal; add --yes" in capsys.readouterr().err
    with Store(cli_store[1]) as s:
        assert s.document("vault", 1) is not None


def test_delete_asks_on_a_terminal_and_prints_what_it_removed(cli_store, capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert main(["delete", "vault", *cli_store]) == 1
    out = capsys.readouterr().out
    assert "would remove vault version 1: 4 spans no longer citable" in out and "nothing removed" in out
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    assert main(["delete", "vault", *cli_store, "--reason", "wrong file", "--by", "root admin"]) == 0
    out = capsys.readouterr().out
    assert "removed vault version 1: 4 spans no longer citable" in out
    assert '0 verdicts on its spans kept, shown as "source removed"' in out
    assert "no version of vault is left" in out and TOKEN not in out.lower()
    with Store(cli_store[1]) as s:
        (rec,) = s.removal_records()
        assert (rec.actor, rec.reason) == ("root admin", "wrong file")


def test_delete_drops_the_removed_versions_page_images(cli_store, capsys) -> None:
    with Store(cli_store[1]) as s:
        shas = _render_pages_of(s, "vault", "exports")
    assert main(["delete", "vault", *cli_store, "--yes"]) == 0
    assert "removed vault version 1" in capsys.readouterr().out
    assert not _cached(shas["vault"]) and _cached(shas["exports"])


def test_delete_unknown_id_or_version_is_one_clear_line(cli_store, capsys) -> None:
    assert main(["delete", "nope", *cli_store, "--yes"]) == 2
    assert capsys.readouterr().err.strip() == "error: no document 'nope' in the store"
    assert main(["delete", "vault", "--version", "3", *cli_store, "--yes"]) == 2
    assert capsys.readouterr().err.strip() == "error: document 'vault' has no version 3 (stored: 1)"
    assert main(["delete", "vault", *cli_store, "--yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["document_id"] == "vault" and data["versions"] == [1] and data["spans"] == 4


def test_a_withdrawn_answer_is_shown_only_to_viewers_holding_every_label_it_was_asked_with(
        any_store: Store, corpus: Path, embedder) -> None:
    _ingest(any_store, corpus, embedder)
    answer = _asker(any_store, embedder).ask(QUESTION, AskSettings(access=("internal", "public"))).answer
    claim = answer.claims[0]
    record_verdict(any_store, answer, claim, next(c for c in claim.citations if c.valid), "supported", "ana",
                   "internal note")
    remove_document(any_store, "vault", actor="admin", by=ADMIN)
    # It may have drawn on anything its asker could see: a public viewer sees nothing of it.
    assert [r for r in export_rows(any_store, ["public"]) if r["answer_id"] == answer.id] == []
    assert [c for c in visible_claims(any_store, library_viewer(["public"])) if c["answer_id"] == answer.id] == []
    rows = [r for r in export_rows(any_store, ["internal", "public"]) if r["answer_id"] == answer.id]
    assert [(r["note"], r["source"]) for r in rows] == [("internal note", "source removed")]


def test_the_record_counts_claims_whose_source_was_removed(any_store: Store, corpus: Path,
                                                           embedder) -> None:
    from graphrag.verify.record import record_stats

    _ingest(any_store, corpus, embedder)
    answer = _asker(any_store, embedder).ask(QUESTION).answer
    claim = answer.claims[0]
    record_verdict(any_store, answer, claim, next(c for c in claim.citations if c.valid), "supported", "ana")
    assert record_stats(any_store, library_viewer(["public"])).source_removed == 0
    remove_document(any_store, "vault", actor="admin", by=ADMIN)
    stats = record_stats(any_store, library_viewer(["public"]))
    assert stats.source_removed == len(answer.claims) and stats.verified == 0 and stats.stale == 1


def test_ollama_replies_about_a_removed_document_leave_the_cache_and_a_reingest_asks_again(
        store: Store, tmp_path: Path, embedder, fake_ollama) -> None:
    import re

    from graphrag.ingest.extract.ollama import OllamaExtractor

    def reply(request: dict) -> str:
        user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        return json.dumps({"entities": [
            {"name": w, "type": "concept", "description": text, "sentence": int(n)}
            for n, text in re.findall(r"^\[(\d+)\] (.*)$", user, flags=re.M)
            for w in re.findall(r"\b[A-Z][a-z]{3,}\b", text)], "relations": []})

    fake_ollama.responder = reply
    corpus = write_corpus(tmp_path / "c", DOCS, MANIFEST)
    x = OllamaExtractor(host=fake_ollama.url, cache=store.reply_cache(), timeout=5.0, retries=1, backoff=0.01,
                        chunk_sentences=2)
    assert {d.status for d in Ingestor(store, x, embedder).ingest_paths([corpus]).documents} == {"ok"}
    cached = [v for t, v in _everything_stored(store) if t == "reply_cache"]
    assert any(TOKEN in v.lower() for v in cached)

    done = remove_document(store, "vault", actor="admin", by=ADMIN)

    assert done.cached_replies == 2  # vault's 4 sentences, 2 per chunk; exports' replies stay
    assert not [v for t, v in _everything_stored(store) if t == "reply_cache" and TOKEN in v.lower()]
    calls = fake_ollama.calls
    report = Ingestor(store, x, embedder).ingest_paths([corpus])
    assert {d.id: d.status for d in report.documents} == {"exports": "unchanged", "vault": "ok"}
    assert fake_ollama.calls == calls + 2  # asked again: nothing of it was left to bring it back


def test_a_schema_4_store_migrates_to_removal_and_its_record_cannot_be_rewritten(
        store_url: str, corpus: Path, embedder) -> None:
    from sqlalchemy import text

    from graphrag.errors import StoreError
    from graphrag.store import db

    with Store(store_url) as old:  # then taken back to what the release before removal wrote
        _ingest(old, corpus, embedder)

        def downgrade(c) -> None:
            c.exec_driver_sql("ALTER TABLE reply_cache DROP COLUMN sources")
            c.exec_driver_sql("DROP TABLE removals")
            c.execute(text("INSERT INTO reply_cache (key, value, at) VALUES ('k', '{}', 'x')"))
            db._set_schema_version(c, 4)

        old._write(downgrade)
    with Store(store_url) as s:
        assert s.database.version == db.SCHEMA_VERSION and s.cache_get("k") == "{}"
        done = remove_document(s, "vault", actor="admin", by=ADMIN)
        assert done.cached_replies == 1  # written before replies named their sources: it may hold the text
        for sql in ("UPDATE removals SET actor='someone else'", "DELETE FROM removals"):
            with pytest.raises(StoreError, match="append-only"):
                s._write(lambda c, sql=sql: c.exec_driver_sql(sql))
        assert [r.actor for r in s.removal_records()] == ["admin"]
