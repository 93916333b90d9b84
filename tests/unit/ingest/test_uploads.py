"""Uploads: ids that never replace a document by accident, access labels the uploader chooses,
and names (300 characters, control characters, ANSI escapes, paths) that cannot hurt.

Before, uploading `billing.md` silently made a public version 2 of the handbook's `billing`,
two uploads with one name lost the first, and a 300-character name raised OSError.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphrag.ingest.documents import Rejected, Source
from graphrag.ingest.pipeline import Ingestor
from graphrag.ingest.uploads import MAX_NAME_CHARS, Upload, assign_ids, default_labels, prepare_uploads
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit

BILLING_V1 = b"# Billing\n\nBilling1 uses Invoice2 every month.\n"
MINE = b"# My notes\n\nNotes1 uses Draft2 for the plan.\n"


@pytest.fixture
def handbook(store: Store) -> Store:
    Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([
        Source("billing", "Billing", BILLING_V1.decode(), access=("public",)),
        Source("ops", "Secret operations", "Ops1 uses Falcon2 at night.\n", access=("internal",)),
    ])
    return store


def ingest(store: Store, uploads: list[Upload], **kw: object) -> dict[str, object]:
    kw.setdefault("viewer_access", ("public",))
    kw.setdefault("labels", ("public",))
    items = prepare_uploads(uploads, store, **kw)
    report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest(items)
    return {d.id: d for d in report.documents}


def test_the_most_restrictive_labels_held_are_the_default() -> None:
    assert default_labels(["public", "internal", "finance"]) == ("finance", "internal")
    assert default_labels(["public"]) == ("public",)
    assert default_labels([]) == ("public",)


def test_an_upload_named_like_a_visible_document_gets_its_own_id_unless_confirmed(handbook: Store) -> None:
    (a,) = assign_ids(["billing.md"], handbook, ("public",))
    assert a.clash is not None and (a.clash.id, a.clash.title, a.clash.version, a.clash.access) == (
        "billing", "Billing", 1, ("public",))
    by_id = ingest(handbook, [Upload("billing.md", MINE)], labels=("internal",))
    assert by_id["billing-2"].status == "ok" and "existing document" in (by_id["billing-2"].note or "")
    billing = handbook.current_document("billing")
    assert billing is not None and billing.version == 1 and billing.text == BILLING_V1.decode()
    assert handbook.current_document("billing-2").access == ("internal",)

    by_id = ingest(handbook, [Upload("billing.md", MINE)], labels=("internal",), new_versions={"billing"})
    assert by_id["billing"].supersedes == 1
    assert handbook.current_document("billing").access == ("internal",)


def test_an_upload_named_like_a_hidden_document_gets_its_own_id_and_learns_nothing(handbook: Store) -> None:
    (a,) = assign_ids(["ops.md"], handbook, ("public",))
    assert a.clash is None and a.id == "ops-2" and "Secret" not in (a.note or "")
    by_id = ingest(handbook, [Upload("ops.md", MINE)])
    assert by_id["ops-2"].status == "ok"
    assert handbook.current_document("ops").version == 1


def test_an_upload_named_like_a_hidden_document_reads_as_any_upload_but_for_its_id(handbook: Store,
                                                                                    tmp_path) -> None:
    """Before, the report said "the id 'ops' is taken": an oracle for the ids of documents one cannot see."""
    hidden = ingest(handbook, [Upload("ops.md", MINE)])["ops-2"]
    with Store(tmp_path / "empty.db") as empty:
        free = ingest(empty, [Upload("ops.md", MINE)])["ops"]
    assert replace(hidden, id="ops") == free  # same title, status, counts, note (none), path
    assert hidden.note is None and hidden.error is None


def test_two_uploads_with_one_name_are_both_kept(store: Store) -> None:
    by_id = ingest(store, [Upload("notes.md", MINE), Upload("notes.md", BILLING_V1),
                           Upload("sub/notes.md", b"Sub1 uses Note2.")])
    assert [by_id[i].status for i in ("notes", "notes-2", "notes-3")] == ["ok", "ok", "ok"]
    assert store.current_document("notes").text == MINE.decode()


def test_a_300_character_name_is_cut_and_the_batch_goes_in(store: Store) -> None:
    long = "n" * 300 + ".md"
    by_id = ingest(store, [Upload(long, MINE), Upload("other.md", BILLING_V1)])
    (doc_id,) = [i for i in by_id if i.startswith("nnn")]
    assert by_id[doc_id].status == "ok" and len(doc_id) < MAX_NAME_CHARS
    assert by_id["other"].status == "ok"


def test_control_characters_and_ansi_escapes_never_reach_ids_or_titles(store: Store) -> None:
    name = "\x1b[31mred\x1b[0m\u202e\x07note\ts\n.md"
    text = b"# \x1b]0;pwned\x07Title\x1b[2J with \x00bell\x07\n\nNotes1 uses Draft2.\n".replace(b"\x00", b"")
    items = prepare_uploads([Upload(name, text), Upload("../../etc/passwd.md", MINE)], store,
                            viewer_access=("public",), labels=("public",))
    assert all(isinstance(x, Source) for x in items)
    first, second = items
    assert first.id == "rednote s" and first.title == "Title with bell"
    assert second.id == "passwd"
    for x in items:
        for s in (x.id, x.title):
            assert all(ord(c) >= 32 and c not in "\x7f\u202e" for c in s), repr(s)


def test_uploads_are_checked_like_files_and_need_a_label(store: Store) -> None:
    items = prepare_uploads([Upload("a.md", b"\x00\x01bin"), Upload("b.exe", b"MZ"), Upload("c.md", b"x" * 101),
                             Upload("d.pdf", b"not a pdf at all")],
                            store, viewer_access=("public",), labels=("public",), max_bytes=100)
    reasons = [x.reason for x in items if isinstance(x, Rejected)]
    assert len(reasons) == 4 and "binary" in reasons[0] and "unsupported" in reasons[1] and "limit" in reasons[2]
    assert "extension says PDF" in reasons[3]
    (none,) = prepare_uploads([Upload("a.md", MINE)], store, viewer_access=("public",), labels=())
    assert isinstance(none, Rejected) and "access label" in none.reason


def test_files_and_corpus_paragraphs_get_clean_ids_and_titles_too(tmp_path) -> None:
    import json

    from graphrag.ingest.documents import collect

    (tmp_path / "\x1b[31mred\x1b[0m\x07.md").write_bytes(b"# \x1b]0;pwned\x07Red\x1b[2J title\n\nRed1 uses Blue2.\n")
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps([{"title": "Bell\x07 \x1b[1mbold\x1b[0m", "text": "Bold1 uses Bell2."}]))
    items = collect([tmp_path / "\x1b[31mred\x1b[0m\x07.md", corpus]).items
    assert sorted((x.id, x.title) for x in items) == [("00000:Bell bold", "Bell bold"), ("red", "Red title")]
