"""What the reader knows about a question and its retrieved sentences, as numbers for the abstention decision.

Every feature is computed from the question and the context items alone (their text and similarity), plus the
answer scorer's scores when a scorer ships, so the lab computes them for its training questions by the very
same function the product uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields

from graphrag.answer.reader.rank import quotable
from graphrag.answer.reader.short_answer import AnswerType, answer_type, find_short_answers
from graphrag.language.lexical import capitalised_terms, content_stems

# The kinds a context must hold a phrase of for the question to be answerable (``ENTITY``, "which standard", is too
# loose a kind to require).
# The kinds whose phrase NER or a pattern finds reliably. Not a place: in a team's documents "where" is answered by
# common nouns NER does not tag ("moved to the cold archive", "in the eu-west bucket"), so a context without a
# tagged place still answers ("Where are exports moved after 30 days?" was refused on such a handbook).
SPECIFIC = frozenset({AnswerType.PERSON, AnswerType.DATE, AnswerType.QUANTITY, AnswerType.DURATION,
                      AnswerType.MONEY})

# A "when" is answered without a year as often as with one: "The school year usually begins during the first week of
# February", "from the day after Labour Day in September", "in the spring". The short answer needs a full date; the
# precondition only asks whether a sentence could say when (on NQ dev 10 of 101 answerable questions were refused for
# want of a year: every one a school-year question).
_WHEN_WORDS = re.compile(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|"
                         r"December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|[Ss]pring|[Ss]ummer|"
                         r"[Aa]utumn|[Ww]inter|[A-Z][a-z]+ Day|Easter|Christmas)\b")

# The sentences most like the question that the lexical and typing features look at.
TOP = 5


@dataclass(frozen=True)
class ReaderFeatures:
    """The reader's view of whether the retrieved sentences answer the question."""

    top_similarity: float  # the best question-sentence cosine similarity
    margin: float  # how far the best similarity stands above the second
    coverage_best: float  # the largest share of the question's content words one top sentence holds
    coverage_union: float  # the share of them the top sentences hold together
    coverage_top1: float  # the share of them the most similar sentence holds
    uncovered: float  # how many of them no top sentence holds ("founded" in "Who founded Larkspur?")
    asks_fact: float  # 1 when the question asks for a phrase of a kind (who, when, how many ...)
    type_match: float  # 1 when it does and the best sentence holds a phrase of that kind
    # 0 when the question asks for a specific kind (a person, place, date, number, duration, amount of money) and
    # no context sentence holds a phrase of it ("Who founded Larkspur?" against pages naming no one); else 1
    type_in_context: float
    terms_present: float  # the share of the question's names found in the top sentences (1 when it names none)
    scorer_top: float  # the answer scorer's best score (0 without a scorer)
    scorer_margin: float  # its best score above the second (0 without a scorer)
    # The answer check's best probability that a sentence states the answer, over the few sentences it read (0
    # without the check; defaulted so rows saved before it existed still load)
    check_top: float = 0.0

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The features' names, in the order ``vector`` gives them."""
        return tuple(f.name for f in fields(cls))

    def vector(self) -> list[float]:
        """The features as a list, in ``names`` order."""
        return [float(x) for x in astuple(self)]


def _share(wanted: set[str], have: set[str]) -> float:
    return len(wanted & have) / len(wanted) if wanted else 1.0


def _question_terms(question: str) -> list[set[str]]:
    """The question's names (capitalised terms past its first word), each as its content stems."""
    body = question.split(maxsplit=1)[1] if len(question.split()) > 1 else ""
    return [s for s in (set(content_stems(t)) for t in capitalised_terms(body)) if s]


def reader_features(question: str, sentences: Sequence[str], similarities: Sequence[float],
                    scores: Sequence[float] | None = None, ner: bool = True,
                    checks: Sequence[float] | None = None) -> ReaderFeatures:
    """The features of ``question`` against its retrieved ``sentences`` (with their ``similarities`` to it, the
    answer scorer's ``scores`` when one ran, and the answer check's probabilities ``checks`` for the sentences it
    read). ``ner=False`` types short answers by patterns only."""
    order = sorted(range(len(sentences)), key=lambda i: -similarities[i])
    sims = sorted((float(s) for s in similarities), reverse=True)
    top = [sentences[i] for i in order[:TOP]]
    q = set(content_stems(question))
    stems = [set(content_stems(s)) for s in top]
    union = set().union(*stems) if stems else set()
    kind = answer_type(question)
    fact = kind is not AnswerType.NONE
    if scores is not None and len(scores):
        ranked = sorted((float(s) for s in scores), reverse=True)
        best_sentence = sentences[max(range(len(scores)), key=lambda i: scores[i])]
        scorer_top, scorer_margin = ranked[0], ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0)
    else:
        best_sentence = top[0] if top else ""
        scorer_top = scorer_margin = 0.0
    # (statements only: a heading such as "Larkspur Security Handbook" names no founder)
    looked = list(dict.fromkeys([best_sentence, *(sentences[i] for i in order if quotable(sentences[i]))])
                  ) if fact and best_sentence else []
    phrases = dict(zip(looked, find_short_answers(question, looked, ner))) if looked else {}
    typed = phrases.get(best_sentence) is not None
    typed_any = kind not in SPECIFIC or any(v is not None or (kind is AnswerType.DATE and bool(_WHEN_WORDS.search(k)))
                                            for k, v in phrases.items() if quotable(k))
    terms = _question_terms(question)
    return ReaderFeatures(
        top_similarity=sims[0] if sims else 0.0,
        margin=sims[0] - sims[1] if len(sims) > 1 else (sims[0] if sims else 0.0),
        coverage_best=max((_share(q, s) for s in stems), default=0.0),
        coverage_union=_share(q, union) if stems else 0.0,
        coverage_top1=_share(q, stems[0]) if stems else 0.0,
        uncovered=float(len(q - union)),
        asks_fact=float(fact),
        type_match=float(typed),
        type_in_context=float(typed_any),
        terms_present=(sum(1 for t in terms if t <= union) / len(terms)) if terms else 1.0,
        scorer_top=scorer_top,
        scorer_margin=scorer_margin,
        check_top=max((float(c) for c in checks), default=0.0) if checks else 0.0,
    )
