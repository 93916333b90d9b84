"""An abstention says in words what the documents lack: what the closest statement does say about the question's
subject, and what was asked ("The documents say how long snapshot exports remain available ..., but not who ...");
where a pattern cannot be sure of either, the plain form. Never a statement the passage does not make, and never
"not" of a statement that may hold the answer. ``ask --json`` carries the reader's decision and, per quote, its answer
probability and short answer with its place in the sentence."""

from __future__ import annotations

import pytest

from doubles.reader import ScriptedScorer, ScriptedSpan, always
from graphrag.answer.ask import Asker
from graphrag.answer.generate.abstention import (
    asked_clause,
    closest_statements,
    not_answered_text,
    stated_clause,
)
from graphrag.answer.reader.read import Reader
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings, ContextItem, Route, Span
from graphrag.present import answer_json
from graphrag.present.serialize import phrase_span
from helpers import ScriptedChecker, reference_corpus, reference_extractor
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit

ANY = AskSettings(min_relevance=0.0)


def item(n: int, text: str, score: float) -> ContextItem:
    return ContextItem(n, Span("doc", 1, n, 0, len(text), text), Route("x"), score, "similarity")


@pytest.mark.parametrize("question, clause", [
    ("Who founded Larkspur?", "who founded Larkspur"),
    ("Who can set up single sign-on?", "who can set up single sign-on"),
    ("When was Larkspur founded?", "when Larkspur was founded"),
    ("How many employees does Larkspur have?", "how many employees Larkspur has"),
    ("What does the enterprise plan cost?", "what the enterprise plan costs"),
    ("Which plan does Larkspur recommend?", "which plan Larkspur recommends"),
    ("How long are nightly snapshots kept?", "how long nightly snapshots are kept"),
    ("How long do exports stay available after cancellation?", "how long exports stay available after cancellation"),
    ("Where is the data centre hosting European workspaces located?",
     "where the data centre hosting European workspaces is located"),
    # where the subject ends, or the verb's past tense, is a guess: no clause
    ("When did the war end?", None),
    ("When does avengers infinity war part 2 come out?", None),  # a lower-case title: where the subject ends
    ("when do avengers infinity war part 2 come out", "when avengers infinity war part 2 come out"),
    ("Within how many days can an owner reactivate a cancelled account?", None),
    ("Who is responsible for exports?", None),
    ("Where is the tour de france starting this year?", None),
    ("How old was messi when he started his career?", None),
    ("What aspect of Western medicine did the Chinese like?", None),
    ("What type of homes is Fresno known for?", None),
    ("Where are Gila monsters found, in the country of that party?", None),
    ("What is the debt load carried by the country where Dai Jitao was born?", None),
    ("Which is the body of water by the birthplace of the author?", None),
    ("When will Ford's manufacturing plants close?", None),
    ("What are the government's commitments not limited to?", None),
    ("When was the regime in Pakistan overthrown by General Zia-ul-Haq?",
     "when the regime in Pakistan was overthrown by General Zia-ul-Haq"),
    ("When was the regime ousted?", "when the regime was ousted"),
    ("When was the treaty of Westphalia?", None),  # no verb a pattern knows: "when" asks of an event
    ("When was the last time halley's comet was seen from earth?", None),
    ("Who is the minister of magic in the cursed child?", None),
    ("Who's the actress that plays captain phasma?", "who the actress that plays captain phasma is"),
    ("Is unused time refunded?", None),
])
def test_the_question_as_a_clause(question, clause):
    assert asked_clause(question) == clause


