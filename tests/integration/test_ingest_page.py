"""The Ingest page (AppTest, real models): uploads never replace a document unconfirmed, carry the
labels the uploader chose, survive odd names; a folder ingest names only the files it attempted."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import app, copy_store, ok, texts, write_corpus
from graphrag.store import Store

pytestmark = [pytest.mark.model, pytest.mark.slow]

NEW_EXPORTS = b"# My exports\n\nExports use the weekly snapshot from now on.\n"


@pytest.fixture
def store_path(tiny_store: Path, tmp_path: Path) -> Path:
    return copy_store(tiny_store, tmp_path / "store.db")


def ingest_page(monkeypatch: pytest.MonkeyPatch, store: Path, access: list[str] | None = None):
    at = app(monkeypatch, store)
    if access:
        at.session_state["access"] = access
    at = ok(at)
    at.switch_page("views/ingest.py")
    return ok(at)


def unescaped(s: str) -> str:
    return s.replace("\\", "")


def rows(at) -> dict[str, dict]:
    return {r["document"]: r for r in at.dataframe[0].value.to_dict("records")}


def test_an_upload_named_like_a_document_needs_confirming_to_become_its_version(
        monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ingest_page(monkeypatch, store_path)
    at.file_uploader(key="ingest_uploads").set_value([("exports.md", NEW_EXPORTS, "text/markdown")])
    at = ok(at)
    (box,) = at.checkbox
    assert unescaped(box.label) == "Ingest exports.md as version 2 of exports"
    (said,) = [unescaped(t) for t in texts(at.warning)]
    assert "existing document exports: \u201cData exports\u201d, version 1, labels public" in said
    assert "stored as a new document exports-2" in said
    at = ok(at.button(key="ingest_go").click())  # not ticked: a document of its own
    assert rows(at)["exports-2"]["status"] == "ok"
    with Store(store_path) as s:
        assert s.current_document("exports").version == 1
    assert not at.file_uploader[0].value and not at.checkbox  # emptied: a second click stores nothing again
    at.file_uploader[0].set_value([("exports.md", NEW_EXPORTS, "text/markdown")])
    at = ok(at)
    at = ok(at.checkbox[0].check())
    at = ok(at.button(key="ingest_go").click())
    assert rows(at)["exports"]["supersedes"] == "v1"


def test_uploads_default_to_the_most_restrictive_labels_held(monkeypatch: pytest.MonkeyPatch,
                                                              store_path: Path) -> None:
    at = ingest_page(monkeypatch, store_path, access=["internal", "public"])
    assert at.multiselect(key="ingest_labels").value == ["internal"]
    at.file_uploader(key="ingest_uploads").set_value([("plan.md", b"# Plan\n\nPlans use the snapshot.\n", "text/md")])
    at = ok(at)
    at = ok(at.button(key="ingest_go").click())
    with Store(store_path) as s:
        assert s.current_document("plan").access == ("internal",)


def test_a_hidden_document_is_not_revealed_by_an_upload_of_its_name(monkeypatch: pytest.MonkeyPatch,
                                                                    store_path: Path) -> None:
    at = ingest_page(monkeypatch, store_path)  # public only; "ops" is internal
    at.file_uploader(key="ingest_uploads").set_value([("ops.md", NEW_EXPORTS, "text/markdown")])
    at = ok(at)
    assert not at.checkbox  # nothing about the internal document is shown
    at = ok(at.button(key="ingest_go").click())
    assert rows(at)["ops-2"]["status"] == "ok" and "Operations" not in repr(rows(at))
    with Store(store_path) as s:
        assert s.current_document("ops").version == 1


def test_odd_upload_names_neither_crash_nor_drop_the_batch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = ingest_page(monkeypatch, tmp_path / "s.db")
    at.file_uploader(key="ingest_uploads").set_value([
        ("n" * 300 + ".md", b"# Long\n\nLong names use the snapshot.\n", "text/markdown"),
        ("same.md", b"# First\n\nThe first file uses exports.\n", "text/markdown"),
        ("same.md", b"# Second\n\nThe second file uses snapshots.\n", "text/markdown"),
        ("\x1b[31mred\x1b[0m.md", b"# \x1b[2JTitle\n\nRed uses blue.\n", "text/markdown"),
    ])
    at = ok(at)
    at = ok(at.button(key="ingest_go").click())
    got = rows(at)
    assert got["same"]["status"] == "ok" and got["same-2"]["status"] == "ok"
    assert got["red"]["title"] == "Title" and any(k.startswith("nnnn") and got[k]["status"] == "ok" for k in got)
    assert not any("\x1b" in str(v) for r in got.values() for v in r.values())


def test_a_folder_ingest_counts_what_it_skipped_and_names_none_of_it(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "shadow.md").write_text("Shadowcanary uses the root password.\n")
    (corpus / "linked.md").symlink_to(tmp_path / "elsewhere" / "shadow.md")
    (corpus / "id_rsa").write_text("secret key")
    (corpus / "payroll.xlsx").write_text("cells")
    at = ingest_page(monkeypatch, tmp_path / "s.db")
    at.segmented_control(key="ingest_source").set_value("Folder on this machine")
    at = ok(at)
    at = ok(at.text_input(key="ingest_folder").set_value(str(corpus)))
    at = ok(at.button(key="ingest_go").click())
    assert set(rows(at)) == {"exports", "faq", "ops"}
    infos = [unescaped(t) for t in texts(at.info)]
    assert "2 files skipped: unsupported type" in infos and "1 file skipped: outside the folder" in infos
    shown = repr([(e.type, getattr(e, "value", ""), getattr(e, "label", "")) for e in at.main.children.values()]
                 + [str(e.value) for e in (*at.info, *at.error, *at.warning, *at.caption, *at.markdown)]) + repr(rows(at))
    assert "files skipped" in shown and "exports" in shown  # (the check below sees what the page shows)
    for name in ("linked", "id_rsa", "payroll", "shadow", "Shadowcanary"):
        assert name not in shown, name


def test_a_folder_ingest_follows_a_nested_manifest_and_applies_a_relabel(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    """Issue 22: the page's folder ingest stored `sub/vault` public beside its manifest marking it internal,
    and a relabel on unchanged bytes was reported unchanged."""
    corpus = write_corpus(tmp_path / "corpus")
    (corpus / "sub").mkdir()
    (corpus / "sub" / "manifest.toml").write_text('[defaults]\naccess = ["internal"]\n')
    (corpus / "sub" / "vault.md").write_text("# Vault\n\nThe vault opens at night.\n")
    at = ingest_page(monkeypatch, tmp_path / "s.db")
    at.segmented_control(key="ingest_source").set_value("Folder on this machine")
    at = ok(at)
    at = ok(at.text_input(key="ingest_folder").set_value(str(corpus)))
    at = ok(at.button(key="ingest_go").click())
    assert rows(at)["sub/vault"]["status"] == "ok"
    with Store(tmp_path / "s.db") as s:
        assert s.current_document("sub/vault").access == ("internal",)
    (corpus / "sub" / "manifest.toml").write_text('[defaults]\naccess = ["board"]\n')
    at = ok(at.button(key="ingest_go").click())
    assert rows(at)["sub/vault"]["status"] == "relabelled"
    with Store(tmp_path / "s.db") as s:
        assert s.current_document("sub/vault").access == ("board",)
        (event,) = [e for e in s.audit() if e.event == "relabel"]
        assert event.detail["via"] == "dashboard" and event.detail["to"]["access"] == ["board"]


def test_an_upload_past_a_read_limit_is_refused_on_the_page_and_the_rest_goes_in(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A 13 KB PDF of 50 pages of 120,000 stroked lines: before, read for about a minute to end in "no text layer"."""
    from doc_helpers import drawing_pdf

    at = ingest_page(monkeypatch, tmp_path / "s.db")
    at.file_uploader(key="ingest_uploads").set_value([
        ("plan.pdf", drawing_pdf(50, 120_000), "application/pdf"),
        ("notes.md", b"# Notes\n\nExports use the weekly snapshot.\n", "text/markdown"),
    ])
    at = ok(at)
    at = ok(at.button(key="ingest_go").click())
    got = rows(at)
    assert got["plan"]["status"] == "rejected" and got["notes"]["status"] == "ok", got
    assert got["plan"]["message"].startswith("page 1 draws 120,000 objects; the limit is 100,000 a page")
    with Store(tmp_path / "s.db") as s:  # nothing of the refused file is stored
        assert [d.id for d in s.documents()] == ["notes"]
