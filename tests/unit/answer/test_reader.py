"""The reader between retrieval and the answer: the scorer orders the quotes, the abstention decision says "the
documents do not say" in words (no claim, no generator call), and the answer records whether it answered."""

from __future__ import annotations

import json

import pytest

from doubles.generate import ScriptedGenerator
from doubles.reader import ScriptedCheck, ScriptedScorer, ScriptedSpan, always
from graphrag.answer.ask import Asker
from graphrag.answer.generate.abstention import not_answered_text
from graphrag.answer.generate.ollama import OllamaGenerator
from graphrag.answer.reader.abstain import AbstainModel, load_abstain_model
from graphrag.answer.reader.features import ReaderFeatures, reader_features
from graphrag.answer.reader.read import CHECKED, Reader, Why
from graphrag.errors import ModelUnavailable
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings
from graphrag.present import answer_json
from helpers import ScriptedChecker, reference_corpus, reference_extractor
from ollama_fake import FakeOllama
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit

ANY = AskSettings(min_relevance=0.0)  # every question reaches the reader (hash vectors are far apart)


@pytest.fixture()
def embedder(unparsed_questions: None) -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture()
def ref_store(store, embedder, tmp_path):
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    return store


def test_abstention_says_so_in_words_and_makes_no_claim(ref_store, embedder):
    asker = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=Reader(abstain=always(False)))
    answer = asker.ask("Who founded Larkspur?", ANY).answer
    assert answer.answered is False
    assert answer.text == "The documents do not say who founded Larkspur."
    assert answer.claims == ()  # nothing to review: the closest passages are not claims
    assert answer.context  # ... but they are kept, to be shown as passages
    stored = ref_store.answer(answer.id)
    assert stored is not None and stored.answered is False and stored.answerable == pytest.approx(answer.answerable)
    assert ref_store.claim_summaries() == []
    assert ref_store.unanswered_ids() == [answer.id]


def test_ask_json_carries_answered_and_the_closest_passages(ref_store, embedder):
    asker = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=Reader(abstain=always(False)))
    no = answer_json(asker.ask("What does the enterprise plan cost?", ANY).answer)
    assert no["answered"] is False and no["claims"] == [] and 0 < len(no["passages"]) <= 3
    assert no["answer"] == "The documents do not say what the enterprise plan costs."
    yes_asker = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=Reader(abstain=always(True)))
    yes = answer_json(yes_asker.ask("How long do exports remain available?", ANY).answer)
    assert yes["answered"] is True and yes["claims"] and yes["passages"] == []
    json.dumps(no), json.dumps(yes)


def test_ollama_is_not_called_when_the_documents_do_not_answer(ref_store, embedder, fake_ollama: FakeOllama):
    fake_ollama.models = ["llama3.1:8b"]
    fake_ollama.responder = lambda req: "Exports use the latest snapshot [1]."
    gen = OllamaGenerator(model="llama3.1:8b", host=fake_ollama.url, timeout=5.0, retries=0)
    answer = Asker(ref_store, embedder=embedder, generator=gen, checker=ScriptedChecker(),
                   reader=Reader(abstain=always(False))).ask("Who founded Larkspur?", ANY).answer
    assert answer.answered is False and answer.claims == ()
    assert not [r for r in fake_ollama.requests if "messages" in r]  # no /api/chat request was made
    answered = Asker(ref_store, embedder=embedder, generator=gen, checker=ScriptedChecker(),
                     reader=Reader(abstain=always(True))).ask("What do exports use?", ANY).answer
    assert answered.answered and [r for r in fake_ollama.requests if "messages" in r]


def test_the_scorer_orders_the_quotes(ref_store, embedder):
    question = "What happens to exports after cancellation?"
    both = AskSettings(min_relevance=0.0, access=("internal", "public"))
    plain = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=Reader(abstain=always(True)))
    first_plain = plain.ask(question, both).answer.claims[0].citations[0].item
    assert first_plain is not None and "Falcon" not in first_plain.span.text
    scorer = ScriptedScorer("falcon key")
    scored = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(),
                   reader=Reader(scorer=scorer, abstain=always(True))).ask(question, both)
    first = scored.answer.claims[0].citations[0].item
    assert first is not None and "Falcon" in first.span.text
    # the scorer read each candidate with its neighbours and its document's title
    _, passages = scorer.asked[0]
    assert any(p.title for p in passages) and any(p.before or p.after for p in passages)


