"""The Review page as a work queue (issue 25): the reviewer's name kept in the address, a position that moves, an
explicit end, a verdict undone as a correction appended to the record, a note kept across pages, badges that say
who judged what. No model is needed: the store is written directly, three claims citing one sentence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_helpers import app, ok, page, texts
from graphrag.access import Forbidden, library_viewer
from graphrag.access.identity import Identity, Viewer
from graphrag.config import Config
from graphrag.errors import InputError
from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, Support, SupportLabel
from graphrag.store import Store
from graphrag.verify import undo_verdict, undoable, work_queue
from graphrag.verify.policy import RETRACTION, ReviewPolicy, ReviewViewer, latest
from graphrag.verify.review import record_verdict, review_queue
from graphrag.verify.status import keep_review_policy
from graphrag.verify.undo import UNDO_SECONDS
from graphrag.verify.undo import undo_verdict as append_correction
from helpers import ADMIN, write_document_rows

# heavy (runs the Review page in Streamlit's AppTest, seconds a test): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]
CLAIMS = 3


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
    span = s.span("policy", 1, 0)
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    claims = tuple(Claim(i, f"claim {i}", 0, 1, (Citation("1", True, item),),
                         support=Support(0.5 + i / 10, SupportLabel.SUPPORTED, "embedded", "t"))
                   for i in range(CLAIMS))
    s.save_answer(Answer("How long are exports kept?", AskSettings(), "x", (), (), (item,), claims))
    yield s
    s.close()


def _mark(s: Store, claim: int, reviewer: str, verdict: str) -> int:
    a = s.answer(1)
    assert a is not None
    v = record_verdict(s, a, a.claims[claim], a.claims[claim].citations[0], verdict, reviewer)
    assert v.id is not None
    return v.id


def _current(s: Store, claim: int) -> list[tuple[str, str]]:
    return [(v.reviewer, v.verdict.value) for v in latest(s.verdicts(1, claim))]


# --- the core: undo as an appended correction, the work order ---------------------------------------------------


def test_undoing_a_first_verdict_appends_a_retraction_and_leaves_no_current_verdict(store: Store) -> None:
    vid = _mark(store, 0, "ana", "unsupported")
    answer = store.answer(1)
    assert answer is not None
    fix = append_correction(store, answer, vid, "ana")
    rows = store.verdicts(1, 0)
    assert [(v.reviewer, v.verdict.value, v.role) for v in rows] == [
        ("ana", "unsupported", "reviewer"), ("ana", "unsupported", RETRACTION)]  # both kept: append-only
    assert fix.note == f"undo of verdict #{vid}" and _current(store, 0) == []
    with pytest.raises(InputError, match="only a reviewer's verdict"):
        append_correction(store, answer, fix.id or 0, "ana")  # a retraction is not taken back in turn
    # the exported record shows both rows: the undone verdict marked retracted, the correction naming it
    from graphrag.verify.review import export_rows

    assert [(r["verdict"], r["role"], r["retracted_by"], r["retracts"]) for r in export_rows(store, ["public"])] == [
        ("retracted", "reviewer", fix.id, None), ("", RETRACTION, None, vid)]
    # the claim is back in ana's queue, as if she had not judged it
    ana = ReviewViewer("ana", adjudicates=True)
    assert (1, 0) in work_queue(review_queue(store, library_viewer(["public"]), viewer=ana), ana).left


def test_undoing_a_changed_mind_gives_the_earlier_verdict_back(store: Store) -> None:
    _mark(store, 0, "ana", "supported")
    vid = _mark(store, 0, "ana", "unsupported")
    answer = store.answer(1)
    assert answer is not None
    append_correction(store, answer, vid, "ana")
    assert len(store.verdicts(1, 0)) == 3 and _current(store, 0) == [("ana", "supported")]


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_undone_verdict_is_exported_retracted_and_never_counted(store: Store, fmt: str) -> None:
    import csv
    import io
    import json
    from collections import Counter

    from graphrag.verify.exports import export_record

    _mark(store, 0, "ana", "supported")  # a changed mind, undone: the earlier verdict comes back
    changed = _mark(store, 0, "ana", "unsupported")
    first = _mark(store, 1, "ana", "unsupported")  # a first verdict, undone: a bare retraction
    _mark(store, 2, "ana", "partial")
    answer = store.answer(1)
    assert answer is not None
    for vid in (changed, first):
        append_correction(store, answer, vid, "ana")
    text = export_record(store, fmt, by=ADMIN).text
    rows = list(csv.DictReader(io.StringIO(text))) if fmt == "csv" else json.loads(text)
    # what a count of the verdict column says is what ana stands by, plus the two retractions named as such
    assert Counter(r["verdict"] for r in rows if r["verdict"]) == {
        "supported": 1, "partially_supported": 1, "retracted": 2}
    undone = {str(r["verdict_id"]): r for r in rows if r["verdict"] == "retracted"}
    assert set(undone) == {str(changed), str(first)}
    assert undone[str(changed)]["retracted_verdict"] == "unsupported"
    corrections = {str(r["retracts"]): r for r in rows if r["retracts"] not in (None, "")}
    assert set(corrections) == {str(changed), str(first)}
    assert all(str(undone[k]["retracted_by"]) == str(c["verdict_id"]) for k, c in corrections.items())


def test_only_ones_own_latest_verdict_within_the_window_can_be_undone(store: Store) -> None:
    first = _mark(store, 0, "ana", "supported")
    second = _mark(store, 0, "ana", "partial")
    answer = store.answer(1)
    assert answer is not None
    with pytest.raises(InputError, match="not one of yours"):
        append_correction(store, answer, second, "ben")
    with pytest.raises(InputError, match="no longer your latest"):
        append_correction(store, answer, first, "ana")
    late = store.verdicts(1, 0)[-1].created_at
    assert late is not None
    from datetime import datetime, timedelta

    after = (datetime.fromisoformat(late) + timedelta(seconds=UNDO_SECONDS + 1)).isoformat(timespec="seconds")
    with pytest.raises(InputError, match="can no longer be undone"):
        append_correction(store, answer, second, "ana", at=after)
    # what a page asks before it offers Undo: the same rules, read from the store
    assert undoable(store, 1, 0, second, "ana") and not undoable(store, 1, 0, second, "ben")
    assert not undoable(store, 1, 0, first, "ana") and not undoable(store, 1, 0, second, "ana", at=after)
    append_correction(store, answer, second, "ana")
    assert len(store.verdicts(1, 0)) == 3
    assert not undoable(store, 1, 0, second, "ana")  # taken back already: its correction is the latest


def test_the_undo_use_case_checks_the_role_and_audits_one_row_naming_what_it_corrects(store: Store) -> None:
    ana = Identity("sub-ana", "ana@example.com", frozenset(), "https://login.example.com")
    answer = store.answer(1)
    assert answer is not None
    reviewer = Viewer(ana, frozenset({"public"}), "reviewer", team=True)
    v = record_verdict(store, answer, answer.claims[0], answer.claims[0].citations[0], "supported", "typed",
                       by=reviewer)
    before = len(store.audit())
    with pytest.raises(Forbidden, match="needs the reviewer role"):
        undo_verdict(store, Viewer(ana, frozenset({"public"}), "viewer", team=True), Config.from_env({}), answer,
                     v.id or 0, "ana")
    undo_verdict(store, reviewer, Config.from_env({}), answer, v.id or 0, "someone else typed")  # identity counts
    new = store.audit()[before:]
    assert [(e.event, e.subject, e.detail["corrects"], e.detail["role"]) for e in new] == [
        ("verdict", "sub-ana", v.id, RETRACTION)]
    assert _current(store, 0) == []


def test_the_work_order_is_stable_so_the_position_moves(store: Store) -> None:
    ada = ReviewViewer("ada", adjudicates=True)

    def order() -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        w = work_queue(review_queue(store, library_viewer(["public"]), viewer=ada), ada)
        return w.keys, list(w.left)

    keys, left = order()
    assert left == keys and len(keys) == CLAIMS  # the checker's triage: lowest support first
    for done, key in enumerate(keys, start=1):
        _mark(store, key[1], "ada", "supported")
        now_keys, now_left = order()
        assert now_keys == keys  # judged claims stay where they were: the next one is one further on
        assert now_left == keys[done:]
    assert work_queue(review_queue(store, library_viewer(["public"]), viewer=ada), ada).judged_today == CLAIMS


def test_under_blind_review_another_reviewers_verdict_does_not_move_anyones_queue(store: Store) -> None:
    keep_review_policy(store, ReviewPolicy(2), by=ADMIN)
    ben = ReviewViewer("ben", adjudicates=True)
    before = work_queue(review_queue(store, library_viewer(["public"]), viewer=ben), ben)
    _mark(store, 0, "ana", "unsupported")
    after = work_queue(review_queue(store, library_viewer(["public"]), viewer=ben), ben)
    assert after == before  # nothing of ana's verdict (not its count, not its place) reaches ben's queue


# --- the page ----------------------------------------------------------------------------------------------------


def _header(at) -> str:
    return " ".join(str(m.value) for m in at.markdown if "in the queue" in str(m.value))


def _review(monkeypatch: pytest.MonkeyPatch, store: Store, reviewer: str | None = None):
    at = app(monkeypatch, store.path)
    if reviewer is not None:
        at.query_params["reviewer"] = reviewer
    return page(ok(at), "review")


def test_the_reviewer_name_is_kept_in_the_address_across_reloads(store: Store,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    at = ok(app(monkeypatch, store.path))  # the configured name is "ada"
    at = ok(at.sidebar.text_input(key="_w_reviewer").set_value("ana"))
    assert at.query_params["reviewer"] == "ana"  # typed once: now in the page's address
    # a reload: a new session opened on that address
    again = _review(monkeypatch, store, "ana")
    assert again.sidebar.text_input(key="_w_reviewer").value == "ana"
    again = ok(again.button(key="rv_supported").click())
    assert [v.reviewer for v in store.verdicts()] == ["ana"]
    # a name no verdict could carry is not taken from an address: the configured one stays
    bad = _review(monkeypatch, store, "ana\u202e")
    assert bad.sidebar.text_input(key="_w_reviewer").value == "ada"


def test_the_position_moves_and_the_queue_ends_without_verdict_buttons(store: Store,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    at = _review(monkeypatch, store)
    for i in range(CLAIMS):
        assert re.search(rf"Claim {i + 1} of {CLAIMS}\*\* in the queue · {CLAIMS - i} left for you", _header(at)), \
            _header(at)
        at = ok(at.button(key="rv_supported").click())
    assert any(f"Nothing left for you; {CLAIMS} judged today" in t for t in texts(at.success))
    assert not [b for b in at.button if b.key in ("rv_supported", "rv_partial", "rv_unsupported")]
    assert len(store.verdicts()) == CLAIMS  # no duplicate verdict at the end
    # Previous goes back to the last claim judged; its badge says what happened
    at = ok(at.button(key="rv_prev").click())
    assert "judged backed by ada" in " ".join(str(m.value) for m in at.markdown)


def test_a_verdict_undone_is_recorded_as_a_correction_and_its_claim_comes_back(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _review(monkeypatch, store)
    first = at.session_state["review_current"]
    at = ok(at.button(key="rv_unsupported").click())
    assert any("Recorded “not backed”" in t for t in texts(at.success))  # the kind's words
    assert at.session_state["review_current"] != first
    at = ok(at.button(key="rv_undo").click())
    assert at.session_state["review_current"] == first  # back on the claim whose verdict was taken back
    assert [(v.verdict.value, v.role) for v in store.verdicts()] == [("unsupported", "reviewer"),
                                                                      ("unsupported", RETRACTION)]
    assert f"{CLAIMS} left for you" in _header(at)
    assert not [b for b in at.button if b.key == "rv_undo"]  # one undo per verdict


def test_undo_is_offered_only_while_the_store_would_honour_it(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The offer is checked against the record before it is drawn: once the same reviewer's verdict on that claim is
    no longer their latest (another tab, the command line), the page offers no Undo it would refuse."""
    at = _review(monkeypatch, store)
    at = ok(at.button(key="rv_supported").click())
    assert [b for b in at.button if b.key == "rv_undo"]
    _mark(store, 0, "ada", "partial")  # the same reviewer, elsewhere, on the claim just judged
    at = ok(at.button(key="rv_next").click())
    assert not [b for b in at.button if b.key == "rv_undo"]
    assert not any("Recorded “backed”" in t for t in texts(at.success))
    assert "review_undo" not in at.session_state


