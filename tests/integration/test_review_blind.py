"""Blind double review through the store and the command line: no reviewer sees another's
verdict on a claim before giving their own, disagreements reach the dispute queue, and an
adjudicator's verdict settles them. No model is needed: the store is written directly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag.access import library_viewer
from graphrag.cli import main
from graphrag.errors import InputError
from graphrag.language.names import reviewer_key
from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, Support, SupportLabel
from graphrag.store import Store
from graphrag.verify.policy import ADJUDICATOR, ClaimStatus, ReviewPolicy
from graphrag.verify.review import record_verdict, review_queue
from graphrag.verify.status import keep_review_policy
from helpers import ADMIN, write_document_rows

# heavy (runs the Review page in Streamlit's AppTest): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
    span = s.span("policy", 1, 0)
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    claims = tuple(Claim(i, f"claim {i}", 0, 1, (Citation("1", True, item),),
                         support=Support(0.5, SupportLabel.SUPPORTED, "embedded", "t")) for i in range(2))
    s.save_answer(Answer("How long are exports kept?", AskSettings(), "x", (), (), (item,), claims))
    keep_review_policy(s, ReviewPolicy(2), by=ADMIN)
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
    ben = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="ben")}
    # nor how many have judged it: its state is computed from what he may see
    assert ben[0].verdicts == () and ben[0].state.status == ClaimStatus.UNREVIEWED and ben[0].state.reviews == 0
    rows = _cli(store, capsys, "review", "list", "--reviewer", "ben")
    assert all(r["verdicts"] == [] for r in rows)
    assert "ana" not in json.dumps(rows)
    # ... and his queue starts with the claims that still need him
    assert next(q.claim_index for q in review_queue(store, library_viewer(["public"]), reviewer="ben")) in (0, 1)
    assert not ben[0].reviewed
    _mark(store, 0, "ben", "supported")
    after = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="ben")}
    assert {v.reviewer for v in after[0].verdicts} == {"ana", "ben"}
    assert after[0].state.status == ClaimStatus.VERIFIED


def test_a_disagreement_goes_to_the_dispute_queue_and_an_adjudicator_settles_it(store: Store, capsys) -> None:
    _mark(store, 1, "ana", "supported")
    _mark(store, 1, "ben", "unsupported")
    disputes = _cli(store, capsys, "review", "disputes", "--reviewer", "cat")
    assert [(d["claim"], d["status"]) for d in disputes] == [(2, "disputed")]  # numbered from 1, as shown
    assert {v["reviewer"] for v in disputes[0]["verdicts"]} == {"ana", "ben"}
    with pytest.raises(InputError, match="not disputed"):
        _mark(store, 0, "cat", "supported", adjudicate=True)
    assert main(["review", "mark", "--store", str(store.path), "--answer", "1", "--claim", "2", "--verdict",
                 "unsupported", "--reviewer", "cat", "--adjudicate"]) == 0
    settled = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="cat")}[1]
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
    off = {"held_until_verified": False}  # answers are not held from readers unless an admin says so
    assert _cli(store, capsys, "review", "policy") == {"required_verdicts": 2, "blind": True, **off}
    assert _cli(store, capsys, "review", "policy", "--required", "1") == {"required_verdicts": 1, "blind": False,
                                                                           **off}
    assert main(["review", "policy", "--store", str(store.path), "--required", "9"]) == 2


def test_the_review_page_keeps_review_blind(store: Store, monkeypatch) -> None:
    """On the page too, with three verdicts required: claim 0 has two differing verdicts (not yet a
    dispute), claim 1 three (disputed). The third reviewer (ada, from the environment) sees nothing
    of claim 0's verdicts, notes or count, in the queue or under the Disputes switch; as a potential
    adjudicator she sees claim 1's."""
    from app_helpers import app

    keep_review_policy(store, ReviewPolicy(3), by=ADMIN)
    _mark(store, 0, "ana", "supported", note="ana-note")
    _mark(store, 0, "ben", "unsupported", note="ben-note")
    for who, verdict in (("cat", "supported"), ("dan", "unsupported"), ("eve", "supported")):
        _mark(store, 1, who, verdict)
    at = app(monkeypatch, store.path)
    at.switch_page("views/review.py")
    at = at.run()
    assert not at.exception, [e.value for e in at.exception]

    def everything(tree) -> str:
        texts = [str(getattr(n, "value", "")) for n in tree._tree if not hasattr(n, "proto") or
                 type(n).__name__ != "Dataframe"]
        texts += [d.value.to_csv() for d in tree.dataframe]
        texts += [str(getattr(n, "label", "")) for n in tree.expander]
        return " ".join(texts)

    for _ in range(2):  # both claims of the queue with their history
        seen = everything(at)
        assert "ana" not in seen and "ben" not in seen and "2 of 3" not in seen
        assert "blind" in seen  # the page says the review is blind
        at = at.button(key="rv_next").click().run()
    at.toggle(key="review_disputes").set_value(True)
    at = at.run()
    seen = everything(at)
    assert "ana" not in seen and "ben" not in seen  # two of three verdicts are no dispute yet
    assert "cat" in seen and "dan" in seen and "adjudicating" in seen


