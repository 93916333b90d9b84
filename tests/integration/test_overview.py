"""The sidebar's counts as one viewer may see them (graphrag.answer.overview): a public viewer learns
nothing of internal documents, entities, relations, questions or reviews; blind review hides
others' verdicts from the counts as it does on the pages. No model: the store is written directly."""

from __future__ import annotations

import pytest

from graphrag.answer.overview import Overview, overview
from graphrag.store import Store
from graphrag.verify.policy import ReviewPolicy, ReviewViewer
from graphrag.verify.review import record_verdict
from graphrag.verify.status import keep_review_policy
from helpers import ADMIN, internal_route_answer

pytestmark = pytest.mark.unit


@pytest.fixture()
def judged(any_store: Store) -> Store:
    """A public and an internal document, and an answer routed through the internal one with one verdict
    (on SQLite and on PostgreSQL)."""
    answer = internal_route_answer(any_store)
    record_verdict(any_store, answer, answer.claims[0], answer.claims[0].citations[0], "supported", "ana")
    return any_store


def test_counts_cover_only_what_the_labels_show(judged: Store) -> None:
    whole = judged.counts()
    both = overview(judged, ["internal", "public"], ReviewViewer("ana", adjudicates=True))
    assert both == Overview(whole["documents"], whole["versions"], whole["entities"], whole["relations"], 1, 1)
    public = overview(judged, ["public"], ReviewViewer("ana", adjudicates=True))
    assert (public.documents, public.versions) == (1, 1)
    assert public.entities == 2 < both.entities  # "export" is named only in the internal notes
    assert public.relations == 0 < both.relations  # the one relation is stated internally
    assert (public.answers, public.verdicts) == (0, 0)  # the answer went through the internal relation
    assert overview(judged, [], ReviewViewer("ana", adjudicates=True)) == Overview(0, 0, 0, 0, 0, 0)


def test_under_blind_review_others_verdicts_are_not_counted(judged: Store) -> None:
    labels = ["internal", "public"]
    assert overview(judged, labels, ReviewViewer("bob", adjudicates=True)).verdicts == 1
    keep_review_policy(judged, ReviewPolicy(2), by=ADMIN)  # a policy change is seen at once, whatever was kept
    assert overview(judged, labels, ReviewViewer("bob", adjudicates=True)).verdicts == 0  # bob has not judged the claim: ana's verdict is hidden
    assert overview(judged, labels, ReviewViewer("ana", adjudicates=True)).verdicts == 1


def test_new_activity_is_counted_at_once(judged: Store) -> None:
    labels = ["internal", "public"]
    assert overview(judged, labels, ReviewViewer("bob", adjudicates=True)).verdicts == 1
    answer = judged.answer(judged.answer_ids()[0]["id"])
    assert answer is not None
    record_verdict(judged, answer, answer.claims[0], answer.claims[0].citations[0], "unsupported", "bob")
    assert overview(judged, labels, ReviewViewer("bob", adjudicates=True)).verdicts == 2
