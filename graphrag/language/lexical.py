"""Small lexical features that catch what sentence similarity misses.

Cosine similarity of sentence embeddings rewards topical overlap: "Snapshots last 30 days"
and "Exports use the latest snapshot" are close, although the source says nothing about 30
days. These functions look at the surface instead: numbers, capitalised terms, negation,
qualifiers and how many of the claim's content words the evidence covers. Each is small,
pure and cheap (no model), so the checker can run them on every pair.
"""

from __future__ import annotations

import itertools
import re

from graphrag.language import quantities as Q

_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]|\d[\d,]*(?:\.\d+)?%?")

STOPWORDS = frozenset(
    """
    a an the and or but if then else of to in on at by for with from as into onto upon about
    over under than that this these those there here it its it's is are was were be been being
    am do does did doing have has had having will would shall should can could may might must
    i me my we our you your he him his she her they them their what which who whom whose when
    where why how also just so such very too more most much many some any each every all both
    either neither nor not no only own same other another s t via per within without up down out
    off again further once while during before after above below between through because until
    one ones us etc e.g i.e based including include includes according
    """.split()
)

_NEGATIONS = frozenset(
    """not no never none nobody nothing neither nor without cannot can't won't don't doesn't
    didn't isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't
    lack lacks lacked unable fail fails failed""".split()
)

# Words that narrow or condition a statement: a claim that adds one the source lacks
# usually says more than the source does ("only", "always", "if ...", "the first").
QUALIFIERS = frozenset(
    """only all always every never most least majority entire whole sole solely exclusively
    primarily mainly largely first last largest biggest smallest highest lowest best worst
    oldest newest earliest latest greatest longest shortest fastest if unless except until
    may might could possibly likely unlikely usually often rarely sometimes generally
    approximately about nearly almost roughly over under more less fewer""".split()
)

_SUFFIXES = ("ational", "ization", "ations", "ation", "ments", "ment", "ness", "ings", "ing",
             "edly", "ies", "ied", "ed", "ly", "es", "er", "s")


def words(text: str) -> list[str]:
    """Word and number tokens in order, apostrophes and hyphens kept inside words."""
    return _WORD.findall(text)


def stem(word: str) -> str:
    """A crude stem: lowercase, one suffix off, cut to 6 letters.

    Crude on purpose: "cancelled"/"cancelling", "exports"/"exported", "available"/
    "availability" must meet; an occasional false match costs less than a missed one.
    """
    w = word.lower().replace("’", "'")
    w = re.sub(r"'s?$", "", w)
    if w.isdigit() or len(w) <= 3:
        return w
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    return w[:6]


def content_stems(text: str) -> list[str]:
    """Stems of the words that carry content (stopwords and one-letter tokens dropped)."""
    return [stem(w) for w in words(text) if w.lower() not in STOPWORDS and len(w) > 1]


def coverage(claim: str, evidence: str) -> tuple[float, list[str]]:
    """Share of the claim's content words whose stem occurs in the evidence, and the misses."""
    claim_words = [w for w in words(claim) if w.lower() not in STOPWORDS and len(w) > 1]
    if not claim_words:
        return 1.0, []
    have = set(content_stems(evidence))
    missing = [w for w in claim_words if stem(w) not in have]
    return 1.0 - len(missing) / len(claim_words), missing


def absent_words(claim_words: list[str], evidence: str) -> list[str]:
    """Of a claim's words (``coverage``'s misses, say), those the evidence does not hold, to be named "not in source":
    a word by its stem, a number by its value in whatever form either side writes it ("1869" is in "In 1869,
    however", "1,869" in "1869", "ninth" in "9th"). ``coverage`` itself reads "1869," as a word of its own: that
    measure stays as the checker was fitted on; only what is said of the evidence must be true of it."""
    stems = set(content_stems(evidence))
    values = Q.keys(evidence)
    out = []
    for w in claim_words:
        said = Q.quantities(w)
        if stem(w) in stems or (said and all(q.keys[0] in values for q in said)):
            continue
        out.append(w.rstrip(","))
    return out