def test_one_reading_says_whether_the_documents_answer_and_why(ref_store, embedder):
    """The reader is the one place that decides: its reading says whether the documents answer, why not in words,
    and for an answered question the quotes' order and each statement's typed short answer."""
    question = "What happens to exports after cancellation?"
    both = AskSettings(min_relevance=0.0, access=("internal", "public"))
    no = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=Reader(abstain=always(False)))
    graph = no.graph()
    found = no.retrieve(question, both)
    assert found.context
    nothing = no.read(question, [], graph, 0.0)
    assert (nothing.answered, nothing.why, nothing.probability, nothing.features, nothing.quotes) == (
        False, Why.NO_CANDIDATE, None, None, None)
    below = no.read(question, found.context, graph, 2.0)
    assert below.why is Why.BELOW_RELEVANCE and not below.answered and below.features is None
    assert "below the 2.00 needed" in below.reason
    abstained = no.read(question, found.context, graph, 0.0)
    assert abstained.why is Why.ABSTAINED and abstained.quotes is None and abstained.features is not None
    assert abstained.reason.startswith("abstained: probability ") and "< threshold 0.500" in abstained.reason
    yes = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(),
                reader=Reader(scorer=ScriptedScorer("falcon key"), abstain=always(True)))
    answered = yes.read(question, found.context, graph, 0.0)
    assert answered.answered and answered.why is Why.ANSWERED and answered.quotes is not None
    assert "Falcon" in answered.quotes.ranked()[0].span.text  # the scorer's order is the quotes' order
    assert set(answered.quotes.candidates) <= set(found.context)
    assert set(answered.quotes.typed) <= set(answered.quotes.candidates)
    # ... and the answer is composed from it: its first quote is the reading's first
    first = yes.ask(question, both).answer.claims[0].citations[0].item
    assert first is not None and "Falcon" in first.span.text
    # any generator is handed the reading (no generator is special-cased)
    scripted = ScriptedGenerator("Exports stay available [1].")
    Asker(ref_store, embedder=embedder, generator=scripted, checker=ScriptedChecker(),
          reader=Reader(scorer=ScriptedScorer("falcon key"), abstain=always(True))).ask(question, both)
    (given,) = scripted.readings
    assert given is not None and given.answered and given.quotes is not None


def test_a_question_asking_for_a_kind_no_sentence_holds_says_so(ref_store, embedder):
    """ "Who ...?" against sentences naming no one (short answers by patterns here: no person is found) is not
    answered, and the reading says why."""
    model = AbstainModel(("top_similarity",), (0.0,), 10.0, 0.5, requires_type=True)
    asker = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=Reader(abstain=model))
    found = asker.retrieve("Who founded Larkspur?", ANY)
    reading = asker.read("Who founded Larkspur?", found.context, asker.graph(), 0.0)
    assert (reading.answered, reading.why, reading.probability) == (False, Why.NO_PHRASE, 0.0)
    answered = asker.read("How long do exports remain available?", asker.retrieve(
        "How long do exports remain available?", ANY).context, asker.graph(), 0.0)
    assert answered.answered and answered.why is Why.ANSWERED


def test_abstention_model_threshold_and_features():
    f = reader_features("Who founded Larkspur?", ["Larkspur keeps nightly snapshots.", "Exports use snapshots."],
                        [0.6, 0.4], ner=False)
    assert f.top_similarity == pytest.approx(0.6) and f.margin == pytest.approx(0.2)
    assert f.coverage_best == pytest.approx(0.5)  # "larkspur" is there, "found" is not
    assert f.asks_fact == 1.0 and f.scorer_top == 0.0
    model = AbstainModel(("top_similarity", "coverage_best"), (4.0, 4.0), -4.0, 0.6)
    p = model.probability(f)
    assert p == pytest.approx(1 / (1 + 2.718281828 ** -(4 * 0.6 + 4 * 0.5 - 4)), rel=1e-6)
    assert model.answers(p) is (p >= 0.6)
    assert set(load_abstain_model(with_scorer=False).features) <= set(ReaderFeatures.names())


def test_broken_abstention_parameters_say_how_to_refit(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"without_scorer": {"features": ["no_such"], "coef": [1], "intercept": 0,
                                                  "threshold": 0.5}}))
    with pytest.raises(ModelUnavailable, match=r"lab\.fit_abstain"):
        load_abstain_model(with_scorer=False, path=bad)


