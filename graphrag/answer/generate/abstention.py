"""The answer when the documents do not answer: what they lack, said in words where that can be said well.

"The documents say how long snapshot exports remain available after an account is cancelled, but not who may extend
it." The sentence is built from two clauses, each taken only when a pattern makes it certain:

- what the documents do say (``stated_clause``): a closest statement about the question's subject that states a
  duration, a date, an amount of money or a count of things (found by pattern, never by a model), turned into the
  clause that phrase answers ("Larkspur runs two hosting regions." -> "how many hosting regions Larkspur runs");
- what was asked (``asked_clause``): the question as a clause ("When was Larkspur founded?" -> "when Larkspur was
  founded").

Nothing is composed that a statement does not say: the stated clause is the statement's own words less the phrase
it gives. A statement that is negated, has more than one clause, or whose phrase sits where the clause would change
its meaning ("within 14 days of the first payment", "90 days after cancellation") is not used; a question asking for
no kind of phrase (why, how, yes or no) or a statement of the kind asked (which might be the answer the reader did
not trust) neither. Where no clause can be said, the plain form stays: "The documents do not say who founded
Larkspur." The closest passages the answer lists are ``closest_statements``: the stated clause comes from one of
them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphrag.answer.reader.rank.kinds import quotable
from graphrag.answer.reader.short_answer import AnswerType, answer_type, find_short_answers
from graphrag.language.lexical import STOPWORDS, content_stems
from graphrag.model import ContextItem


def _text(item: ContextItem) -> str:
    return " ".join(item.span.text.split())


def closest_statements(context: Sequence[ContextItem], n: int = 3) -> list[ContextItem]:
    """An unanswered question's closest passages: the ``n`` context sentences most like it. Statements first: a
    heading ("Larkspur Security Handbook") tells the reader nothing, so it is listed only when no statement is
    close."""
    ranked = sorted(context, key=lambda c: (-c.score, c.n))
    statements = [c for c in ranked if quotable(_text(c))]
    return (statements or ranked)[:n]


# --- what was asked ----------------------------------------------------------------------------------------

_AUX = r"is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must"
_SUBJECT_QUESTION = re.compile(rf"^(who|what|which|whose)\b(?!\s+(?:{_AUX})\b)", re.IGNORECASE)
# the question's wh-phrase, an optional preposition before it ("Within how many days ..."), then an auxiliary
_INVERTED = re.compile(r"^((?:(?:in|on|at|for|within|after|by|from|to|until|since|with)\s+)?"
                       r"(?:how\s+(?:long|soon|often|much|many|old|far|big|large)(?:\s+[a-z][\w\-]*)?"
                       r"|when|where|who|whom|what|which(?:\s+[a-z][\w\-]*)?))\s+"
                       rf"({_AUX})\s+(.+)$", re.IGNORECASE)
_BE = {"is", "are", "was", "were"}
_DO = {"do", "does", "did"}
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "its", "their", "his", "her", "our", "your",
                "each", "every", "all", "my"}
# past participles that do not end in -ed, and adjectives that close a "be" question ("How long are exports kept?")
_PARTICIPLES = set("""kept held made done given taken known born built sent paid set run shown written seen found
    sold told won put cut lost left led bought brought chosen drawn driven fallen grown hidden hit laid lent let lit
    meant met read risen shut spent spoken stolen struck taught thrown understood worn begun become broken frozen
    sung shown sworn withdrawn overthrown forgotten eaten beaten bitten ridden arisen torn borne shaken mistaken woven
    stolen awoken proven sewn sown blown flown undertaken forbidden driven forgiven slain gone""".split())
_ADJECTIVES = set("available open closed due free valid possible responsible able eligible ready visible active".split())
# words that open another clause or join two: a subject holding one is not one subject
_CLAUSE_WORDS = {"when", "where", "who", "whom", "which", "that", "if", "because", "while", "after", "before", "and",
                 "or", "but", "since", "until", "as", "he", "she", "it", "they", "we", "i", "you", "not", "never"}
_PREPOSITIONS = {"of", "in", "on", "at", "by", "for", "with", "from", "to", "into", "about", "over", "under"}
# a statement's words that point at something named elsewhere: beside another question they read as about its subject
_PRONOUNS = {"he", "she", "it", "they", "his", "her", "hers", "its", "their", "theirs", "him", "them", "this", "these",
             "those"}
_THIRD_PERSON = {"have": "has", "do": "does", "go": "goes", "be": "is"}
_VERB_LIKE = re.compile(r"^[a-z][a-z\-]*$")


def _is_participle(word: str) -> bool:
    w = word.lower()
    return w in _PARTICIPLES or (len(w) > 4 and w.endswith("ed"))


def _third_person(verb: str) -> str:
    """The verb's -s form ("have" -> "has", "cost" -> "costs", "carry" -> "carries")."""
    if verb in _THIRD_PERSON:
        return _THIRD_PERSON[verb]
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _subject_and_verb(words: list[str]) -> tuple[list[str], str, list[str]] | None:
    """The subject, the verb and the rest of an inverted question's remainder ("Larkspur have" -> Larkspur, have),
    when a pattern is sure where the subject ends: a name ("Larkspur", "Larkspur Cloud"), or any words before a verb
    that ends the question ("the enterprise plan cost"). None otherwise ("does avengers infinity war come out": a
    lower-case title is no name)."""
    if len(words) < 2:
        return None
    names = 0
    while names < len(words) and words[names][:1].isupper():
        names += 1
    if names and names < len(words) and not re.search(r"['’]s$", words[names - 1]):
        at = names  # (not "Ford's": the subject goes on after a possessive)
    elif words[0].lower() in _DETERMINERS and len(words) <= 5:
        at = len(words) - 1  # the verb ends the question
    else:
        return None
    verb = words[at]
    if not _VERB_LIKE.match(verb) or verb in _DETERMINERS:
        return None
    return words[:at], verb, words[at + 1:]


