"""The embedded generator reads as an answer: relevant sentences, each with its marker, no repeats."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from graphrag.attribution import attribute
from graphrag.generate.extractive import ExtractiveGenerator
from graphrag.model import COMENTION, ClaimFlag, ContextItem, Route, RouteStep, Span

pytestmark = pytest.mark.unit


def item(n: int, text: str, score: float, date: str | None = None) -> ContextItem:
    return ContextItem(n, Span("d", 1, n, 0, len(text), text), Route("e"), score, "mention", effective_date=date)


def test_quotes_relevant_sentences_with_markers_and_a_cap() -> None:
    ctx = [item(1, "Exports use the latest snapshot.", 0.8), item(2, "Snapshots follow the retention policy.", 0.75),
           item(3, "Billing", 0.9), item(4, "Support is open on weekdays only.", 0.3),
           item(5, "Exports are CSV files.", 0.74), item(6, "Exports are JSON files too.", 0.73)]
    text = ExtractiveGenerator(max_sentences=3).generate("q", ctx).text
    assert text == ("Exports use the latest snapshot [1]. Snapshots follow the retention policy [2]. "
                    "Exports are CSV files [5].")  # heading skipped, the far less relevant one dropped, capped
    claims = attribute(text, ctx)
    assert [c.citations[0].item.n for c in claims] == [1, 2, 5]


def test_near_repeat_keeps_the_newer_source() -> None:
    ctx = [item(1, "Snapshot exports remain available for 7 days after an account is cancelled.", 0.9, "2023-04-01"),
           item(2, "Snapshot exports remain available for 30 days after an account is cancelled.", 0.88, "2026-02-01")]
    text = ExtractiveGenerator().generate("How long?", ctx).text
    assert text == "Snapshot exports remain available for 30 days after an account is cancelled [2]."


def test_no_context_gives_no_answer() -> None:
    assert ExtractiveGenerator().generate("q", []).text == ""


def _routed(n: int, text: str, score: float, route: Route) -> ContextItem:
    return ContextItem(n, Span("d", 1, n, 0, len(text), text), route, score, "mention")


def _via(sentence: int, entity: str) -> RouteStep:
    return RouteStep(None, COMENTION, entity, True, "d", 1, sentence)


def test_bridge_question_quotes_the_link_then_the_fact() -> None:
    """The film's sentence names the director; the director's sentence, reached through it,
    gives the town: quoted in that order, each with its own marker, even though the second
    is far less like the question than a distractor."""
    ctx = [_routed(1, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.7, Route("quiet harbour")),
           _routed(2, "Harbour films were popular in the sixties.", 0.5, Route("quiet harbour")),
           _routed(3, "Ilse Vantorp was born in the town of Kellerstadt.", 0.25,
                   Route("quiet harbour", (_via(1, "ilse vantorp"),)))]
    text = ExtractiveGenerator().generate("Where was the director of Quiet Harbour born?", ctx).text
    assert text.startswith("Quiet Harbour is a 1961 film directed by Ilse Vantorp [1]. "
                           "Ilse Vantorp was born in the town of Kellerstadt [3].")
    claims = attribute(text, ctx)
    assert [c.citations[0].item.route.depth for c in claims][:2] == [0, 1]
    assert all(ClaimFlag.VERBATIM_QUOTE in c.flags for c in claims)


def test_best_sentence_reached_through_a_step_is_preceded_by_the_step_sentence() -> None:
    ctx = [_routed(1, "Ilse Vantorp was born in the town of Kellerstadt.", 0.6,
                   Route("quiet harbour", (_via(2, "ilse vantorp"),))),
           _routed(2, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.3, Route("quiet harbour"))]
    text = ExtractiveGenerator().generate("q", ctx).text
    assert text.index("[2]") < text.index("[1]")


def test_a_sentence_without_a_route_to_it_is_not_chained() -> None:
    """Only the walk's own routes make chains: a sentence reached by no step is not pulled in
    however well it would complete the answer."""
    ctx = [_routed(1, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.7, Route("quiet harbour")),
           _routed(2, "Ilse Vantorp was born in the town of Kellerstadt.", 0.25, Route("ilse vantorp"))]
    assert ExtractiveGenerator().generate("q", ctx).text == "Quiet Harbour is a 1961 film directed by Ilse Vantorp [1]."


def test_a_chain_does_not_pass_through_a_hub_entity() -> None:
    """The handbook names its company in most documents: a chain from the quoted incident
    sentence through "larkspur" to an invoice sentence answers nothing about incidents."""
    ctx = [_routed(1, "Larkspur keeps every incident record for three years.", 0.6, Route("incident")),
           _routed(2, "A corrected invoice can be issued within 60 days.", 0.1,
                   Route("incident", (_via(1, "larkspur"),)))]
    graph = SimpleNamespace(specificity=np.array([0.9, 0.4], dtype=np.float32), index={"incident": 0, "larkspur": 1})
    question = "How quickly are customers told about a security incident?"
    assert "[2]" in ExtractiveGenerator().generate(question, ctx).text  # no specificity known: chained
    text = ExtractiveGenerator().for_graph(graph).generate(question, ctx).text  # type: ignore[arg-type]
    assert text == "Larkspur keeps every incident record for three years [1]."


def test_a_chain_continues_from_its_newest_quote() -> None:
    """Film -> director -> birthplace -> country: the town's sentence, reached through the
    director's, is quoted after it, ahead of distractors more like the question."""
    ctx = [_routed(1, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.7, Route("quiet harbour")),
           _routed(2, "Ilse Vantorp was born in the town of Kellerstadt.", 0.25,
                   Route("quiet harbour", (_via(1, "ilse vantorp"),))),
           _routed(3, "Kellerstadt is a town in the north of Norland.", 0.2,
                   Route("quiet harbour", (_via(1, "ilse vantorp"), _via(2, "kellerstadt")))),
           _routed(4, "Harbour films were popular in the sixties.", 0.5, Route("quiet harbour")),
           _routed(5, "Most films of the sixties were shot in colour.", 0.45, Route("quiet harbour"))]
    text = ExtractiveGenerator(max_sentences=4).generate("In which country was the director of Quiet Harbour born?",
                                                        ctx).text
    assert [int(m) for m in re.findall(r"\[(\d+)\]", text)] == [1, 2, 3, 4]


