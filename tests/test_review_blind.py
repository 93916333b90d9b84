"""Blind double review through the store and the command line: no reviewer sees another's
verdict on a claim before giving their own, disagreements reach the dispute queue, and an
adjudicator's verdict settles them. No model is needed: the store is written directly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag.cli import main
from graphrag.errors import InputError
from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, Support, SupportLabel
from graphrag.review import record_verdict, review_queue
from graphrag.review_policy import ADJUDICATOR, ClaimStatus, ReviewPolicy
from graphrag.store import Store
from helpers import ADMIN, write_document_rows

pytestmark = pytest.mark.unit


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
    span = s.span("policy", 1, 0)
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    claims = tuple(Claim(i, f"claim {i}", 0, 1, (Citation("1", True, item),),
                         support=Support(0.5, SupportLabel.SUPPORTED, "embedded", "t")) for i in range(2))
    s.save_answer(Answer("How long are exports kept?", AskSettings(), "x", (), (), (item,), claims))
    s.set_review_policy(ReviewPolicy(2), by=ADMIN)
    yield s
    s.close()


def _mark(s: Store, claim: int, reviewer: str, verdict: str, **kw: object) -> None:
    a = s.answer(1)
    record_verdict(s, a, a.claims[claim], a.claims[claim].citations[0], verdict, reviewer, **kw)


def _cli(s: Store, capsys, *args: str) -> object:
    capsys.readouterr()
    assert main([*args, "--store", str(s.path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_blind_review_never_shows_another_verdict_first(store: Store, capsys) -> None:
    _mark(store, 0, "ana", "supported")
    # ben has not judged claim 0: he sees no verdict on it, in the queue or on the command line
    ben = {q.claim_index: q for q in review_queue(store, ["public"], reviewer="ben")}
    assert ben[0].verdicts == () and ben[0].state.status == ClaimStatus.IN_REVIEW
    rows = _cli(store, capsys, "review", "list", "--reviewer", "ben")
    assert all(r["verdicts"] == [] for r in rows)
    assert "ana" not in json.dumps(rows)
    # ... and his queue starts with the claims that still need him
    assert next(q.claim_index for q in review_queue(store, ["public"], reviewer="ben")) in (0, 1)
    assert not ben[0].reviewed
    _mark(store, 0, "ben", "supported")
    after = {q.claim_index: q for q in review_queue(store, ["public"], reviewer="ben")}
    assert {v.reviewer for v in after[0].verdicts} == {"ana", "ben"}
    assert after[0].state.status == ClaimStatus.VERIFIED


def test_a_disagreement_goes_to_the_dispute_queue_and_an_adjudicator_settles_it(store: Store, capsys) -> None:
    _mark(store, 1, "ana", "supported")
    _mark(store, 1, "ben", "unsupported")
    disputes = _cli(store, capsys, "review", "disputes", "--reviewer", "cat")
    assert [(d["claim"], d["status"]) for d in disputes] == [(1, "disputed")]
    assert {v["reviewer"] for v in disputes[0]["verdicts"]} == {"ana", "ben"}
    with pytest.raises(InputError, match="not disputed"):
        _mark(store, 0, "cat", "supported", adjudicate=True)
    assert main(["review", "mark", "--store", str(store.path), "--answer", "1", "--claim", "1", "--verdict",
                 "unsupported", "--reviewer", "cat", "--adjudicate"]) == 0
    settled = {q.claim_index: q for q in review_queue(store, ["public"], reviewer="cat")}[1]
    assert settled.state.status == ClaimStatus.VERIFIED and settled.state.adjudicated
    assert _cli(store, capsys, "review", "disputes") == []
    roles = {(v.reviewer, v.role) for v in store.verdicts(1, 1)}
    assert ("cat", ADJUDICATOR) in roles
    # the adjudication is in the record as such
    capsys.readouterr()
    assert main(["export", "--store", str(store.path), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["reviewer"], r["role"]) for r in rows} >= {("cat", "adjudicator"), ("ana", "reviewer")}


def test_the_policy_is_set_and_read_through_the_cli(store: Store, capsys) -> None:
    assert _cli(store, capsys, "review", "policy") == {"required_verdicts": 2, "blind": True}
    assert _cli(store, capsys, "review", "policy", "--required", "1") == {"required_verdicts": 1, "blind": False}
    assert main(["review", "policy", "--store", str(store.path), "--required", "9"]) == 2


def test_the_review_page_keeps_review_blind(store: Store, monkeypatch) -> None:
    """On the page too: the badges, the verdict history and the queue table show nobody else's
    verdict until this reviewer (ada, from the environment) has given one; the dispute queue
    shows them all to an adjudicator."""
    from app_helpers import app

    _mark(store, 0, "ana", "supported")
    _mark(store, 0, "ben", "unsupported")  # claim 0 is disputed; claim 1 unreviewed
    at = app(monkeypatch, store.path)
    at.switch_page("views/review.py")
    at = at.run()
    assert not at.exception, [e.value for e in at.exception]

    def everything(tree) -> str:
        texts = [str(getattr(n, "value", "")) for n in tree._tree if not hasattr(n, "proto") or
                 type(n).__name__ != "Dataframe"]
        texts += [d.value.to_csv() for d in tree.dataframe]
        return " ".join(texts)

    for _ in range(2):  # both claims of the queue, the disputed one with its history
        seen = everything(at)
        assert "ana" not in seen and "ben" not in seen
        assert "blind" in seen  # the page says the review is blind
        at = at.button(key="rv_next").click().run()
    at.toggle(key="review_disputes").set_value(True)
    at = at.run()
    seen = everything(at)
    assert "ana" in seen and "ben" in seen and "adjudicating" in seen
