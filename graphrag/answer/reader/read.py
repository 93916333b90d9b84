"""The reader stage between retrieval and the answer: the one place that decides which sentence answers the
question, and whether the documents answer it at all.

``Reader.read`` takes the context items retrieval returned (its fused candidates, ``AskSettings.max_context``
of them) and gives one ``Reading``: whether the documents answer and why not (no candidate, nothing relevant
enough, the calibrated probability below the shipped threshold, no phrase of the asked kind), the answer scorer's
score per item (None while no scorer ships), the reader's features and probability, and for an answered question
the quotes' order with each statement's quote score and typed short answer (``quotes.QuoteReading``). The
generators run only when it answers, and compose the answer from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, cast

import numpy as np

from graphrag.answer.reader.abstain import AbstainModel, load_abstain_model
from graphrag.answer.reader.check import AnswerCheck, check_text, load_check
from graphrag.answer.reader.features import ReaderFeatures, reader_features
from graphrag.answer.reader.quotes import (
    PHRASE_CANDIDATES,
    SPAN_BRIDGED,
    QuoteReading,
    SentenceCount,
    read_quotes,
    span_shortlist,
    with_spans,
)
from graphrag.answer.reader.scorer import AnswerScorer, Passage, load_scorer
from graphrag.answer.reader.second_view import VectorsOf, combined_order
from graphrag.answer.reader.span import Candidate, SpanReader, load_span_reader
from graphrag.language.passage_encoder import PassageEncoder, load_passage_encoder
from graphrag.model import ContextItem

PassageOf = Callable[[ContextItem], Passage]
BeforeOf = Callable[[ContextItem], str]  # the sentence before an item's in its document version


class Why(str, Enum):
    """Why a reading answers or not."""

    ANSWERED = "answered"  # at or above the shipped threshold, or no calibrated decision for this encoder
    NO_CANDIDATE = "no candidate"  # retrieval found nothing the asker may see
    BELOW_RELEVANCE = "below relevance"  # the closest sentence is less similar than the ask's ``min_relevance``
    ABSTAINED = "abstained"  # the calibrated probability that the documents answer is below the threshold
    NO_PHRASE = "no phrase of the asked kind"  # it asks for a person, date, number ... no sentence holds one


@dataclass(frozen=True)
class Reading:
    """What the reader made of a question's context items: whether they answer, why, and the quotes' order."""

    # None when the reader did not read the items (no candidate, nothing relevant enough)
    features: ReaderFeatures | None
    # That the documents answer the question; None when the abstention model was not fitted for the encoder that
    # measured the similarities (then the question is answered: no calibrated decision to abstain by), or when the
    # reader did not read the items.
    probability: float | None
    answered: bool  # the probability is at or above the shipped threshold (or there is none)
    scores: Mapping[int, float] | None = None  # the answer scorer's score per context item number
    # the answer check's probability that the item states the answer, for the items it read (the scorer's first)
    checks: Mapping[int, float] | None = None
    # the quotes' order per context item number: the scorer with the second view (e5) when both are there
    order: Mapping[int, float] | None = None
    why: Why = Why.ANSWERED
    reason: str = ""  # ``why`` in words, with its figures ("probability 0.12 < threshold 0.31")
    # for an answered question: the statements' quote scores, typed short answers and the quotes' order
    quotes: QuoteReading | None = None

    def closest(self, context: Sequence[ContextItem], n: int = 3) -> list[ContextItem]:
        """The ``n`` items that come closest to answering: by the scorer's score, else by similarity."""
        def key(c: ContextItem) -> tuple[float, int]:
            return (-(self.scores[c.n] if self.scores is not None else c.score), c.n)
        return sorted(context, key=key)[:n]


def _plain(item: ContextItem) -> Passage:
    return Passage(" ".join(item.span.text.split()))


# How many of the scorer's first items the answer check reads (one cross-encoder pass each).
CHECKED = 3


