"""How well each candidate sentence answers the question: the one score that orders the quotes.

The learned sentence ranker (``graphrag.rank.score_sentences``: MiniLM similarity, lexical
overlap, answer-type cues, the sentence's kind and position, fitted on Natural Questions and
MuSiQue) gives the probability that a sentence is the one answering the question; a quote
beside the best one is kept only at or above its ``ANSWER_THRESHOLD`` and within ``QUOTE_MARGIN``
of the best.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from graphrag.model import ContextItem
from graphrag.rank import ANSWER_THRESHOLD as RANKER_THRESHOLD
from graphrag.rank import Candidate, score_sentences

# A further quote scores within this much of the best one. 0.3 on the ranker's probabilities.
QUOTE_MARGIN = 0.3
ANSWER_THRESHOLD = RANKER_THRESHOLD  # below this no sentence is quoted beside the best one

SentenceCount = Callable[[str, int], int]


ANSWER_BONUS = 0.1  # added when the sentence holds a phrase of the asked-for kind (``short_answer``)


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
    return [p + (ANSWER_BONUS if a else 0.0) for p, a in zip(score_sentences(question, candidates), has_answer)]
