"""The answer ranker: which candidate sentence answers the question, as a calibrated probability.

Interface (what the answer composer calls)::

    from graphrag.answer.reader.rank import Candidate, score_sentences, ANSWER_THRESHOLD

    scores = score_sentences(question, [Candidate(text, similarity=cos, index=i, count=n), ...], embedder)
    quotes = [c for c, p in zip(candidates, scores) if p >= ANSWER_THRESHOLD]

``score_sentences(question, candidates, embedder) -> list[float]``: for each candidate, the
probability that it is the sentence answering the question (the candidates are read together:
some features compare a sentence with the others, as choosing quotes does). ``Candidate`` carries
the sentence text, its MiniLM cosine with the question when already computed (else the embedder
encodes what is missing: the question, and the sentences without a similarity), its kind when
the reader knows it (else ``kinds.sentence_kind`` reads it from the text, as the generator does), its position in its document
(index, count) and the walk's reach (route depth, walk strength). A sentence whose kind is not a
claim (a question, heading, caption, table row, reference entry or author line: ``NOT_A_CLAIM``)
scores 0.

``ANSWER_THRESHOLD``: below it a quote "does not answer". It was chosen on held-out folds of the
training questions (grouped by article; never on the dev set), as the lowest score at which at
least ``TARGET_PRECISION`` of the sentences scored at or above it are answer sentences; the
parameters file records the precision and recall it had there.

The model is a logistic regression on ``features.FEATURES`` fitted by
``python -m lab.evaluate.ranker_fit`` (Natural Questions train articles and MuSiQue
questions); its parameters ship as JSON beside this file, read with numpy only. The position and
the walk's reach are carried but not yet features (see ``features.FEATURES``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.reader.rank.features import FEATURES, Candidate, cue_type, cues, feature_rows
from graphrag.answer.reader.rank.kinds import NOT_A_CLAIM, SentenceKind, quotable, sentence_kind
from graphrag.errors import ModelUnavailable
from graphrag.language.encoding import Embedder

__all__ = ["ANSWER_THRESHOLD", "FEATURES", "NOT_A_CLAIM", "PARAMS_PATH", "Candidate", "RankerParams", "SentenceKind",
           "cue_type", "cues", "feature_rows", "load_params", "quotable", "score_sentences", "sentence_kind"]

PARAMS_PATH = Path(__file__).with_name("ranker_params.json")


class RankerParams:
    """A fitted logistic model over named features: p = sigmoid(intercept + ((x - mean) / scale) . coef)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.features = tuple(raw["features"])
        if self.features != FEATURES:
            raise ModelUnavailable(f"the ranker parameters hold features {self.features}, this code computes "
                                   f"{FEATURES}: refit with `python -m lab.evaluate.ranker_fit`",
                                   backend="ranker")
        self.mean = np.asarray(raw["mean"], dtype=float)
        self.scale = np.asarray(raw["scale"], dtype=float)
        self.coef = np.asarray(raw["coef"], dtype=float)
        self.intercept = float(raw["intercept"])
        self.threshold = float(raw["threshold"])

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Probability that each feature row is an answering sentence."""
        x = np.atleast_2d(np.asarray(x, dtype=float))
        z = self.intercept + ((x - self.mean) / self.scale) @ self.coef
        p: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return p


def load_params(path: Path = PARAMS_PATH) -> RankerParams:
    """The ranker's parameters from ``path`` (default: the shipped file)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read the ranker parameters {path}: {exc}; refit with "
                               "`python -m lab.evaluate.ranker_fit`", backend="ranker") from exc
    return RankerParams(raw)


@functools.lru_cache(maxsize=1)
def _shipped() -> RankerParams:
    return load_params()


ANSWER_THRESHOLD: float = _shipped().threshold


def similarities(question: str, candidates: Sequence[Candidate], embedder: Embedder | None) -> list[float]:
    """Each candidate's cosine with the question: its own ``similarity`` if given, else encoded now."""
    missing = [i for i, c in enumerate(candidates) if c.similarity is None]
    cos = [c.similarity if c.similarity is not None else 0.0 for c in candidates]
    if missing:
        if embedder is None:
            raise ValueError("candidates without a similarity need an embedder to compute it")
        vecs = embedder.encode([question, *(candidates[i].text for i in missing)])
        for i, v in zip(missing, vecs[1:]):
            cos[i] = float(np.dot(vecs[0], v))
    return [float(c) for c in cos]


def score_sentences(question: str, candidates: Sequence[Candidate], embedder: Embedder | None = None,
                    params: RankerParams | None = None) -> list[float]:
    """Probability that each candidate is the sentence answering ``question`` (0 for a non-claim kind)."""
    if not candidates:
        return []
    model = params or _shipped()
    cos = similarities(question, candidates, embedder)
    p = model.predict(np.array(feature_rows(question, candidates, cos)))
    kinds = [c.kind if c.kind is not None else sentence_kind(c.text) for c in candidates]
    return [0.0 if k in NOT_A_CLAIM else float(v) for k, v in zip(kinds, p)]