def test_record_stats_and_export_show_nothing_of_a_claim_before_its_reviewer_judged_it(store: Store, capsys) -> None:
    """Filtered by reviewer and document (one claim), the figures once gave ana's verdict away to ben;
    they now count only what ben may see, on the command line and through the core."""
    from graphrag.verify.policy import ReviewViewer
    from graphrag.verify.record import RecordFilter, record_stats

    _mark(store, 0, "ana", "unsupported", note="ana-note")
    for me in ([], ["--me", "ben"]):
        narrowed = _cli(store, capsys, "record", "stats", "--reviewer", "ana", "--document", "policy", *me)
        assert narrowed["progress"]["verdicts"] == 0 and narrowed["agreement"]["reviewers"] == []
        assert narrowed["sources"] == []
        everything = _cli(store, capsys, "record", "stats", *me)
        assert everything["progress"] == {**everything["progress"], "unreviewed": 2, "verdicts": 0}
        assert "ana" not in json.dumps(everything)
        capsys.readouterr()
        assert main(["export", "--store", str(store.path), "--format", "json", *me]) == 0
        assert json.loads(capsys.readouterr().out) == []
    ana = record_stats(store, library_viewer(["public"]), RecordFilter(reviewer="ana"), ReviewViewer("ana"))
    assert ana.verdicts == 1 and ana.reviewers == ("ana",)  # her own verdict she sees
    _mark(store, 0, "ben", "supported")  # now ben has judged: he sees both, and the disagreement
    assert _cli(store, capsys, "record", "stats", "--me", "ben")["progress"]["disputed"] == 1
    capsys.readouterr()
    assert main(["export", "--store", str(store.path), "--format", "json", "--me", "ben"]) == 0
    assert {r["reviewer"] for r in json.loads(capsys.readouterr().out)} == {"ana", "ben"}


def test_a_party_to_a_dispute_cannot_adjudicate_it(store: Store, capsys) -> None:
    from graphrag.access.identity import Forbidden

    _mark(store, 1, "ana", "supported")
    _mark(store, 1, "ben", "unsupported")
    for party in ("ana", "ben", " ana "):  # the name as stored, however typed
        assert main(["review", "mark", "--store", str(store.path), "--answer", "1", "--claim", "2", "--verdict",
                     "supported", "--reviewer", party, "--adjudicate"]) == 1
        assert "took no part" in capsys.readouterr().err
    with pytest.raises(Forbidden, match="took no part"):
        _mark(store, 1, "ana", "supported", adjudicate=True)
    still = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="cat")}[1]
    assert still.state.status == ClaimStatus.DISPUTED
    assert all(v.role != ADJUDICATOR for v in store.verdicts(1, 1))


def test_in_team_mode_adjudication_needs_the_adjudicator_role_and_no_part_in_the_dispute(store: Store) -> None:
    from graphrag.access.identity import Forbidden, Identity, Viewer

    def signed_in(name: str, role: str) -> Viewer:
        return Viewer(Identity(f"sub-{name}", f"{name}@example.com", frozenset(), "iss"), frozenset({"public"}),
                         role, team=True)

    a = store.answer(1)
    cl = a.claims[1]
    record_verdict(store, a, cl, cl.citations[0], "supported", "x", by=signed_in("ana", "adjudicator"))
    record_verdict(store, a, cl, cl.citations[0], "unsupported", "x", by=signed_in("ben", "reviewer"))
    from graphrag.config import Config
    from graphrag.verify import mark_verdict

    with pytest.raises(Forbidden, match="needs the adjudicator role"):  # the use case checks the role
        mark_verdict(store, signed_in("cat", "reviewer"), Config.from_env({}), 1, cl.index, "supported", "x",
                     citation=cl.citations[0].marker, adjudicate=True)
    with pytest.raises(Forbidden, match="took no part"):  # ana holds the role, but she is a party
        record_verdict(store, a, cl, cl.citations[0], "supported", "x", adjudicate=True, by=signed_in("ana", "admin"))
    v = record_verdict(store, a, cl, cl.citations[0], "unsupported", "x", adjudicate=True,
                       by=signed_in("dee", "adjudicator"))
    assert v.role == ADJUDICATOR and v.reviewer == "dee@example.com"
    settled = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="zed")}[1]
    assert settled.state.status == ClaimStatus.VERIFIED and settled.state.verdict.value == "unsupported"