def test_a_quote_ending_in_an_abbreviation_keeps_its_dot_and_its_own_claim() -> None:
    """The marker goes after "a.m.", not inside it: the answer still says "3 a.m.", and the
    next quote is a claim of its own."""
    ctx = [item(1, "The bar stays open until 3 a.m.", 0.8), item(2, "The kitchen closes at midnight.", 0.75)]
    text = ExtractiveGenerator().generate("When does the bar close?", ctx).text
    assert text == "The bar stays open until 3 a.m. [1] The kitchen closes at midnight [2]."
    claims = attribute(text, ctx)
    assert [(c.text, [x.item.n for x in c.citations]) for c in claims] == [
        ("The bar stays open until 3 a.m.", [1]), ("The kitchen closes at midnight.", [2])]
    assert all(ClaimFlag.VERBATIM_QUOTE in c.flags for c in claims)


def test_of_the_sentences_naming_the_reached_entity_the_one_most_like_the_question_continues_the_chain() -> None:
    """Every sentence naming Kellerstadt was reached by the same step; the walk's order put a
    passing mention first, but the chain quotes the one about what the question asks."""
    step = Route("quiet harbour", (_via(1, "kellerstadt"),))
    ctx = [_routed(1, "Quiet Harbour was filmed in Kellerstadt.", 0.7, Route("quiet harbour")),
           _routed(2, "A train from Kellerstadt runs twice a day.", 0.15, step),
           _routed(3, "Kellerstadt lies in the north of Norland.", 0.3, step)]
    text = ExtractiveGenerator(max_sentences=2).generate("In which country was Quiet Harbour filmed?", ctx).text
    assert text == "Quiet Harbour was filmed in Kellerstadt [1]. Kellerstadt lies in the north of Norland [3]."


