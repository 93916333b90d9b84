"""The Ask, Graph, Record and Ingest pages' read models (graphrag.present.sheets), built for one viewer without a
page: an answer's sources as the Ask page names them, a route's steps as the Graph page draws them, whether the
store holds documents, the support checker in use."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from graphrag.access.identity import Viewer
from graphrag.config import Config
from graphrag.model import Answer
from graphrag.present import answer_sources, checker_in_use, has_documents, route_steps
from graphrag.store import Store
from helpers import ADMIN, INTERNAL_TEXT, PUBLIC_TEXT, internal_route_answer

pytestmark = pytest.mark.unit
CONFIG = Config.from_env({})
BOTH = Viewer(None, frozenset({"public", "internal"}), "viewer")
PUBLIC_ONLY = Viewer(None, frozenset({"public"}), "viewer")


@pytest.fixture
def answered(tmp_path: Path) -> tuple[Store, Answer]:
    s = Store(tmp_path / "s.db")
    answer = internal_route_answer(s)  # cites policy v1 (public), reached through a relation stated in ops (internal)
    yield s, answer
    s.close()


def test_an_answers_sources_name_its_documents_and_entities(answered: tuple[Store, Answer]) -> None:
    store, answer = answered
    sources = answer_sources(store, BOTH, CONFIG, answer)
    assert sources.title("policy", 1) == "Policy"  # the stored title, not the id
    assert sources.title("gone", 3) == "gone"  # a version the store no longer holds: its id
    assert sources.names["falcon key"] == "Falcon Key" and "export" in sources.names  # display names by key
    cited = answer.claims[0].citations[0].item
    assert cited is not None and cited.span.text == PUBLIC_TEXT
    assert sources.layout(cited.span) is None  # plain text: no page to name


def test_a_routes_steps_are_read_only_from_documents_the_viewer_sees(answered: tuple[Store, Answer]) -> None:
    store, answer = answered
    (step,) = answer.context[0].route.steps  # the relation's sentence, as a walk records it
    route = replace(answer.context[0].route, steps=(replace(step, document_id="ops", version=1, sentence_index=0),))
    (seen,) = route_steps(store, BOTH, CONFIG, route)
    assert (seen.hidden, seen.sentence, seen.entity) == (False, INTERNAL_TEXT, "falcon key")
    (withheld,) = route_steps(store, PUBLIC_ONLY, CONFIG, route)  # the relation is stated in an internal document
    assert withheld.hidden and withheld.sentence is None and withheld.entity == ""


def test_the_store_says_whether_it_holds_documents_and_which_checker_it_uses(tmp_path: Path) -> None:
    with Store(tmp_path / "empty.db") as empty:
        assert not has_documents(empty, BOTH, CONFIG)
        assert checker_in_use(empty, BOTH, CONFIG) is None
        version = empty.add_checker_version({"w": 1.0}, "test", {}, by=ADMIN)
        assert checker_in_use(empty, BOTH, CONFIG) == version
    with Store(tmp_path / "held.db") as held:
        internal_route_answer(held)
        # documents nobody public may see still count: the page asks for labels, not for an ingest
        assert has_documents(held, PUBLIC_ONLY, CONFIG)