def asked_clause(question: str) -> str | None:
    """The question as a clause that can follow "not": "Who founded Larkspur?" -> "who founded Larkspur", "How many
    employees does Larkspur have?" -> "how many employees Larkspur has", "When was Larkspur founded?" -> "when
    Larkspur was founded". None when a pattern cannot be sure (a "did" question, a subject of several words before
    further words)."""
    q = " ".join(question.split()).rstrip(" ?.!")
    q = re.sub(r"^(who|what|where|when|how)['’]s\b", r"\1 is", q, flags=re.IGNORECASE)  # "who's the ..."
    if not q or len(q.split()) > _MAX_WORDS or not re.fullmatch(r"[\w\s'’\-,]+", q):
        return None
    # "Who can set up single sign-on": a modal and a verb after the wh-word, which is the subject
    modal = re.match(r"^(?:who|what|which\s+[a-z][\w\-]*)\s+(?:can|could|will|would|should|may|might|must)\s+"
                     r"([a-z][\w\-]*)\b", q, re.IGNORECASE)
    if modal and modal.group(1) not in _DETERMINERS and modal.group(1) not in ("i", "you", "we", "they", "he", "she",
                                                                                "it"):
        return q[:1].lower() + q[1:]
    # "Which plan does Larkspur recommend" is inverted after all: a do-auxiliary follows the wh-phrase
    inverted = re.match(rf"^\w+(?:\s+\w+){{0,4}}?\s+(?:do|does|did|(?:{_AUX})\s+(?:the|a|an|this|that|these|those|"
                        rf"his|her|its|their|[A-Z]))", q, re.IGNORECASE)
    # ("What radio station is the game on" too: an auxiliary, then the subject)
    # (a do-auxiliary anywhere is an inverted question's: "What aspect of Western medicine did the Chinese like")
    if _SUBJECT_QUESTION.match(q) and not inverted and not re.search(r"\b(?:do|does|did)\b", q, re.IGNORECASE):
        return q[:1].lower() + q[1:]
    m = _INVERTED.match(q)
    if m is None:
        return None
    wh, aux, rest = m.group(1), m.group(2).lower(), m.group(3).split()
    wh = wh[:1].lower() + wh[1:]
    if aux in _BE:
        if "," in q or wh.lower() == "which":
            return None  # an aside ("Where are Gila monsters found, in the country ..."): where the subject ends is
            # a guess; "Which is the body of water": no noun to ask by
        at = next((i for i, w in enumerate(rest) if i > 0 and (_is_participle(w) or w.lower() in _ADJECTIVES)), None)
        if at is None and any(len(w) > 4 and w.lower().endswith("ing") for w in rest[1:]):
            return None  # "is the tour starting", "is the opening date": which word ends the subject is a guess
        if at is not None:
            subject, tail = rest[:at], rest[at:]
            if any(w.lower() in _CLAUSE_WORDS or w.lower() in _BE | {"be", "been", "being"} for w in subject) \
                    or any(w.lower() in _AUX.split("|") for w in tail) \
                    or subject[-1].lower() in _DETERMINERS | _PREPOSITIONS \
                    or (len(tail) > 1 and tail[1].lower() not in _PREPOSITIONS) \
                    or re.match(r"the (?:last|first|next) time\b", " ".join(subject), re.IGNORECASE):
                # "how old was messi when he started", "when the last time the comet was was seen", "who the minister
                # of magic in the is cursed child", "who the newly is elected prime minister": the participle is
                # another clause's, or a name's, or describes the noun after it
                return None
        elif (rest[0].lower() in _DETERMINERS or rest[0][:1].isupper()) and wh.split()[-1] not in ("when", "long",
                                                                                                 "soon", "often"):
            # "What is the refund policy" -> "what the refund policy is"; a "when" or "how long" asks of an event, whose
            # verb this would miss if no pattern knows it ("when was the regime overthrown")
            subject, tail = rest, []
        else:
            return None
        if subject[0].lower() in (_AUX.split("|")):
            return None
        return " ".join([wh, *subject, aux, *tail])
    if aux == "do":  # "how long do exports stay available": the same words without "do", whatever the subject
        return " ".join([wh, *rest])
    parts = _subject_and_verb(rest)
    if parts is None or aux == "did":
        return None  # a past tense cannot be made by pattern ("did ... win" -> "won")
    subject, verb, tail = parts
    if aux == "does":
        verb = _third_person(verb)
    elif aux in _DO:
        pass
    else:
        verb = f"{aux} {verb}"  # a modal stays: "can an owner reactivate" -> "an owner can reactivate"
    return " ".join([wh, *subject, verb, *tail])


