"""What a held answer leaves a reader (graphrag.verify.held): its question and id, nothing of what it says; who the
setting can hold anything from; the words each state is told in."""

from __future__ import annotations

import dataclasses

import pytest

from graphrag.access.identity import Identity, Viewer, local_principal
from graphrag.model import (
    Answer,
    AskSettings,
    Citation,
    Claim,
    ContextItem,
    Disagreement,
    DisagreementSide,
    Route,
    Seed,
    Span,
)
from graphrag.verify.held import Held, HeldReason, holds_for, withheld

pytestmark = pytest.mark.unit

# what a held reader may know of an answer; every other field is what the answer says, and must be left empty
KEPT = {"question", "settings", "status", "id", "created_at", "generator_model", "answered"}


def _answer() -> Answer:
    span = Span("policy", 1, 0, 0, 47, "Snapshot exports remain available for 30 days.")
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    claim = Claim(0, "Exports remain available for 30 days.", 0, 40, (Citation("1", True, item),))
    return Answer("How long are exports kept?", AskSettings(), "Exports remain available for 30 days. [1]",
                  (Seed("export", 0.9),), (Route("export"),), (item,), (claim,), id=7,
                  disagreements=(Disagreement((DisagreementSide(1, "policy", 1, "Policy", None, False, "30 days",
                                                                span.text),)),),
                  answerable=0.9)


def test_a_held_answer_keeps_its_question_and_nothing_it_says() -> None:
    a = withheld(_answer())
    for f in dataclasses.fields(Answer):
        value = getattr(a, f.name)
        if f.name not in KEPT:
            # a field added to Answer later is caught here until withheld empties it (or KEPT names it)
            assert value in ("", (), None), f"withheld leaves {f.name} = {value!r}"
    assert (a.id, a.question) == (7, "How long are exports kept?")
    assert "30 days" not in repr(a)


def _member(role: str) -> Viewer:
    return Viewer(Identity("sub-b", "b@example.com", frozenset(), "iss"), frozenset({"public"}), role, team=True)


def test_only_team_readers_below_reviewer_can_be_held() -> None:
    assert holds_for(_member("viewer"))
    assert not any(holds_for(_member(r)) for r in ("reviewer", "adjudicator", "admin"))
    assert not holds_for(local_principal(["public"], via="cli"))  # local mode: nothing is ever held
    assert not holds_for(Viewer(None, frozenset({"public"}), "viewer", team=False))


def test_each_state_says_why_it_waits() -> None:
    waiting = Held(3, "q?", HeldReason.WAITING, 2, 9)
    assert waiting.words == ("Answer #3 is held until reviewers verify it (your team's policy): it is number 2 of 9 "
                             "claims waiting for review. It shows here once every claim is verified.")
    assert waiting.badge == "held · waiting for review"
    assert "an adjudicator" in Held(3, "q?", HeldReason.DISPUTED).words
    assert "will not be shown" in Held(3, "q?", HeldReason.NOT_VERIFIED).words
    assert "changed since its claims were reviewed" in Held(3, "q?", HeldReason.SOURCES_CHANGED).words
    assert waiting.to_json()["queue_position"] == 2 and waiting.to_json()["claims_waiting"] == 9