@pytest.mark.parametrize("question, statement, clause", [
    ("Who founded Larkspur?", "Larkspur runs two hosting regions.", "how many hosting regions Larkspur runs"),
    ("Who may extend snapshot exports?", "Snapshot exports remain available for 30 days after an account is cancelled.",
     "how long snapshot exports remain available after an account is cancelled"),
    ("Who rotates encryption keys?", "Encryption keys are rotated every 90 days.",
     "how often encryption keys are rotated"),
    ("Who founded Larkspur?", "Larkspur was founded in 2015.", "when Larkspur was founded"),
    ("Where are workspaces hosted?", "Workspaces are hosted in two regions.", "in how many regions workspaces are hosted"),
    # a phrase tied to the words around it: taking it out would change what the rest says
    ("Who refunds annual plans?", "Annual plans can be refunded within 14 days of the first payment.", None),
    ("Who deletes the account data?", "Larkspur deletes the account data 90 days after cancellation.", None),
    ("Who deletes exports?", "Exports older than 30 days are deleted.", None),
    # the phrase belongs to a participle that describes a noun; a bare year or duration leaves words asking for it
    ("Who started the Bee Gees?", "The Bee Gees were a pop music group formed in 1958.", None),
    ("Who started the Bee Gees?", "The Bee Gees were formed in 1958.", "when the Bee Gees were formed"),
    ("Who hosted the Tour?", "The region hosted the Tour on its first edition back 1903.", None),
    # negated, more than one clause, nothing about the question's subject, two phrases of one kind
    ("Who keeps exports?", "Exports are not kept for 30 days.", None),
    ("Who keeps exports?", "After 14 days, exports are kept for 30 days.", None),
    # a date opening the statement, set off by a comma: the rest is the clause
    ("Who re-formed the Bee Gees?", "In 2009, Robin announced that the Bee Gees would re-form.",
     "when Robin announced that the Bee Gees would re-form"),
    ("Who re-formed the Bee Gees?", "In 2009, Robin announced that the Bee Gees would re-form, and they did.", None),
    # a line with no subject, a number left in the clause, a year taken for a count, table cells run together
    ("Where is the bomber based?", "Moved to new Bomber Command Museum hall at Hendon in August 1982.", None),
    ("Who played in the most outdoor games?", "23 of the NHL's 31 teams will have played an outdoor game.", None),
    ("Who controls the House?", "The November 2016 elections maintained Republican control of the House.", None),
    ("Who is the chief minister?", "Zeliang since 19 July 2017 Appointer Governor of Nagaland Inaugural holder P.", None),
    ("Who has the most medals?", "Seventeen figure skaters have won three medals.", None),
    ("Which timeline is expanded?", "The following four timelines show the geologic time scale.", None),
    ("What honors were given?", "Harvard departments award several hundred named prizes annually.", None),
    ("Where did the Acadians move?", "The deportation of Acadians beginning in 1755 resulted in land for migrants.",
     None),
    ("What was Apple Talk?", "in 1985 for Apple Macintosh computers.", None),
    ("Who wrote the book?", "The book was released in November 2001 by St.", None),
    ("Why is inflammation reserved for sleep?", "There are two theories as to why inflammation is reserved for sleep.",
     None),  # a question asking for no kind
    ("Where is inflammation reserved for sleep?", "There are two theories as to why inflammation is reserved for sleep.",
     "how many theories there are as to why inflammation is reserved for sleep"),
    ("Who plays the doctor?", "Tara Knowles on Sons of Anarchy in 2008.", None),
    ("What is the prize money?", "The current cash prize for the winning club is A $ 1 million.", None),
    # a pronoun: whose success, beside a question about someone else, is not said
    ("Who was named Best FIFA Coach?", "In 2017, his success saw him named Best FIFA Coach.", None),
    ("Who founded Larkspur?", "Snapshots are kept for 35 days.", None),
    ("Who keeps exports?", "Exports are kept for 30 days or 60 days.", None),
    # a phrase of the kind asked (or one that may answer it) may be the answer the reader did not trust
    ("When are exports deleted?", "Exports are deleted for 30 days.", None),
    ("How long are exports kept?", "Exports are kept for 30 days.", None),
    ("How many days are exports kept?", "Exports are kept for 30 days.", None),
    # a question asking for no kind of phrase
    ("Why are exports kept?", "Exports are kept for 30 days.", None),
])
def test_what_a_statement_says_as_a_clause(question, statement, clause):
    assert stated_clause(question, statement) == clause


def test_the_answer_says_what_the_documents_say_and_lack_else_the_plain_form():
    runs = item(1, "Larkspur runs two hosting regions.", 0.7)
    heading = item(2, "Larkspur Handbook", 0.9)
    assert closest_statements([heading, runs]) == [runs]  # statements first: the one the words are taken from
    assert not_answered_text("Who founded Larkspur?", [runs], ner=False) == (
        "The documents say how many hosting regions Larkspur runs, but not who founded Larkspur.")
    # the question cannot be said as a clause: it is quoted
    assert not_answered_text("Who is responsible for Larkspur?", [runs], ner=False) == (
        "The documents say how many hosting regions Larkspur runs, but do not answer the question "
        "“Who is responsible for Larkspur?”")
    # nothing to say of the passages (none given: nothing is about the question): the plain form
    assert not_answered_text("Who founded Larkspur?", [], ner=False) == "The documents do not say who founded Larkspur."
    assert not_answered_text("Is Larkspur cheap?", [runs], ner=False) == (
        "The documents do not answer the question “Is Larkspur cheap?”")
    # a statement holding a phrase of the asked kind is never said to be what the documents lack
    counted = item(3, "Larkspur runs two hosting regions with 40 employees.", 0.8)
    assert not_answered_text("How many employees does Larkspur have?", [counted], ner=False) == (
        "The documents do not say how many employees Larkspur has.")


def test_the_short_answers_place_in_its_sentence():
    sentence = "Snapshot exports remain available for 30\ndays after an account is cancelled."
    assert phrase_span(sentence, "30 days") == (38, 45)
    assert phrase_span(sentence, "The account owner") is None


