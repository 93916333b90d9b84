"""A change of labels, title or date on unchanged bytes is applied, audited and reported, never "unchanged".

Before, a file ingested public and then marked internal in its manifest was reported "unchanged · same
content as version 1" and stayed public: every route (ask, saved answers, the review queue, the export)
kept showing it to a public viewer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.access import library_viewer
from graphrag.access.rule import Access, answer_visible
from graphrag.answer.retrieval.load import load_graph
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import DocumentReport, Ingestor
from graphrag.model import Answer, AskSettings, AuditEvent, Citation, Claim, ContextItem, Route, Seed
from graphrag.store import Store
from graphrag.verify.review import export_rows, record_verdict, review_queue
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit

PLAN = "Plan7 uses Vault9 for the merger.\n"
DRAFT = "Plan7 uses Vault8 for the merger draft.\n"
PUBLIC = ("public",)


def manifest(root: Path, **entry: str | list[str]) -> None:
    lines = "".join(f"{k} = {v!r}\n" if isinstance(v, str) else f"{k} = {list(v)!r}\n" for k, v in entry.items())
    (root / "manifest.toml").write_text(f'[[documents]]\nfile = "plan.md"\n{lines}'.replace("'", '"'),
                                        encoding="utf-8")


def ingest(store: Store, root: Path, actor: AuditEvent | None = None) -> DocumentReport:
    ingestor = Ingestor(store, PatternExtractor(), HashEmbedder(), **({"actor": actor} if actor else {}))
    report = ingestor.ingest_paths([root])
    (plan,) = [d for d in report.documents if d.id == "plan"]
    return plan


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "plan.md").write_text(PLAN, encoding="utf-8")
    manifest(root, access=["public"])
    return root


def saved_answer(store: Store, version: int) -> int:
    """An answer a public viewer asked while the plan was public: its context cites the plan."""
    span = store.span("plan", version, 0)
    assert span is not None
    item = ContextItem(1, span, Route("plan7", ()), 0.9, "mention")
    claim = Claim(0, span.text, 0, len(span.text), (Citation("1", True, item),))
    return store.save_answer(Answer("What does Plan7 use?", AskSettings(access=PUBLIC), span.text + " [1]",
                                    (Seed("plan7", 0.9),), (), (item,), (claim,)))


def public_sees_answer(store: Store, answer_id: int) -> bool:
    fp = store.answer_footprints()[answer_id]
    return answer_visible(fp, Access.of(PUBLIC), store.visibility_sources([fp]))


def public_rows(store: Store, include_superseded: bool = False) -> int:
    return int(load_graph(store).visible_rows(PUBLIC, include_superseded).sum())


def test_narrowing_labels_on_unchanged_bytes_is_applied_and_hides_every_route(store: Store, folder: Path) -> None:
    assert ingest(store, folder).status == "ok"
    answer_id = saved_answer(store, 1)
    answer = store.answer(answer_id)
    assert answer is not None
    record_verdict(store, answer, answer.claims[0], answer.claims[0].citations[0], "supported", "ana", "fine")
    assert public_rows(store) == 1 and public_sees_answer(store, answer_id)  # the graph is cached now
    assert review_queue(store, library_viewer(PUBLIC)) and export_rows(store, PUBLIC)

    manifest(folder, access=["internal"])
    plan = ingest(store, folder, AuditEvent("relabel", "sub-1", "ana@example.com", {"via": "cli"}))

    assert plan.status == "relabelled" and plan.version == 1
    assert "labels internal (were public)" in (plan.note or "")
    assert store.current_document("plan").access == ("internal",)
    assert public_rows(store) == 0 and public_rows(store, include_superseded=True) == 0  # the cached graph reloaded
    assert not public_sees_answer(store, answer_id)  # an answer saved while it was public is withheld now
    assert not review_queue(store, library_viewer(PUBLIC)) and not export_rows(store, PUBLIC)
    (event,) = [e for e in store.audit() if e.event == "relabel"]
    assert (event.subject, event.email, event.detail["via"]) == ("sub-1", "ana@example.com", "cli")
    assert event.detail["doc_id"] == "plan" and event.detail["version"] == 1
    assert event.detail["from"]["access"] == ["public"] and event.detail["to"]["access"] == ["internal"]
    # Applied once: the same manifest again is unchanged, and writes no second audit row.
    assert ingest(store, folder).status == "unchanged"
    assert len([e for e in store.audit() if e.event == "relabel"]) == 1


def test_a_narrowing_applies_to_every_stored_version_of_the_document(store: Store, folder: Path) -> None:
    (folder / "plan.md").write_text(DRAFT, encoding="utf-8")
    ingest(store, folder)  # version 1: the draft, public
    (folder / "plan.md").write_text(PLAN, encoding="utf-8")
    assert ingest(store, folder).version == 2
    answer_id = saved_answer(store, 1)  # asked (with superseded versions) while the draft was public
    manifest(folder, access=["internal"])
    plan = ingest(store, folder)
    assert plan.status == "relabelled" and "also apply to version(s) 1" in (plan.note or "")
    assert [d.access for d in store.documents()] == [("internal",), ("internal",)]
    assert public_rows(store, include_superseded=True) == 0
    assert not public_sees_answer(store, answer_id)


def test_a_broadening_is_for_the_same_bytes_only(store: Store, folder: Path) -> None:
    """An older version's different text is never shown to someone new by a relabel of the newest."""
    manifest(folder, access=["internal"])
    (folder / "plan.md").write_text(DRAFT, encoding="utf-8")
    ingest(store, folder)
    (folder / "plan.md").write_text(PLAN, encoding="utf-8")
    ingest(store, folder)
    manifest(folder, access=["public"])
    plan = ingest(store, folder)
    assert plan.status == "relabelled" and "version(s) 1 keep their own labels" in (plan.note or "")
    assert [(d.version, d.access) for d in store.documents()] == [(1, ("internal",)), (2, ("public",))]
    (event,) = [e for e in store.audit() if e.event == "relabel"]
    assert event.detail["kept_labels"] == [1]


