"""Small lexical features that catch what sentence similarity misses.

Cosine similarity of sentence embeddings rewards topical overlap: "Snapshots last 30 days"
and "Exports use the latest snapshot" are close, although the source says nothing about 30
days. These functions look at the surface instead: numbers, capitalised terms, negation,
qualifiers and how many of the claim's content words the evidence covers. Each is small,
pure and cheap (no model), so the checker can run them on every pair.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]|\d[\d,]*(?:\.\d+)?%?")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")

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

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
    "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000",
    "dozen": "12", "half": "0.5", "twice": "2", "once": "1", "single": "1", "double": "2",
}

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


def bigram_coverage(claim: str, evidence: str) -> float:
    """Share of consecutive content-stem pairs of the claim that also occur in the evidence.

    Word coverage ignores order; bigrams notice "A acquired B" read against "B acquired A"
    only weakly, but they do reward phrases kept intact, which paraphrase-free support has.
    """
    c = content_stems(claim)
    pairs = list(zip(c, c[1:]))
    if not pairs:
        return 1.0
    e = content_stems(evidence)
    have = set(zip(e, e[1:]))
    return sum(p in have for p in pairs) / len(pairs)


def _canonical_number(token: str) -> str:
    t = token.replace(",", "").rstrip("%")
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return t.lstrip("0") or "0"


def numbers(text: str) -> set[str]:
    """Numbers in canonical form: digits ("1,000" -> "1000") and number words ("two" -> "2")."""
    found = {_canonical_number(m) for m in _NUMBER.findall(text)}
    found |= {_NUMBER_WORDS[w.lower()] for w in words(text) if w.lower() in _NUMBER_WORDS}
    return found


def missing_numbers(claim: str, evidence: str) -> list[str]:
    """The claim's numbers (with the word after them, for a readable reason) absent from evidence."""
    have = numbers(evidence)
    out = []
    for m in _NUMBER.finditer(claim):
        if _canonical_number(m.group()) not in have:
            unit = re.match(r"\s*%|\s+[A-Za-z]+", claim[m.end():])
            out.append(m.group() + (unit.group() if unit else ""))
    for w in words(claim):
        if w.lower() in _NUMBER_WORDS and w.lower() not in {"once", "single", "half"}:
            if _NUMBER_WORDS[w.lower()] not in have:
                out.append(w)
    return out


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


# --- evidence selection over sentence embeddings ---------------------------------------


def _unit(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(n, 1e-12)


def top_m_similarity(claim_vec: np.ndarray, sent_vecs: np.ndarray, max_m: int) -> tuple[float, list[int]]:
    """Best cosine of the claim with the mean of its m most similar sentences, m = 1..max_m.

    Several sentences can support one claim together; their mean embedding stands in for the
    joined text without encoding it again. Taking the best m means an extra, unrelated
    sentence in the evidence can never lower the score. Returns the cosine and the indices.
    """
    sims = sent_vecs @ claim_vec
    order = [int(i) for i in np.argsort(-sims, kind="stable")[:max_m]]
    cums = np.cumsum(sent_vecs[order], axis=0)
    scores = _unit(cums) @ claim_vec
    m = int(np.argmax(scores)) + 1
    return float(scores[m - 1]), sorted(order[:m])


def best_window(claim_vec: np.ndarray, sent_vecs: np.ndarray, max_width: int = 3) -> tuple[float, int, int]:
    """The contiguous run of up to ``max_width`` sentences whose mean embedding is closest to the claim.

    Returns (cosine, start, end) with end exclusive.
    """
    n = sent_vecs.shape[0]
    cum = np.vstack([np.zeros((1, sent_vecs.shape[1]), dtype=sent_vecs.dtype), np.cumsum(sent_vecs, axis=0)])
    best = (-1.0, 0, min(1, n))
    for width in range(1, min(max_width, n) + 1):
        sums = cum[width:] - cum[:-width]
        sims = _unit(sums) @ claim_vec
        i = int(np.argmax(sims))
        if float(sims[i]) > best[0] + 1e-6:
            best = (float(sims[i]), i, i + width)
    return best


def join_sentences(sentences: Sequence[str], indices: Iterable[int]) -> str:
    """The chosen sentences in document order, joined with spaces."""
    return " ".join(sentences[i] for i in sorted(set(indices)))


# --- token alignment over contextual token embeddings ------------------------------------

_SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]"})
_PUNCT_TOKEN = re.compile(r"^[^\w]+$")
TOKEN_FEATURES: tuple[str, ...] = (
    "tok_mean", "tok_min", "tok_idf", "tok_bottom2", "tok_exact_idf", "tok_low_share",
)
LOW_ALIGNMENT = 0.6  # a claim token whose best evidence token is below this is "not found"


def content_token_mask(tokens: Sequence[str]) -> np.ndarray:
    """Word-piece tokens that carry content: not special, not punctuation, not a stopword.

    A "##" continuation piece takes the status of the word it continues.
    """
    mask = np.zeros(len(tokens), dtype=bool)
    current = False
    for i, tok in enumerate(tokens):
        if tok in _SPECIAL_TOKENS:
            current = False
        elif tok.startswith("##"):
            mask[i] = current
        else:
            current = not _PUNCT_TOKEN.match(tok) and tok not in STOPWORDS
            mask[i] = current
    return mask


def token_idf(ids: np.ndarray) -> np.ndarray:
    """An IDF stand-in from the word-piece id: BERT's vocabulary is ordered by frequency.

    Whole words start at id 1996 ("the", "of", "and", ...), so log(rank) grows like the
    inverse document frequency of a Zipf-distributed word; no table has to ship.
    """
    return np.log(np.maximum(np.asarray(ids, dtype=float), 2000.0) - 1990.0)


def token_alignment(claim_ids: np.ndarray, claim_tokens: Sequence[str], claim_emb: np.ndarray,
                    evidence_ids: np.ndarray, evidence_emb: np.ndarray) -> dict[str, float]:
    """How well each claim content token is matched by some evidence token (BERTScore-like recall).

    ``claim_*`` include the special tokens; ``evidence_*`` hold the tokens of the selected
    evidence sentences without them. Returns the mean, minimum, IDF-weighted mean and mean of
    the two lowest best-match cosines, the IDF-weighted share of claim tokens present verbatim
    and the IDF-weighted share matched below LOW_ALIGNMENT.
    """
    empty = {"tok_mean": 0.0, "tok_min": 0.0, "tok_idf": 0.0, "tok_bottom2": 0.0,
             "tok_exact_idf": 0.0, "tok_low_share": 1.0}
    mask = content_token_mask(claim_tokens)
    if not mask.any():
        mask = np.array([t not in _SPECIAL_TOKENS for t in claim_tokens], dtype=bool)
    if not mask.any() or len(evidence_ids) == 0:
        return empty
    c = _unit(np.asarray(claim_emb, dtype=np.float32)[mask])
    e = _unit(np.asarray(evidence_emb, dtype=np.float32))
    best = (c @ e.T).max(axis=1)
    ids = np.asarray(claim_ids)[mask]
    w = token_idf(ids)
    low = np.sort(best)
    return {
        "tok_mean": float(best.mean()),
        "tok_min": float(low[0]),
        "tok_idf": float((w * best).sum() / w.sum()),
        "tok_bottom2": float(low[:2].mean()),
        "tok_exact_idf": float((w * np.isin(ids, evidence_ids)).sum() / w.sum()),
        "tok_low_share": float((w * (best < LOW_ALIGNMENT)).sum() / w.sum()),
    }
