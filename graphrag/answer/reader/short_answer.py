"""The short answer to a fact question, as a phrase found in an evidence sentence.

A question asking for a fact names the kind of answer it wants: "when" a date, "how many" or
"how long" a number with its unit, "who" a person or organisation, "where" a place. The phrase
is taken from the sentence as written (never composed), so the answer can open with it as a
claim that cites the sentence and is scored by the checker like any written claim.

Entity types come from spaCy's NER (the rules extractor's pipeline, already loaded for the
question's anchors); numbers with units and dates are also found by pattern, so a missing
pipeline costs only the who/where/which answers.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from graphrag.errors import ModelUnavailable
from graphrag.language.lexical import STOPWORDS, content_stems

if TYPE_CHECKING:
    from spacy.tokens import Doc


class AnswerType(str, Enum):
    """The kind of phrase a question asks for."""

    DATE = "date"
    QUANTITY = "quantity"  # a number, with its unit when the sentence gives one
    DURATION = "duration"  # a number with a unit of time
    MONEY = "money"  # what something costs: an amount of money
    PERSON = "person"  # who: a person, an organisation, or a noun phrase naming a role
    PLACE = "place"
    ENTITY = "entity"  # which/what + noun: a named thing not in the question
    NONE = "none"  # not a fact question (why, how, yes/no, definitions)


_TIME_UNITS = (r"(?:second|minute|hour|day|night|week|fortnight|month|quarter|year|decade|century|centuries|"
               r"business day|working day)s?")
_NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
                r"hundred|a|an)")
_NUM = rf"(?:\d[\d,]*(?:\.\d+)?|{_NUMBER_WORD}(?:[- ]{_NUMBER_WORD})*)"
_MONEY = re.compile(r"(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion|thousand))?|\b\d[\d,]*(?:\.\d+)?"
                    r"(?:\s+(?:million|billion|thousand))?\s+(?:dollars|euros|pounds|USD|EUR|GBP)\b)")
_DURATION = re.compile(rf"\b{_NUM}\s+(?:(?:full|calendar|consecutive|more|additional)\s+)?{_TIME_UNITS}\b",
                       re.IGNORECASE)
_QUANTITY = re.compile(r"(?:[$€£¥]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?%|\s?(?:percent|per cent)\b)?"
                       r"(?:\s+(?:million|billion|thousand|trillion))?(?:\s+[a-zA-Z][\w\-]*)?")
_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|" \
         r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_DATE = re.compile(rf"\b(?:\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|"
                   rf"{_MONTH}\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}}|(?:1[0-9]|20)\d\d(?:s)?)\b")

_PLACE_NOUNS = frozenset("city town country state region place county province continent island capital village "
                         "location area nation district river mountain".split())
_DATE_NOUNS = frozenset("year date day month decade century time period season era".split())
_PERSON_NOUNS = frozenset("person people man woman player actor actress singer author writer president king queen "
                          "team company band character director member owner role".split())
_NUMBER_NOUNS = frozenset("number amount percentage percent age".split())
# "What metrics are used?", "Which steps ...": a class of unnamed things; no entity's type fits it (spaCy's
# ORG "QA" was given as the metric), so no short answer is taken: the quote answers.
_UNNAMED_NOUNS = frozenset("metric measure method step reason factor benefit advantage disadvantage feature "
                           "problem issue purpose way kind type difference process technique approach cause "
                           "effect function goal requirement criterion criteria rule condition".split())
# A "who" answer that is not a named person or organisation is a noun phrase naming a role: its head is an
# agent noun ("the account owner", "an administrator") or one of these; "cases" is not.
_ROLE_NOUNS = frozenset("admin administrator owner user customer staff team board committee court congress "
                        "parliament government council department agency group company firm person people "
                        "member owner employee manager officer president director chair king queen judge "
                        "jury official authority body client vendor".split())
_AUXILIARIES = frozenset("do does did can could will would should shall has have had may might must".split())
_AGENT_SUFFIX = re.compile(r"(?:er|or|ist|ian|ant|ent|ee)$")

_SPACY_LABELS = {
    AnswerType.DATE: ("DATE",),
    AnswerType.DURATION: ("DATE", "TIME", "QUANTITY"),
    AnswerType.QUANTITY: ("CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME"),
    AnswerType.MONEY: ("MONEY",),
    AnswerType.PERSON: ("PERSON", "ORG", "NORP"),
    AnswerType.PLACE: ("GPE", "LOC", "FAC"),
    AnswerType.ENTITY: ("PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW",
                        "LANGUAGE"),
}


def answer_type(question: str) -> AnswerType:
    """The kind of phrase ``question`` asks for (NONE when it does not ask for a fact)."""
    q = " ".join(question.lower().split())
    if re.search(r"\bhow\s+(long|soon|quickly|often)\b", q):
        return AnswerType.DURATION
    if re.search(r"\b(cost|costs|price|priced|fee|fees)\b", q) and re.search(r"\b(what|how\s+much)\b", q):
        return AnswerType.MONEY
    if re.search(r"\bhow\s+(many|much|old|far|big|large|tall|high|deep|fast)\b", q):
        return AnswerType.QUANTITY
    if _YES_NO.match(q):
        return AnswerType.NONE  # "Is unused time refunded when I cancel?": the "when" is not what it asks
    # "when" asks for a date near the question's start ("When was ...", "and when did ..."); further on it opens a
    # clause ("What does the final export contain when an account is cancelled?").
    if re.match(r"^\W*(?:\w+\s+){0,2}?when\b", q) or re.search(r"\b(what|which)\s+(year|date|day|month|decade|century)\b", q):
        return AnswerType.DATE
    if re.search(r"\bwho(m|se)?\b", q):
        return AnswerType.PERSON
    if re.search(r"\bwhere\b", q):
        return AnswerType.PLACE
    m = re.search(r"\b(which|what)\s+(?:\w+\s+){0,2}?(\w+)\b", q)
    if m:
        noun = m.group(2).rstrip("s")
        if noun in _PLACE_NOUNS or m.group(2) in _PLACE_NOUNS:
            return AnswerType.PLACE
        if noun in _DATE_NOUNS:
            return AnswerType.DATE
        if noun in _NUMBER_NOUNS:
            return AnswerType.QUANTITY
        if noun in _PERSON_NOUNS:
            return AnswerType.PERSON
        if noun in _UNNAMED_NOUNS or m.group(2) in _UNNAMED_NOUNS:
            return AnswerType.NONE
        if m.group(2) in _AUXILIARIES:
            # "What does the final export contain ...?": a verb follows, not a noun; it asks what something
            # holds or does, which a quote answers (as a named thing, the "Snapshot" opening an unrelated
            # sentence was taken, and two such sentences' rival durations were said as a disagreement).
            return AnswerType.NONE
        if not _DEFINITION.match(q):
            return AnswerType.ENTITY
    return AnswerType.NONE


# "Is ...?", "Can ...?", "Does ...?": asks yes or no (a "how long" inside is caught before this).
_YES_NO = re.compile(r"^\s*(is|are|was|were|can|could|does|do|did|will|would|should|has|have|had|may|must)\b")

# "What is a snapshot?", "What does SSO mean?": a definition, not a named thing.
_DEFINITION = re.compile(r"^\s*what\s+(?:(?:is|are|was|were)\s+(?:a|an)\b|does\s+.+\s+mean\b|(?:is|are)\s+\w+\s*\??$)")


@dataclass(frozen=True)
class ShortAnswer:
    """A phrase of one sentence that answers the question."""

    text: str
    kind: AnswerType


def _new_to_question(phrase: str, question_stems: set[str]) -> bool:
    """A phrase that is not just the question's own words ("exports" answers nothing)."""
    stems = content_stems(phrase)
    return bool(stems) and not set(stems) <= question_stems


