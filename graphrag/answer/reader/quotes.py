"""How well each candidate sentence answers the question: the one score that orders the quotes.

The learned sentence ranker (``graphrag.answer.reader.rank.score_sentences``: MiniLM similarity, lexical
overlap, answer-type cues, the sentence's kind and position, fitted on Natural Questions and
MuSiQue) gives the probability that a sentence is the one answering the question; it is blended
with the sentence's similarity to the question plus the share of the question's content words it
holds, and a bonus when it holds a phrase of the kind the question asks for. A quote beside the
best one is kept only at or above ``ANSWER_THRESHOLD`` and within
``QUOTE_MARGIN`` of the best.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from graphrag.answer.reader.rank import Candidate, score_sentences
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