def test_a_long_chain_leaves_room_for_the_sentence_most_like_the_question() -> None:
    """Before: a chain from the first context item (a customer sentence, through the company to its
    invoices, then to an alert) took all four quotes, and the handbook's "within 72 hours" sentence, the
    one most like the question, was dropped from the answer."""
    ctx = [_routed(1, "Enterprise customers can ask for a call about the report.", 0.47, Route("customer")),
           _routed(2, "A corrected invoice can be issued within 60 days.", 0.29,
                   Route("customer", (_via(1, "larkspur"), _via(3, "invoice")))),
           _routed(3, "This page explains when Larkspur refunds a payment.", 0.10,
                   Route("customer", (_via(1, "larkspur"),))),
           _routed(4, "The on-call engineer opens a record when an alert suggests one.", 0.45,
                   Route("customer", (_via(1, "alert"),))),
           _routed(5, "Larkspur notifies affected customers within 72 hours of an incident.", 0.66,
                   Route("security incident"))]
    text = ExtractiveGenerator(min_join_specificity=0, max_sentences=4).generate(
        "Within how many hours are customers notified of a security incident?", ctx).text
    assert "within 72 hours of an incident [5]." in text
    assert len(re.findall(r"\[\d+\]", text)) == 4


def test_the_answer_opens_with_the_chain_about_the_question_and_keeps_the_first_context_item() -> None:
    """Before: the answer opened with the first context item and followed the chain through it
    (the premiere, the Lido, Venice), so the chain that answers (the film's director, then where
    the director grew up) never got a place. Now it opens with that chain, and the first
    context item still keeps its place."""
    ctx = [_routed(1, "Quiet Harbour premiered at the Lido in Venice.", 0.5, Route("quiet harbour")),
           _routed(2, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.6, Route("quiet harbour")),
           _routed(3, "Ilse Vantorp grew up near Kellerstadt in Norland.", 0.2,
                   Route("quiet harbour", (_via(2, "ilse vantorp"),))),
           _routed(4, "The Lido in Venice hosts a film festival every September.", 0.3,
                   Route("quiet harbour", (_via(1, "lido"),))),
           _routed(5, "Venice lies on a lagoon of the Adriatic Sea.", 0.25,
                   Route("quiet harbour", (_via(1, "lido"), _via(4, "venice"))))]
    question = "In which country did the director of Quiet Harbour grow up?"

    def markers(gen: ExtractiveGenerator) -> list[int]:
        return [int(m) for m in re.findall(r"\[(\d+)\]", gen.generate(question, ctx).text)]

    assert 3 not in markers(ExtractiveGenerator(max_sentences=4, chain_first=False))
    got = markers(ExtractiveGenerator(max_sentences=4))
    assert got[:2] == [2, 3] and 1 in got


def test_a_chain_follows_the_entity_the_walk_reached_most_strongly() -> None:
    """From "Black Hawk Township is located in Jefferson County, Iowa", the walk reached Iowa
    (named by many sentences) and Jefferson County (by few): the chain continues through the
    county, not through the first sentence that happens to name Iowa."""
    ctx = [_routed(1, "Black Hawk Township is located in Jefferson County, Iowa.", 0.79, Route("black hawk township")),
           _routed(2, "Poyner Township is one of seventeen rural townships in Black Hawk County, Iowa.", 0.42,
                   Route("black hawk township", (_via(1, "iowa"),))),
           _routed(3, "Portland lies partly in Dodge County and partly in Jefferson County.", 0.04,
                   Route("black hawk township", (_via(1, "jefferson county"),)))]
    graph = SimpleNamespace(specificity=np.array([1.0, 0.6, 0.9], dtype=np.float32),
                            index={"black hawk township": 0, "iowa": 1, "jefferson county": 2})
    gen = ExtractiveGenerator(max_sentences=2, chain_first=False)
    question = "What county shares a border with the county where Black Hawk Township is located?"
    assert gen.generate(question, ctx).text.endswith("[2].")  # without specificity: the first in order
    text = gen.for_graph(graph).generate(question, ctx).text  # type: ignore[arg-type]
    assert text.endswith("partly in Jefferson County [3].")