# --- what the documents say ----------------------------------------------------------------------------------

_NUMBER = (r"(?:\d[\d,]*(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
           r"thirty|forty|fifty|sixty|ninety|hundred)")
_UNITS = (r"(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?|quarters?|years?|decades?|"
          r"business days?|working days?|one|an?)")
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)")
_DATE = rf"(?:\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|{_MONTH}\s+\d{{4}}|(?:1[5-9]|20)\d\d)"
_MONEY = r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion))?)"
# (pattern, the kind of phrase it finds, how each preposition before it is asked)
_PHRASES: tuple[tuple[re.Pattern[str], AnswerType, dict[str, str]], ...] = (
    (re.compile(rf"\b(?:(for|within|after|every|in)\s+)?((?:one|a|an|{_NUMBER})\s+"
                rf"(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?|quarters?|years?|decades?|"
                rf"business days?|working days?))\b", re.IGNORECASE),
     AnswerType.DURATION, {"for": "how long", "within": "how soon", "after": "after how long", "every": "how often",
                           "in": "how soon"}),
    (re.compile(rf"\b(?:(in|on|since|until)\s+)?({_DATE})\b"), AnswerType.DATE,
     {"in": "when", "on": "when", "since": "since when", "until": "until when"}),
    (re.compile(rf"(?:\b(for|at)\s+)?({_MONEY})"), AnswerType.MONEY, {"for": "for how much", "at": "at what price"}),
    (re.compile(rf"\b(?:(in|on|across|to|into|from|with|by)\s+)?({_NUMBER}\s+(?:[a-z][\w\-]*\s+)?"
                rf"(?!(?:as|is|was|has|does|this|thus|its|his|hers|yes|plus|across|less|unless|us)\b)[a-z][\w\-]+s)\b"),
     AnswerType.QUANTITY, {}),
)
# Words that tie a phrase to what comes before or after it, so that taking it out changes what the rest says.
_BOUND_BEFORE = {"than", "of", "to", "from", "about", "under", "over", "at", "per", "up", "least", "most", "only",
                 "just", "first", "last", "next", "every", "each", "by", "before", "after", "within", "for",
                 "in", "on", "since", "until", "across", "into", "with", "and", "or", "nor", "some", "all"}