@pytest.mark.parametrize("question, text", [
    ("Who founded Larkspur?", "The documents do not say who founded Larkspur."),
    ("which plans include SSO", "The documents do not say which plans include SSO."),
    ("How much does the enterprise plan cost?", "The documents do not say how much the enterprise plan costs."),
    ("Is the enterprise plan refunded?", "The documents do not answer the question “Is the enterprise plan refunded?”"),
])
def test_not_answered_wording(question, text):
    assert not_answered_text(question) == text


def test_a_where_question_is_not_refused_for_want_of_a_tagged_place():
    """In a team's documents "where" is answered by common nouns ("the cold archive") that NER tags as no place: the
    typed precondition does not refuse it (a "who" question with no person in its context still is)."""
    sentences = ["Exports are moved to the cold archive after 30 days.", "Exports use the latest snapshot."]
    model = AbstainModel(("top_similarity",), (0.0,), 0.0, 0.4, requires_type=True)
    where = reader_features("Where are exports moved after 30 days?", sentences, [0.7, 0.4], ner=False)
    assert where.type_in_context == 1.0 and model.probability(where) == pytest.approx(0.5)
    who = reader_features("Who moves the exports?", sentences, [0.7, 0.4], ner=False)
    assert who.type_in_context == 0.0 and model.probability(who) == 0.0


def test_a_when_question_is_not_refused_for_want_of_a_year():
    """A "when" is answered by a month, a weekday, a season or a named day as often as by a full date ("begins during
    the first week of February"): the typed precondition does not refuse it (NQ dev refused 10 such questions); a
    context naming no time at all still is."""
    model = AbstainModel(("top_similarity",), (0.0,), 0.0, 0.4, requires_type=True)
    for sentence in ("The school year usually begins during the first week of February.",
                     "The first semester runs from the day after Labour Day to mid-January.",
                     "Most schools break up in the spring."):
        when = reader_features("When does the school year start?", [sentence, "Schools follow the national law."],
                               [0.7, 0.4], ner=False)
        assert when.type_in_context == 1.0 and model.probability(when) == pytest.approx(0.5), sentence
    never = reader_features("When does the school year start?", ["Schools follow the national law."], [0.7], ner=False)
    assert never.type_in_context == 0.0 and model.probability(never) == 0.0


def test_the_answer_check_reads_the_scorers_first_sentences_with_their_titles(ref_store, embedder):
    question = "What happens to exports after cancellation?"
    both = AskSettings(min_relevance=0.0, access=("internal", "public"))
    check = ScriptedCheck("falcon key")
    reader = Reader(scorer=ScriptedScorer("falcon key"), abstain=always(True), check=check)
    asker = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=reader)
    found = asker.retrieve(question, both)
    assert len(found.context) > CHECKED
    reading = asker.read(question, found.context, asker.graph())
    (_, texts), = check.read
    assert len(texts) == CHECKED  # only the scorer's first few: one cross-encoder pass each
    assert "falcon key" in texts[0].lower()  # the scorer's best first, with its document's title before it
    assert all(". " in t for t in texts)
    assert reading.checks is not None and max(reading.checks.values()) == pytest.approx(0.9)
    assert reading.features.check_top == pytest.approx(0.9)
    without = Reader(scorer=ScriptedScorer("falcon key"), abstain=always(True)).read(question, found.context)
    assert without.checks is None and without.features.check_top == 0.0


def test_the_abstention_model_with_the_check_is_chosen_only_when_fitted(tmp_path):
    params = tmp_path / "p.json"
    one = {"features": ["top_similarity"], "coef": [1.0], "intercept": 0.0, "threshold": 0.5}
    params.write_text(json.dumps({"without_scorer": one, "with_scorer": {**one, "threshold": 0.4}}))
    assert load_abstain_model(with_scorer=True, with_check=True, path=params).threshold == 0.4
    params.write_text(json.dumps({"without_scorer": one, "with_scorer": {**one, "threshold": 0.4},
                                  "with_check": {**one, "features": ["check_top"], "threshold": 0.3}}))
    chosen = load_abstain_model(with_scorer=True, with_check=True, path=params)
    assert chosen.threshold == 0.3 and chosen.features == ("check_top",)
    assert load_abstain_model(with_scorer=True, path=params).threshold == 0.4


