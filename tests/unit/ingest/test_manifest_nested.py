"""The nearest manifest governs every file below it, and a manifest's schema is closed.

Before, ingesting `parent/` listed `parent/sub/manifest.toml` as "unsupported file type .toml" and
stored `sub/vault` public (the same text went in internal when `parent/sub` was ingested), and a
misspelt table or key (`[[document]]`, `[default]`, `acess`) was dropped without a word: every
file went in public with `problems: []`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphrag.ingest.pipeline import DocumentReport, Ingestor, IngestReport
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit

VAULT = "Vault7 uses Canary9 behind the wall.\n"
NOTES = "Notes1 uses Wiki2 for the handbook.\n"
INTERNAL = '[defaults]\naccess = ["internal"]\n'


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def ingest(store: Store, path: Path, *, name_skipped: bool = True) -> tuple[dict[str, DocumentReport], IngestReport]:
    report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest_paths([path], name_skipped=name_skipped)
    return {d.id: d for d in report.documents}, report


def public_texts(store: Store) -> str:
    return "\n".join(d.text for d in store.documents() if "public" in d.access)


# --- nested manifests -------------------------------------------------------------------------


@pytest.mark.parametrize("name_skipped", [True, False], ids=["cli", "ingest-page"])
def test_a_manifest_in_a_subfolder_governs_its_files_when_the_parent_is_ingested(
        store: Store, tmp_path: Path, name_skipped: bool) -> None:
    root = tree(tmp_path / "parent", {"notes.md": NOTES, "sub/vault.md": VAULT, "sub/manifest.toml": INTERNAL})
    by_id, report = ingest(store, root, name_skipped=name_skipped)
    assert by_id["sub/vault"].status == "ok"
    assert store.current_document("sub/vault").access == ("internal",)
    assert store.current_document("notes").access == ("public",)
    assert "Canary9" not in public_texts(store)
    assert not report.problems and not report.skipped  # the manifest is no "unsupported file type"
    assert "sub/manifest" not in by_id


def test_the_nearest_manifest_wins_over_every_manifest_above_it(store: Store, tmp_path: Path) -> None:
    root = tree(tmp_path / "p", {
        "manifest.toml": '[defaults]\naccess = ["public"]\n',
        "a/manifest.toml": INTERNAL,
        "a/b/c/deep.md": VAULT,  # no manifest in b or c: a's applies
        "a/b/manifest.toml": '[defaults]\naccess = ["hr"]\n[[documents]]\nfile = "c/deep.md"\naccess = ["board"]\n',
    })
    ingest(store, root)
    assert store.current_document("a/b/c/deep").access == ("board",)  # b's entry, relative to b


def test_a_subfolder_manifest_without_defaults_does_not_inherit_the_parents(store: Store, tmp_path: Path) -> None:
    """The nearest manifest is the whole story for its files (its own [defaults], public when absent):
    the README says so, and the entry below is what a writer of such a manifest would expect."""
    root = tree(tmp_path / "p", {"manifest.toml": INTERNAL, "sub/vault.md": VAULT, "sub/open.md": NOTES,
                                 "sub/manifest.toml": '[[documents]]\nfile = "vault.md"\naccess = ["hr"]\n'})
    ingest(store, root)
    assert store.current_document("sub/vault").access == ("hr",)
    assert store.current_document("sub/open").access == ("public",)


def test_a_parent_entry_for_a_file_a_nearer_manifest_governs_is_refused_as_ambiguous(
        store: Store, tmp_path: Path) -> None:
    root = tree(tmp_path / "p", {
        "manifest.toml": '[[documents]]\nfile = "sub/vault.md"\naccess = ["public"]\n',
        "sub/manifest.toml": INTERNAL, "sub/vault.md": VAULT, "sub/other.md": NOTES, "top.md": NOTES,
    })
    by_id, report = ingest(store, root)
    assert by_id["sub/vault"].status == "rejected" and "nearest manifest" in (by_id["sub/vault"].error or "")
    assert store.current_document("sub/vault") is None
    assert store.current_document("sub/other").access == ("internal",)  # the rest of sub goes in as sub says
    assert by_id["top"].status == "ok"  # the parent's entry is not "a file it matches none of"
    assert any("sub/vault.md" in p and "nearest manifest" in p for p in report.problems)


@pytest.mark.parametrize("bad", ["[[documents]\n", "link", "Manifest.toml", "fifo"],
                         ids=["malformed", "link-out", "case", "fifo"])
def test_a_nested_manifest_that_cannot_be_used_holds_back_its_files(store: Store, tmp_path: Path, bad: str) -> None:
    root = tree(tmp_path / "p", {"notes.md": NOTES, "sub/vault.md": VAULT})
    if bad == "link":
        tree(tmp_path, {"elsewhere/manifest.toml": INTERNAL})
        (root / "sub" / "manifest.toml").symlink_to(tmp_path / "elsewhere" / "manifest.toml")
    elif bad == "fifo":
        os.mkfifo(root / "sub" / "manifest.toml")
    elif bad == "Manifest.toml":
        tree(root, {"sub/Manifest.toml": INTERNAL})  # read on a case-insensitive disk: not a guess on this one
    else:
        tree(root, {"sub/manifest.toml": bad})
    by_id, report = ingest(store, root)
    why = by_id["sub/vault"].error or ""
    assert by_id["sub/vault"].status == "rejected" and "manifest" in why
    assert ("letter case" in why) == (bad == "Manifest.toml")
    assert store.current_document("sub/vault") is None and "Canary9" not in public_texts(store)
    assert by_id["notes"].status == "ok"
    assert any("sub" in p for p in report.problems)


# --- a closed schema ----------------------------------------------------------------------------

ENTRY = '[[documents]]\nfile = "vault.md"\naccess = ["internal"]\n'


@pytest.mark.parametrize(("manifest", "key", "nearest"), [
    ('[[document]]\nfile = "vault.md"\naccess = ["internal"]\n', "document", "documents"),
    ('[default]\naccess = ["internal"]\n', "default", "defaults"),
    ('[Defaults]\naccess = ["internal"]\n', "Defaults", "defaults"),
    ('[defaults]\nacess = ["internal"]\n', "acess", "access"),
    ('[[documents]]\nfile = "vault.md"\nacess = ["internal"]\n', "acess", "access"),
    ('[[documents]]\nfile = "vault.md"\naccess = ["internal"]\ntitel = "Vault"\n', "titel", "title"),
    ('[[documents]]\nfile = "vault.md"\naccess = ["internal"]\neffective = "2024-01-01"\n', "effective",
     "effective_date"),
    ('access = ["internal"]\n' + ENTRY, "access", None),
], ids=["[[document]]", "[default]", "[Defaults]", "defaults-acess", "entry-acess", "entry-titel", "entry-effective",
        "top-level-access"])
def test_an_unknown_table_or_key_holds_back_every_file_it_may_concern(
        store: Store, tmp_path: Path, manifest: str, key: str, nearest: str | None) -> None:
    root = tree(tmp_path / "c", {"vault.md": VAULT, "manifest.toml": manifest})
    by_id, report = ingest(store, root)
    assert by_id["vault"].status == "rejected"
    assert store.current_document("vault") is None
    problems = report.to_json()["problems"]  # what `graphrag ingest --json` prints
    assert isinstance(problems, list)
    (said,) = [p for p in problems if f"unknown key {key!r}" in p]
    assert nearest is None or f"did you mean {nearest!r}" in said
    assert f"unknown key {key!r}" in (by_id["vault"].error or "")


def test_an_unknown_key_in_one_entry_holds_back_only_that_file(store: Store, tmp_path: Path) -> None:
    root = tree(tmp_path / "c", {"vault.md": VAULT, "notes.md": NOTES, "manifest.toml": (
        '[[documents]]\nfile = "vault.md"\nacess = ["internal"]\n'
        '[[documents]]\nfile = "notes.md"\naccess = ["public"]\n')})
    by_id, _ = ingest(store, root)
    assert by_id["vault"].status == "rejected" and by_id["notes"].status == "ok"


def test_the_valid_schema_is_accepted_without_problems(store: Store, tmp_path: Path) -> None:
    root = tree(tmp_path / "c", {"vault.md": VAULT, "manifest.toml": (
        '[defaults]\naccess = ["public"]\n[[documents]]\nfile = "vault.md"\nid = "vault"\ntitle = "Vault"\n'
        'effective_date = 2024-01-01\naccess = ["internal"]\n')})
    by_id, report = ingest(store, root)
    assert by_id["vault"].status == "ok" and not report.problems
    doc = store.current_document("vault")
    assert doc is not None and (doc.title, doc.effective_date, doc.access) == ("Vault", "2024-01-01", ("internal",))


# --- a manifest above the chosen folder -------------------------------------------------------------


@pytest.mark.parametrize("target", ["sub", "sub/vault.md"], ids=["subfolder", "one-file"])
def test_ingesting_below_a_manifest_follows_it_as_ingesting_its_folder_does(store: Store, tmp_path: Path,
                                                                           target: str) -> None:
    root = tree(tmp_path / "p", {"manifest.toml": INTERNAL + '[[documents]]\nfile = "sub/vault.md"\naccess = ["hr"]\n',
                                 "sub/vault.md": VAULT, "sub/open.md": NOTES, "sibling.md": NOTES})
    by_id, report = ingest(store, root / target)
    assert store.current_document("vault").access == ("hr",)  # the entry, named relative to the manifest
    if target == "sub":
        assert store.current_document("open").access == ("internal",)  # the manifest's [defaults]
    assert not report.problems and "sibling" not in by_id  # an entry for a file outside is no problem


def test_a_manifest_above_the_folder_that_another_user_owns_holds_the_files_back(store: Store,
                                                                                 tmp_path: Path) -> None:
    """Another user's manifest in a shared folder above (/tmp) must not give the files ids or labels."""
    if os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    root = tree(tmp_path / "shared", {"manifest.toml": '[[documents]]\nfile = "mine/notes.md"\nid = "ops"\n',
                                      "mine/notes.md": NOTES})
    os.chown(root / "manifest.toml", 12345, 12345)
    by_id, _ = ingest(store, root / "mine")
    assert by_id["notes"].status == "rejected" and "another user" in (by_id["notes"].error or "")
    assert store.current_document("ops") is None and store.current_document("notes") is None