@pytest.mark.parametrize(("change", "said"), [
    ({"title": "Merger plan"}, "title 'Merger plan'"),
    ({"effective_date": "2026-01-01"}, "effective date 2026-01-01 (was none)"),
])
def test_a_new_title_or_date_on_unchanged_bytes_is_applied(store: Store, folder: Path, change: dict[str, str],
                                                           said: str) -> None:
    ingest(store, folder)
    manifest(folder, access=["public"], **change)
    plan = ingest(store, folder)
    assert plan.status == "relabelled" and said in (plan.note or "")
    doc = store.current_document("plan")
    assert doc is not None and doc.version == 1
    assert (doc.title if "title" in change else doc.effective_date) == next(iter(change.values()))
    assert [e.detail["via"] for e in store.audit() if e.event == "relabel"] == ["python"]


def test_the_same_bytes_under_another_id_are_no_relabel(store: Store, folder: Path) -> None:
    """The relabel is per document: a copy of the file elsewhere is its own document, as before."""
    ingest(store, folder)
    (folder / "copy.md").write_text(PLAN, encoding="utf-8")
    report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest_paths([folder])
    assert {d.id: d.status for d in report.documents} == {"copy": "ok", "plan": "unchanged"}


def test_an_upload_of_a_hidden_versions_bytes_is_refused_naming_none_of_its_metadata(store: Store) -> None:
    """The page's uploader cannot see the stored version: it keeps its labels and title, and they stay unsaid."""
    from graphrag.ingest.uploads import Upload, prepare_uploads

    Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([Source("plan", "Qzc merger", PLAN, access=("hr",))])
    Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([Source("plan", "Plan", DRAFT, access=PUBLIC)])
    items = prepare_uploads([Upload("plan.md", PLAN.encode())], store, viewer_access=PUBLIC, labels=PUBLIC,
                            new_versions={"plan"})
    (plan,) = Ingestor(store, PatternExtractor(), HashEmbedder(), viewer=PUBLIC).ingest(items).documents
    assert plan.status == "refused" and plan.not_ingested
    assert "hr" not in (plan.error or "") and "Qzc" not in repr(plan) and "1" not in (plan.error or "")
    assert [(d.version, d.title, d.access) for d in store.documents()] == [(1, "Qzc merger", ("hr",)),
                                                                             (2, "Plan", PUBLIC)]
    assert not [e for e in store.audit() if e.event == "relabel"]


def test_a_relabel_on_both_backends(any_store: Store, folder: Path) -> None:
    ingest(any_store, folder)
    before = any_store.generation()
    manifest(folder, access=["internal"])
    assert ingest(any_store, folder).status == "relabelled"
    assert any_store.current_document("plan").access == ("internal",)
    assert any_store.generation() > before  # every instance's graph reloads
    assert [e.detail["to"]["access"] for e in any_store.audit() if e.event == "relabel"] == [["internal"]]


def test_a_local_upload_of_a_hidden_versions_bytes_names_none_of_its_metadata(store: Store) -> None:
    """Locally (labels a filter, nothing refused) the report still names nothing the sidebar's labels hide."""
    from graphrag.ingest.uploads import Upload, prepare_uploads

    Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([Source("plan", "Qzc merger", PLAN, access=("hr",))])
    Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([Source("plan", "Plan", DRAFT, access=PUBLIC)])
    items = prepare_uploads([Upload("plan.md", PLAN.encode())], store, viewer_access=PUBLIC, labels=("hr", "board"),
                            new_versions={"plan"})
    (plan,) = Ingestor(store, PatternExtractor(), HashEmbedder(), shown=PUBLIC).ingest(items).documents
    assert plan.status == "relabelled" and "hr" not in (plan.note or "") and "Qzc" not in repr(plan)