def _tidy(phrase: str) -> str:
    phrase = " ".join(phrase.split()).strip(" ,;:")
    phrase = re.sub(r"^(?:the|a|an)\s+(?=\d)", "", phrase, flags=re.IGNORECASE)
    return phrase[:1].upper() + phrase[1:]  # it opens the answer: "The account owner [6]."


def _counted(question: str) -> str | None:
    """What "how many" counts: "hours" in "Within how many hours ...", "times" in "How many times ..."."""
    m = re.search(r"\bhow\s+(?:many|much)\s+([a-z][\w\-]*)", question.lower())
    return m.group(1) if m and m.group(1) not in STOPWORDS else None


def _pattern_phrases(kind: AnswerType, sentence: str, question: str = "") -> list[str]:
    counted = _counted(question) if kind is AnswerType.QUANTITY else None
    if counted:
        stem = counted[:-1] if counted.endswith("s") else counted
        found = [m.group() for m in re.finditer(rf"\b{_NUM}\s+(?:[\w\-]+\s+)?{re.escape(stem)}\w*", sentence,
                                                 re.IGNORECASE)]
        if found:
            return found  # the number of the things asked about, before any other number
    if kind is AnswerType.DURATION:
        return [m.group() for m in _DURATION.finditer(sentence)]
    if kind is AnswerType.MONEY:
        return [m.group() for m in _MONEY.finditer(sentence)]
    if kind is AnswerType.DATE:
        return [m.group() for m in _DATE.finditer(sentence)]
    if kind is AnswerType.QUANTITY:
        found = [m.group() for m in _DURATION.finditer(sentence)]
        for m in _QUANTITY.finditer(sentence):
            word = m.group().split()[-1].lower()
            found.append(m.group() if word not in STOPWORDS else m.group().rsplit(" ", 1)[0])
        return found
    return []


# Parsed sentences, kept: the reader types the same context sentences again for each question about them (and the
# abstention fit types every article sentence for every question on it).
_PARSED: OrderedDict[tuple[str, bool], Doc] = OrderedDict()
_PARSED_MAX = 4096
_PARSED_LOCK = threading.Lock()


