"""Features of a (question, candidate sentence) pair for the answer ranker: all cheap, no model.

Besides MiniLM's cosine (computed by the caller or by ``graphrag.answer.reader.rank.score_sentences``), the
ranker reads the surface: how many of the question's words the sentence has (weighted by how
rare each word is among the candidates, so the article's title word everywhere counts little),
whether it has the kind of thing the question asks for (a name for "who", a date for "when", a
number for "how many"), whether it adds anything the question does not already say, and what
kind of line it is. The answer-type cues are regular expressions, not spaCy's NER: en_core_web_sm
(tok2vec, tagger, ner) took 40 ms for 12 sentences, twice the ranker's whole budget (20 ms), where
these features take 2 ms (medians on the shared 2-core machine under load).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from graphrag.answer.reader.rank.kinds import SentenceKind
from graphrag.answer.reader.short_answer import AnswerType
from graphrag.language import lexical as L


@dataclass(frozen=True)
class Candidate:
    """A sentence that might answer the question, with what the caller already knows about it.

    ``similarity``: MiniLM cosine of question and sentence, when already computed.
    ``kind``: when the reader knows it (a table cell, a heading); None to detect it from the text.
    ``index``/``count``: the sentence's position in its document. ``depth``/``strength``: the walk's
    reach (route depth 0, 1 or 2 and walk strength), when the sentence was reached by the walk.
    """

    text: str
    similarity: float | None = None
    kind: SentenceKind | None = None
    index: int = 0
    count: int = 1
    depth: int | None = None
    strength: float | None = None


_YEAR = re.compile(r"\b(?:1[5-9]\d\d|20\d\d)\b")


# --- what the question asks for -------------------------------------------------------------

# The ranker's own reading of the question's wh-phrase, coarser than ``short_answer.answer_type`` (the kinds its
# cues can see: a name, a date, a count, a duration) and the one its parameters were fitted with; it names its kinds
# with the reader's one ``AnswerType`` (a "when" is a DATE, a "how many" a QUANTITY, the rest NONE).
_TYPE_PATTERNS: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (AnswerType.DURATION, re.compile(r"\bhow long\b", re.I)),
    (AnswerType.QUANTITY, re.compile(r"\bhow (?:many|much|old|far|tall|big|large|high|deep|fast)\b|"
                                     r"\b(?:what|which) (?:is the )?(?:number|percentage|amount|population|size)\b",
                                     re.I)),
    (AnswerType.DATE, re.compile(r"\bwhen\b|\b(?:what|which) (?:year|date|day|month|century|decade|time|age|era)\b",
                                 re.I)),
    (AnswerType.PLACE, re.compile(r"\bwhere\b|\b(?:what|which) (?:country|city|state|place|town|county|region|"
                                  r"continent|island|river|location)\b", re.I)),
    (AnswerType.PERSON, re.compile(r"\bwho(?:m|se)?\b|\b(?:what|which) (?:person|actor|actress|player|team|"
                                   r"company|band|group|singer|author|president|king|queen)\b", re.I)),
)


def cue_type(question: str) -> AnswerType:
    """What the question asks for, as the ranker's cues read it; NONE when its wh-phrase names no type."""
    for kind, pattern in _TYPE_PATTERNS:
        if pattern.search(question):
            return kind
    return AnswerType.NONE


_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_DATE = re.compile(r"\b(?:1[0-9]\d\d|20\d\d|\d{1,2}(?:st|nd|rd|th) century|\d{3}0s)\b|\b(?:"
                   + "|".join(m.capitalize() for m in _MONTHS) + r")\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:"
                   + "|".join(m.capitalize() for m in _MONTHS) + r")\b|\b(?:BC|AD|BCE|CE)\b")
_DURATION = re.compile(r"\b(?:\d[\d,.]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|few)"
                       r"[\s\-]+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries)\b",
                       re.I)
_COUNT = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?!\w)|\b(?:two|three|four|five|six|seven|eight|nine|ten|"
                    r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen)\b", re.I)


def cues(sentence: str, question: str) -> dict[str, bool]:
    """Which answer-type cues the sentence has: a date, a duration, a count, and a name the question lacks."""
    q_stems = set(L.content_stems(question))
    novel_names = [t for t in L.capitalised_terms(sentence) if not set(L.content_stems(t)) <= q_stems]
    numbers = [m.group() for m in _COUNT.finditer(sentence)]
    years = _YEAR.findall(sentence)
    return {
        "date": bool(_DATE.search(sentence)),
        "duration": bool(_DURATION.search(sentence)),
        "count": len(numbers) > len(years) or any(not m.isdigit() for m in numbers),
        "name": bool(novel_names),
    }


_EXPECTS = {
    AnswerType.PERSON: ("name",),
    AnswerType.PLACE: ("name",),
    AnswerType.DATE: ("date",),
    AnswerType.QUANTITY: ("count",),
    AnswerType.DURATION: ("duration", "date"),
}


# --- the feature row ---------------------------------------------------------------------------

FEATURES: tuple[str, ...] = (
    "cos", "cos_gap", "cos_rank", "overlap", "idf_overlap", "idf_overlap_gap", "bigram", "novel",
    "typed", "type_match", "has_name", "has_date", "has_count", "log_words",
)
# Not features, although candidates carry them: the position in the document (the training articles are
# paragraphs in a shuffled order, so a position there says nothing true; with it the fit learned a bonus for
# index 0 that held-out NQ figures did not support) and the walk's reach (no training set has routes).


def _idf(question_stems: set[str], sentence_stems: Sequence[set[str]]) -> dict[str, float]:
    """How rare each question word is among the candidates: a word every candidate has weighs little."""
    n = len(sentence_stems)
    df = Counter(s for stems in sentence_stems for s in stems & question_stems)
    return {s: math.log((n + 1) / (df[s] + 0.5)) for s in question_stems}


def feature_rows(question: str, candidates: Sequence[Candidate], cos: Sequence[float]) -> list[list[float]]:
    """One row of ``FEATURES`` per candidate; ``cos`` is each candidate's MiniLM cosine with the question.

    Some features compare a candidate with the others (how far below the best cosine, its rank),
    so the scores answer "which of these sentences answers", as the quotes need.
    """
    q_stems = set(L.content_stems(question))
    s_stems = [set(L.content_stems(c.text)) for c in candidates]
    idf = _idf(q_stems, s_stems)
    q_weight = sum(idf.values()) or 1.0
    want = _EXPECTS.get(cue_type(question), ())
    best_cos = max(cos, default=0.0)
    order = sorted(range(len(cos)), key=lambda i: -cos[i])
    rank = {i: r for r, i in enumerate(order)}
    idf_cover = [sum(idf[s] for s in stems & q_stems) / q_weight for stems in s_stems]
    best_idf = max(idf_cover, default=0.0)
    rows = []
    for i, (cand, stems) in enumerate(zip(candidates, s_stems)):
        cue = cues(cand.text, question)
        n_words = len(L.words(cand.text))
        rows.append([
            float(cos[i]),
            float(cos[i] - best_cos),
            1.0 / (1.0 + rank[i]),
            len(stems & q_stems) / max(len(q_stems), 1),
            idf_cover[i],
            idf_cover[i] - best_idf,
            L.bigram_coverage(question, cand.text) if len(q_stems) > 1 else 0.0,
            len(stems - q_stems) / max(len(stems), 1),
            1.0 if want else 0.0,
            1.0 if want and any(cue[w] for w in want) else 0.0,
            float(cue["name"]),
            float(cue["date"]),
            float(cue["count"]),
            math.log1p(n_words),
        ])
    return rows
