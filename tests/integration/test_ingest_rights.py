"""Who may write a document version, and what a new version's labels do to the older ones.

Before: a team admin holding only `public` ingested a folder whose manifest named the id of an internal document and
wrote a public version 2 over it ("supersedes 1"); the upload form offered every label in the store; and a new
version that narrowed the labels left version 1 readable under its old, wider labels (`--include-superseded`).
Every path goes through one rule (graphrag.access.rule.ingest_refusal), checked again in the write's transaction.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import graphrag
from graphrag import ingest
from graphrag.access import Viewer
from graphrag.access.identity import Identity
from graphrag.answer.retrieval.load import load_graph
from graphrag.cli import main
from graphrag.config import Config
from graphrag.errors import InputError
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import DocumentReport, Ingestor
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit

SECRET = "Plan7 uses Vault9 for the Qzc merger.\n"
REPLACEMENT = "Plan7 uses Vault1 for nothing at all.\n"
PUBLIC = ("public",)
BOB = Identity("sub-bob", "bob@example.com", frozenset(), "https://login.example.com")


def public_admin() -> Viewer:
    return Viewer(BOB, frozenset(PUBLIC), "admin", team=True)


def internal_plan(store: Store) -> None:
    """What the store owner ingested: the internal plan, version 1."""
    report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest(
        [Source("plan", "Qzc merger plan", SECRET, access=("internal",))])
    assert report.documents[0].version == 1


def folder(tmp_path: Path, text: str, access: list[str]) -> Path:
    root = tmp_path / "drop"
    root.mkdir(exist_ok=True)
    (root / "notes.md").write_text(text, encoding="utf-8")
    (root / "manifest.toml").write_text(
        f'[[documents]]\nfile = "notes.md"\nid = "plan"\ntitle = "Notes"\naccess = {json.dumps(access)}\n',
        encoding="utf-8")
    return root


@pytest.fixture
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The use cases and the command build their own Ingestor: the hash embedder and the pattern extractor, no
    model."""
    monkeypatch.setattr("graphrag.ingest.pipeline.get_embedder", lambda config: HashEmbedder())
    monkeypatch.setattr("graphrag.ingest.store_extractor", lambda *a, **k: PatternExtractor())


def assert_untouched(store: Store) -> None:
    assert [(d.version, d.title, d.access, d.superseded) for d in store.documents()] == [
        (1, "Qzc merger plan", ("internal",), False)]
    assert not [e for e in store.audit() if e.event == "relabel"]


def assert_refusal_names_nothing_hidden(d: DocumentReport) -> None:
    assert d.status == "refused" and d.version is None and d.not_ingested
    message = d.error or ""
    assert "your labels do not show" in message
    for hidden in ("internal", "Qzc", "version 1", "v1", "supersedes"):
        assert hidden not in message and hidden not in (d.note or "")


@pytest.mark.parametrize("text", [REPLACEMENT, SECRET], ids=["new-version", "relabel"])
def test_a_narrower_admin_cannot_replace_or_relabel_a_hidden_document_by_folder(
        any_store: Store, tmp_path: Path, hash_embedder: None, text: str) -> None:
    internal_plan(any_store)
    config = Config.from_env({"GRAPHRAG_INGEST_ROOTS": str(tmp_path)})
    work = ingest.folder_work(any_store, public_admin(), config, PatternExtractor(), str(folder(tmp_path, text,
                                                                                              ["public"])))
    (plan,) = work(lambda p: None).documents
    assert_refusal_names_nothing_hidden(plan)
    assert_untouched(any_store)
    assert load_graph(any_store).visible_rows(PUBLIC, True).sum() == 0
    # an admin who sees the document may still do it
    seeing = Viewer(BOB, frozenset({"public", "internal"}), "admin", team=True)
    (plan,) = ingest.folder_work(any_store, seeing, config, PatternExtractor(), str(folder(tmp_path, text,
                                                                                          ["public"])))(
        lambda p: None).documents
    assert (plan.status, plan.version) == (("ok", 2) if text == REPLACEMENT else ("relabelled", 1))


def test_an_admin_gives_only_labels_they_hold_and_the_form_offers_only_those(store: Store, tmp_path: Path,
                                                                             hash_embedder: None) -> None:
    internal_plan(store)
    admin = public_admin()
    assert ingest.upload_label_choices(store, admin, Config.from_env({})) == ["public"]
    work = ingest.upload_work(store, admin, Config.from_env({}), PatternExtractor(),
                              [ingest.Upload("memo.md", b"Memo9 uses Vault9.\n")], ["internal"])
    (memo,) = work(lambda p: None).documents
    assert memo.status == "refused" and "you may give only labels you hold (public)" in (memo.error or "")
    assert store.current_document("memo") is None


def test_a_race_between_the_check_and_the_write_is_refused_in_the_transaction(any_store: Store) -> None:
    """The document was new when the narrower admin's ingest looked, and internal by the time it wrote."""
    ingestor = Ingestor(any_store, PatternExtractor(), HashEmbedder(), viewer=PUBLIC)
    staged = ingestor._stage([Source("plan", "Notes", REPLACEMENT, access=PUBLIC)])
    internal_plan(any_store)  # another instance's ingest commits meanwhile
    (plan,) = ingestor._finish(staged)
    assert_refusal_names_nothing_hidden(plan)
    assert_untouched(any_store)


