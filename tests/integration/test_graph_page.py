"""The Graph page finds entities as a reviewer expects: search puts the exact name first, and the page opens on
the most connected entity of the last answer (else of the whole graph), never on a date with no relations."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import app, copy_store, ok, page
from graphrag.answer import opening_entity, search_entities
from graphrag.model import (
    Answer,
    AskSettings,
    Citation,
    Claim,
    ContextItem,
    Route,
    RouteStep,
    Seed,
    Span,
)

NAMES = [("1 March 2026", "1 march 2026"), ("Data export", "data export"), ("export", "export"),
         ("Export worker", "export worker"), ("Snapshot export", "snapshot export"), ("snapshot", "snapshot")]
COUNTS = {"1 march 2026": 0, "data export": 0, "export": 16, "export worker": 3, "snapshot export": 5,
          "snapshot": 17}


@pytest.mark.unit
def test_search_puts_the_exact_name_first_then_prefix_then_contains() -> None:
    assert search_entities(NAMES, "export", COUNTS) == ["export", "export worker", "snapshot export", "data export"]
    assert search_entities(NAMES, "  EXPORT ", COUNTS)[0] == "export"  # case and spaces do not matter
    assert search_entities(NAMES, "exports", COUNTS)[0] == "export"  # keys are singular: the plural finds it too
    assert search_entities(NAMES, "zephyr", COUNTS) == []


@pytest.mark.unit
def test_search_ties_go_to_the_most_connected() -> None:
    names = [("Data export", "data export"), ("Snapshot export", "snapshot export")]
    assert search_entities(names, "export", {"data export": 0, "snapshot export": 5}) == ["snapshot export",
                                                                                          "data export"]
    # No query: every entity, most connected first (a date with no relations last).
    assert search_entities(NAMES, "", COUNTS)[:2] == ["snapshot", "export"]
    assert search_entities(NAMES, "", COUNTS)[-1] in ("1 march 2026", "data export")


def _answer(seed: str, route_entities: tuple[str, ...]) -> Answer:
    span = Span("exports", 1, 0, 0, 10, "Exports use the latest snapshot.")
    steps = tuple(RouteStep(1, "use", e, True, "exports", 1, 0) for e in route_entities)
    item = ContextItem(1, span, Route(seed, steps), 0.9, "relation")
    claim = Claim(0, "Exports use the latest snapshot.", 0, 36, (Citation("1", True, item),))
    return Answer("What do exports use?", AskSettings(), "Exports use the latest snapshot. [1]",
                  (Seed(seed, 1.0),), (item.route,), (item,), (claim,))


@pytest.mark.unit
def test_opening_entity_is_the_most_connected_of_the_last_answer() -> None:
    answer = _answer("1 march 2026", ("export worker", "export"))
    assert opening_entity(COUNTS, answer) == "export"  # not the date it started from, not "snapshot" (17)


@pytest.mark.unit
def test_opening_entity_without_an_answer_is_the_most_connected_overall() -> None:
    assert opening_entity(COUNTS) == "snapshot"
    # An answer whose entities the viewer cannot see (none in the counts) opens like no answer.
    assert opening_entity(COUNTS, _answer("hidden", ("also hidden",))) == "snapshot"
    assert opening_entity({}) is None


# --- the page itself --------------------------------------------------------------------------------------------


@pytest.fixture
def store_path(tiny_store: Path, tmp_path: Path) -> Path:
    return copy_store(tiny_store, tmp_path / "store.db")


def _relations(store_path: Path, key: str) -> int:
    from graphrag.store import Store

    with Store(store_path) as s:
        return len([r for r in s.relations_of(key) if r.span.document_id != "ops"])


@pytest.mark.model
@pytest.mark.slow
def test_graph_page_opens_on_the_most_connected_entity(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = page(ok(app(monkeypatch, store_path)), "graph")
    opened = at.selectbox(key="graph_entity").value
    assert _relations(store_path, opened) >= 2, opened  # not the first name in the alphabet with no relations
    at.text_input(key="graph_query").set_value("export")
    at = ok(at)
    assert at.selectbox(key="graph_entity").value == "export"  # the exact name, before "Snapshot export"
    at.text_input(key="graph_query").set_value("larkspur")
    at = ok(at)
    caption = " ".join(c.value for c in at.caption)
    assert "type not known" in caption and "person" not in caption, caption  # one mention: its label is a guess


@pytest.mark.model
@pytest.mark.slow
def test_graph_page_opens_on_the_last_answers_route_and_entity(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    from graphrag.answer.ask import Asker
    from graphrag.store import Store

    with Store(store_path) as s:
        answer = Asker(s).ask("What does cancellation trigger?", AskSettings()).answer
    assert answer.id is not None
    at = ok(app(monkeypatch, store_path))
    at.session_state["answer_id"] = answer.id  # dashboard.session.ANSWER_ID: the answer the Ask page shows
    at = page(at, "graph")
    opened = at.selectbox(key="graph_entity").value
    cited = {c.item.n for cl in answer.claims for c in cl.citations if c.item is not None}
    involved = {s.entity for s in answer.seeds} | {k for item in answer.context if item.n in cited
                                                  for k in (item.route.seed, *(s.entity for s in item.route.steps))}
    assert opened in involved, (opened, involved)
    assert _relations(store_path, opened) == max(_relations(store_path, k) for k in involved)
    # it opens on the answer's route (the first tab: the question's entity to the cited sentence), and the
    # neighbourhood draws at most 25 entities until a wider view is asked for
    assert at.tabs[0].label == f"Route of answer #{answer.id}", [t.label for t in at.tabs]
    assert at.selectbox(key="graph_limit").value == 25
    assert any("What does cancellation trigger?" in c.value for c in at.tabs[0].caption)



@pytest.mark.model
@pytest.mark.slow
def test_graph_page_lists_themes_and_colours_by_theme(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = page(ok(app(monkeypatch, store_path)), "graph")
    themes = [e.label for e in at.expander if e.label.startswith("Theme ")]
    assert themes, [e.label for e in at.expander]
    shown = " ".join([*themes, *(c.value for c in at.caption), *(str(t.value.to_dict()) for t in at.dataframe)])
    assert "snapshot" in shown.lower()
    assert "Zephyr" not in shown and "Operations notes" not in shown  # the internal document stays out
    at.checkbox(key="graph_by_theme").check()
    at = ok(at)
    from graphrag.present.viz import THEME_FILLS

    drawn = " ".join(str(f.proto) for f in at.get("iframe"))
    assert any(fill in drawn for fill in THEME_FILLS), "no entity filled with its theme's colour"
