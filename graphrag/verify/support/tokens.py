"""Token alignment over contextual token embeddings (BERTScore-like recall).

Each claim content word needs some close evidence token, weighted by an IDF stand-in, so one
unsupported word can pull the score down where sentence similarity would average it away.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphrag.language.lexical import STOPWORDS
from graphrag.verify.support.selection import unit_rows

_SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]"})
_PUNCT_TOKEN = re.compile(r"^[^\w]+$")
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
    idf: np.ndarray = np.log(np.maximum(np.asarray(ids, dtype=float), 2000.0) - 1990.0)
    return idf


@dataclass(frozen=True)
class TokenMatch:
    """Each claim content token's best cosine with any evidence token, its IDF weight, and whether
    the same word piece occurs in the evidence. The token features are read from it."""

    best: np.ndarray
    weight: np.ndarray
    exact: np.ndarray

    @property
    def lowest(self) -> np.ndarray:
        """The claim tokens' best similarities, lowest first."""
        return np.sort(self.best)


def match_tokens(claim_ids: np.ndarray, claim_tokens: Sequence[str], claim_emb: np.ndarray,
                 evidence_ids: np.ndarray, evidence_emb: np.ndarray) -> TokenMatch | None:
    """Match every claim content token against the evidence tokens; None when either side has none.

    ``claim_*`` include the special tokens; ``evidence_*`` hold the tokens of the selected
    evidence sentences without them. A claim of stopwords only is matched on all its tokens.
    """
    mask = content_token_mask(claim_tokens)
    if not mask.any():
        mask = np.array([t not in _SPECIAL_TOKENS for t in claim_tokens], dtype=bool)
    if not mask.any() or len(evidence_ids) == 0:
        return None
    c = unit_rows(np.asarray(claim_emb, dtype=np.float32)[mask])
    e = unit_rows(np.asarray(evidence_emb, dtype=np.float32))
    ids = np.asarray(claim_ids)[mask]
    return TokenMatch((c @ e.T).max(axis=1), token_idf(ids), np.isin(ids, evidence_ids))