def test_the_command_line_with_labels_refuses_and_says_so(store: Store, tmp_path: Path, hash_embedder: None,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    internal_plan(store)
    root = folder(tmp_path, REPLACEMENT, ["public"])
    code = main(["ingest", str(root), "--store", str(store.path), "--access", "public", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["totals"]["refused"] == 1
    assert_refusal_names_nothing_hidden(DocumentReport(**{**out["documents"][0],
                                                          "access": tuple(out["documents"][0]["access"])}))
    assert_untouched(store)
    (row,) = [e for e in store.audit() if e.event == "ingest"]
    assert row.detail["labels"] == ["public"]  # written before the ingest: the totals are the report's


def test_the_python_facade_with_labels_refuses(store: Store, tmp_path: Path) -> None:
    internal_plan(store)
    report = graphrag.ingest_paths(store, [folder(tmp_path, REPLACEMENT, ["public"])], extractor=PatternExtractor(),
                                   embedder=HashEmbedder(), access=PUBLIC)
    assert_refusal_names_nothing_hidden(report.documents[0])
    assert_untouched(store)


# --- a narrowing that comes with new text reaches every stored version -----------------------------------------


def test_a_new_version_that_narrows_the_labels_narrows_every_older_version(any_store: Store, tmp_path: Path) -> None:
    ingestor = Ingestor(any_store, PatternExtractor(), HashEmbedder())
    ingestor.ingest([Source("plan", "Plan", SECRET, access=PUBLIC)])
    assert load_graph(any_store).visible_rows(PUBLIC, True).sum() == 1  # the graph is cached now
    before = any_store.generation()
    (plan,) = ingestor.ingest_paths([folder(tmp_path, REPLACEMENT, ["internal"])]).documents

    assert (plan.version, plan.supersedes) == (2, 1)
    assert "its labels internal also apply to version(s) 1" in (plan.note or "")
    assert [(d.version, d.access) for d in any_store.documents()] == [(1, ("internal",)), (2, ("internal",))]
    assert any_store.generation() > before
    assert load_graph(any_store).visible_rows(PUBLIC, True).sum() == 0  # "Use superseded versions" shows nothing
    (row,) = [e for e in any_store.audit() if e.event == "relabel"]
    assert row.detail["doc_id"] == "plan" and row.detail["version"] == 2 and row.detail["also_narrowed"] == [1]
    assert row.detail["narrowed"] == [{"version": 1, "from": {"access": ["public"]}}]


def test_a_new_version_that_broadens_leaves_the_older_text_where_it_was(store: Store) -> None:
    ingestor = Ingestor(store, PatternExtractor(), HashEmbedder())
    ingestor.ingest([Source("plan", "Plan", SECRET, access=("internal",))])
    (plan,) = ingestor.ingest([Source("plan", "Plan", REPLACEMENT, access=PUBLIC)]).documents
    assert "version(s) 1 keep their own labels" in (plan.note or "")
    assert [(d.version, d.access) for d in store.documents()] == [(1, ("internal",)), (2, PUBLIC)]
    assert not [e for e in store.audit() if e.event == "relabel"]


def test_the_command_line_reports_the_narrowing(store: Store, tmp_path: Path, hash_embedder: None,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([Source("plan", "Plan", SECRET, access=PUBLIC)])
    assert main(["ingest", str(folder(tmp_path, REPLACEMENT, ["internal"])), "--store", str(store.path)]) == 0
    assert "its labels internal also apply to version(s) 1" in capsys.readouterr().out


def test_a_folder_holding_a_documents_drafts_does_not_undo_the_narrowing_when_ingested_again(
        any_store: Store, tmp_path: Path) -> None:
    """The 2025 draft is public in the manifest, its 2026 successor internal: the draft goes internal with it, and
    a second ingest of the same folder changes nothing (it does not relabel the draft public again)."""
    root = tmp_path / "drafts"
    root.mkdir()
    (root / "a-2025.md").write_text(SECRET, encoding="utf-8")
    (root / "b-2026.md").write_text(REPLACEMENT, encoding="utf-8")
    (root / "manifest.toml").write_text(
        '[[documents]]\nfile = "a-2025.md"\nid = "plan"\naccess = ["public"]\n'
        '[[documents]]\nfile = "b-2026.md"\nid = "plan"\naccess = ["internal"]\n', encoding="utf-8")
    ingestor = Ingestor(any_store, PatternExtractor(), HashEmbedder())
    assert [d.status for d in ingestor.ingest_paths([root]).documents] == ["ok", "ok"]
    assert [(d.version, d.access) for d in any_store.documents()] == [(1, ("internal",)), (2, ("internal",))]
    rows = len(any_store.audit())
    assert [d.status for d in ingestor.ingest_paths([root]).documents] == ["unchanged", "unchanged"]
    assert [(d.version, d.access) for d in any_store.documents()] == [(1, ("internal",)), (2, ("internal",))]
    assert len(any_store.audit()) == rows


def test_a_narrower_admin_cannot_remove_a_document_they_cannot_see(any_store: Store) -> None:
    """The same rule for removal: the page offers only documents the admin sees, but a forged request or the facade
    named the hidden id and removed it. Refused with the unknown id's message; nothing is removed or audited."""
    internal_plan(any_store)
    Ingestor(any_store, PatternExtractor(), HashEmbedder()).ingest(
        [Source("plan", "Plan, public draft", REPLACEMENT, access=("public",))])
    config = Config.from_env({})
    with pytest.raises(InputError, match="no document 'plan' in the store"):
        ingest.remove_document(any_store, public_admin(), config, "plan", 1, actor="bob")
    with pytest.raises(InputError, match="versions your labels do not show") as refused:
        ingest.remove_document(any_store, public_admin(), config, "plan", actor="bob")
    assert "internal" not in str(refused.value) and "Qzc" not in str(refused.value)
    assert len(any_store.documents(include_superseded=True)) == 2
    assert not [e for e in any_store.audit() if e.event == "remove"]
    done = ingest.remove_document(any_store, public_admin(), config, "plan", 2, actor="bob")  # the one it sees
    assert done.versions == (2,) or list(done.versions) == [2]
