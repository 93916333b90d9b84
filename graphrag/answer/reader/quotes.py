"""How well each candidate sentence answers the question: the one score that orders the quotes.

``read_quotes`` is the reader's judgement of a question's statements that the answer is composed from
(``QuoteReading``): their typed short answers, each one's quote score, and the quotes' order, for a question one
sentence answers and for one a bridge chain answers. The learned sentence ranker
(``graphrag.answer.reader.rank.score_sentences``: MiniLM similarity, lexical
overlap, answer-type cues, the sentence's kind and position, fitted on Natural Questions and
MuSiQue) gives the probability that a sentence is the one answering the question; it is blended
with the sentence's similarity to the question plus the share of the question's content words it
holds, and a bonus when it holds a phrase of the kind the question asks for. A quote beside the
best one is kept only at or above ``ANSWER_THRESHOLD`` and within
``QUOTE_MARGIN`` of the best.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from graphrag.answer.reader.rank import Candidate, quotable, score_sentences
from graphrag.answer.reader.short_answer import AnswerType, ShortAnswer, answer_type, find_short_answers
from graphrag.answer.reader.span import SpanReading
from graphrag.language.lexical import content_stems
from graphrag.model import ContextItem

# A further quote scores within this much of the best one (on the blended score below).
QUOTE_MARGIN = 0.3
# Below this blended score no sentence is quoted beside the best one (the ranker's first fit's
# threshold, 0.451, at which the blend was measured; kept fixed here so a refit of the ranker does not
# silently move it: the ranker's own threshold is on its probability alone).
ANSWER_THRESHOLD = 0.451

SentenceCount = Callable[[str, int], int]


OVERLAP_WEIGHT = 0.3
# Half the ranker's probability, half the interim score (cosine + question-word overlap). Measured on
# the sample corpus panel (expected first quote) and 80 NQ-articles questions (first citation inside
# the evidence / any / short answer / citations): ranker alone 0.852 | 0.35 / 0.43 / 0.61 / 1.41;
# interim alone 0.852 | 0.31 / 0.50 / 0.64 / 1.94; half and half 0.889 | 0.35 / 0.51 / 0.64 / 1.93;
# a quarter ranker 0.889 on the sample corpus, more citations (1.78).
BLEND = 0.5
ANSWER_BONUS = 0.15  # added when the sentence holds a phrase of the asked-for kind (``short_answer``)
# The reader's answer scorer (``graphrag.answer.reader``): its score in [0, 1] weighs this much in the blend, the
# score above the rest. Measured on the whole panel (the same stores and readings, only this weight changed;
# NQ dev first citation inside / any / short answer; MuSiQue first / any / short; real PDFs first, any):
# 0.5: 0.508 / 0.646 / 0.353; 0.60 / 0.86 / 0.43; 1, 2 of 8
# 0.85: 0.574 / 0.718 / 0.427; 0.60 / 0.88 / 0.43; 1, 2 of 8
# 1.0: 0.611 / 0.762 / 0.495; 0.55 / 0.88 / 0.44; 2, 2 of 8 (MuSiQue's first citation 5 questions lower)
# The sample corpus is the same at every weight. Ordered by the scorer alone, a multi-hop question's first quote
# is more often a sentence of a page off the question's chain: the scorer was trained on questions one sentence
# answers. So a bridge question (the walk's chain answers it: ``ExtractiveGenerator._bridge_chain``) keeps the
# blend at 0.85, and every other question is ordered by the scorer alone: 0.611 / 0.762 / 0.495; 0.61 / 0.87 /
# 0.43 (one MuSiQue question more cites its evidence first, one fewer anywhere); 2, 2 of 8.
SCORER_WEIGHT = 0.85
SCORER_WEIGHT_SINGLE = 1.0


def quote_scores(question: str, items: Sequence[ContextItem], has_answer: Sequence[bool],
                 sentence_count: SentenceCount | None = None) -> list[float]:
    """A score per item: the probability that it is the sentence answering ``question``, plus
    ``ANSWER_BONUS`` when it holds a phrase of the kind asked for (``has_answer``; ``sentence_count``:
    how many sentences its document version has, for its relative position)."""
    candidates = [Candidate(" ".join(c.span.text.split()), similarity=float(c.score), index=c.span.sentence_index,
                            count=(sentence_count(c.span.document_id, c.span.version) if sentence_count
                                   else c.span.sentence_index + 1),
                            depth=c.route.depth if c.via != "similarity" else None)
                  for c in items]
    q = set(content_stems(question))
    out = []
    for item, p, answer in zip(items, score_sentences(question, candidates), has_answer):
        overlap = len(q & set(content_stems(item.span.text))) / len(q) if q else 0.0
        out.append(BLEND * p + (1 - BLEND) * (float(item.score) + OVERLAP_WEIGHT * overlap)
                   + (ANSWER_BONUS if answer else 0.0))
    return out


def with_answer_scores(scores: Sequence[float], answer_scores: Sequence[float], bridged: bool = False) -> list[float]:
    """``quote_scores``'s ``scores`` blended with the reader's ``answer_scores`` for the same items: at
    ``SCORER_WEIGHT`` for a question a bridge chain answers (``bridged``), else at ``SCORER_WEIGHT_SINGLE``."""
    w = SCORER_WEIGHT if bridged else SCORER_WEIGHT_SINGLE
    return [(1 - w) * float(o) + w * float(a) for o, a in zip(scores, answer_scores)]


# The short answer is looked for at first in this many of the statements most like the question only (and in any
# other once it is about to be quoted): spaCy on every context sentence costs more than the rest of the answer.
PHRASE_CANDIDATES = 4


def _text(item: ContextItem) -> str:
    return " ".join(item.span.text.split())


class ShortAnswers:
    """The typed short answer (a phrase of the asked-for kind) each statement holds, for one answer being composed:
    those the reader typed (``typed``), and any other statement's once it is about to be quoted (``of``)."""

    def __init__(self, question: str, candidates: Sequence[ContextItem],
                 typed: Mapping[ContextItem, ShortAnswer | None], ner: bool = True) -> None:
        self.question, self.ner = question, ner
        self._looked = dict(typed)
        # the phrases known so far: a statement not yet looked at counts as holding none
        self.known: dict[ContextItem, ShortAnswer | None] = {c: self._looked.get(c) for c in candidates}

    def of(self, item: ContextItem) -> ShortAnswer | None:
        """The item's phrase, looked for now if it was not yet."""
        if item not in self._looked:
            self._looked[item] = self.known[item] = find_short_answers(self.question, [_text(item)], self.ner)[0]
        return self.known[item]

    def each(self, items: Sequence[ContextItem]) -> list[ShortAnswer | None]:
        """Each item's phrase, looked for together (a chain's links, the last first)."""
        return find_short_answers(self.question, [_text(c) for c in items], self.ner)


