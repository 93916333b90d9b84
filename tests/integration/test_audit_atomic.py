"""A change and its audit row are one transaction, on both engines: when the audit log refuses the row
(a trigger added to the store for the test), the change is not there either, and the surface says
nothing was written."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from graphrag.access.identity import VIA_CLI, local_principal
from graphrag.cli import main
from graphrag.errors import StoreError
from graphrag.store import Store
from graphrag.store.audit import event as audit_event
from graphrag.verify.policy import ReviewPolicy
from graphrag.verify.review import mark_claim
from graphrag.verify.status import keep_review_policy, review_policy
from graphrag.verify.undo import undo_verdict
from helpers import internal_route_answer

LABELS = ("internal", "public")
ADMIN = local_principal(LABELS, via=VIA_CLI)


def refuse_audit(store: Store, event: str) -> None:
    """From now on the audit log refuses rows of ``event``, as a full disk or a broken log would."""
    on = "" if store.database.dialect == "sqlite" else " ON audit"
    store._write(lambda c: c.exec_driver_sql(f"DROP TRIGGER IF EXISTS audit_refuses{on}"))
    if store.database.dialect == "sqlite":
        store._write(lambda c: c.exec_driver_sql(
            f"CREATE TRIGGER audit_refuses BEFORE INSERT ON audit WHEN NEW.event = '{event}' "
            "BEGIN SELECT RAISE(ABORT, 'the audit log refuses this row'); END"))
        return
    store._write(lambda c: c.exec_driver_sql(
        "CREATE OR REPLACE FUNCTION audit_refuses() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF NEW.event = '{event}' THEN RAISE EXCEPTION 'the audit log refuses this row'; END IF; RETURN NEW; END $$"))
    store._write(lambda c: c.exec_driver_sql(
        "CREATE TRIGGER audit_refuses BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION audit_refuses()"))


def _refused(store: Store, event: str, change: Callable[[], object]) -> None:
    before = len(store.audit())
    refuse_audit(store, event)
    with pytest.raises(StoreError, match=r"the audit log refuses this row.*nothing was written"):
        change()
    assert len(store.audit()) == before


def test_a_verdict_whose_audit_row_fails_is_not_stored(any_store: Store) -> None:
    answer = internal_route_answer(any_store)
    assert answer.id is not None
    _refused(any_store, "verdict", lambda: mark_claim(any_store, answer.id or 0, 0, "supported", "ada", LABELS,
                                                      by=ADMIN))
    assert any_store.verdicts() == []


def test_an_undo_whose_audit_row_fails_is_not_stored(any_store: Store) -> None:
    answer = internal_route_answer(any_store)
    assert answer.id is not None
    v = mark_claim(any_store, answer.id, 0, "supported", "ada", LABELS, by=ADMIN)
    assert v.id is not None
    _refused(any_store, "verdict", lambda: undo_verdict(any_store, answer, v.id or 0, "ada", by=ADMIN))
    assert [x.id for x in any_store.verdicts()] == [v.id]


def test_policy_relabel_removal_and_refit_whose_audit_row_fails_change_nothing(any_store: Store) -> None:
    internal_route_answer(any_store)
    _refused(any_store, "review-policy", lambda: keep_review_policy(any_store, ReviewPolicy(2), by=ADMIN))
    assert review_policy(any_store).required == 1
    ops = any_store.document("ops", 1)
    assert ops is not None
    _refused(any_store, "relabel", lambda: any_store.relabel_document(
        "ops", ops.sha256, "Renamed", None, ["public"], audit_event(ADMIN, "relabel")))
    after = any_store.document("ops", 1)
    assert after is not None and (after.title, after.access) == (ops.title, ops.access)
    _refused(any_store, "remove", lambda: any_store.remove_document("ops", actor="admin", by=ADMIN))
    assert any_store.document("ops", 1) is not None and any_store.removal_records() == []
    _refused(any_store, "checker-refit", lambda: any_store.add_checker_version({}, "test", {}, by=ADMIN))
    assert any_store.checker_versions() == []


def test_the_cli_says_nothing_was_written_and_stored_no_verdict(store_url: str, capsys) -> None:
    with Store(store_url) as s:
        answer = internal_route_answer(s)
        refuse_audit(s, "verdict")
    assert main(["review", "mark", "--answer", str(answer.id), "--claim", "1", "--verdict", "supported",
                 "--reviewer", "ada", "--access", *LABELS, "--store", store_url]) == 1
    assert "nothing was written" in capsys.readouterr().err
    with Store(store_url) as s:
        assert s.verdicts() == [] and [e.event for e in s.audit()] == []


def test_the_review_page_says_nothing_was_written_and_stored_no_verdict(monkeypatch, tmp_path) -> None:
    from app_helpers import app, ok, page, texts

    path = tmp_path / "store.db"
    with Store(path) as s:
        internal_route_answer(s)
        refuse_audit(s, "verdict")
    at = ok(app(monkeypatch, path))
    at.session_state["access"] = list(LABELS)  # the sidebar's labels: the answer's route is internal
    at = page(at, "review")
    at = ok(at.button(key="rv_supported").click())
    assert any("nothing was written" in t for t in texts(at.error)), texts(at.error)
    with Store(path) as s:
        assert s.verdicts() == []