class Reader:
    """The answer scorer, the answer check, the second view and the span reader (when they ship) and the abstention
    model, loaded together once."""

    def __init__(self, scorer: AnswerScorer | None = None, abstain: AbstainModel | None = None,
                 check: AnswerCheck | None = None, second: PassageEncoder | None = None,
                 span: SpanReader | None = None, span_bridged: bool = SPAN_BRIDGED) -> None:
        self.scorer, self.check, self.second, self.span = scorer, check, second, span
        self.span_bridged = span_bridged  # the span reader reorders a bridge question's quotes too
        self.abstain = abstain or load_abstain_model(with_scorer=scorer is not None, with_check=check is not None)

    @classmethod
    def load(cls, passage_vectors: bool = False) -> Reader:
        """The shipped reader: the trained scorer, check and span reader if their weights ship, the second view if
        asked for (``passage_vectors``: the configuration's GRAPHRAG_PASSAGE_VECTORS) and installed, and the fitted
        abstention model."""
        second = load_passage_encoder() if passage_vectors else None
        return cls(load_scorer(), check=load_check(), second=second, span=load_span_reader())

    def read(self, question: str, context: Sequence[ContextItem], passage_of: PassageOf | None = None,
             ner: bool = True, encoder: str | None = None, vectors_of: VectorsOf | None = None,
             min_relevance: float | None = None, sentence_count: SentenceCount | None = None,
             before_of: BeforeOf | None = None) -> Reading:
        """Score ``context`` for answering ``question``, decide whether it does, and for an answered question read
        the quotes' order (``passage_of`` gives each item its neighbours and title for the scorer; ``ner=False``
        types short answers by patterns only; ``encoder``: the name of the sentence encoder that measured the items'
        similarities; ``vectors_of``: the items' stored passage vectors per model: the scorer's, when it reads
        "title. sentence" alone, and the second view's, without which the quotes keep the scorer's order;
        ``min_relevance``: below this similarity of the closest item nothing is read and nothing answered;
        ``sentence_count``: how many sentences each item's document version has, for the ranker; ``before_of``: the
        sentence before an item's, which the span reader reads with it to resolve "it" and "he")."""
        if not context:  # (not "abstained" nor "no phrase": nothing was read)
            return Reading(None, None, False, why=Why.NO_CANDIDATE, reason="no candidate: nothing to answer from")
        if min_relevance is not None:
            best = max(float(c.score) for c in context)
            if best < min_relevance:
                return Reading(None, None, False, why=Why.BELOW_RELEVANCE,
                               reason=f"the closest sentence has similarity {best:.2f}, below the "
                                      f"{min_relevance:.2f} needed to answer from it")
        scores: dict[int, float] | None = None
        # the items' text is read only by the check and by a scorer without kept vectors
        reads_text = self.check is not None or (self.scorer is not None and (vectors_of is None or
                                                                          stored_scorer(self.scorer) is None))
        passages = [(passage_of or _plain)(c) for c in context] if context and reads_text else []
        if self.scorer is not None and context:
            got = self._scores(question, context, passages, vectors_of)
            scores = {c.n: float(s) for c, s in zip(context, got)}
        checks: dict[int, float] | None = None
        if self.check is not None and context:
            first = sorted(range(len(context)), key=lambda i: (-(scores[context[i].n] if scores is not None
                                                                  else context[i].score), context[i].n))[:CHECKED]
            got = self.check.score(question, [check_text(passages[i].title, passages[i].sentence) for i in first])
            checks = {context[i].n: float(p) for i, p in zip(first, got)}
        features = reader_features(question, [" ".join(c.span.text.split()) for c in context],
                                   [float(c.score) for c in context],
                                   [scores[c.n] for c in context] if scores is not None else None, ner,
                                   list(checks.values()) if checks is not None else None)
        p = self.abstain.probability(features) if self.abstain.calibrated_for(encoder) else None
        answered = p is None or self.abstain.answers(p)
        if not answered:
            assert p is not None
            if self.abstain.requires_type and not features.type_in_context:
                return Reading(features, p, False, scores, checks, why=Why.NO_PHRASE,
                               reason="no phrase of the asked kind in any sentence")
            return Reading(features, p, False, scores, checks, why=Why.ABSTAINED,
                           reason=f"abstained: probability {p:.3f} < threshold {self.abstain.threshold:.3f}")
        order = None
        # the second view orders quotes: an abstention quotes nothing, so it is not asked
        if scores is not None and self.second is not None and vectors_of is not None and len(context) > 1:
            similarities = vectors_of(self.second, context) @ self.second.query(question)
            order = combined_order(context, scores, similarities)
        quotes = read_quotes(question, context, scores, order, sentence_count, PHRASE_CANDIDATES, ner)
        if self.span is not None:
            quotes = self._spans(question, quotes, passage_of or _plain, before_of)
        reason = (f"probability {p:.3f} >= threshold {self.abstain.threshold:.3f}" if p is not None
                  else f"no calibrated decision for the encoder {encoder}")
        return Reading(features, p, answered, scores, checks, order, Why.ANSWERED, reason, quotes)

    def _spans(self, question: str, quotes: QuoteReading, passage_of: PassageOf, before_of: BeforeOf | None
               ) -> QuoteReading:
        """The quotes reordered by the span reader's reading of the first of them (``quotes.with_spans``)."""
        assert self.span is not None
        shortlist = span_shortlist(quotes, self.span_bridged)
        got = self.span.read(question, [Candidate(" ".join(c.span.text.split()), before_of(c) if before_of else "",
                                                  passage_of(c).title) for c in shortlist])
        return with_spans(quotes, dict(zip(shortlist, got)), self.span_bridged)

    def _scores(self, question: str, context: Sequence[ContextItem], passages: Sequence[Passage],
                vectors_of: VectorsOf | None) -> np.ndarray:
        """The scorer's probabilities: from the candidates' stored vectors when the scorer reads "title. sentence"
        alone (the question is then its one forward pass: the same vectors, so the same scores), else encoded
        now."""
        assert self.scorer is not None
        kept = stored_scorer(self.scorer)
        if vectors_of is not None and kept is not None:
            return kept.calibrated(vectors_of(kept, context) @ kept.query(question))
        return self.scorer.score(question, passages)


def stored_scorer(scorer: AnswerScorer | None) -> StoredScorer | None:
    """``scorer`` when it reads "title. sentence" alone (no neighbours), so the store can keep its passage vectors;
    else None (a scorer that does not say is read with its neighbours, encoded at every ask)."""
    return cast("StoredScorer", scorer) if getattr(scorer, "stores_passages", False) else None


def stored_encoders(passage_vectors: bool = False) -> list[PassageEncoder]:
    """The reader's models whose passage vectors a store keeps (``graphrag store passages`` fills them): the answer
    scorer when it reads "title. sentence" alone, and the second view when it is installed and on
    (``passage_vectors``)."""
    reader = Reader.load(passage_vectors)
    return [m for m in (stored_scorer(reader.scorer), reader.second) if m is not None]


class StoredScorer(PassageEncoder, Protocol):
    """A scorer whose passage vectors the store keeps (``OnnxAnswerScorer`` with ``context_words`` 0)."""

    def calibrated(self, cosines: np.ndarray) -> np.ndarray:
        """Probabilities from cosines."""
        ...