def opening_phrase(question: str, sentence: str, reading: SpanReading | None, typed: ShortAnswer | None
                   ) -> ShortAnswer | None:
    """``QuoteReading.opening`` for a sentence the span reader read as ``reading`` (None: not read), ``typed`` its
    typed phrase."""
    kind = answer_type(question)
    if reading is None or kind is AnswerType.NONE:
        return typed
    phrase = " ".join(reading.span.split()).strip(" ,.;:")
    whole = " ".join(sentence.split()).strip(" ,.;:")
    if not (reading.states and phrase and phrase != whole):
        return None
    return ShortAnswer(phrase[:1].upper() + phrase[1:], kind)  # it opens the answer, as a typed phrase does


@dataclass(frozen=True)
class QuoteReading:
    """The reader's reading of a question's statements (the context items that may be quoted as a claim): what the
    answer is composed from."""

    question: str
    candidates: tuple[ContextItem, ...]  # the statements, in the context's order
    # The typed short answer of the ``PHRASE_CANDIDATES`` statements most like the question (None: none of the
    # asked-for kind); any other statement's is typed when the answer is about to quote it (``phrases``).
    typed: Mapping[ContextItem, ShortAnswer | None]
    base: Mapping[ContextItem, float]  # ``quote_scores``: the floor and margin of further quotes are on it
    single: Mapping[ContextItem, float]  # the quotes' order for a question one sentence answers, highest first
    bridged: Mapping[ContextItem, float]  # ... and for a question a bridge chain answers
    ner: bool = True  # spaCy's entities type the short answers (False: patterns only)
    # the span reader's reading of the first quotes of ``single`` (``with_spans``): empty when it is not installed
    spans: Mapping[ContextItem, SpanReading] = field(default_factory=dict)

    def ranked(self, bridged: bool = False) -> list[ContextItem]:
        """The statements in the quotes' order (for a bridge question when ``bridged``), the context's on a tie."""
        fit = self.bridged if bridged else self.single
        return sorted(self.candidates, key=lambda c: (-fit[c], c.n))

    def opening(self, item: ContextItem, typed: ShortAnswer | None) -> ShortAnswer | None:
        """The short answer that opens an answer quoting ``item`` first, for a question asking for a fact: where the
        span reader read the item, its span when it takes the sentence to state the answer (``SpanReading.states``)
        and the span is a phrase of it (not the whole sentence), none otherwise (a phrase it does not trust is not
        said: the quote answers); elsewhere ``typed``, the typed phrase. A question asking for no fact (why, how,
        yes or no) gets no short answer, as before. Chosen on SQuAD 2.0 dev's choose articles (691 answered
        questions, the answer's first quote; right: the short answer shares at least half its words with a gold
        answer, wrong: none of them): the typed phrase 0.217 right / 0.431 wrong; for fact questions the span the
        reader trusts, else none, 0.305 / 0.162; else the typed phrase 0.320 / 0.356; the span for every question
        when trusted 0.412 / 0.226 (SQuAD has no yes-or-no question; on the sample corpus that gave "not" and
        "workspace" to two of them: a question asking for no fact keeps none)."""
        return opening_phrase(self.question, item.span.text, self.spans.get(item), typed)

    def phrases(self) -> ShortAnswers:
        """The short answers for one answer being composed: the typed ones, the rest typed as it needs them."""
        return ShortAnswers(self.question, self.candidates, self.typed, self.ner)