def test_the_note_is_kept_across_pages_and_saved_with_the_verdict(store: Store,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    at = _review(monkeypatch, store)
    at = ok(at.text_input(key="_w_review_note").set_value("the FAQ is stale"))
    at = page(page(at, "ask"), "review")
    assert at.text_input(key="_w_review_note").value == "the FAQ is stale"
    at = ok(at.button(key="rv_next").click())
    assert at.text_input(key="_w_review_note").value == "the FAQ is stale"
    at = ok(at.button(key="rv_partial").click())
    assert [v.note for v in store.verdicts()] == ["the FAQ is stale"]
    assert at.text_input(key="_w_review_note").value == ""  # ready for the next claim


def test_the_keyboard_shortcuts_are_on_the_buttons_and_listed(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _review(monkeypatch, store)
    shortcuts = {b.key: b.proto.shortcut for b in at.button if b.key and b.key.startswith("rv_")}
    assert shortcuts == {"rv_prev": "b", "rv_next": "n", "rv_supported": "s", "rv_partial": "p",
                         "rv_unsupported": "u"}
    assert any("S backed" in t and "U not backed" in t and "N next" in t and "B previous" in t for t in texts(at.caption))


def test_after_a_verdict_the_answer_selector_keeps_what_the_browser_picks(store: Store,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # The page once wrote the selector's value ("All answers") on every run, so every run told the browser to
    # overwrite its selection: a pick made while a verdict's rerun was under way was lost (the missed first click).
    at = _review(monkeypatch, store)
    at = ok(at.button(key="rv_supported").click())
    assert not at.selectbox(key="review_answer_filter").proto.set_value
    at = ok(at.selectbox(key="review_answer_filter").set_value(1))
    assert at.selectbox(key="review_answer_filter").value == 1
    assert not at.selectbox(key="review_answer_filter").proto.set_value


def test_a_claim_keeps_its_number_after_its_verdict_and_the_line_numbers_once(store: Store,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 60: "Claim 8 of 40" became "Claim 7 of 40" after a verdict (the claim judged moved to the end of the
    judged ones, every claim skipped before it one on), and the line also said "claim 2 of 2" of the answer: one
    numbering, which a verdict does not move. Here the reviewer skips the first claim and judges the second."""
    at = _review(monkeypatch, store)
    at = ok(at.button(key="rv_next").click())
    assert re.search(rf"Claim 2 of {CLAIMS}\*\* in the queue · {CLAIMS} left for you · from answer #1$", _header(at))
    judged = at.session_state["review_current"]
    at = ok(at.button(key="rv_supported").click())
    # on to the next claim, number 3; the claim skipped is still number 1 and still left
    assert re.search(rf"Claim 3 of {CLAIMS}\*\* in the queue · {CLAIMS - 1} left for you", _header(at)), _header(at)
    at = ok(at.button(key="rv_prev").click())
    assert at.session_state["review_current"] == judged and f"Claim 2 of {CLAIMS}**" in _header(at)
    assert not re.search(r"claim \d+ of \d+", _header(at))  # no second numbering in the line
    # the core: the order shown before is kept, whatever the verdicts since
    ana = ReviewViewer("ana", adjudicates=True)
    first = work_queue(review_queue(store, library_viewer(["public"]), viewer=ana), ana)
    _mark(store, first.keys[1][1], "ana", "supported")
    again = work_queue(review_queue(store, library_viewer(["public"]), viewer=ana), ana, order=first.keys)
    # the one claim left (ada judged one on the page, ana another) is the next, from the start again
    assert again.keys == first.keys and again.left == (first.keys[0],) and again.next_left(first.keys[1]) == first.keys[0]
    assert work_queue(review_queue(store, library_viewer(["public"]), viewer=ana), ana).keys != first.keys


def test_the_questions_the_documents_did_not_answer_are_folded_under_the_claim(store: Store,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 60: the paragraph naming every question the documents did not answer, duplicates included, came before
    the claim and pushed the verdict buttons off a laptop's screen. It is folded, under the claim, each question once."""
    for question in ("Who founded Larkspur?", "Who founded Larkspur?", "What is the capital of Peru?"):
        store.save_answer(Answer(question, AskSettings(), "The documents do not say.", (), (), (), (), answered=False))
    at = _review(monkeypatch, store)
    folded = [e for e in at.expander if str(e.label).startswith("Not in the queue")]
    assert [str(e.label) for e in folded] == ["Not in the queue: 2 questions the documents did not answer"]
    assert not folded[0].proto.expanded
    assert " ".join(str(m.value) for m in folded[0].markdown).count("Larkspur") == 1
    assert not [c for c in at.caption if "Not in the queue" in str(c.value)]
    # after the verdict buttons: the claim and its buttons come first on the page
    order = [str(getattr(e, "label", "")) for e in at.main if getattr(e, "label", None)]
    assert order.index("Backed") < next(i for i, label in enumerate(order) if label.startswith("Not in the queue"))
