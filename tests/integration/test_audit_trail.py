"""The audit log holds a row for every command and page action that changes or exports the record, written by
the door's use case both surfaces call (never by a surface), each row saying who acted and through which surface
(``via``) and stamped by the database's clock."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphrag import ingest, verify
from graphrag.access import VIA_DASHBOARD, Forbidden, Viewer, local_principal
from graphrag.access.identity import ROLES, Identity
from graphrag.cli import build_parser, main
from graphrag.config import Config
from graphrag.model import AuditEvent
from graphrag.store import Store
from graphrag.verify.policy import ReviewPolicy
from graphrag.verify.status import keep_review_policy, review_policy
from helpers import ADMIN, internal_route_answer, reference_extractor

ROOT = Path(__file__).resolve().parents[2]

# Commands that change or export the record, with the audit event each must write ...
AUDITED = {
    "ingest": "ingest", "review mark": "verdict", "review policy": "review-policy", "export": "export",
    "audit export": "export", "checker fit": "checker-refit", "checker rollback": "checker-rollback",
    "delete": "remove", "record estimate": "estimate-sample",
}
# ... (this one on PostgreSQL only: tests/integration/test_store_roles.py) ...
AUDITED_ON_POSTGRESQL = {"store setup": "store-setup"}
# ... and every other command, with why it writes no audit row. A new command fails the walk below
# until it is put in one of the two.
NOT_AUDITED = {
    "ask": "asks; the answer it stores is not yet part of the verification record (a verdict on it is)",
    "entity": "reads the graph", "review list": "reads the queue", "review disputes": "reads the queue",
    "record stats": "reads the record", "record carried": "reads the record", "checker list": "reads the checker versions",
    "record changes": "reads the record; its --export (an admin's) is an export and writes that row "
                      "(tests/integration/test_standing.py)",
    "pack verify": "reads a pack file, writes nothing", "pack key": "prints the store's public key",
    "eval retrieval": "reads a benchmark file", "eval answers": "asks benchmark questions in its own stores", "eval themes": "asks benchmark questions in its own stores", "eval support": "reads a benchmark file",
    "bench ask": "a throwaway store", "bench documents": "a throwaway store", "bench ingest": "a throwaway store",
    "bench load": "a throwaway store", "bench start": "a throwaway store", "bench review": "a throwaway store", "bench scale": "a throwaway store",
    "bench support": "a throwaway store", "bench million": "a synthetic store it writes (or reuses, with --store)",
    "bench reader": "times the reader and ask on a store it only reads (its answers are not kept)",
    "store migrate": "copies into an empty database; meta 'copied_from' names the source, the audit rows come along",
    "store info": "reads the store's counts and where its vectors are searched",
    "store passages": "keeps the reader's passage vectors, a cache of stored sentences: no text, nothing of the record",
}


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(found[0].choices) if found else {}


def _commands() -> set[str]:
    """Every command, as "review mark" for one with subcommands and "ask" for one without."""
    return {f"{name} {sub}" if sub else name for name, parser in _subcommands(build_parser()).items()
            for sub in (_subcommands(parser) or [""])}


@pytest.mark.unit
def test_every_command_is_either_audited_or_says_why_not() -> None:
    assert not set(AUDITED) & set(NOT_AUDITED) and not set(AUDITED_ON_POSTGRESQL) & (set(AUDITED) | set(NOT_AUDITED))
    assert _commands() == set(AUDITED) | set(AUDITED_ON_POSTGRESQL) | set(NOT_AUDITED), \
        "a new command: add it to AUDITED or NOT_AUDITED"


@pytest.mark.model
def test_every_command_that_changes_or_exports_the_record_writes_an_audit_row_via_cli(tiny_store: Path,
                                                                                     tmp_path: Path) -> None:
    from app_helpers import copy_store

    db = str(copy_store(tiny_store, tmp_path / "s.db"))
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "notes.md").write_text("# Notes\n\nBackups are kept for 30 days.\n", encoding="utf-8")
    s = ["--store", db]
    assert main(["ask", "How long do snapshot exports remain available?", *s]) == 0
    with Store(db) as store:
        (answer_id,) = [a["id"] for a in store.answer_ids()]
    runs = {
        "ingest": ["ingest", str(tmp_path / "more"), *s],
        "review mark": ["review", "mark", "--answer", str(answer_id), "--claim", "1", "--verdict", "supported",
                        "--reviewer", "ada", *s],
        "review policy": ["review", "policy", "--required", "2", *s],
        "export": ["export", "--out", str(tmp_path / "record.csv"), *s],
        "audit export": ["audit", "export", "--out", str(tmp_path / "audit.csv"), *s],
        "checker fit": ["checker", "fit", "--from-verdicts", *s],  # refused (one verdict): audited all the same
        "checker rollback": ["checker", "rollback", "--to", "0", *s],
        "delete": ["delete", "notes", "--yes", *s],
        "record estimate": ["record", "estimate", "--json", *s],  # no sample yet: it draws one
    }
    assert set(runs) == set(AUDITED)
    for command, argv in runs.items():
        with Store(db) as store:
            before = len(store.audit())
        code = main(argv)
        assert code == (2 if command == "checker fit" else 0), command  # a refused refit exits 2
        with Store(db) as store:
            new = store.audit()[before:]
        assert [(e.event, e.detail.get("via")) for e in new] == [(AUDITED[command], "cli")], command
        assert new[0].subject is None and new[0].detail["mode"] == "local"
        assert datetime.fromisoformat(str(new[0].at)).tzinfo is not None  # the store's one time format


@pytest.mark.unit
def test_a_change_of_the_record_cannot_be_made_without_its_audit_row(any_store: Store) -> None:
    """The store methods that change the record take who acts and write the row in their own
    transaction, via the surface the principal names."""
    page = local_principal(["public"], via=VIA_DASHBOARD)
    keep_review_policy(any_store, ReviewPolicy(2), by=page)
    any_store.add_checker_version({"kind": "x"}, "by hand", {}, by=ADMIN)
    any_store.rollback_checker(by=page)
    assert [(e.event, e.detail["via"]) for e in any_store.audit()] == [
        ("review-policy", "dashboard"), ("checker-refit", "cli"), ("checker-rollback", "dashboard")]
    assert any_store.audit()[0].detail["required"] == 2 and any_store.audit()[2].detail["active"] == 0
    with pytest.raises(TypeError):
        keep_review_policy(any_store, ReviewPolicy(1))  # type: ignore[call-arg]  # no one: refused


@pytest.mark.unit
def test_audit_times_come_from_the_database_not_the_writer(any_store: Store, monkeypatch) -> None:
    # A writer whose clock is a year off (or who says when) cannot date an event.
    import graphrag.store.audit as store_audit
    import graphrag.store.codec as codec

    monkeypatch.setattr(codec, "now", lambda: "1999-01-01T00:00:00+00:00")
    monkeypatch.setattr(store_audit, "now", codec.now, raising=False)
    any_store.add_audit(AuditEvent("sign-in", "sub-ana", None, {}, at="1999-01-01T00:00:00+00:00"))
    (row,) = any_store.audit()
    at = datetime.fromisoformat(str(row.at))
    assert abs((at - datetime.now(UTC)).total_seconds()) < 120
    assert str(row.at).endswith("+00:00") and len(str(row.at)) == len("2026-01-01T00:00:00+00:00")
    assert any_store.audit(since=str(row.at)) == [row]


@pytest.mark.unit
def test_an_export_is_refused_to_a_viewer_and_audited_for_an_admin(store: Store) -> None:
    """The export use cases both surfaces call: the role is checked there, and the row written below them."""
    from graphrag.access.identity import Forbidden, Identity, Viewer

    ana = Identity("sub-ana", "ana@example.com", frozenset(), "https://login.example.com")
    viewer = Viewer(ana, frozenset({"public"}), "viewer", team=True)
    config = Config.from_env({})
    for export in (verify.export_record, verify.export_audit_log):
        with pytest.raises(Forbidden):
            export(store, viewer, config, "csv")
    assert store.audit() == []
    admin = Viewer(ana, frozenset({"public"}), "admin", team=True)
    assert verify.export_record(store, admin, config, "json").rows == 0
    done = verify.export_audit_log(store, admin, config, "csv")
    assert done.rows == 2 and "sub-ana" in done.text
    assert [(e.event, e.subject, e.detail["what"], e.detail["via"]) for e in store.audit()] == [
        ("export", "sub-ana", "verification record", "dashboard"), ("export", "sub-ana", "audit log", "dashboard")]


# --- the use cases: each checks the role and writes its one row, as whoever acts ----------------------------------

ANA = Identity("sub-ana", "ana@example.com", frozenset(), "https://login.example.com")


def team_viewer(role: str) -> Viewer:
    return Viewer(ANA, frozenset({"public", "internal"}), role, team=True)


def _upload(store: Store, viewer: Viewer, config: Config) -> object:
    return ingest.upload_work(store, viewer, config, reference_extractor(),
                              [ingest.Upload("notes.md", b"# Notes\n\nBackups are kept for 30 days.\n")], ["public"])


def _folder(store: Store, viewer: Viewer, config: Config) -> object:
    return ingest.folder_work(store, viewer, config, reference_extractor(), str(config.ingest_roots[0]))


def _remove(store: Store, viewer: Viewer, config: Config) -> object:
    return ingest.remove_document(store, viewer, config, "policy", actor="typed name", reason="test")


def _mark(store: Store, viewer: Viewer, config: Config) -> object:
    return verify.mark_verdict(store, viewer, config, store.answer_ids()[0]["id"], 0, "supported", "ana")


def _refit(store: Store, viewer: Viewer, config: Config) -> object:
    with pytest.raises(verify.RefitRefused):  # no verdicts to learn from: refused, audited all the same
        verify.refit_checker(store, viewer, config)
    return None


# use case -> (the least role that may run it, the audit event it writes, a call of it); each changes or exports the
# record, and each surface calls only these
USE_CASES: dict[str, tuple[str, str, Callable[[Store, Viewer, Config], object]]] = {
    "ingest.upload_work": ("admin", "ingest", _upload),
    "ingest.folder_work": ("admin", "ingest", _folder),
    "ingest.remove_document": ("admin", "remove", _remove),
    "verify.mark_verdict": ("reviewer", "verdict", _mark),
    "verify.set_review_policy": ("admin", "review-policy", lambda s, v, c: verify.set_review_policy(s, v, c, 2)),
    "verify.refit_checker": ("admin", "checker-refit", _refit),
    "verify.rollback_checker": ("admin", "checker-rollback", lambda s, v, c: verify.rollback_checker(s, v, c, 0)),
    "verify.export_record": ("admin", "export", lambda s, v, c: verify.export_record(s, v, c, "csv")),
    "verify.export_audit_log": ("admin", "export", lambda s, v, c: verify.export_audit_log(s, v, c, "json")),
    "verify.export_pack": ("admin", "export", lambda s, v, c: verify.export_pack(s, v, c)),
    "verify.draw_estimate_sample": ("admin", "estimate-sample", lambda s, v, c: verify.draw_estimate_sample(s, v, c)),
}


# Use cases whose refusal for want of the role is audited too, as a row of their event saying "refused" (issue 62: a
# policy change without the admin role is refused and audited).
REFUSAL_AUDITED = {"verify.set_review_policy"}


@pytest.fixture
def record(store: Store, tmp_path: Path) -> tuple[Store, Config]:
    """A store with a public document, an answer on it (claim 0 cites it) and a folder the deployment may read."""
    internal_route_answer(store)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.md").write_text("# A\n\nAlpha.\n", encoding="utf-8")
    return store, Config.from_env({"GRAPHRAG_INGEST_ROOTS": str(tmp_path / "in")})


@pytest.mark.unit
@pytest.mark.parametrize("name", USE_CASES)
def test_each_use_case_refuses_a_lesser_role_and_audits_itself_once(record: tuple[Store, Config], name: str) -> None:
    store, config = record
    role, event, call = USE_CASES[name]
    lesser = ROLES[ROLES.index(role) - 1]
    with pytest.raises(Forbidden, match=f"needs the {role} role"):
        call(store, team_viewer(lesser), config)
    # a refusal writes nothing, but where it is audited too: its own row, which says so and changes nothing
    refusals = [(event, "sub-ana", "ana@example.com", "dashboard", "team")] if name in REFUSAL_AUDITED else []
    assert [(e.event, e.subject, e.email, e.detail["via"], e.detail["mode"]) for e in store.audit()] == refusals
    assert all(e.detail["refused"] == f"needs the {role} role (theirs: {lesser})" for e in store.audit())
    assert store.verdicts() == [] and store.document("policy", 1) is not None
    call(store, team_viewer(role), config)
    assert [(e.event, e.subject, e.email, e.detail["via"], e.detail["mode"]) for e in store.audit()] == [
        *refusals, (event, "sub-ana", "ana@example.com", "dashboard", "team")]


@pytest.mark.unit
def test_removal_offers_only_documents_the_viewer_can_see(record: tuple[Store, Config]) -> None:
    store, config = record
    def offered(labels: set[str]) -> list[str]:
        viewer = Viewer(ANA, frozenset(labels), "admin", team=True)
        return [t.document_id for t in ingest.removal_choices(store, viewer, config)]

    assert offered({"public"}) == ["policy"] and offered({"internal", "public"}) == ["ops", "policy"]


@pytest.mark.unit
def test_in_team_mode_a_removal_names_the_signed_in_admin_not_the_typed_name(record: tuple[Store, Config]) -> None:
    store, config = record
    _remove(store, team_viewer("admin"), config)
    assert [r.actor for r in store.removal_records()] == ["ana@example.com"]


# --- the surfaces: they call the use cases and write no audit row of their own ------------------------------------

# Store methods that change the record (each audited in its own transaction) and the audit writer itself: only the
# doors call them, so no surface can change the record its own way or write a row its use case does not.
WRITERS = {"add_audit", "add_verdict", "set_required_verdicts", "rollback_checker", "add_checker_version",
           "remove_document", "relabel_document", "write_document", "save_answer"}


def _surface_files() -> list[Path]:
    return sorted([*(ROOT / "graphrag" / "cli").glob("*.py"), *(ROOT / "dashboard").glob("*.py"),
                   *(ROOT / "views").glob("*.py"), ROOT / "app.py"])


def _own_audit_or_role_lines(path: Path, root: Path = ROOT) -> list[str]:
    """Calls in ``path`` that write to the record, or an audit row, or check a role, without a door's use case."""
    found = []
    where = path.relative_to(root)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in WRITERS:  # a method: the store's own, not a door's function
            found.append(f"{where}:{node.lineno} .{f.attr}()")
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in ("event", "audit_event", "audit"):
            found.append(f"{where}:{node.lineno} {name}()")
        # a role check of the surface's own; the page gate (actor.require_role: may this page be drawn?) is
        # where it is allowed
        if name == "require" and path != root / "dashboard" / "actor.py":
            found.append(f"{where}:{node.lineno} require()")
    return found