def read_quotes(question: str, context: Sequence[ContextItem], answer_scores: Mapping[int, float] | None = None,
                order: Mapping[int, float] | None = None, sentence_count: SentenceCount | None = None,
                phrase_candidates: int = PHRASE_CANDIDATES, ner: bool = True) -> QuoteReading:
    """The statements of ``context`` read for ``question``: their typed short answers, quote scores and order.

    The order is the reader's when it has one: ``order`` (its answer scorer with the second view) for a question one
    sentence answers, else the scorer's ``answer_scores`` alone; blended with the quote score for a bridge question
    (the scorer learned questions one sentence answers; on its own scale the floor cut most further quotes: NQ dev,
    1.81 -> 1.27 citations per answer). Without an answer scorer both orders are the quote score."""
    candidates = tuple(c for c in context if quotable(_text(c)))
    first = sorted(candidates, key=lambda c: (-c.score, c.n))[:phrase_candidates]
    typed = dict(zip(first, find_short_answers(question, [_text(c) for c in first], ner)))
    has = [typed.get(c) is not None for c in candidates]
    base = dict(zip(candidates, quote_scores(question, candidates, has, sentence_count)))
    if answer_scores is None:
        return QuoteReading(question, candidates, typed, base, base, base, ner)
    answers = [answer_scores.get(c.n, 0.0) for c in candidates]
    bridged = dict(zip(candidates, with_answer_scores([base[c] for c in candidates], answers, bridged=True)))
    if order is not None:
        single = {c: order.get(c.n, float("-inf")) for c in candidates}
    else:
        single = dict(zip(candidates, with_answer_scores([base[c] for c in candidates], answers)))
    return QuoteReading(question, candidates, typed, base, single, bridged, ner)


