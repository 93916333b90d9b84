"""Held until verified on the pages (AppTest, team mode, on a store written directly): the Ask page shows a reader
that the answer waits for review and where it stands, never its words, and shows a reviewer the answer; the Record
page's policy section has the switch for an admin only, and saving it is audited."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import ROOT, app, ok, page, signed_in, team_mode, texts
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.policy import ReviewPolicy
from graphrag.verify.status import held_until_verified, keep_review_policy
from helpers import ADMIN, write_document_rows
from seeds import judge, recorded_answer

pytestmark = [pytest.mark.unit, pytest.mark.heavy]

POLICY = """
[[grant]]
email = "ana@example.com"
labels = ["public"]
role = "admin"

[[grant]]
email = "cat@example.com"
labels = ["public"]
role = "reviewer"

[[grant]]
email = "bob@example.com"
labels = ["public"]
"""
SENTENCE = "Snapshot exports remain available for 30 days."


@pytest.fixture()
def team(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    policy = tmp_path / "access.toml"
    policy.write_text(POLICY, encoding="utf-8")
    store = tmp_path / "store.db"
    with Store(store) as s:
        write_document_rows(s, "policy", SENTENCE, ("public",), ["export"], [])
        recorded_answer(s, [0.9, 0.4])

    def make(who: str, script: str | None = None) -> AppTest:
        at = app(monkeypatch, store)
        if script is not None:  # the page run by itself
            at = AppTest.from_file(str(ROOT / script), default_timeout=240)
        return team_mode(monkeypatch, at, policy, signed_in(f"{who}@example.com"))

    make.store = store
    return make


def shown(at: AppTest) -> str:
    boxes = [h.proto.body for h in at.get("html")]  # the answer, its claims and cited sentences
    return " ".join(texts(at.markdown) + texts(at.info) + texts(at.caption) + texts(at.subheader)
                    + boxes).replace("\\", "")


def ask_page(team, who: str) -> AppTest:
    at = ok(team(who))
    at.session_state["answer_id"] = 1  # the answer the reader asked for
    return page(at, "ask")


def test_the_ask_page_holds_an_unverified_answer_from_a_reader_and_not_from_a_reviewer(team) -> None:
    with Store(team.store) as s:
        keep_review_policy(s, ReviewPolicy(1), by=ADMIN, held=True)
    bob = shown(ask_page(team, "bob"))
    assert "Answer #1 is held until reviewers verify it" in bob and "number 1 of 2 claims waiting for review" in bob
    assert "How long are exports kept?" in bob
    assert "claim 0" not in bob and "30 days" not in bob  # nothing of what it says or cites
    cat = shown(ask_page(team, "cat"))
    assert "held until reviewers verify" not in cat and "claim 0" in cat and "30 days" in cat
    with Store(team.store) as s:
        answer = s.answer(1)
        assert answer is not None
        judge(s, answer, "cat@example.com", [V.SUPPORTED, V.SUPPORTED])
    bob = shown(ask_page(team, "bob"))  # verified: the reader reads it
    assert "held until reviewers verify" not in bob and "claim 0" in bob and "30 days" in bob


def test_the_record_page_switch_is_an_admins_and_its_change_is_audited(team) -> None:
    bob = ok(team("bob", "views/record.py"))
    assert not [t for t in bob.toggle if t.key == "record_held"]
    ana = ok(team("ana", "views/record.py"))
    ana = ok(ana.toggle(key="record_held").set_value(True))
    ok(ana.button(key="record_save_policy").click())
    with Store(team.store) as s:
        assert held_until_verified(s) is True
        row = s.audit_of("review-policy")[-1]
    assert (row.email, row.detail["held_until_verified"], row.detail["via"], row.detail["mode"]) == (
        "ana@example.com", True, "dashboard", "team")


def test_the_review_page_shows_a_reader_no_claim_of_a_held_answer(team) -> None:
    with Store(team.store) as s:
        keep_review_policy(s, ReviewPolicy(1), by=ADMIN, held=True)

    def review(who: str) -> tuple[AppTest, str]:
        at = page(ok(team(who)), "review")
        options = " ".join(str(o) for o in at.selectbox(key="review_answer_filter").options)
        return at, shown(at) + " " + options

    _, bob = review("bob")
    assert not re.search("claim [01]", bob) and "30 days" not in bob and "exports kept" not in bob
    _, cat = review("cat")
    assert re.search("claim [01]", cat) and "exports kept" in cat
    with Store(team.store) as s:
        answer = s.answer(1)
        assert answer is not None
        judge(s, answer, "cat@example.com", [V.SUPPORTED, V.SUPPORTED])
    _, bob = review("bob")  # verified: its claims are in the reader's queue (judged, so at its end) and listed
    assert "2 claims in the queue" in bob and "#1: How long are exports kept?" in bob
