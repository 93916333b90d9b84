"""Whether the documents answer: a calibrated probability from the reader's features, and its threshold.

A logistic regression fitted by ``lab/fit_abstain.py`` (answerable Natural Questions against their own
article; the same questions against the article with its evidence paragraphs removed, and against a related
other article; SQuAD 2.0's unanswerable questions), shipped as ``abstain_params.json``: one model per kind of
reader (with the answer scorer's features, and without them while no scorer ships). The threshold was chosen on
held-out questions so that answerable ones are answered at least 95% of the time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphrag.answer.reader.features import ReaderFeatures
from graphrag.errors import ModelUnavailable

PARAMS = Path(__file__).with_name("abstain_params.json")
WITHOUT_SCORER = "without_scorer"
WITH_SCORER = "with_scorer"
WITH_CHECK = "with_check"  # the scorer's features and the answer check's


@dataclass(frozen=True)
class AbstainModel:
    """A fitted logistic regression over named reader features, and the probability below which it abstains."""

    features: tuple[str, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    # The sentence encoder whose similarities it was fitted on (None: any). Another encoder's similarities sit on
    # another scale, so its probability would mean nothing: the reader then does not abstain.
    encoder: str | None = None
    # A question asking for a specific kind of phrase (who, where, when, how many, what ... cost) none of whose
    # context sentences holds one is not answered, whatever the rest says: no sentence can give its answer (the learned part cannot
    # see this on encyclopedia text, where every page names people, dates and numbers).
    requires_type: bool = False

    def calibrated_for(self, encoder: str | None) -> bool:
        """Whether its probability means something for similarities from ``encoder``."""
        return self.encoder is None or encoder is None or encoder == self.encoder

    def probability(self, f: ReaderFeatures) -> float:
        """The probability that the documents answer the question, given the reader's features."""
        if self.requires_type and not f.type_in_context:
            return 0.0
        values = dict(zip(ReaderFeatures.names(), f.vector()))
        z = self.intercept + sum(c * values[name] for name, c in zip(self.features, self.coef))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def answers(self, probability: float) -> bool:
        """Whether a question with this probability is answered (at or above the threshold)."""
        return probability >= self.threshold

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> AbstainModel:
        """The model from its JSON object (``features``, ``coef``, ``intercept``, ``threshold``)."""
        names = tuple(str(n) for n in raw["features"])
        unknown = set(names) - set(ReaderFeatures.names())
        coef: Sequence[float] = [float(c) for c in raw["coef"]]
        if unknown or len(coef) != len(names):
            raise ModelUnavailable(f"the abstention parameters name unknown features {sorted(unknown)} or do not give one "
                              "coefficient per feature: refit them with `python -m lab.fit_abstain`")
        return cls(names, tuple(coef), float(raw["intercept"]), float(raw["threshold"]), raw.get("encoder"),
                   bool(raw.get("requires_type", False)))


def load_abstain_model(with_scorer: bool, path: Path = PARAMS, with_check: bool = False) -> AbstainModel:
    """The shipped model for a reader with (or without) the answer scorer and the answer check; a model fitted
    for fewer parts when none was fitted for these (its features need only what the reader has)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read the abstention parameters {path}: {exc}; restore the file from the "
                          "repository or refit it with `python -m lab.fit_abstain`") from exc
    if with_scorer and with_check and WITH_CHECK in raw:
        key = WITH_CHECK
    else:
        key = WITH_SCORER if with_scorer and WITH_SCORER in raw else WITHOUT_SCORER
    return AbstainModel.from_json(raw[key])
