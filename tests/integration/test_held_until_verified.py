"""Held until verified (issue 62, item 3), on both engines: a team reader below reviewer sees an answer only once
reviewers verified it, and until then where it stands in the review queue; reviewers, admins and local mode see
every answer; the setting is an admin's, audited, and a change without the admin role is refused and audited.
Through the verify door, the ask door, the library and the command line (the pages: test_held_pages.py). No model:
answers are written straight into the store."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

import graphrag
from graphrag.access import Forbidden, Viewer, library_viewer
from graphrag.access.identity import Identity
from graphrag.answer.actions import answer_question
from graphrag.answer.ask import Asker, AskOutcome
from graphrag.cli import main
from graphrag.config import Config
from graphrag.model import AnswerStatus, AskSettings
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.actions import answer_for, set_review_policy
from graphrag.verify.held import HeldReason
from graphrag.verify.status import held_until_verified, policy_rows, review_policy
from helpers import write_document_rows
from seeds import judge, recorded_answer, write_version

CONFIG = Config()
POLICY = "Snapshot exports remain available for 30 days."


def member(role: str, name: str = "bob") -> Viewer:
    return Viewer(Identity(f"sub-{name}", f"{name}@example.com", frozenset(), "iss"), frozenset({"public"}), role,
                  team=True)


READER, REVIEWER, TEAM_ADMIN = member("viewer"), member("reviewer", "cat"), member("admin", "ana")


@pytest.fixture()
def store(any_store: Store) -> Store:
    write_document_rows(any_store, "policy", POLICY, ("public",), ["export"], [])
    return any_store


def test_off_by_default_so_a_reader_sees_every_answer(store: Store) -> None:
    answer = recorded_answer(store, [0.9])
    assert held_until_verified(store) is False
    assert answer_for(store, READER, CONFIG, answer) is None


def test_a_reader_waits_with_a_place_in_the_queue_a_reviewer_does_not(store: Store) -> None:
    set_review_policy(store, TEAM_ADMIN, CONFIG, held_until_verified=True)
    first = recorded_answer(store, [0.9, 0.8])
    second = recorded_answer(store, [0.3])  # the queue takes the lowest support first: this claim leads it
    held = answer_for(store, READER, CONFIG, first)
    assert held is not None and held.reason == HeldReason.WAITING
    assert (held.position, held.waiting) == (2, 3)
    assert "number 2 of 3 claims waiting for review" in held.words
    assert answer_for(store, READER, CONFIG, second).position == 1  # type: ignore[union-attr]
    for sees_all in (REVIEWER, member("adjudicator"), TEAM_ADMIN, library_viewer(["public"])):
        assert answer_for(store, sees_all, CONFIG, first) is None, sees_all.role
    # one claim judged: the next waiting one still holds it, and the queue has moved on (the verdict on "claim 0"
    # also carries to the second answer's "claim 0", the same words on the same sentence)
    judge(store, first, "cat", [V.SUPPORTED])
    held = answer_for(store, READER, CONFIG, first)
    assert held is not None and (held.position, held.waiting) == (1, 1)
    judge(store, first, "cat", [V.SUPPORTED, V.SUPPORTED])
    assert answer_for(store, READER, CONFIG, first) is None  # verified: shown


def test_an_answer_judged_unsupported_or_disputed_stays_held_and_says_why(store: Store) -> None:
    set_review_policy(store, TEAM_ADMIN, CONFIG, held_until_verified=True)
    answer = recorded_answer(store, [0.9, 0.8])
    judge(store, answer, "cat", [V.SUPPORTED, V.UNSUPPORTED])
    held = answer_for(store, READER, CONFIG, answer)
    assert held is not None and held.reason == HeldReason.NOT_VERIFIED and held.position is None
    assert "will not be shown" in held.words
    set_review_policy(store, TEAM_ADMIN, CONFIG, 2)
    assert held_until_verified(store) is True  # setting the verdicts required keeps the hold as it was
    other = recorded_answer(store, [0.9])
    judge(store, other, "cat", [V.SUPPORTED])
    judge(store, other, "dan", [V.UNSUPPORTED])
    held = answer_for(store, READER, CONFIG, other)
    assert held is not None and held.reason == HeldReason.DISPUTED


def test_a_verified_answer_whose_cited_sentence_changed_is_held_again(store: Store) -> None:
    set_review_policy(store, TEAM_ADMIN, CONFIG, held_until_verified=True)
    answer = recorded_answer(store, [0.9])
    judge(store, answer, "cat", [V.SUPPORTED])
    assert answer_for(store, READER, CONFIG, answer) is None
    write_version(store, ["Snapshot exports remain available for 7 days."])  # the cited sentence now reads otherwise
    held = answer_for(store, READER, CONFIG, answer)
    assert held is not None and held.reason == HeldReason.SOURCES_CHANGED
    assert answer_for(store, REVIEWER, CONFIG, answer) is None


class _Asker(Asker):
    """Answers by writing a prepared answer into the store (no model)."""

    def ask(self, question: str, settings: AskSettings = AskSettings()) -> AskOutcome:
        return AskOutcome(recorded_answer(self.store, [0.9, 0.4]), warnings=("a warning about the answer",))


def test_the_ask_door_gives_a_held_reader_only_the_question_and_its_place(store: Store) -> None:
    set_review_policy(store, TEAM_ADMIN, CONFIG, held_until_verified=True)
    out = answer_question(store, READER, CONFIG, "How long are exports kept?", asker=_Asker(store))
    assert out.held is not None and out.held.reason == HeldReason.WAITING and out.held.position == 1
    a = out.answer
    assert (a.id, a.question) == (out.held.answer_id, "How long are exports kept?")
    assert (a.text, a.claims, a.context, a.reached, a.seeds) == ("", (), (), (), ())
    # nothing else the outcome carries (warnings, the reader's reading of the context) reaches the reader
    assert all(getattr(out, f.name) == f.default for f in fields(AskOutcome) if f.name not in ("answer", "held"))
    assert POLICY not in json.dumps(out.held.to_json())
    stored = store.answer(out.held.answer_id)
    assert stored is not None and stored.text == "x" and len(stored.claims) == 2  # held back, not rewritten
    shown = answer_question(store, REVIEWER, CONFIG, "How long are exports kept?", asker=_Asker(store))
    assert shown.held is None and len(shown.answer.claims) == 2 and shown.answer.text == "x"


def test_the_library_and_local_mode_never_hold(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    set_review_policy(store, TEAM_ADMIN, CONFIG, held_until_verified=True)
    monkeypatch.setattr(Asker, "ask", _Asker.ask)
    out = graphrag.ask_question(store, "How long are exports kept?")  # the facade acts as a local viewer
    assert out.held is None and len(out.answer.claims) == 2
    local_reader = Viewer(None, frozenset({"public"}), "viewer", team=False)  # no sign-in: nothing is held
    assert answer_for(store, local_reader, CONFIG, out.answer) is None


def test_a_policy_change_without_the_admin_role_is_refused_and_audited(store: Store) -> None:
    set_review_policy(store, TEAM_ADMIN, CONFIG, held_until_verified=True)
    for who in (READER, REVIEWER):
        with pytest.raises(Forbidden, match="may not set the review policy: that needs the admin role"):
            set_review_policy(store, who, CONFIG, held_until_verified=False)
    with pytest.raises(Forbidden):
        set_review_policy(store, READER, CONFIG, 3)
    rows = store.audit_of("review-policy")
    refused = [r for r in rows if "refused" in r.detail]
    assert [(r.email, r.detail["asked"]) for r in refused] == [
        ("bob@example.com", {"held_until_verified": False}), ("cat@example.com", {"held_until_verified": False}),
        ("bob@example.com", {"required": 3})]
    assert refused[0].detail["refused"] == "needs the admin role (theirs: viewer)"
    assert held_until_verified(store) is True and review_policy(store).required == 1  # nothing changed
    assert [(r.email, r.detail["held_until_verified"], r.detail["required"]) for r in policy_rows(store)] == [
        ("ana@example.com", True, 1)]


def test_the_command_line_sets_and_shows_the_hold(store: Store, store_url: str, capsys, monkeypatch) -> None:
    def cli(*args: str) -> str:
        capsys.readouterr()
        assert main([*args, "--store", store_url]) == 0
        return capsys.readouterr().out

    assert json.loads(cli("review", "policy", "--json"))["held_until_verified"] is False
    out = json.loads(cli("review", "policy", "--held-until-verified", "on", "--json"))
    assert out == {"required_verdicts": 1, "blind": False, "held_until_verified": True}
    assert "held until verified" in cli("review", "policy")
    row = store.audit_of("review-policy")[-1]
    assert row.detail["via"] == "cli" and row.detail["held_until_verified"] is True
    monkeypatch.setattr(Asker, "ask", _Asker.ask)
    # the command line acts in local mode: nothing is held from it
    assert "answer 1: " in cli("ask", "How long are exports kept?")
    # acting for a team reader (as a team surface would), it prints only the question and its place
    monkeypatch.setattr("graphrag.cli.ask.principal", lambda args: READER)
    printed = cli("ask", "How long are exports kept?")
    assert printed.startswith("Answer #2 is held until reviewers verify it") and "claim 0" not in printed
    assert "number 1 of 4 claims waiting for review" in printed
    held = json.loads(cli("ask", "How long are exports kept?", "--json"))
    assert held["held"] is True and held["answer_id"] == 3 and held["reason"] == "waiting for review"
    assert set(held) == {"answer_id", "question", "held", "reason", "queue_position", "claims_waiting", "words"}
    with Store(store_url) as s:
        assert s.answer(3) is not None and s.answer(3).status != AnswerStatus.VERIFIED  # type: ignore[union-attr]
