"""How well each candidate sentence answers the question: the one score that orders the quotes.

Interim scorer (to be replaced by the learned sentence ranker in one line, ``quote_scores``):
the sentence's similarity to the question (the context item's score, MiniLM cosine), plus the
share of the question's content words the sentence contains, plus a bonus when the sentence
holds a phrase of the kind the question asks for (a date for "when", "30 days" for "how long").
"""

from __future__ import annotations

from collections.abc import Sequence

from graphrag.model import ContextItem
from graphrag.support.lexical import content_stems

OVERLAP_WEIGHT = 0.3  # a sentence with every content word of the question gains this much
ANSWER_BONUS = 0.1  # ... and this much when it holds a phrase of the asked-for kind
# A quote after the first is kept only when it scores within this much of the best one (on the
# sample corpus the answer-bearing sentences sit within 0.2 of the best; off-topic ones from
# 0.25 down).
QUOTE_MARGIN = 0.15
ANSWER_THRESHOLD = 0.35  # below this no sentence is quoted beside the best one


def quote_scores(question: str, items: Sequence[ContextItem], has_answer: Sequence[bool]) -> list[float]:
    """A score per item: higher answers ``question`` better (``has_answer``: the item holds a phrase
    of the asked-for kind)."""
    q = set(content_stems(question))
    out = []
    for item, answer in zip(items, has_answer):
        s = set(content_stems(item.span.text))
        overlap = len(q & s) / len(q) if q else 0.0
        out.append(float(item.score) + OVERLAP_WEIGHT * overlap + (ANSWER_BONUS if answer else 0.0))
    return out