_BOUND_AFTER = {"of", "after", "before", "later", "earlier", "ago", "old", "long", "from", "than", "and", "or", "to",
                "per", "each", "apart", "beforehand", "prior"}
# A phrase of these kinds may answer a question asking for the key's kind ("When are exports deleted?" "after 30
# days"): a statement holding one is not said to be something else.
_COULD_ANSWER = {
    AnswerType.DATE: {AnswerType.DATE, AnswerType.DURATION},
    AnswerType.DURATION: {AnswerType.DURATION, AnswerType.QUANTITY, AnswerType.DATE},
    AnswerType.QUANTITY: {AnswerType.QUANTITY, AnswerType.DURATION, AnswerType.MONEY},
    AnswerType.MONEY: {AnswerType.MONEY, AnswerType.QUANTITY},
}


def kind_allowed(asked: AnswerType, kind: AnswerType) -> bool:
    """Whether a statement's phrase of ``kind`` may be said as what the documents say beside a question asking for
    ``asked`` (not when it may answer it)."""
    return kind not in _COULD_ANSWER.get(asked, {asked})


_NUMBER_WORD = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
                          r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
                          r"eighty|ninety|hundred|thousand|million|billion)\b", re.IGNORECASE)
_OPENING = re.compile(rf"^(in|on|since|until|for|within|after)\s+(?:({_DATE}|{_MONTH}\s+\d{{1,2}})|((?:one|a|an|{_NUMBER})\s+"
                      rf"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?)))\s*,\s*", re.IGNORECASE)
_OPENING_ASKED = {"in": "when", "on": "when", "since": "since when", "until": "until when", "for": "for how long",
                  "within": "how soon", "after": "after how long"}
_TIME_UNIT = re.compile(r"(?:second|minute|hour|day|night|week|month|quarter|year|decade)s$")
# before a participle, the words that make it the statement's verb ("are kept", "was founded", "has grown")
_VERB_BEFORE = {"is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "get", "gets", "got",
                "can", "could", "will", "would", "should", "may", "might", "must"}
_NEGATION = re.compile(r"\b(?:not|no|never|none|nothing|cannot|without)\b|n't\b", re.IGNORECASE)
_MAX_WORDS = 25  # in a statement said as a clause, and in a question said as one
_MAX_QUOTED = 200  # characters of a question quoted in the answer


def _counted(kind: AnswerType, phrase: str) -> str:
    """The wh-phrase asking for ``phrase``: "two hosting regions" -> "how many hosting regions"."""
    if kind is AnswerType.QUANTITY:
        return "how many " + phrase.split(None, 1)[1]
    if kind is AnswerType.MONEY:
        return "how much"
    return "when" if kind is AnswerType.DATE else "how long"


def _cased(question: str) -> list[str]:
    """``question`` as evidence of how words are written, when it is written with capitals (a question typed all in
    lower case writes names so too: "when did cleveland ...")."""
    return [question] if re.search(r"(?<=\w\W)[A-Z]|^\W*[A-Z]", question) else []


