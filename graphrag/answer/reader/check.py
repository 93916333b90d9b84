"""The answer check: a cross-encoder that reads the question and one sentence together and gives the probability
that the sentence states the answer.

The answer scorer (``scorer.py``) is a bi-encoder: it judges how near a sentence is to the question, which is
topic as much as answer. The check reads the question against the sentence token by token, so it can tell "The
court was founded in 1789" from "The court meets in Washington" for "When was the court founded?". It runs on the
few sentences the scorer ranks first; its best probability is a feature of the abstention decision.

Trained here from the packaged all-MiniLM-L6-v2 weights (``lab/fit_answer_check.py``; MODEL_CARD.md), int8
ONNX run by ONNX Runtime, the packaged tokenizer. ``load_check`` returns None when its weights are not installed.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from graphrag.answer.reader.scorer import WEIGHTS_DIR, ScorerUnavailable

CHECK_ONNX = "check.onnx"
CHECK_CONFIG = "check.json"
log = logging.getLogger(__name__)


class AnswerCheck(Protocol):
    """Gives the probability that a text (``check_text``) states the answer to a question."""

    name: str

    def score(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """One probability in [0, 1] per text, in the texts' order."""
        ...


def check_text(title: str, sentence: str) -> str:
    """The sentence as the check reads it (the second segment): its document's title, then the sentence."""
    title, sentence = " ".join(title.split()), " ".join(sentence.split())
    return f"{title}. {sentence}" if title else sentence


@dataclass(frozen=True)
class CheckConfig:
    """The token limit and the logistic calibration of the logit, saved beside the weights."""

    max_tokens: int
    slope: float
    intercept: float
    name: str = "check-minilm-int8"

    @classmethod
    def read(cls, path: Path) -> CheckConfig:
        """The settings saved beside the weights."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(int(raw["max_tokens"]), float(raw["calibration"]["slope"]),
                       float(raw["calibration"]["intercept"]), str(raw.get("name", cls.name)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ScorerUnavailable(f"cannot read the answer check's settings {path}: {exc}; rebuild them with "
                                    "`python -m lab.fit_answer_check`") from exc


class OnnxAnswerCheck:
    """The cross-encoder in ONNX Runtime; one forward pass per pair (int8 activations are quantized per pass, so a
    batch would make a pair's score depend on its companions)."""

    def __init__(self, onnx_path: Path, config: CheckConfig, *, threads: int = 2) -> None:
        from graphrag.language.embed_onnx import load_tokenizer, onnx_session
        from graphrag.language.encoding import model_path

        self.config, self.name = config, config.name
        self._tokenizer = load_tokenizer(model_path())
        self._tokenizer.enable_truncation(config.max_tokens)
        try:
            self._session = onnx_session(onnx_path, threads)
        except Exception as exc:  # onnxruntime raises its own (unexported) error types for a damaged file
            raise ScorerUnavailable(f"cannot load the answer check's weights {onnx_path}: {exc}") from exc
        self._lock = threading.Lock()

    @classmethod
    def load(cls, folder: Path, threads: int = 2) -> OnnxAnswerCheck:
        """The check whose weights and settings are in ``folder``."""
        return cls(folder / CHECK_ONNX, CheckConfig.read(folder / CHECK_CONFIG), threads=threads)

    def logits(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """The raw logit per ``(question, text)`` pair (texts as ``check_text`` writes them)."""
        out = np.zeros(len(texts), dtype=np.float32)
        encodings = self._tokenizer.encode_batch([(question, t) for t in texts]) if texts else []
        with self._lock:
            for i, e in enumerate(encodings):
                feed = {"input_ids": np.array([e.ids], dtype=np.int64),
                        "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                        "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
                out[i] = float(np.asarray(self._session.run(None, feed)[0]).reshape(-1)[0])
        return out

    def score(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """The calibrated probability per text that it states the answer to ``question``."""
        z = np.clip(self.config.slope * self.logits(question, texts).astype(np.float64) + self.config.intercept,
                    -50.0, 50.0)
        out: np.ndarray = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
        return out


@functools.cache
def load_check() -> OnnxAnswerCheck | None:
    """The shipped answer check, once per process; None when its weights are not installed."""
    if not (WEIGHTS_DIR / CHECK_ONNX).is_file() or not (WEIGHTS_DIR / CHECK_CONFIG).is_file():
        log.debug("no answer-check weights at %s: abstention decides without it", WEIGHTS_DIR / CHECK_ONNX)
        return None
    import os

    return OnnxAnswerCheck.load(WEIGHTS_DIR, threads=max(1, min(2, os.cpu_count() or 1)))