@pytest.fixture()
def ref_store(store, unparsed_questions):
    Ingestor(store, reference_extractor(), HashEmbedder()).ingest_paths([reference_corpus(store.path.parent / "c")])
    return store


def test_an_abstention_through_the_asker_says_what_the_closest_passage_states(ref_store):
    asker = Asker(ref_store, embedder=HashEmbedder(), checker=ScriptedChecker(), reader=Reader(abstain=always(False)))
    outcome = asker.ask("Who keeps snapshot exports available after an account is cancelled?", ANY)
    said = "how long snapshot exports remain available after an account is cancelled"
    assert outcome.answer.text == (f"The documents say {said}, but not who keeps snapshot exports available after an "
                                   "account is cancelled.")
    shown = answer_json(outcome.answer, reading=outcome.reading, read_from=outcome.read_from)
    # the passage it says so from is listed, as a passage (no claim)
    assert "Snapshot exports remain available for 30 days after an account is cancelled." in [
        p["sentence"] for p in shown["passages"]]
    assert shown["claims"] == [] and shown["reader"]["answered"] is False
    assert shown["reader"]["why"] == "abstained" and shown["reader"]["reason"].startswith("abstained: probability")
    assert all(p["reader"] == {"answer_probability": None, "short_answer": None, "span_reader": None}
               for p in shown["passages"])
    # nothing is about the question (below the relevance needed): nothing is said of the passages
    far = asker.ask("Who keeps snapshot exports available after an account is cancelled?",
                    AskSettings(min_relevance=0.99)).answer
    assert far.text == "The documents do not say who keeps snapshot exports available after an account is cancelled."


def test_ask_json_carries_each_quotes_answer_probability_and_short_answer(ref_store):
    asker = Asker(ref_store, embedder=HashEmbedder(), checker=ScriptedChecker(),
                  reader=Reader(scorer=ScriptedScorer("30 days"), abstain=always(True), span=ScriptedSpan("30 days")))
    outcome = asker.ask("How long do exports remain available?", ANY)
    shown = answer_json(outcome.answer, reading=outcome.reading, read_from=outcome.read_from)
    assert shown["reader"]["answered"] is True and shown["reader"]["why"] == "answered"
    cited = {c["sentence"]: c["reader"] for cl in shown["claims"] for c in cl["citations"]}
    best = cited["Snapshot exports remain available for 30 days after an account is cancelled."]
    assert best["answer_probability"] == 1.0  # the scorer's, per quote
    short = best["short_answer"]
    assert short["text"] == "30 days" and short["kind"] == "duration"
    sentence = "Snapshot exports remain available for 30 days after an account is cancelled."
    assert sentence[short["start"]:short["end"]] == "30 days"
    # the span reader's probability that it states the answer, and the answer's span in it
    assert best["span_reader"] == {"probability": 0.95, "span": {"text": "30 days", "start": short["start"],
                                                                  "end": short["end"]}}
    older = cited.get("Exports are deleted 7 days after cancellation.")
    assert older is None or older["answer_probability"] == 0.0
    # without the reading (a stored answer shown again) the JSON has no reader fields
    again = answer_json(outcome.answer)
    assert "reader" not in again and all("reader" not in c for cl in again["claims"] for c in cl["citations"])


def test_bad_input_is_answered_or_abstained_in_words_never_a_traceback(ref_store):
    """A 100,000-character question (2,000 characters read), and no candidate at all: the reading says why, and an
    abstention's words stay short (the question quoted by its start)."""
    asker = Asker(ref_store, embedder=HashEmbedder(), checker=ScriptedChecker(), reader=Reader(abstain=always(False)))
    huge = ("Who may extend the export window? " * 3000)[:100_000]
    answer = asker.ask(huge, ANY).answer
    assert answer.answered is False and len(answer.question) <= 2000
    assert answer.text.startswith("The documents do not answer the question “Who may extend the export window? Who")
    assert answer.text.endswith(" …?”") and len(answer.text) < 300
    long_clause = "who founded " + " and ".join(["Larkspur"] * 40)  # a clause of 80 words is not said as one
    assert not_answered_text(long_clause + "?", ner=False).startswith("The documents do not answer the question")
    nothing = Reader(abstain=always(False)).read("Who founded Larkspur?", [])
    assert (nothing.answered, nothing.why.value, nothing.features) == (False, "no candidate", None)
    # no candidate the asker may see: no words about passages, no reading of any
    hidden = asker.ask("Who may extend the export window?", AskSettings(min_relevance=0.0, access=("nobody",)))
    assert hidden.answer.text == "" and hidden.answer.context == () and hidden.reading is not None
    assert hidden.reading.why.value == "no candidate"
    assert any("nothing to answer from" in w for w in hidden.warnings)