def _lower_case_words(texts: Sequence[str]) -> set[str]:
    """The words written in lower case somewhere in ``texts``: a statement's first word is written so in the
    clause only when it is one of them (or a function word), so a name ("Larkspur runs ...") keeps its capital."""
    return {w for t in texts for w in re.findall(r"\b[a-z][\w\-]*", t)}


def stated_clause(question: str, statement: str, context: Sequence[str] = ()) -> str | None:
    """What ``statement`` says about the question's subject, as a clause (``_stated_clause``); None when a word of it
    points at something named elsewhere ("his success saw him named ...": whose is not said)."""
    clause = _stated_clause(question, statement, context)
    if clause is None or any(w.lower() in _PRONOUNS for w in re.findall(r"[\w']+", clause)):
        return None
    return clause


def _stated_clause(question: str, statement: str, context: Sequence[str] = ()) -> str | None:
    """What ``statement`` says about the question's subject, as a clause: "Larkspur runs two hosting regions." ->
    "how many hosting regions Larkspur runs". None when it cannot be said with certainty: a statement that is
    negated, holds more than one clause, shares no content word with the question, holds no phrase the patterns
    find, or one of the kind the question asks for (then it may be the answer the reader did not trust); and a
    phrase tied to the words around it ("within 14 days of the first payment", "older than 30 days"). ``context``:
    the other sentences read, to tell a name that opens the statement from a word written in lower case there."""
    asked = answer_type(question)
    text = " ".join(statement.split())
    if asked is AnswerType.NONE or not text.endswith(".") or _NEGATION.search(text):
        return None
    body = text[:-1]
    if not body[:1].isupper() and not body[:1].isdigit():
        return None  # "in 1985 for Apple Macintosh computers.": the end of a sentence cut in two
    first_word = body.split()[0].lower() if body.split() else ""
    if first_word in _AUX.split("|") or (len(first_word) > 4 and first_word.endswith("ed")):
        return None  # "Moved to new Bomber Command Museum hall ...": a line with no subject
    if re.search(r"\b[A-Z][a-z]?$", body):
        return None  # "... Inaugural holder P.", "released by St.": cut at an initial or an abbreviation
    # "In 2009, Robin announced ...": a date or a duration opening the statement, set off by a comma, is said
    # as the clause the rest of it makes ("when Robin announced ...")
    opening = _OPENING.match(body)
    if opening is not None and kind_allowed(asked, AnswerType.DATE if opening.group(2) else AnswerType.DURATION):
        rest = body[opening.end():].split()
        if opening.group(1).lower() not in _OPENING_ASKED:
            return None
        said = " ".join(rest)  # ... holding no other time, number or amount: which one is meant would be a guess
        if not re.search(r"[,;:()\[\]\"“”?!\d]", said) and 2 <= len(rest) <= _MAX_WORDS \
                and not any(pattern.search(said) for pattern, _, _ in _PHRASES) \
                and set(content_stems(said)) & set(content_stems(question)):
            first = rest[0][:1].lower() + rest[0][1:]
            if first in _DETERMINERS or first in _lower_case_words([*_cased(question), body, *context]):
                rest[0] = first
            return f"{_OPENING_ASKED[opening.group(1).lower()]} {' '.join(rest)}"
        return None
    if re.search(r"[,;:()\[\]\"“”?!]", body) or len(body.split()) > _MAX_WORDS:
        return None
    for pattern, kind, preps in _PHRASES:
        if not kind_allowed(asked, kind):
            continue
        found = list(pattern.finditer(body))
        if len(found) != 1:
            continue  # none, or several: which one the clause asks for would be a guess
        others = [o for other, _, _ in _PHRASES for o in other.finditer(body)
                  if o.end() <= found[0].start() or o.start() >= found[0].end()]
        if others:
            return None  # "became chief minister in 1980 and remained in office for three years": which one is told
        m = found[0]
        prep, phrase = (m.group(1) or "").lower(), m.group(2)
        if kind is AnswerType.QUANTITY and (_TIME_UNIT.search(phrase) or re.match(r"(?:1[5-9]|20)\d\d\b", phrase)):
            continue  # "30 days" is a duration, asked as one above; "2016 elections" are a year's
        before, after = body[:m.start()].split(), body[m.end():].split()
        # "for 30 days after an account is cancelled": after a preposition of its own, "after" begins another phrase
        bound_after = _BOUND_AFTER - {"after", "before"} if prep else _BOUND_AFTER
        if (before and before[-1].lower() in _BOUND_BEFORE) or (after and after[0].lower() in bound_after):
            continue
        if prep and prep not in preps and kind is not AnswerType.QUANTITY:
            continue
        if not prep and kind in (AnswerType.DATE, AnswerType.DURATION):
            continue  # "on its first edition back 1903": a bare date or duration leaves words that asked for it
        if before and (_is_participle(before[-1]) or (len(before[-1]) > 5 and before[-1].lower().endswith("ing"))) \
                and (len(before) < 2 or before[-2].lower() not in _VERB_BEFORE):
            continue  # "a pop music group formed in 1958": the phrase belongs to "formed", which describes the group
        if kind is AnswerType.QUANTITY:
            wh = (f"{prep} " if prep else "") + _counted(kind, phrase)
        else:
            wh = preps[prep] if prep else _counted(kind, phrase)
        if before and re.fullmatch(r"[A-Z]{1,2}", before[-1]):
            continue  # "A $ 1 million": a currency's letters
        if kind is AnswerType.QUANTITY and before and before[-1].lower() in _DETERMINERS | {
                "following", "whether", "if", "that", "several", "some", "many", "nearly", "almost", "over"}:
            continue  # "The following four timelines show", "whether two graphs are": the count is inside a phrase
        rest = [*before, *after]
        said = " ".join(rest)
        if len(rest) < 2 or re.search(r"\d", said) or _NUMBER_WORD.search(said) \
                or not any(w.islower() and w not in STOPWORDS for w in rest) \
                or not set(content_stems(said)) & set(content_stems(question)):
            # a number left in it ("23 of the NHL's 31 teams", "Seventeen figure skaters have won"), or no word
            # but names and function words ("Tara Knowles on Sons of Anarchy": no verb)
            return None
        first = rest[0][:1].lower() + rest[0][1:]
        if first in _DETERMINERS or first in STOPWORDS or first in _lower_case_words([*_cased(question), body,
                                                                                       *context]):
            rest[0] = first
        return f"{wh} {' '.join(rest)}"
    return None


