"""Manifest entries that name their file slightly wrong never make the file public.

Before, `file = "./payroll.md"`, `file = "sub\\\\payroll.md"` or `file = "board.md"` (for Board.md)
matched nothing, without a word, and the file was ingested with the [defaults] labels.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.ingest.pipeline import DocumentReport, Ingestor
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit

PAYROLL = "Payroll1 uses Ledger2 for the monthly run.\n"
NOTES = "Notes1 uses Wiki2 for the handbook.\n"


def ingest(store: Store, root: Path, files: dict[str, str], manifest: str,
           target: Path | None = None) -> tuple[dict[str, DocumentReport], tuple[str, ...]]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "manifest.toml").write_text(manifest, encoding="utf-8")
    report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest_paths([target or root])
    return {d.id: d for d in report.documents}, report.problems


def internal(file: str, **extra: str) -> str:
    more = "".join(f'{k} = "{v}"\n' for k, v in extra.items())
    return f'[defaults]\naccess = ["public"]\n\n[[documents]]\nfile = {file}\naccess = ["internal"]\n{more}'


def stored_access(store: Store, doc_id: str) -> tuple[str, ...] | None:
    doc = store.current_document(doc_id)
    return doc.access if doc else None


@pytest.mark.parametrize("file", ['"./payroll.md"', '"sub/../payroll.md"', '".//payroll.md"'])
def test_a_dotted_path_names_its_file(store: Store, tmp_path: Path, file: str) -> None:
    by_id, problems = ingest(store, tmp_path, {"payroll.md": PAYROLL, "notes.md": NOTES}, internal(file))
    assert by_id["payroll"].status == "ok" and stored_access(store, "payroll") == ("internal",)
    assert stored_access(store, "notes") == ("public",)  # an exact match holds no one else back
    assert not problems


def test_a_backslash_path_names_its_file_in_a_subfolder(store: Store, tmp_path: Path) -> None:
    by_id, _ = ingest(store, tmp_path, {"sub/payroll.md": PAYROLL, "notes.md": NOTES}, internal("'sub\\payroll.md'"))
    assert by_id["sub/payroll"].status == "ok" and stored_access(store, "sub/payroll") == ("internal",)
    assert stored_access(store, "notes") == ("public",)


def test_an_entry_that_matches_only_ignoring_case_rejects_that_file(store: Store, tmp_path: Path) -> None:
    by_id, problems = ingest(store, tmp_path, {"Board.md": PAYROLL, "notes.md": NOTES}, internal('"board.md"'))
    assert by_id["Board"].status == "rejected"
    assert "letter case" in (by_id["Board"].error or "") and "file = 'Board.md'" in (by_id["Board"].error or "")
    assert stored_access(store, "Board") is None  # never public
    assert stored_access(store, "notes") == ("public",)  # the mistake is told apart: others go in
    assert any("'board.md' matches no file exactly" in p for p in problems)


@pytest.mark.parametrize("file,why", [('"payroll"', "another extension"), ('"payroll.txt"', "another extension"),
                                      ('"old/payroll.md"', "same name"), ('"../payroll.md"', "same name"),
                                      ('"/srv/docs/payroll.md"', "same name")])
def test_an_entry_for_a_near_name_rejects_the_file_it_may_mean(store: Store, tmp_path: Path, file: str, why: str) -> None:
    root = tmp_path / "c"
    root.mkdir()
    by_id, problems = ingest(store, root, {"payroll.md": PAYROLL, "notes.md": NOTES}, internal(file))
    assert by_id["payroll"].status == "rejected" and why in (by_id["payroll"].error or "")
    assert stored_access(store, "payroll") is None
    assert stored_access(store, "notes") == ("public",)
    assert problems


def test_an_entry_that_matches_nothing_holds_back_every_file_that_would_get_the_defaults(
        store: Store, tmp_path: Path) -> None:
    manifest = internal('"salaries.md"') + '\n[[documents]]\nfile = "own.md"\naccess = ["public"]\n'
    by_id, problems = ingest(store, tmp_path, {"payroll.md": PAYROLL, "notes.md": NOTES, "own.md": NOTES}, manifest)
    for held in ("payroll", "notes"):
        assert by_id[held].status == "rejected" and "cannot be told" in (by_id[held].error or "")
        assert stored_access(store, held) is None
    assert stored_access(store, "own") == ("public",)  # it has its own entry: no doubt about its labels
    assert any("'salaries.md' matches no file" in p and "2 file(s)" in p for p in problems)


def test_an_entry_without_a_file_key_holds_back_the_default_files(store: Store, tmp_path: Path) -> None:
    manifest = '[[documents]]\nfiel = "payroll.md"\naccess = ["internal"]\n'
    by_id, _ = ingest(store, tmp_path, {"payroll.md": PAYROLL}, manifest)
    assert by_id["payroll"].status == "rejected" and stored_access(store, "payroll") is None


@pytest.mark.parametrize("second", ['"payroll.md"', '"./payroll.md"'])
def test_two_entries_for_one_file_reject_it(store: Store, tmp_path: Path, second: str) -> None:
    manifest = internal('"payroll.md"') + f'\n[[documents]]\nfile = {second}\naccess = ["public"]\n'
    by_id, problems = ingest(store, tmp_path, {"payroll.md": PAYROLL, "notes.md": NOTES}, manifest)
    assert by_id["payroll"].status == "rejected" and stored_access(store, "payroll") is None
    assert "payroll.md" in (by_id["payroll"].error or "") and problems
    assert stored_access(store, "notes") == ("public",)


def test_one_file_named_alone_is_not_held_back_by_a_case_mistake_about_another(store: Store, tmp_path: Path) -> None:
    by_id, _ = ingest(store, tmp_path, {"Board.md": PAYROLL, "notes.md": NOTES}, internal('"board.md"'),
                      target=tmp_path / "notes.md")
    assert set(by_id) == {"notes"} and stored_access(store, "notes") == ("public",)
    by_id, _ = ingest(store, tmp_path, {}, internal('"board.md"'), target=tmp_path / "Board.md")
    assert by_id["Board"].status == "rejected" and stored_access(store, "Board") is None
