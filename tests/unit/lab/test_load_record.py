"""The record check of ``graphrag bench load --browser`` (lab.load_record): the pages' confirmed verdicts and undos
against the store's verdict rows and audit log. It must pass a faithful record and name each kind of fault: a
verdict lost, one stored twice, an audit row missing, doubled or disagreeing, an undo without its row, an orphan
audit row."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphrag.model import AuditEvent, Verdict, VerdictLabel
from lab.bench_load_browser import parse_recorded, parse_undone
from lab.load_record import Confirmed, check_record

pytestmark = pytest.mark.unit

R = ["load-1", "load-2"]


def _row(vid: int, reviewer: str, answer: int, claim: int, label: VerdictLabel) -> Verdict:
    return Verdict(answer, claim, label, reviewer, "sha", id=vid)


def _audit(v: Verdict, **extra: object) -> AuditEvent:
    return AuditEvent("verdict", None, None, {"answer_id": v.answer_id, "claim_index": v.claim_index,
                                              "verdict": v.verdict.value, "reviewer": v.reviewer,
                                              "verdict_id": v.id, **extra})


def _faithful() -> tuple[list[Confirmed], list[Verdict], list[AuditEvent]]:
    """load-1 judges two claims and undoes the second; load-2 judges one. Another reviewer's row is no concern."""
    a = _row(1, "load-1", 1, 0, VerdictLabel.SUPPORTED)
    b = _row(2, "load-1", 1, 1, VerdictLabel.PARTIAL)
    c = _row(3, "load-2", 1, 0, VerdictLabel.UNSUPPORTED)
    undo = replace(b, id=4, role="retraction")
    other = _row(5, "someone", 2, 0, VerdictLabel.SUPPORTED)
    confirmed = [Confirmed("load-1", 1, 0, "supported"), Confirmed("load-1", 1, 1, "partially_supported"),
                 Confirmed("load-2", 1, 0, "unsupported"), Confirmed("load-1", 1, 1, None)]
    return confirmed, [a, b, c, undo, other], [_audit(a), _audit(b), _audit(c), _audit(undo, corrects=2)]


def test_a_faithful_record_passes_and_is_counted() -> None:
    check = check_record(*_faithful(), R)
    assert check.ok, check.problems
    assert (check.verdicts_confirmed, check.undos_confirmed, check.verdict_rows, check.correction_rows) == (3, 1, 3, 1)


def test_a_confirmed_verdict_missing_from_the_store_is_found() -> None:
    confirmed, rows, audit = _faithful()
    check = check_record(confirmed, [r for r in rows if r.id != 3], [e for e in audit if e.detail["verdict_id"] != 3],
                         R)
    assert not check.ok and any("confirmed but not stored" in p for p in check.problems)


def test_a_verdict_stored_twice_is_found() -> None:
    confirmed, rows, audit = _faithful()
    twice = replace(rows[0], id=9)
    check = check_record(confirmed, [*rows, twice], [*audit, _audit(twice)], R)
    assert not check.ok and any("stored more often than confirmed" in p for p in check.problems)


@pytest.mark.parametrize("fault", ["missing", "doubled", "disagreeing", "orphan"])
def test_an_audit_row_that_does_not_match_its_verdict_is_found(fault: str) -> None:
    confirmed, rows, audit = _faithful()
    if fault == "missing":
        audit = audit[1:]
    elif fault == "doubled":
        audit = [*audit, audit[0]]
    elif fault == "disagreeing":
        audit = [AuditEvent("verdict", None, None, {**audit[0].detail, "verdict": "unsupported"}), *audit[1:]]
    else:
        audit = [*audit, AuditEvent("verdict", None, None, {**audit[0].detail, "verdict_id": 77})]
    check = check_record(confirmed, rows, audit, R)
    assert not check.ok, fault


def test_an_undo_without_its_correction_row_is_found() -> None:
    confirmed, rows, audit = _faithful()
    check = check_record(confirmed, [r for r in rows if r.id != 4], [e for e in audit if "corrects" not in e.detail],
                         R)
    assert not check.ok and any(p.startswith("undo confirmed but not stored") for p in check.problems)


def test_the_pages_words_are_read_back_into_actions() -> None:
    # the banner says the verdict in its kind's words: whether a quote answers, whether a source backs a claim
    assert parse_recorded("Recorded \u201cpartly backed\u201d for claim 3 of answer #12.") == (
        12, 2, "partially_supported")
    assert parse_recorded("Recorded \u201cdoes not answer\u201d for claim 1 of answer #2.") == (2, 0, "unsupported")
    assert parse_recorded("Recorded \u201canswers\u201d for claim 2 of answer #2.") == (2, 1, "supported")
    assert parse_recorded("Nothing left for you") is None
    assert parse_undone("Verdict on claim 4 of answer #7 undone: recorded as a correction, the claim is back") == (
        7, 3)
