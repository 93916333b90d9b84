"""The pages' read models (graphrag.present.boards), built for one viewer without a page: what a reviewer sees of
one claim and of its cited source, the Review page's frame, the Ask page's scope choices, the Graph page's entity."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from graphrag.access.identity import Identity, Viewer
from graphrag.config import Config
from graphrag.model import Answer
from graphrag.present import ask_scope, cited_source, claim_review, graph_entity, review_board, review_items
from graphrag.store import Store
from graphrag.verify import ReviewPolicy, review_queue, review_viewer
from graphrag.verify.review import record_verdict
from graphrag.verify.status import keep_review_policy
from helpers import ADMIN, INTERNAL_TEXT, PUBLIC_TEXT, internal_route_answer, write_document_rows

pytestmark = pytest.mark.unit
CONFIG = Config.from_env({})


def person(name: str, role: str, labels: tuple[str, ...] = ("public", "internal")) -> Viewer:
    return Viewer(Identity(f"sub-{name}", f"{name}@example.com", frozenset(), "iss"), frozenset(labels), role,
                  team=True)


@pytest.fixture
def answered(tmp_path: Path) -> tuple[Store, Answer]:
    s = Store(tmp_path / "s.db")
    answer = internal_route_answer(s)  # public sentence, reached through a relation stated in an internal document
    yield s, answer
    s.close()


def test_the_review_board_says_what_the_viewers_role_lets_them_do(answered: tuple[Store, Answer]) -> None:
    store, answer = answered
    for role, judge, adjudicate, export in (("viewer", False, False, False), ("reviewer", True, False, False),
                                            ("adjudicator", True, True, False), ("admin", True, True, True)):
        who = person("ana", role)
        board = review_board(store, who, CONFIG, review_viewer(who))
        assert (board.may_judge, board.may_adjudicate, board.may_export, board.role) == (judge, adjudicate, export,
                                                                                         role)
        assert board.answers == {answer.id: answer.question} and [c["index"] for c in board.claims] == [0]
        # the store's verdict total only for an exporter, and only while blind review hides nothing
        assert board.total_verdicts == (0 if export else None)


def test_the_review_board_hides_what_the_labels_do_not_show_and_blind_totals(answered: tuple[Store, Answer]) -> None:
    store, _ = answered
    public = person("ana", "admin", ("public",))  # the route runs through an internal document: withheld whole
    board = review_board(store, public, CONFIG, review_viewer(public))
    assert board.answers == {} and board.claims == [] and board.any_answers
    keep_review_policy(store, ReviewPolicy(2), by=ADMIN)
    local = Viewer(None, frozenset({"public", "internal"}), "admin")  # local mode: an admin who oversees nothing
    assert review_board(store, local, CONFIG, review_viewer(local, "ana")).total_verdicts is None
    team_admin = person("ana", "admin")  # a team admin sees the whole record
    assert review_board(store, team_admin, CONFIG, review_viewer(team_admin)).total_verdicts == 0


def test_a_claim_as_a_reviewer_sees_it(answered: tuple[Store, Answer]) -> None:
    store, answer = answered
    claim = answer.claims[0]
    ben = person("ben", "reviewer")
    record_verdict(store, answer, claim, claim.citations[0], "supported", "ben", by=ben)
    ana = person("ana", "reviewer")
    for who, party in ((ana, False), (ben, True)):
        onlooker = review_viewer(who)
        (item,) = review_queue(store, who, viewer=onlooker)
        seen = claim_review(store, who, CONFIG, item, onlooker, ReviewPolicy(1), who.name)
        assert seen is not None and seen.party is party
        assert seen.answer.id == answer.id and seen.claim.text == PUBLIC_TEXT and len(seen.citations) == 1
        assert seen.numbers == {1: 1} and seen.disagreements == []
        assert seen.names == {"export": "Export", "falcon key": "Falcon Key"}  # every entity its route passes
        assert [(h.reviewer, h.verdict.value) for h in seen.history] == [("ben@example.com", "supported")]


def test_blind_review_keeps_the_history_from_a_reviewer_who_has_not_judged(answered: tuple[Store, Answer]) -> None:
    store, answer = answered
    claim = answer.claims[0]
    record_verdict(store, answer, claim, claim.citations[0], "supported", "ben", by=person("ben", "reviewer"))
    policy = ReviewPolicy(2)
    ana = person("ana", "reviewer")
    onlooker = review_viewer(ana)
    (item,) = review_queue(store, ana, viewer=onlooker, policy=policy)
    seen = claim_review(store, ana, CONFIG, item, onlooker, policy, ana.name)
    assert seen is not None and seen.history == [] and not seen.party


def test_a_cited_source_shows_the_sentence_around_and_never_reads_a_step_the_viewer_cannot_see(
        answered: tuple[Store, Answer]) -> None:
    store, answer = answered
    citation = answer.claims[0].citations[0]
    assert citation.item is not None
    (step,) = citation.item.route.steps  # the relation's sentence, as a walk records it
    route = replace(citation.item.route, steps=(replace(step, document_id="ops", version=1, sentence_index=0),))
    citation = replace(citation, item=replace(citation.item, route=route))
    both = cited_source(store, person("ana", "reviewer"), CONFIG, citation, around=2)
    assert (both.title, both.date, both.span.text) == ("Policy", "", PUBLIC_TEXT)
    assert [s.text for s in both.window] == [PUBLIC_TEXT] and both.pdf is None and both.current is None
    assert [s.sentence for s in both.steps] == [INTERNAL_TEXT]
    public = cited_source(store, person("ana", "reviewer", ("public",)), CONFIG, citation, around=2)
    assert [s.sentence for s in public.steps] == [None] and INTERNAL_TEXT not in repr(public)


def test_a_superseded_source_names_the_version_that_replaced_it_and_a_conflict(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        answer = internal_route_answer(store)
        write_document_rows(store, "policy", "Snapshot exports remain available for 60 days.", ("public",),
                            ["falcon key", "snapshot"], [])
        write_document_rows(store, "faq", "Falcon Key snapshot exports stay for 7 days.", ("public",),
                            ["falcon key", "snapshot"], [])
        source = cited_source(store, person("ana", "reviewer"), CONFIG, answer.claims[0].citations[0], around=1)
        assert source.document is not None and source.document.superseded
        assert source.current is not None and source.current.version == 2
        assert [c.document.id for c in source.conflicts] == ["faq"]
        quiet = cited_source(store, person("ana", "reviewer"), CONFIG, answer.claims[0].citations[0], around=1,
                             look_for_conflicts=False)
        assert quiet.conflicts == []


def test_the_ask_scope_offers_only_documents_the_viewer_sees(answered: tuple[Store, Answer]) -> None:
    store, _ = answered
    assert ask_scope(store, person("ana", "viewer", ("public",)), CONFIG) == {"policy": "Policy"}
    assert ask_scope(store, person("ana", "viewer"), CONFIG) == {"policy": "Policy", "ops": "Ops"}
    assert ask_scope(store, person("ana", "viewer", ()), CONFIG) == {}


def test_the_graph_entity_holds_only_what_the_viewer_sees_with_its_names(answered: tuple[Store, Answer]) -> None:
    store, _ = answered
    assert graph_entity(store, person("ana", "viewer", ("public",)), CONFIG, "export") is None  # only internal
    shown = graph_entity(store, person("ana", "viewer"), CONFIG, "export")
    assert shown is not None
    assert [(r.source, r.type, r.target) for r in shown.view.relations] == [("export", "encrypted with", "falcon key")]
    assert shown.names == {"export": "Export", "falcon key": "Falcon Key"}
    public = graph_entity(store, person("ana", "viewer", ("public",)), CONFIG, "falcon key")
    assert public is not None and public.view.relations == ()  # the internal relation is not listed
    assert [m.span.document_id for m in public.view.entity.mentions] == ["policy"]


def test_the_boards_queue_follows_its_filters_and_reads_verdicts_fresh(answered: tuple[Store, Answer]) -> None:
    store, answer = answered
    ben, ana = person("ben", "reviewer"), person("ana", "reviewer")
    board = review_board(store, ben, CONFIG, review_viewer(ben))
    assert review_items(store, ben, CONFIG, board, review_viewer(ben), mine_only=True) == []
    claim = answer.claims[0]
    record_verdict(store, answer, claim, claim.citations[0], "supported", "ben", by=ben)
    (mine,) = review_items(store, ben, CONFIG, board, review_viewer(ben), mine_only=True)  # the same board
    assert mine.mine and [v.reviewer for v in mine.verdicts] == ["ben@example.com"]
    assert review_items(store, ana, CONFIG, board, review_viewer(ana), mine_only=True) == []
    assert review_items(store, ben, CONFIG, board, review_viewer(ben), answer_id=answer.id + 1) == []


def test_the_review_board_names_each_unanswered_question_once_and_only_the_newest_few(tmp_path: Path) -> None:
    """Issue 60: the Review page listed every question the documents did not answer, duplicates included, and
    pushed the verdict buttons off the screen. Each question is named once (its newest answer), at most five, and the
    rest counted."""
    from graphrag.model import AskSettings
    from graphrag.present.boards import UNANSWERED_SHOWN

    with Store(tmp_path / "s.db") as store:
        asked = ["Who founded Larkspur?", "who founded  larkspur", "What is the capital of Peru?",
                 *(f"What is question {i}?" for i in range(6)), "Who founded Larkspur?"]
        ids = [store.save_answer(Answer(q, AskSettings(access=("public",)), "The documents do not say.", (), (), (),
                                        (), answered=False)) for q in asked]
        who = person("ana", "reviewer")
        board = review_board(store, who, CONFIG, review_viewer(who))
    questions = [a.question for a in board.unanswered]
    assert len(questions) == UNANSWERED_SHOWN and questions[0] == "Who founded Larkspur?"
    assert board.unanswered[0].id == ids[-1]  # the newest answer of a question asked three times
    assert sum("larkspur" in q.casefold() for q in questions) == 1
    # eight questions told apart: Larkspur, Peru and six numbered ones; five named, three more counted
    assert board.unanswered_more == 8 - UNANSWERED_SHOWN


def test_the_routes_of_an_answer_come_in_the_numbers_the_pages_write() -> None:
    """Issue 60: the Graph page's route tab opened on citation [2], the sentence retrieval ranked first, not on [1]:
    the answer's cited sentences come in the order of their numbers on the page."""
    from graphrag.model import AskSettings, Citation, Claim, ContextItem, Route, Span
    from graphrag.present import cited_in_order

    first, second, unused = (ContextItem(n, Span("doc", 1, n, 0, 4, f"Sentence {n}."), Route("export"), 0.9, "mention")
                             for n in (1, 2, 3))
    claims = (Claim(0, "Sentence 2.", 0, 11, (Citation("2", True, second),)),
              Claim(1, "Sentence 1.", 12, 23, (Citation("1", True, first),)))
    answer = Answer("q", AskSettings(), "Sentence 2. [2] Sentence 1. [1]", (), (), (first, second, unused), claims)
    assert [item.n for item in cited_in_order(answer)] == [2, 1]  # written [1] and [2]: [1] first