def bigram_coverage(claim: str, evidence: str) -> float:
    """Share of consecutive content-stem pairs of the claim that also occur in the evidence.

    Word coverage ignores order; bigrams notice "A acquired B" read against "B acquired A"
    only weakly, but they do reward phrases kept intact, which paraphrase-free support has.
    """
    c = content_stems(claim)
    pairs = list(itertools.pairwise(c))
    if not pairs:
        return 1.0
    e = content_stems(evidence)
    have = set(itertools.pairwise(e))
    return sum(p in have for p in pairs) / len(pairs)


def numbers(text: str) -> set[str]:
    """Numbers and dates in canonical form ("1,000" -> "1000", "two" -> "2", "9th" -> "9",
    "$5 million" -> "5000000", "3 March 2024" -> "date:2024-03-03"); see ``quantities``."""
    return Q.keys(text)


def missing_numbers(claim: str, evidence: str) -> list[str]:
    """The claim's numbers and dates (with the word after a number, for a readable reason)
    whose value the evidence does not state, in whatever form either side writes it."""
    return Q.missing(claim, evidence)


def capitalised_terms(text: str) -> list[str]:
    """Names and other capitalised terms: runs of capitalised words, acronyms included.

    A sentence-initial word counts only when it is not a stopword ("The", "It" are not terms),
    so "Exports stay available" still names Exports.
    """
    terms: list[str] = []
    run: list[str] = []
    sentence_start = True
    for m in re.finditer(r"[A-Za-z][\w'’\-]*|[.!?;:]", text):
        tok = m.group()
        if tok in ".!?;:":
            sentence_start = True
            if run:
                terms.append(" ".join(run))
                run = []
            continue
        is_cap = tok[0].isupper() and not (sentence_start and tok.lower() in STOPWORDS)
        if is_cap:
            run.append(tok)
        elif run:
            terms.append(" ".join(run))
            run = []
        sentence_start = False
    if run:
        terms.append(" ".join(run))
    return terms


def missing_terms(claim: str, evidence: str) -> list[str]:
    """Capitalised terms of the claim none of whose content words occur in the evidence."""
    have = set(content_stems(evidence))
    out = []
    for term in capitalised_terms(claim):
        stems = content_stems(term)
        if stems and not any(s in have for s in stems):
            out.append(term)
    return out


def negated(text: str) -> bool:
    """True when the text contains a negation word or an n't contraction."""
    toks = [w.lower().replace("’", "'") for w in words(text)]
    return any(t in _NEGATIONS or t.endswith("n't") for t in toks)


def negation_mismatch(claim: str, evidence: str) -> bool:
    """One side is negated and the other is not."""
    return negated(claim) != negated(evidence)


def missing_qualifiers(claim: str, evidence: str) -> list[str]:
    """Qualifier words ("only", "always", "if", "first", ...) in the claim but not the evidence."""
    have = {w.lower() for w in words(evidence)}
    seen: list[str] = []
    for w in words(claim):
        lw = w.lower()
        if lw in QUALIFIERS and lw not in have and lw not in seen:
            seen.append(lw)
    return seen


_CHUNK_SPLIT = re.compile(r",\s+|;\s+|:\s+|\s+(?:and|but|while|whereas|which|who|although|because)\s+")


def claim_chunks(claim: str, min_content: int = 2) -> list[str]:
    """The claim cut at commas and conjunctions; tiny pieces are merged into their neighbour.

    A claim that is partly supported usually has one chunk the source does not cover;
    scoring each chunk separately lets the weakest one pull the score down.
    """
    pieces = [p.strip() for p in _CHUNK_SPLIT.split(claim) if p and p.strip()]
    chunks: list[str] = []
    for p in pieces:
        if chunks and len(content_stems(chunks[-1])) < min_content:
            chunks[-1] = f"{chunks[-1]} {p}"
        else:
            chunks.append(p)
    if len(chunks) > 1 and len(content_stems(chunks[-1])) < min_content:
        tail = chunks.pop()
        chunks[-1] = f"{chunks[-1]} {tail}"
    return chunks or [claim]