def test_the_span_reader_puts_the_sentence_that_states_the_answer_first(ref_store, embedder, monkeypatch):
    """The scorer finds every sentence alike; the span reader reads the first quotes of the order for a question one
    sentence answers, each with the sentence before it and its title, and the one it says states the answer becomes
    the first quote (the rest stay after them, in the scorer's order). A bridge question's order is left as it was,
    unless the reader is asked to reread it too (``span_bridged``, measured in lab.evaluate.span_order)."""
    from graphrag.answer.reader import quotes

    question = "What happens to exports after cancellation?"
    both = AskSettings(min_relevance=0.0, access=("internal", "public"))
    span = ScriptedSpan("falcon key")
    asker = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(),
                  reader=Reader(scorer=ScriptedScorer(""), abstain=always(True), span=span))
    found = asker.retrieve(question, both)
    plain = Reader(scorer=ScriptedScorer(""), abstain=always(True)).read(question, found.context)
    assert plain.quotes is not None and "falcon key" not in plain.quotes.ranked()[0].span.text.lower()
    k = 1 + max(next(i for i, c in enumerate(plain.quotes.ranked(bridged=b)) if "falcon key" in c.span.text.lower())
                for b in (False, True))  # a shortlist that reaches it in both orders
    monkeypatch.setattr(quotes, "SPAN_SHORTLIST", k)
    reading = asker.read(question, found.context, asker.graph())
    assert reading.quotes is not None
    ranked = reading.quotes.ranked()
    assert "falcon key" in ranked[0].span.text.lower()
    (asked, read), = span.read_
    assert asked == question
    assert [c.sentence for c in read] == [" ".join(c.span.text.split()) for c in plain.quotes.ranked()[:k]]
    assert all(c.title for c in read) and any(c.before for c in read)
    assert reading.quotes.spans[ranked[0]].span.lower() == "falcon key"
    assert ranked[k:] == plain.quotes.ranked()[k:]  # past the shortlist, the scorer's order
    assert reading.quotes.ranked(bridged=True) == plain.quotes.ranked(bridged=True)
    # asked to, it rereads a bridge question's first quotes too (each sentence once)
    again = Reader(scorer=ScriptedScorer(""), abstain=always(True), span=ScriptedSpan("falcon key"), span_bridged=True)
    reread = again.read(question, found.context)
    assert reread.quotes is not None and "falcon key" in reread.quotes.ranked(bridged=True)[0].span.text.lower()
    first = {*plain.quotes.ranked()[:k], *plain.quotes.ranked(bridged=True)[:k]}
    assert len(reread.quotes.spans) == len(first)
    answer = asker.ask(question, both).answer  # the answer quotes it first
    assert "falcon key" in answer.claims[0].citations[0].item.span.text.lower()


def test_the_answer_opens_with_the_span_the_span_reader_trusts_and_with_no_phrase_it_does_not(ref_store, embedder):
    """The short answer that opens the answer is the span reader's span of the first quote when it takes the sentence
    to state the answer; when it does not, no phrase is said before the quote (not even the typed one); without a
    span reader, the typed phrase as before."""
    question = "How long do snapshot exports remain available after cancellation?"
    sentence = "Snapshot exports remain available for 30 days after an account is cancelled [1]."

    def answer(span: ScriptedSpan | None) -> str:
        reader = Reader(scorer=ScriptedScorer("30 days after an account"), abstain=always(True), span=span)
        outcome = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=reader).ask(question, ANY)
        # ask --json's short answer of the first quote is the phrase the answer opens with
        shown = answer_json(outcome.answer, reading=outcome.reading, read_from=outcome.read_from)
        short = shown["claims"][0]["citations"][0]["reader"]["short_answer"]
        text = outcome.answer.text
        opens = None if text.startswith(sentence.removesuffix(" [1].")) else text.split(" [1]. ")[0]
        assert (short["text"] if short else None) == opens
        return text

    assert answer(None).startswith("30 days [1]. " + sentence)
    assert answer(ScriptedSpan("available for 30 days")).startswith("Available for 30 days [1]. " + sentence)
    assert answer(ScriptedSpan("available for 30 days", p=0.3)).startswith(sentence)
    # a span that is the whole sentence is no short answer: the quote answers
    assert answer(ScriptedSpan(sentence.removesuffix(" [1].") + ".")).startswith(sentence)
    # a question asking for no fact (yes or no) gets none, whatever the span reader reads
    yes_no = Reader(scorer=ScriptedScorer("30 days after an account"), abstain=always(True),
                    span=ScriptedSpan("available for 30 days"))
    said = Asker(ref_store, embedder=embedder, checker=ScriptedChecker(), reader=yes_no).ask(
        "Do snapshot exports remain available after cancellation?", ANY).answer.text
    assert said.startswith("Snapshot exports remain available")
