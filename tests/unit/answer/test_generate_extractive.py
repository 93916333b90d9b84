"""The embedded generator reads as an answer: the short answer first, a few quotes that answer, each with its
marker, no repeats, and sources that disagree said so."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from graphrag.answer.generate import extractive
from graphrag.answer.generate.extractive import ExtractiveGenerator, ExtractiveSettings, GraphFacts
from graphrag.answer.generate.facts import graph_facts
from graphrag.answer.reader import quotes as quote_rank
from graphrag.answer.reader.quotes import read_quotes
from graphrag.answer.reader.read import Reading
from graphrag.answer.reader.span import SpanReading
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import DocVersion
from graphrag.language.encoding import DIM
from graphrag.model import COMENTION, ClaimFlag, ContextItem, Route, RouteStart, RouteStep, Span
from graphrag.verify.attribution import attribute

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def _patterns_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unit tests run without spaCy: short answers from patterns only (numbers, durations, dates)."""
    monkeypatch.setattr(extractive.ExtractiveGenerator, "__init__", _without_ner(extractive.ExtractiveGenerator.__init__))


def _without_ner(init):  # type: ignore[no-untyped-def]
    def wrapped(self, settings=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        init(self, replace(settings or ExtractiveSettings(), ner=False), *args, **kwargs)
    return wrapped


def item(n: int, text: str, score: float, date: str | None = None) -> ContextItem:
    return ContextItem(n, Span("d", 1, n, 0, len(text), text), Route("e"), score, "mention", effective_date=date)


def _scored(monkeypatch: pytest.MonkeyPatch, scores: dict[int, float]) -> None:
    """The ranker's scores given, by marker: these tests are about choosing and composing quotes."""
    monkeypatch.setattr(quote_rank, "quote_scores", lambda q, items, *a: [scores[c.n] for c in items])


def test_quotes_relevant_sentences_with_markers_and_a_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    _scored(monkeypatch, {1: 0.9, 2: 0.85, 3: 0.9, 4: 0.1, 5: 0.8, 6: 0.75})
    ctx = [item(1, "Exports use the latest snapshot.", 0.8), item(2, "Snapshots follow the retention policy.", 0.75),
           item(3, "Billing", 0.9), item(4, "Support is open on weekdays only.", 0.3),
           item(5, "Exports are CSV files.", 0.74), item(6, "Exports are JSON files too.", 0.73)]
    text = ExtractiveGenerator().generate("q", ctx).text
    assert text == ("Exports use the latest snapshot [1]. Snapshots follow the retention policy [2]. "
                    "Exports are CSV files [5].")  # heading skipped, the far less relevant one dropped, three at most
    claims = attribute(text, ctx)
    assert [c.citations[0].item.n for c in claims] == [1, 2, 5]


def test_near_repeat_keeps_the_newer_source() -> None:
    ctx = [item(1, "Snapshot exports remain available for 7 days after an account is cancelled.", 0.9, "2023-04-01"),
           item(2, "Snapshot exports remain available for 30 days after an account is cancelled.", 0.88, "2026-02-01")]
    text = ExtractiveGenerator().generate("How long?", ctx).text
    assert text == "30 days [2]. Snapshot exports remain available for 30 days after an account is cancelled [2]."


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


def test_best_sentence_reached_through_a_step_is_followed_by_the_step_sentence_the_question_needs() -> None:
    ctx = [_routed(1, "Ilse Vantorp was born in the town of Kellerstadt.", 0.6,
                   Route("quiet harbour", (_via(2, "ilse vantorp"),))),
           _routed(2, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.3, Route("quiet harbour"))]
    text = ExtractiveGenerator().generate("Where was the director of Quiet Harbour born?", ctx).text
    # The answering sentence first, then the link naming the film the question asks about.
    assert text == ("Ilse Vantorp was born in the town of Kellerstadt [1]. "
                    "Quiet Harbour is a 1961 film directed by Ilse Vantorp [2].")


def test_the_span_readers_trusted_phrase_of_the_best_quote_opens_the_answer_before_a_links_phrase() -> None:
    """The best quote holds no phrase of the asked kind ("in the spring", not a date) and a link the question needs
    holds one ("1931"): the link's phrase opened the answer and took the first citation from the sentence that
    answers. Where the span reader takes the best quote to state the answer, its span opens the answer instead;
    where it does not, the link's phrase still does."""
    question = "When was the harbour bridge over the Kell river opened?"
    best = _routed(1, "The harbour bridge opened to traffic in the spring after the great flood.", 0.8,
                   Route("harbour bridge", (_via(2, "oskar lenz"),)))
    ctx = [best, _routed(2, "The bridge over the Kell river was designed in 1931 by Oskar Lenz.", 0.3, Route("kell"))]
    span = "in the spring after the great flood"
    at = best.span.text.index(span)

    def answer(states: bool) -> str:
        reading = replace(read_quotes(question, ctx),
                          spans={best: SpanReading(1.0, 0.9 if states else 0.2, span, at, at + len(span), states)})
        return ExtractiveGenerator().generate(question, ctx, Reading(None, None, True, quotes=reading)).text

    assert answer(True).startswith("In the spring after the great flood [1]. The harbour bridge opened"), answer(True)
    assert answer(False).startswith("1931 [2]."), answer(False)


def test_a_trusted_span_that_names_what_the_link_goes_on_from_leaves_the_opening_to_the_link() -> None:
    """The span reader trusts the best quote with "the Lenz Foundry" for a question about when the buyer was
    founded: the link quoted after it goes on from that very name and gives the year. The span is the bridge, not
    the answer: the link's phrase opens (the sample corpus's "Aurora region" -> "Dublin")."""
    question = "When was the company that bought the Kell works founded?"
    best = _routed(1, "The Kell works were bought by the Lenz Foundry.", 0.8, Route("kell works"))
    link = _routed(2, "The Lenz Foundry was founded in 1871.", 0.4, Route("kell works", (_via(1, "lenz foundry"),)))
    span = "the Lenz Foundry"
    at = best.span.text.index(span)
    reading = replace(read_quotes(question, [best, link]),
                      spans={best: SpanReading(1.0, 0.9, span, at, at + len(span), True)})
    text = ExtractiveGenerator().generate(question, [best, link], Reading(None, None, True, quotes=reading)).text
    assert text.startswith("1871 [2]."), text


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
    facts = GraphFacts(specificity=lambda key: {"incident": 0.9, "larkspur": 0.4}.get(key, 1.0))
    question = "Which team is told about a security incident?"
    assert "[2]" in ExtractiveGenerator().generate(question, ctx).text  # no specificity known: chained
    text = ExtractiveGenerator().knowing(facts).generate(question, ctx).text
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
    text = ExtractiveGenerator().generate("In which country was the director of Quiet Harbour born?", ctx).text
    assert [int(m) for m in re.findall(r"\[(\d+)\]", text)] == [1, 2, 3]


def test_a_quote_ending_in_an_abbreviation_keeps_its_dot_and_its_own_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    _scored(monkeypatch, {1: 0.9, 2: 0.85})
    """The marker goes after "a.m.", not inside it: the answer still says "3 a.m.", and the
    next quote is a claim of its own."""
    ctx = [item(1, "The bar stays open until 3 a.m.", 0.8), item(2, "The kitchen closes at midnight.", 0.75)]
    text = ExtractiveGenerator().generate("q", ctx).text
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
    text = ExtractiveGenerator(ExtractiveSettings(max_sentences=2)).generate("In which country was Quiet Harbour filmed?", ctx).text
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
    text = ExtractiveGenerator(ExtractiveSettings(min_join_specificity=0)).generate(
        "Within how many hours are customers notified of a security incident?", ctx).text
    # The answer opens with the short answer and the sentence it comes from; nothing that does not answer follows.
    assert text == "72 hours [5]. Larkspur notifies affected customers within 72 hours of an incident [5]."


def test_the_answer_opens_with_the_chain_about_the_question() -> None:
    """Before: the answer opened with the first context item and followed the chain through it
    (the premiere, the Lido, Venice), so the chain that answers (the film's director, then where
    the director grew up) never got a place. Now it opens with that chain."""
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

    got = markers(ExtractiveGenerator())
    assert got[:2] == [2, 3] and 4 not in got and 5 not in got


def test_a_chain_follows_the_entity_the_walk_reached_most_strongly() -> None:
    """From "Black Hawk Township is located in Jefferson County, Iowa", the walk reached Iowa
    (named by many sentences) and Jefferson County (by few): the chain continues through the
    county, not through the first sentence that happens to name Iowa."""
    ctx = [_routed(1, "Black Hawk Township is located in Jefferson County, Iowa.", 0.79, Route("black hawk township")),
           _routed(2, "Poyner Township is one of seventeen rural townships in Black Hawk County, Iowa.", 0.42,
                   Route("black hawk township", (_via(1, "iowa"),))),
           _routed(3, "Portland lies partly in Dodge County and partly in Jefferson County.", 0.04,
                   Route("black hawk township", (_via(1, "jefferson county"),)))]
    facts = GraphFacts(specificity=lambda key: {"iowa": 0.6, "jefferson county": 0.9}.get(key, 1.0))
    gen = ExtractiveGenerator(ExtractiveSettings(max_sentences=2))
    question = "What county shares a border with the county where Black Hawk Township is located?"
    assert gen.generate(question, ctx).text.endswith("[2].")  # without specificity: the first in order
    text = gen.knowing(facts).generate(question, ctx).text
    assert text.endswith("partly in Jefferson County [3].")


def _doc_item(n: int, doc: str, text: str, score: float, date: str | None) -> ContextItem:
    return ContextItem(n, Span(doc, 1, n, 0, len(text), text), Route("e"), score, "mention", effective_date=date)


def test_a_fact_question_opens_with_the_short_answer_citing_its_sentence() -> None:
    """Before: the answer was four or five quotes with the fact buried among them. Now the phrase that
    answers comes first, as a claim citing the sentence it was taken from, then that sentence."""
    ctx = [item(1, "Exports are built by the export worker every night.", 0.8),
           item(2, "Snapshot exports remain available for 30 days after an account is cancelled.", 0.7),
           item(3, "Cancellation takes effect at the end of the current billing period.", 0.6)]
    text = ExtractiveGenerator().generate("How long do exports stay available after cancellation?", ctx).text
    assert text.startswith("30 days [2]. Snapshot exports remain available for 30 days after an account is cancelled [2].")
    claims = attribute(text, ctx)
    assert claims[0].text.rstrip(".") == "30 days" and ClaimFlag.VERBATIM_QUOTE not in claims[0].flags  # scored by the checker
    assert ClaimFlag.VERBATIM_QUOTE in claims[1].flags


@pytest.mark.parametrize("text", [
    "Can I get a refund for unused time?",  # a FAQ's question
    "Annual plans",  # a heading
    "Before you start:",
    "Figure 3: Retention of snapshots by region.",  # a caption
    "Plan | Price | Refund window | 14 days",  # a table row
    "[12] A. Smith and B. Lee. Snapshot retention at scale. In Proceedings of VLDB, pp. 1-12, 2019.",  # a reference
    "Smith, J., & Lee, K. (2019). Snapshot retention policies. Journal of Data Systems, 4(2).",
    "Ana Ortiz, Ben Lee, Cai Wu, Dept. of Computing, University of Lyon, ana@example.org",  # an author line
    # an encyclopedia print's notes and external links (quoted first on the real PDFs before)
    '"Annual plans explained" (https://example.org/annual-plans). Larkspur Blog. 2 May 2018.',
    "Larkspur Refunds (https://www.example.org/name/nm4789912/) at Example",
    "Retrieved 3 May 2018, the annual plans archive page of the handbook.",
])
def test_questions_headings_captions_table_rows_references_and_author_lines_are_never_quoted(text: str) -> None:
    ctx = [item(1, text, 0.95), item(2, "Annual plans can be refunded within 14 days of the first payment.", 0.6)]
    out = ExtractiveGenerator().generate("Can annual plans be refunded?", ctx).text
    assert out == "Annual plans can be refunded within 14 days of the first payment [2]."


def test_at_most_three_quotes_and_none_below_the_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    _scored(monkeypatch, {1: 0.9, 2: 0.85, 3: 0.8, 4: 0.75, 5: 0.7, 6: 0.2})
    ctx = [item(i, t, 0.8 - i * 0.01) for i, t in enumerate([
        "Exports are kept in the archive until the account closes.", "The archive keeps every export as a CSV file.",
        "Auditors may read archived exports on request.", "Old exports move to cold storage in the archive.",
        "Each archived export names the workspace it came from."], start=1)]
    ctx.append(item(6, "Support is open on weekdays only.", 0.3))
    text = ExtractiveGenerator().generate("Are exports kept in the archive?", ctx).text
    assert len(re.findall(r"\[\d+\]", text)) == 3 and "[6]" not in text


def test_sources_that_disagree_are_said_so_with_the_current_source_first() -> None:
    """Before: the answer quoted the 2023 FAQ's "14 days" and the policy's "35 days" side by side, the
    stale one first, with nothing saying they differ; later the FAQ's sentence still followed the disagreement
    sentence as a quote of its own, reading as a plain statement of the answer."""
    ctx = [_doc_item(1, "faq", "Larkspur keeps nightly snapshots for 14 days.", 0.8, "2023-04-01"),
           _doc_item(2, "retention", "Nightly snapshots are kept for 35 days.", 0.78, "2025-06-01")]
    gen = ExtractiveGenerator().knowing(GraphFacts(title=lambda doc, version: {"faq": "FAQ", "retention": "Retention policy"}[doc]))
    text = gen.generate("How long are nightly snapshots kept?", ctx).text
    assert text == ("35 days [2]. Nightly snapshots are kept for 35 days [2]. Sources disagree: Retention policy "
                    "(2025-06-01) says 35 days [2]; FAQ (2023-04-01) says 14 days [1].")
    assert [len(c.citations) for c in attribute(text, ctx)] == [1, 1, 2]


def test_undated_sources_that_disagree_keep_their_quotes() -> None:
    """Between undated pages a "disagreement" is often two numbers of different things; dropping the quotes left
    a bridge sentence only inside such a sentence (MuSiQue)."""
    ctx = [_doc_item(1, "faq", "Larkspur keeps nightly snapshots for 14 days.", 0.8, None),
           _doc_item(2, "retention", "Nightly snapshots are kept for 35 days.", 0.78, None)]
    text = ExtractiveGenerator().generate("How long are nightly snapshots kept?", ctx).text
    assert "Sources disagree" in text
    assert "Larkspur keeps nightly snapshots for 14 days [1]" in text and "kept for 35 days [2]" in text


def test_a_source_denying_what_another_says_is_a_disagreement() -> None:
    ctx = [_doc_item(1, "faq", "Larkspur refunds unused time on annual plans.", 0.7, "2023-04-01"),
           _doc_item(2, "billing", "After 14 days, the annual fee is not refunded, but the plan stays usable.", 0.65,
                     "2026-01-15")]
    text = ExtractiveGenerator().generate("Can annual plans be refunded?", ctx).text
    assert "Sources disagree: billing (2026-01-15) says “After 14 days, the annual fee is not refunded" in text
    assert text.index("[2]") < text.index("[1]")  # the current source first


def _in(doc: str, n: int, text: str, score: float, *steps: tuple[str, int, str]) -> ContextItem:
    route = Route("quiet harbour", tuple(RouteStep(None, COMENTION, e, True, d, 1, s) for d, s, e in steps))
    return ContextItem(n, Span(doc, 1, n, 0, len(text), text), route, score, "mention")


_BRIDGE = [_in("film", 1, "Quiet Harbour is a film directed by Ilse Vantorp.", 0.7),
           _in("film", 2, "Quiet Harbour was shot on the coast in a single summer.", 0.6),
           _in("vantorp", 3, "Ilse Vantorp was married to the painter Oskar Lenz.", 0.3, ("film", 1, "ilse vantorp")),
           _in("lenz", 4, "Oskar Lenz was born on 4 May 1921.", 0.2,
               ("film", 1, "ilse vantorp"), ("vantorp", 3, "oskar lenz"))]
_BRIDGE_QUESTION = "When was the spouse of the director of Quiet Harbour born?"


def test_a_bridge_across_short_documents_keeps_the_whole_chain_after_the_answer_from_its_last_link() -> None:
    """The question names the film; its page names the director, whose page names her husband, whose
    page gives the date. The answer opens with the date, cited to the chain's last link, then quotes the
    chain in order, one link per page (before: three quotes, the last link's date left out)."""
    gen = ExtractiveGenerator().knowing(GraphFacts(sentence_count=lambda doc, version: 3))  # each page a short paragraph
    text = gen.generate(_BRIDGE_QUESTION, _BRIDGE).text
    assert text.startswith("4 May 1921 [4].")
    markers = [int(m) for m in re.findall(r"\[(\d+)\]", text)]
    assert [m for m in markers[1:] if m in (1, 3, 4)] == [1, 3, 4]


def test_paragraphs_of_one_article_are_one_page_and_a_walk_between_them_is_no_bridge() -> None:
    """An article stored one paragraph per document (every document titled with the article's name) is one page
    about one thing: a walk between its paragraphs is no bridge, and the answer keeps the short shape, the best
    sentence first. Pages titled apart stay a bridge."""
    def titled(same: bool) -> ExtractiveGenerator:
        return ExtractiveGenerator().knowing(GraphFacts(
            title=lambda doc, version: "Quiet Harbour" if same else doc.title(),
            sentence_count=lambda doc, version: 3))

    def quoted(text: str) -> set[str]:
        return set(re.findall(r"\[(\d+)\]", text))

    assert len(quoted(titled(True).generate(_BRIDGE_QUESTION, _BRIDGE).text)) <= 3  # the short shape
    assert quoted(titled(False).generate(_BRIDGE_QUESTION, _BRIDGE).text) == {"1", "2", "3", "4"}  # the chain's


def test_within_long_articles_the_answer_keeps_the_short_shape() -> None:
    """A walk between long articles is not read as a bridge: at most three quotes."""
    gen = ExtractiveGenerator().knowing(GraphFacts(sentence_count=lambda doc, version: 400))
    text = gen.generate(_BRIDGE_QUESTION, _BRIDGE).text
    assert len(set(re.findall(r"\[(\d+)\]", text))) <= 3


def test_within_long_articles_a_chain_does_not_continue_into_another_articles_sentence() -> None:
    """In a long article every entity is named everywhere: the "next link" through the film's director
    was another article's sentence about someone else (NQ articles: a voice actor's credits answered
    "who plays the new Wonder Woman"). Between long pages the answer keeps the sentences that answer."""
    ctx = [_routed(1, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.7, Route("quiet harbour")),
           _routed(2, "Ilse Vantorp was born in the town of Kellerstadt.", 0.25,
                   Route("quiet harbour", (_via(1, "ilse vantorp"),))),
           _routed(3, "Harbour films were popular in the sixties.", 0.5, Route("quiet harbour"))]
    question = "In which country was the director of Quiet Harbour born?"
    short = ExtractiveGenerator().knowing(GraphFacts(sentence_count=lambda doc, version: 4))
    assert "[2]" in short.generate(question, ctx).text  # short pages: the chain goes on
    long = ExtractiveGenerator().knowing(GraphFacts(sentence_count=lambda doc, version: 400))
    assert "[2]" not in long.generate(question, ctx).text


def test_a_chain_does_not_continue_into_another_paragraph_of_the_same_article() -> None:
    """An article stored one paragraph per document is one long page: as within a long article, the quoted
    sentence's entity is named in its other paragraphs, and the "next link" there took the short answer and the
    first citation from the sentence that answers (SQuAD 2.0 dev's choose articles). Paragraphs of two pages
    titled apart still chain."""
    ctx = [_in("p1", 1, "Quiet Harbour is a 1961 film directed by Ilse Vantorp.", 0.7),
           _in("p2", 2, "Ilse Vantorp was born in the town of Kellerstadt.", 0.25, ("p1", 1, "ilse vantorp")),
           _in("p3", 3, "Harbour films were popular in the sixties.", 0.5)]
    question = "In which country was the director of Quiet Harbour born?"

    def titled(same: bool) -> ExtractiveGenerator:
        return ExtractiveGenerator().knowing(GraphFacts(
            title=lambda doc, version: "Quiet Harbour" if same else doc, sentence_count=lambda doc, version: 4))

    assert "[2]" not in titled(True).generate(question, ctx).text
    assert "[2]" in titled(False).generate(question, ctx).text


def test_the_short_answer_comes_from_the_best_quote_not_a_later_one_that_holds_a_phrase(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: a further quote holding a phrase of the asked-for kind (a date) went first and gave the
    short answer, ahead of the sentence that answers best but states no such phrase."""
    _scored(monkeypatch, {1: 0.9, 2: 0.8})
    ctx = [item(1, "Halley's Comet is visible from Earth every 75 years, and it last passed in the inner system.", 0.8),
           item(2, "On 8 November 1985 two astronomers first saw the comet's coma.", 0.6)]
    text = ExtractiveGenerator().generate("When does Halley's Comet come back?", ctx).text
    assert text.startswith("Halley's Comet is visible from Earth every 75 years"), text


def test_a_walk_through_a_measure_is_not_a_bridge() -> None:
    """Two short pages that state the same amount ("within 30 days") are joined by it in the graph. Before,
    that read as a bridge: "Within how many days can an owner reactivate a cancelled account?" opened with
    "30 days" cited to an incident report reached through "30 day". Now the answer cites the sentence that
    answers."""
    def at(doc: str, n: int, text: str, score: float, *steps: tuple[str, int, str]) -> ContextItem:
        route = Route("owner", tuple(RouteStep(None, COMENTION, e, True, d, 1, s) for d, s, e in steps),
                      RouteStart.QUESTION)
        return ContextItem(n, Span(doc, 1, n, 0, len(text), text), route, score, "mention")

    ctx = [at("accounts", 1, "An owner can reactivate a cancelled account within 30 days.", 0.8),
           at("handbook", 2, "A written report follows within 30 days of closing the incident.", 0.3,
              ("accounts", 1, "30 day"))]
    gen = ExtractiveGenerator().knowing(GraphFacts(sentence_count=lambda doc, version: 3))
    text = gen.generate("Within how many days can an owner reactivate a cancelled account?", ctx).text
    assert text.startswith("30 days [1]."), text


@pytest.mark.parametrize("text", [
    "Write to help@example.org within 14 days for a refund of annual plans.",
    "Annual plans can be refunded within 14 days (https://example.org/refunds).",
    # two links are one kind of cue, not a reference entry (the ranker's detector counted each link)
    "Annual plans can be refunded within 14 days, see https://example.org/refunds and http://example.org/terms.",
])
def test_a_statement_holding_an_address_is_still_quoted(text: str) -> None:
    """An e-mail address or a link inside a statement does not make it a byline or a reference entry."""
    out = ExtractiveGenerator().generate("Can annual plans be refunded?", [item(1, text, 0.9)]).text
    assert "[1]" in out and text.rstrip(".") in out, out


@pytest.mark.parametrize(("text", "quoted"), [
    # prose with one reference-like cue: the generator refused it while the ranker scored it as an answer
    ("She plays the role of Mantis in the film Guardians of the Galaxy Vol. 2 ( 2017 ).", True),
    ("Her paper in the Journal of Physics set the number of justices at nine in 1869.", True),
    # a four-word title-like heading: the ranker scored it 0 while the generator would quote it
    ("Size of the Court", False),
])
def test_the_generator_quotes_what_the_ranker_reads_as_a_body_sentence(text: str, quoted: bool) -> None:
    """One detector of the kind of line for the ranker and the quotes: before, each had its own rules and they
    disagreed on these lines."""
    ctx = [item(1, text, 0.95), item(2, "Congress sets the number of justices by law.", 0.3)]
    out = ExtractiveGenerator().generate("How many justices are on the court?", ctx).text
    assert ("[1]" in out) is quoted, out


def test_the_graph_tells_the_generator_specificity_titles_and_page_lengths() -> None:
    """What a generator may know of a graph is one record: a hub is less specific than an entity one sentence
    names, titles and sentence counts are per document version, and what the graph does not hold reads as fully
    specific and one sentence long."""
    # Five sentences of "Open" name "a" (a hub), the one sentence of "Secret" names "z".
    docs = [DocVersion("open", 1, frozenset({"public"}), False, "Open", None),
            DocVersion("secret", 1, frozenset({"internal"}), False, "Secret", None)]
    rows = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0)]
    graph = KnowledgeGraph(["a", "z"], ["a", "z"], np.zeros((2, DIM), dtype=np.float32), docs,
                           np.array([0, 0, 0, 0, 0, 1]), np.arange(6), np.array([d for d, _ in rows]),
                           np.array([i for _, i in rows]), np.zeros((6, DIM), dtype=np.float32), [])
    facts = graph_facts(graph)
    assert facts.specificity is not None and facts.title is not None and facts.sentence_count is not None
    assert facts.specificity("a") < facts.specificity("z") == pytest.approx(1.0)
    assert facts.specificity("unknown") == 1.0
    assert (facts.title("open", 1), facts.title("secret", 1), facts.title("open", 2)) == ("Open", "Secret", None)
    assert (facts.sentence_count("open", 1), facts.sentence_count("secret", 1), facts.sentence_count("gone", 1)) == (
        5, 1, 1)


def test_the_answer_scorer_alone_orders_a_question_no_chain_answers() -> None:
    """The reader's scorer judges which sentence answers; the older score (similarity, question words) judges topic.
    A sentence sharing the question's words but not answering it ("founded" and "Larkspur" both there) is quoted
    after the one the scorer puts first, however much more similar it is; a bridge question keeps the blend."""
    question = "Who founded Larkspur?"
    ctx = [item(1, "Larkspur was founded as a backup service for small teams.", 0.92),
           item(2, "Its first two engineers, Ada Brook and Tom Vale, started the company in a garage.", 0.31)]
    scores = {1: 0.55, 2: 0.58}
    reading = Reading(None, None, True, scores, quotes=quote_rank.read_quotes(question, ctx, scores, ner=False))
    text = ExtractiveGenerator().generate(question, ctx, reading).text
    assert re.search(r"\[(\d)\]", text).group(1) == "2"  # type: ignore[union-attr]
    plain = quote_rank.quote_scores(question, ctx, [False, False])
    alone = quote_rank.with_answer_scores(plain, [0.55, 0.58])
    blended = quote_rank.with_answer_scores(plain, [0.55, 0.58], bridged=True)
    assert plain[0] > plain[1] and alone == pytest.approx([0.55, 0.58])
    assert blended[0] > blended[1]  # the blend keeps the similar sentence first here


def test_one_reading_composes_the_same_answer_every_time() -> None:
    """A reading is the reader's judgement, not the generator's scratch space: the short answers the generator looks
    up while composing (a quote that joined late) are not written back into it, so a second answer from the same
    reading is the same, and the reading's typed short answers are as the reader left them."""
    question = "How long are nightly snapshots kept?"

    def source(n: int, doc: str, text: str, score: float, date: str) -> ContextItem:
        return ContextItem(n, Span(doc, 1, 0, 0, len(text), text), Route("e"), score, "mention", effective_date=date)

    ctx = [source(1, "policy", "Nightly snapshots are kept for 35 days.", 0.9, "2025-06-01"),
           source(2, "faq", "Nightly snapshots are kept for 14 days.", 0.8, "2023-04-01")]
    quotes = quote_rank.read_quotes(question, ctx, phrase_candidates=1, ner=False)
    typed = dict(quotes.typed)
    assert list(typed) == [ctx[0]]  # the reader typed the statement most like the question only
    reading = Reading(None, None, True, quotes=quotes)
    first = ExtractiveGenerator().generate(question, ctx, reading).text
    assert "[2]" in first  # the older source joined late (a disagreement's other side): its phrase looked up then
    assert ExtractiveGenerator().generate(question, ctx, reading).text == first
    assert dict(quotes.typed) == typed
    # without a reading the generator reads the statements itself, as the reader does without its scorer
    assert ExtractiveGenerator(ExtractiveSettings(phrase_candidates=1)).generate(question, ctx).text == first