@pytest.mark.unit
def test_no_surface_writes_an_audit_row_or_changes_the_record_past_a_use_case() -> None:
    assert [line for p in _surface_files() for line in _own_audit_or_role_lines(p)] == []


@pytest.mark.unit
@pytest.mark.parametrize("code", ["store.add_audit(e)", "s.set_required_verdicts(2, by=me)", "require(me, 'admin')",
                                  "state.audit(store, 'ingest')", "audit_event(me, 'ingest')"])
def test_the_surface_scan_finds_a_row_written_by_hand(code: str, tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text(code + "\n", encoding="utf-8")
    assert len(_own_audit_or_role_lines(page, tmp_path)) == 1


# --- every page action: the same rows, written by the same use cases, via the dashboard --------------------------

# Page actions (page, button label) that change or export the record, with the audit event each must write ...
PAGE_AUDITED = {
    # the verdict buttons speak the claim's kind ("Answers", "Backed", ...): named by their keys
    ("dashboard/review_verdict.py", "key:rv_supported"): "verdict",
    ("dashboard/review_verdict.py", "key:rv_partial"): "verdict",
    ("dashboard/review_verdict.py", "key:rv_unsupported"): "verdict", ("dashboard/review_nav.py", "Undo"): "verdict",
    ("dashboard/review_frame.py", "CSV"): "export",
    ("dashboard/review_frame.py", "JSON"): "export", ("views/record.py", "Save the policy"): "review-policy",
    ("views/record.py", "Refit from the verdicts"): "checker-refit", ("views/record.py", "Roll back"): "checker-rollback",
    ("views/record.py", "Audit log (CSV)"): "export", ("views/ingest.py", "Ingest"): "ingest",
    ("views/record.py", "Evidence pack (signed zip)"): "export", ("views/record.py", "Changed sources (CSV)"): "export",
    ("views/record.py", "Draw an estimate sample"): "estimate-sample",
    ("dashboard/removal.py", "Remove"): "remove",
}
# ... and every other button, with why it writes no audit row. A new button fails the scan below until it is put
# in one of the two.
PAGE_NOT_AUDITED = {
    ("views/ask.py", "Ask"): "asks, as `graphrag ask` does: the answer is not yet part of the record (a verdict is)",
    ("views/ask.py", "Review this answer"): "opens the Review page on the answer",
    ("views/ask.py", "Check again"): "reads again whether an answer held until verified may be shown (a read)",
    ("dashboard/document_viewer.py", "Open the document"): "shows a cited document the viewer's labels already see "
                                                           "(a read, like the cited source beside it)",
    ("dashboard/review_nav.py", "Previous"): "moves in the queue",
    ("dashboard/review_nav.py", "Next"): "moves in the queue",
    ("views/ingest.py", "Retry"): "runs a failed ingest's work again: the ingest was audited when it was submitted",
    ("dashboard/removal.py", "Preview the removal"): "the removal run and rolled back: nothing changes",
    ("dashboard/signin.py", "Sign in"): "hands over to the identity provider; the sign-in is audited when the "
                                       "identity arrives (sign-in)",
    ("dashboard/signin.py", "Sign out"): "ends the session", ("dashboard/sidebar.py", "Sign out"): "ends the session",
    ("views/ask.py", "Answer by themes"): "asks the same question of the themes, as Ask does",
    ("views/ask.py", "Ask afresh"): "asks the same question anew instead of giving its verified answer again, as Ask "
                                    "does",
    ("views/ask.py", "key:scope_"): "asks the same question in one document, as Ask does",
    ("views/record.py", "key:record_to_sample"): "opens the Review page on the estimate sample's claims",
    ("dashboard/jobs.py", "key:ingest_dismiss_"): "puts an ended ingest's line away in this session",
    ("dashboard/first_start.py", "Retry the first start"): "ingests the sample corpus into an empty local store, as the "
                                                     "first start does: no one's documents, no record yet",
}
BUTTONS = {"button", "download_button", "form_submit_button"}


def _page_buttons() -> set[tuple[str, str]]:
    """Every button on a page or in a dashboard helper, as (file, label), or (file, "key:KEY") where the label is
    computed."""
    found = set()
    for path in [*(ROOT / "views").glob("*.py"), *(ROOT / "dashboard").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BUTTONS
                    and node.args):
                continue
            if isinstance(node.args[0], ast.Constant) and node.args[0].value:
                found.add((str(path.relative_to(ROOT)), str(node.args[0].value)))
                continue
            # a computed or empty label (an icon button): named by its key, or by the key's constant start where
            # the key is computed too (one of many buttons made alike)
            key = next((k.value for k in node.keywords if k.arg == "key"), None)
            if isinstance(key, ast.JoinedStr) and key.values and isinstance(key.values[0], ast.Constant):
                key = key.values[0]
            assert isinstance(key, ast.Constant), f"{path.name}:{node.lineno}: a button with neither label nor key"
            found.add((str(path.relative_to(ROOT)), f"key:{key.value}"))
    return found


@pytest.mark.unit
def test_every_page_button_is_either_audited_or_says_why_not() -> None:
    assert not set(PAGE_AUDITED) & set(PAGE_NOT_AUDITED)
    assert _page_buttons() == set(PAGE_AUDITED) | set(PAGE_NOT_AUDITED), \
        "a new button: add it to PAGE_AUDITED or PAGE_NOT_AUDITED"


PAGE_POLICY = """
[[grant]]
email = "ana@example.com"
labels = ["public", "internal"]
role = "admin"
"""
@pytest.mark.model
@pytest.mark.slow
def test_every_page_action_that_changes_or_exports_the_record_writes_an_audit_row_via_the_dashboard(
        tiny_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import app_test

    from app_helpers import app, copy_store, ok, page, signed_in, team_mode
    from graphrag.answer import Asker
    from graphrag.model import AskSettings

    managers: list[app_test.MediaFileManager] = []  # each run's, to fetch a deferred download as a click would

    class Recording(app_test.MediaFileManager):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            managers.append(self)

    monkeypatch.setattr(app_test, "MediaFileManager", Recording)
    db = copy_store(tiny_store, tmp_path / "s.db")
    with Store(db) as s:
        Asker(s).ask("How long do snapshot exports remain available?", AskSettings(access=("public",)))
        s.add_checker_version({"kind": "by hand"}, "by hand", {}, by=ADMIN)  # so the page offers a rollback
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "notes.md").write_text("# Notes\n\nBackups are kept for 30 days.\n", encoding="utf-8")
    (tmp_path / "access.toml").write_text(PAGE_POLICY, encoding="utf-8")
    at = app(monkeypatch, db)  # the folder is under the temporary directory, which app() lets the page read
    at = ok(team_mode(monkeypatch, at, tmp_path / "access.toml", signed_in("ana@example.com")))  # audited: sign-in

    def download(label: str) -> object:
        (button,) = [b for b in at.get("download_button") if b.proto.label == label]
        managers[-1].execute_deferred(button.proto.deferred_file_id)  # what the browser's click asks the server
        return at

    walked: list[tuple[str, str]] = []

    def audited(where: tuple[str, str], act: Callable[[], object]) -> None:
        nonlocal at
        with Store(db) as s:
            before = len(s.audit())
        result = act()
        at = result if isinstance(result, app_test.AppTest) else at
        with Store(db) as s:
            new = s.audit()[before:]
        assert [(e.event, e.email, e.detail["via"], e.detail["mode"]) for e in new] == [
            (PAGE_AUDITED[where], "ana@example.com", "dashboard", "team")], where
        walked.append(where)

    at = page(at, "review")
    for key in ("rv_supported", "rv_partial", "rv_unsupported"):
        audited(("dashboard/review_verdict.py", f"key:{key}"), lambda key=key: ok(at.button(key=key).click()))
    # the verdict just given taken back: a correction appended, audited as a verdict naming the row it corrects
    audited(("dashboard/review_nav.py", "Undo"), lambda: ok(at.button(key="rv_undo").click()))
    for label in ("CSV", "JSON"):
        audited(("dashboard/review_frame.py", label), lambda label=label: download(label))
    at = page(at, "record")
    audited(("views/record.py", "Audit log (CSV)"), lambda: download("Audit log (CSV)"))
    audited(("views/record.py", "Evidence pack (signed zip)"), lambda: download("Evidence pack (signed zip)"))
    audited(("views/record.py", "Changed sources (CSV)"), lambda: download("Changed sources (CSV)"))
    audited(("views/record.py", "Draw an estimate sample"), lambda: ok(at.button(key="record_draw_sample").click()))
    audited(("views/record.py", "Roll back"), lambda: ok(at.button(key="record_rollback").click()))
    audited(("views/record.py", "Refit from the verdicts"), lambda: ok(at.button(key="record_refit").click()))
    at = ok(at.number_input(key="record_required").set_value(2))
    audited(("views/record.py", "Save the policy"), lambda: ok(at.button(key="record_save_policy").click()))
    at = page(at, "ingest")
    at.file_uploader(key="ingest_uploads").set_value([("upload.md", b"# Upload\n\nAlpha.\n", "text/markdown")])
    at = ok(at)
    audited(("views/ingest.py", "Ingest"), lambda: ok(at.button(key="ingest_go").click()))
    at = ok(at.segmented_control(key="ingest_source").set_value("Folder on this machine"))
    at = ok(at.text_input(key="ingest_folder").set_value(str(tmp_path / "folder")))
    audited(("views/ingest.py", "Ingest"), lambda: ok(at.button(key="ingest_go").click()))
    at = ok(at.selectbox(key="remove_doc").select("faq"))
    at = ok(at.button(key="remove_preview").click())
    at = ok(at.checkbox(key="remove_confirm").check())
    audited(("dashboard/removal.py", "Remove"), lambda: ok(at.button(key="remove_go").click()))

    assert set(walked) == set(PAGE_AUDITED)
    with Store(db) as s:
        assert review_policy(s).required == 2 and s.document("faq", 1) is None
        assert {d.id for d in s.documents()} >= {"upload", "notes"}


@pytest.mark.unit
def test_a_question_is_answered_from_the_viewers_labels_only_and_needs_a_role(store: Store) -> None:
    """Asking stores an answer but writes no audit row (`ask` is in NOT_AUDITED); what it may read is the viewer's."""
    from graphrag.answer import AskOutcome, answer_question
    from graphrag.model import Answer, AskSettings

    asked: list[AskSettings] = []

    class Recorder:  # stands for the Asker: records the settings it would answer with (an answer that says nothing)
        def ask(self, question: str, settings: AskSettings) -> AskOutcome:
            asked.append(settings)
            return AskOutcome(Answer(question, settings, "", (), (), (), ()))

    config = Config.from_env({})
    nobody = Viewer(ANA, frozenset(), None, team=True)  # signed in, granted nothing
    with pytest.raises(Forbidden, match="may not ask questions"):
        answer_question(store, nobody, config, "q", asker=Recorder())  # type: ignore[arg-type]
    public = Viewer(ANA, frozenset({"public"}), "viewer", team=True)
    answer_question(store, public, config, "q", AskSettings(access=("internal", "public")),
                    asker=Recorder())  # type: ignore[arg-type]
    assert [s.access for s in asked] == [("public",)] and store.audit() == []


# --- the library facade: the same use cases, so the same rows ---------------------------------------------------

# Facade functions (graphrag.__all__) that change the record, with the audit event each must write ...
FACADE_AUDITED = {"ingest_paths": "ingest", "review_claim": "verdict"}
# ... and the others, with why they write no row. A new function fails the walk below until it is put in one of them.
FACADE_NOT_AUDITED = {
    "open_store": "opens (and on first use creates) a store: no record yet",
    "ask_question": "asks, as `graphrag ask` does: the answer is not yet part of the record (a verdict is)",
    "Config": "settings, read from the environment",
    "open": "opens a workspace (and creates its store): no record yet",
    "Workspace": "holds the settings, store and models; its verbs are walked below (WORKSPACE_AUDITED)",
}
# The workspace's public methods that change the record, with their audit event, and the others.
WORKSPACE_AUDITED = {"ingest": "ingest", "review": "verdict"}
WORKSPACE_NOT_AUDITED = {
    "ask": "asks, as ask_question does",
    "warm": "loads the models",
    "close": "closes the store",
}


@pytest.mark.unit
def test_every_facade_write_writes_one_audit_row_via_python(tmp_path: Path, unparsed_questions: None) -> None:
    """A verdict or an ingest through ``import graphrag`` goes through the same use cases as the CLI and the pages,
    so it leaves its one audit row, naming the library as the surface."""
    import graphrag
    from graphrag.answer.generate.extractive import ExtractiveGenerator
    from helpers import ScriptedChecker
    from proc_helpers import HashEmbedder, PatternExtractor, doc_text

    (tmp_path / "c").mkdir()
    for i in range(3):
        (tmp_path / "c" / f"runbook-{i}.md").write_text(doc_text(i, 6), encoding="utf-8")
    assert set(graphrag.__all__) == set(FACADE_AUDITED) | set(FACADE_NOT_AUDITED)
    walked = []

    def audited(name: str, act: Callable[[], object]) -> object:
        before = len(store.audit())
        result = act()
        new = store.audit()[before:]
        assert [(e.event, e.subject, e.detail["via"], e.detail["mode"]) for e in new] == [
            (FACADE_AUDITED[name], None, "python", "local")], name
        walked.append(name)
        return result

    with graphrag.open_store(tmp_path / "s.db") as store:
        audited("ingest_paths", lambda: graphrag.ingest_paths(
            store, [tmp_path / "c"], extractor=PatternExtractor(), embedder=HashEmbedder()))
        before = len(store.audit())
        outcome = graphrag.ask_question(store, "What does Alpha0 use?", embedder=HashEmbedder(),
                                        generator=ExtractiveGenerator(), checker=ScriptedChecker(), min_relevance=0.0)
        assert len(store.audit()) == before and outcome.answer.id is not None
        answer_id = outcome.answer.id
        audited("review_claim", lambda: graphrag.review_claim(store, answer_id, 0, "supported", reviewer="ana"))
    assert walked == list(FACADE_AUDITED)


@pytest.mark.unit
def test_every_workspace_write_writes_one_audit_row_via_python(tmp_path: Path, unparsed_questions: None) -> None:
    """The same through ``graphrag.open``: the workspace's verbs are the facade's use cases."""
    import graphrag
    from graphrag.answer.generate.extractive import ExtractiveGenerator
    from graphrag.config import Config
    from helpers import ScriptedChecker
    from proc_helpers import HashEmbedder, PatternExtractor, doc_text

    (tmp_path / "c").mkdir()
    for i in range(3):
        (tmp_path / "c" / f"runbook-{i}.md").write_text(doc_text(i, 6), encoding="utf-8")
    verbs = {n for n, v in vars(graphrag.Workspace).items() if callable(v) and not n.startswith("_")}
    assert verbs == set(WORKSPACE_AUDITED) | set(WORKSPACE_NOT_AUDITED)
    walked = []
    with graphrag.open(tmp_path / "s.db", config=Config(), embedder=HashEmbedder()) as ws:
        def audited(name: str, act: Callable[[], object]) -> object:
            before = len(ws.store.audit())
            result = act()
            new = ws.store.audit()[before:]
            assert [(e.event, e.subject, e.detail["via"], e.detail["mode"]) for e in new] == [
                (WORKSPACE_AUDITED[name], None, "python", "local")], name
            walked.append(name)
            return result

        audited("ingest", lambda: ws.ingest([tmp_path / "c"], extractor=PatternExtractor()))
        before = len(ws.store.audit())
        outcome = ws.ask("What does Alpha0 use?", generator=ExtractiveGenerator(), checker=ScriptedChecker(),
                         min_relevance=0.0)
        assert len(ws.store.audit()) == before and outcome.answer.id is not None
        answer_id = outcome.answer.id
        audited("review", lambda: ws.review(answer_id, 0, "supported", reviewer="ana"))
    assert walked == list(WORKSPACE_AUDITED)