SAYS = "The documents say "  # how an abstention that says what the documents lack begins


def not_answered_text(question: str, closest: Sequence[ContextItem] = (), ner: bool = True) -> str:
    """The answer when the documents do not answer ``question``: what they say and what they lack where that can be
    said well ("The documents say how many hosting regions Larkspur runs, but not who founded Larkspur."), from the
    ``closest`` statements (``closest_statements``; none when nothing is about the question), each holding no phrase
    of the asked kind (typed as the reader types short answers; ``ner=False``: by patterns only); else the plain
    form: "The documents do not say who founded Larkspur.", or the question quoted."""
    q = " ".join(question.split()).rstrip(" ?.!")
    if len(q) > _MAX_QUOTED:  # a question of pages (up to 2,000 characters are read) is quoted by its start
        q = q[:_MAX_QUOTED].rsplit(" ", 1)[0] + " …"
    asked = asked_clause(question)
    texts = [_text(c) for c in closest]
    # a statement holding a phrase of the asked kind may be the answer the reader did not trust: never "not" it
    typed = find_short_answers(question, texts, ner) if texts else []
    stated = next((s for s, t in zip((stated_clause(question, x, texts) for x in texts), typed)
                   if s and t is None), None)
    if stated and asked:
        return f"{SAYS}{stated}, but not {asked}."
    if stated:
        return f"{SAYS}{stated}, but do not answer the question “{q}?”"
    if asked:
        return f"The documents do not say {asked}."
    return f"The documents do not answer the question “{q}?”"