def test_who_a_surface_runs_for_under_blind_review() -> None:
    """Team mode: the signed-in identity whatever name is typed, adjudicators see disputes, admins the
    whole record; local mode: the typed name (a potential adjudicator); nobody named sees nothing blind."""
    from graphrag.access.identity import Identity, Viewer, local_principal
    from graphrag.verify.policy import ANYONE, ReviewViewer
    from graphrag.verify.review import review_viewer

    def team(role: str) -> Viewer:
        return Viewer(Identity("sub-x", "x@example.com", frozenset(), "iss"), frozenset({"public"}), role, team=True)

    assert review_viewer(team("reviewer"), "ana") == ReviewViewer("x@example.com", "sub-x")
    assert review_viewer(team("adjudicator")) == ReviewViewer("x@example.com", "sub-x", adjudicates=True)
    assert review_viewer(team("admin")).oversees
    assert review_viewer(Viewer(None, frozenset(), None, team=True), "ana") == ANYONE
    local = local_principal(["public"], via="cli")  # every role locally, yet no overseer: blind review still holds
    assert review_viewer(local, " ana ") == ReviewViewer("ana", adjudicates=True)
    assert review_viewer(local, None) == review_viewer(local, "a\u200bna") == ANYONE


def test_the_review_page_does_not_let_a_party_settle_its_dispute(store: Store, monkeypatch) -> None:
    from app_helpers import app

    _mark(store, 0, "ada", "supported")  # ada (the page's reviewer, from the environment) is a party
    _mark(store, 0, "ben", "unsupported")
    at = app(monkeypatch, store.path)
    at.switch_page("views/review.py")
    at = at.run()
    at = at.toggle(key="review_disputes").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert all(at.button(key=k).disabled for k in ("rv_supported", "rv_partial", "rv_unsupported"))
    assert any("took no part" in str(c.value) for c in at.caption)


ONE_PERSON = ("Ana", "ana", "\u0430na", "ANA", "Аna", "\u0391na",  # Cyrillic а, Cyrillic А, Greek Α
              "\u1ea1na", "a\u0323na", "\u00e1na", "\uff41na")  # ạ (composed and not), á, full-width ａ


def test_names_differing_by_case_or_look_alike_letters_are_one_reviewer(store: Store, capsys) -> None:
    from graphrag.access.identity import Forbidden

    _mark(store, 0, "Ana", "supported")
    for name in ONE_PERSON[1:]:  # the second verdict of a double review cannot come from the same person retyped
        _mark(store, 0, name, "supported")
    item = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="ben")}[0]
    assert item.state.status == ClaimStatus.UNREVIEWED and item.verdicts == ()  # still blind for ben
    for name in ONE_PERSON:  # each spelling sees its own verdict, the claim judged by them, one review in
        mine = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer=name)}
        assert mine[0].reviewed and not mine[1].reviewed
        assert mine[0].state.status == ClaimStatus.IN_REVIEW and mine[0].state.reviews == 1
    _mark(store, 0, "ben", "supported")
    done = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="ben")}[0]
    assert done.state.status == ClaimStatus.VERIFIED and done.state.reviews == 2
    _mark(store, 1, "аna", "unsupported")
    _mark(store, 1, "ben", "supported")
    for name in ONE_PERSON:  # a party to the dispute, however spelt, cannot settle it
        with pytest.raises(Forbidden, match="took no part"):
            _mark(store, 1, name, "supported", adjudicate=True)
    stats = _cli(store, capsys, "record", "stats")
    pairs = [p["reviewers"] for p in stats["agreement"]["cohen_kappa_pairs"]]  # agreement between two reviewers
    assert len(pairs) == 1 and sorted(map(reviewer_key, pairs[0])) == ["ana", "ben"]
    assert all(v.reviewer in (*ONE_PERSON, "ben") for v in store.verdicts(1, 0))  # stored as typed
