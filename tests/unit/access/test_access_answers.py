"""An answer is shown to a viewer only when everything it shows is visible to them.

The case found by an adversarial review: an internal user's answer whose context sentences
are all public, but whose route reached them through a relation stated only in an internal
document. It entered every public reviewer's queue, and the route graph showed the internal
relation and, in its tooltip, the internal sentence. No model is needed: the store is written
directly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.access import library_viewer
from graphrag.access.rule import Access, Footprint, Sources, answer_visible
from graphrag.model import Answer
from graphrag.store import Store
from graphrag.verify.review import export_rows, record_verdict, review_queue, visible_to
from helpers import internal_route_answer

pytestmark = pytest.mark.unit

@pytest.fixture()
def leaky(tmp_path: Path) -> tuple[Store, Answer]:
    store = Store(tmp_path / "store.db")
    answer = internal_route_answer(store)
    yield store, answer
    store.close()


def test_answer_routed_through_an_internal_relation_is_withheld_from_public(leaky) -> None:
    store, answer = leaky
    assert all(c.span.document_id == "policy" for c in answer.context)  # every context sentence is public
    assert not visible_to(answer, library_viewer(["public"]), store)
    assert review_queue(store, library_viewer(["public"])) == []
    assert [q.answer_id for q in review_queue(store, library_viewer(["internal", "public"]))] == [answer.id]
    # ... and nothing of it reaches a public export, even once it has verdicts.
    record_verdict(store, answer, answer.claims[0], answer.claims[0].citations[0], "supported", "ana")
    assert export_rows(store, ["public"]) == []
    assert len(export_rows(store, ["internal", "public"])) == 1


def test_a_seed_only_internal_documents_mention_hides_the_answer(tmp_path: Path) -> None:
    fp = Footprint(frozenset({("policy", 1)}), frozenset(), frozenset({"falcon key"}))
    sources = Sources({("policy", 1): frozenset({"public"}), ("ops", 1): frozenset({"internal"})}, {},
                      {"falcon key": frozenset({("ops", 1)})})
    assert not answer_visible(fp, Access.of(["public"]), sources)
    assert answer_visible(fp, Access.of(["internal", "public"]), sources)
    # A seed with one public mention is fine: its name is already visible to public readers.
    both = Sources(sources.labels, {}, {"falcon key": frozenset({("ops", 1), ("policy", 1)})})
    assert answer_visible(fp, Access.of(["public"]), both)


def test_a_removed_source_hides_the_answer() -> None:
    fp = Footprint(frozenset({("policy", 1)}), frozenset({7}), frozenset())
    labels = {("policy", 1): frozenset({"public"})}
    assert not answer_visible(fp, Access.of(["public"]), Sources(labels, {}, {}))  # relation 7 is gone
    assert answer_visible(fp, Access.of(["public"]), Sources(labels, {7: ("policy", 1)}, {}))


def test_superseded_versions_count_only_when_asked_for() -> None:
    assert Access.of(["public"]).sees(["public"], superseded=False)
    assert not Access.of(["public"]).sees(["public"], superseded=True)
    assert Access.of(["public"], include_superseded=True).sees(["public"], superseded=True)
    assert not Access.of(["public"]).sees(["internal"])