# The answer-span reader (``span.py``) reorders the first SPAN_SHORTLIST quotes of each order (a question one
# sentence answers, and with SPAN_BRIDGED a bridge question) by ``(1 - SPAN_WEIGHT) * order + SPAN_WEIGHT * its
# probability that the sentence states the answer``. Chosen on SQuAD 2.0 dev's choose articles, kept out of the span
# reader's fit and of every other choice (``python -m lab.evaluate.span_order``): the weight and the shortlist on the
# first quote of the order for a question one sentence answers (691 answered questions: it holds the gold answer
# 0.634 with the scorer alone; 0.721 at weight 0.2 over 8, 0.719 over 5, 0.713 to 0.721 at every weight 0.2 to 0.5
# over 5 or 8; the span reader alone 0.683), then which orders on the answer's first citation through the whole ask
# path (``--product``, 721 questions: without the span reader 0.488, on the one-sentence order 0.510, on both 0.538,
# when one article's store of paragraph documents read 70% of its questions as bridge questions; since the generator
# reads such paragraphs as one page: without 0.588, on either 0.669, 0.681 with the trusted span opening before a
# link's phrase; no choice made again). Those articles
# hold no multi-hop question; on the panel's MuSiQue, both orders lowered the first citation inside the evidence
# 0.61 -> 0.56 (one-sentence order only: 0.59), so a bridge question keeps the blend of the scorer and the quote
# score, as the scorer's own weight does for the same reason (it read sentences one at a time, as a chain is not):
# a choice the panel informed, said so in MODEL_CARD.md.
SPAN_WEIGHT = 0.2
SPAN_SHORTLIST = 8
SPAN_BRIDGED = False


def span_shortlist(quoting: QuoteReading, bridged: bool = SPAN_BRIDGED) -> list[ContextItem]:
    """The quotes the span reader reads: the first ``SPAN_SHORTLIST`` of the order for a question one sentence
    answers, and (``bridged``) those of the order for a bridge question that are not among them."""
    first = quoting.ranked()[:SPAN_SHORTLIST]
    more = [c for c in quoting.ranked(bridged=True)[:SPAN_SHORTLIST] if c not in first] if bridged else []
    return first + more


def _reordered(order: Mapping[ContextItem, float], ranked: Sequence[ContextItem],
               readings: Mapping[ContextItem, SpanReading]) -> dict[ContextItem, float]:
    """``order`` with the first ``SPAN_SHORTLIST`` of ``ranked`` (its items, highest first) blended with their span
    readings, ahead of the rest, which keep their order."""
    shortlist = [c for c in ranked[:SPAN_SHORTLIST] if c in readings]
    if not shortlist:
        return dict(order)
    blended = {c: (1 - SPAN_WEIGHT) * order[c] + SPAN_WEIGHT * readings[c].probability for c in shortlist}
    floor = min(blended.values())
    rest = [c for c in ranked if c not in blended]
    return {**blended, **{c: floor - 1.0 - i for i, c in enumerate(rest)}}


def with_spans(quoting: QuoteReading, readings: Mapping[ContextItem, SpanReading],
               bridged: bool = SPAN_BRIDGED) -> QuoteReading:
    """``quoting`` with the span reader's ``readings`` of its shortlist: the first quotes of the order for a
    question one sentence answers (and, ``bridged``, of a bridge question's) reordered by the blend, ahead of the
    rest (which keep their order), and the readings kept for what the answer shows."""
    if not readings:
        return quoting
    single = _reordered(quoting.single, quoting.ranked(), readings)
    chain = _reordered(quoting.bridged, quoting.ranked(bridged=True), readings) if bridged else quoting.bridged
    return replace(quoting, single=single, bridged=chain, spans=dict(readings))