def _parse(sentences: Sequence[str], chunks: bool) -> list[Doc] | None:
    """The sentences through spaCy: the entity recogniser alone (it has its own token vectors in the
    small English pipeline), and the tagger and parser too only when noun chunks are wanted (they
    cost as much again). Recently parsed sentences are taken from a bounded cache."""
    try:
        from graphrag.ingest.extract.rules import load_spacy

        nlp = load_spacy()
    except ModelUnavailable:
        return None
    skip = [p for p in ("tok2vec", "tagger", "parser", "lemmatizer", "attribute_ruler")
            if p in nlp.pipe_names and not chunks]
    with _PARSED_LOCK:  # (one parse at a time: an entry read here is not dropped meanwhile)
        todo = [t for t in dict.fromkeys(sentences) if (t, chunks) not in _PARSED]
        parsed = dict(zip(todo, nlp.pipe(todo, disable=skip)))
        out = [parsed[t] if t in parsed else _PARSED[(t, chunks)] for t in sentences]
        for t, d in parsed.items():
            _PARSED[(t, chunks)] = d
        while len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return out


def _noun_chunk_answer(doc: Doc, question_stems: set[str]) -> str | None:
    """For "who" without a named person: the noun phrase that is not the question's ("the account
    owner" in "Single sign-on can be set up by the account owner only")."""
    # ... and only in a sentence that says what the question asks: more than half its words are there ("Every
    # Larkspur customer ..." does not say who founded Larkspur).
    if question_stems and len(question_stems & set(content_stems(doc.text))) * 2 <= len(question_stems):
        return None
    for chunk in doc.noun_chunks:
        if chunk.root.pos_ == "PRON" or not names_a_role(chunk.root.text):
            continue
        if _new_to_question(chunk.text, question_stems):
            return chunk.text
    return None


def names_a_role(head: str) -> bool:
    """Whether a noun phrase with this head word can answer "who": an agent noun ("owner", "administrator"),
    a body of people ("court", "board"), never a thing ("cases")."""
    word = head.lower()
    singular = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
    return singular in _ROLE_NOUNS or (len(singular) > 4 and bool(_AGENT_SUFFIX.search(singular)))


_NUMBER_START = re.compile(rf"^(?:[$€£¥]\s?)?(?!(?:a|an)\b)(?:{_NUM}|\d)\b", re.IGNORECASE)


def typed_phrase(kind: AnswerType, phrase: str) -> str | None:
    """``phrase`` trimmed to what fits ``kind``, or None when nothing of it does: a quantity or a duration
    is a number with at most its lower-case unit ("seven Supreme" is the number seven and a name: "seven"),
    a date holds a digit or a month; names (spaCy's entities of the asked-for labels) stay as found."""
    words = phrase.split()
    if not words:
        return None
    if kind is AnswerType.MONEY:
        return phrase if any(ch.isdigit() for ch in phrase) else None
    if kind in (AnswerType.QUANTITY, AnswerType.DURATION):
        if not _NUMBER_START.match(phrase) and not any(ch.isdigit() for ch in phrase):
            return None
        while len(words) > 1 and words[-1][:1].isupper() and not words[-1].isupper():
            words.pop()  # a name after the number is not its unit
        return " ".join(words)
    if kind is AnswerType.DATE:
        return phrase if (any(ch.isdigit() for ch in phrase) or re.search(_MONTH, phrase)) else None
    return phrase


def find_short_answers(question: str, sentences: Sequence[str], ner: bool = True) -> list[ShortAnswer | None]:
    """For each sentence, the phrase in it that answers ``question``, or None; all None when the
    question does not ask for a fact. ``ner=False``: patterns only (numbers, durations, dates)."""
    kind = answer_type(question)
    if kind is AnswerType.NONE or not sentences:
        return [None] * len(sentences)
    qstems = set(content_stems(question))
    docs = (_parse(sentences, chunks=kind is AnswerType.PERSON)
            if ner and kind not in (AnswerType.DURATION, AnswerType.DATE) else None)
    out: list[ShortAnswer | None] = []
    for i, sentence in enumerate(sentences):
        phrases = _pattern_phrases(kind, sentence, question)
        doc = docs[i] if docs is not None else None
        if doc is not None:
            labels = _SPACY_LABELS[kind]
            phrases += [e.text for e in doc.ents if e.label_ in labels]
            if kind is AnswerType.PERSON and not phrases:
                chunk = _noun_chunk_answer(doc, qstems)
                phrases += [chunk] if chunk else []
        phrases = [t for t in (typed_phrase(kind, p) for p in phrases) if t]
        counted = _counted(question) if kind is AnswerType.QUANTITY else None
        if counted and counted != "much" and not any(counted[:-1 if counted.endswith("s") else None].lower()
                                                     in p.lower() for p in phrases):
            # nothing counts the things asked about ("30 days", "two hosting regions" are not a head count)
            phrases = []
        answer = next((_tidy(p) for p in phrases if _new_to_question(_tidy(p), qstems) or
                       (kind in (AnswerType.DURATION, AnswerType.QUANTITY, AnswerType.DATE) and
                        any(ch.isdigit() for ch in p) and _tidy(p).lower() not in question.lower())), None)
        out.append(ShortAnswer(answer, kind) if answer else None)
    return out
