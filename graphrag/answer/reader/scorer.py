"""The answer scorer: how well each passage's sentence answers a question.

A passage is the candidate sentence with its neighbours (the sentence before and after it in its
document version) and its document's title. ``score`` returns one float per passage in [0, 1],
higher when the sentence answers the question. ``load_scorer`` returns the shipped model, or None
when its weights are missing (the caller then keeps today's ordering).

The shipped model is all-MiniLM-L6-v2 fine-tuned here as a bi-encoder on question -> answering sentence
(``lab/fit_reader.py``; data, recipe and figures in MODEL_CARD.md), exported to int8 ONNX and run by ONNX
Runtime. Its tokenizer is the packaged base model's (fine-tuning leaves the vocabulary as it is), so nothing is
fetched at run time. The cosine between question and passage vectors becomes a probability through the
logistic (Platt) fit stored in ``reader.json``, made on held-out training articles.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from tokenizers import Encoding

WEIGHTS_DIR = Path(__file__).parent
ONNX_FILE = "reader.onnx"
CONFIG_FILE = "reader.json"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Passage:
    """A candidate sentence with what surrounds it."""

    sentence: str
    before: str = ""
    after: str = ""
    title: str = ""


class AnswerScorer(Protocol):
    """Scores (question, passage) pairs for "this sentence answers the question"."""

    name: str

    def score(self, question: str, passages: Sequence[Passage]) -> np.ndarray:
        """One score in [0, 1] per passage, in the passages' order."""
        ...


class ScorerUnavailable(RuntimeError):
    """The shipped weights are there but cannot be read (a damaged file or an unknown configuration)."""


@dataclass(frozen=True)
class ScorerConfig:
    """What the weights were trained with, saved beside them by ``lab/fit_reader.py``: how a passage is written
    (``context_words`` words of each neighbour, 0 for none), the token limit, and the calibration
    ``p = 1 / (1 + exp(-(slope * cosine + intercept)))``."""

    context_words: int
    max_tokens: int
    slope: float
    intercept: float
    name: str = "reader-minilm-int8"

    @classmethod
    def read(cls, path: Path) -> ScorerConfig:
        """The settings saved beside the weights."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(context_words=int(raw["context_words"]), max_tokens=int(raw["max_tokens"]),
                       slope=float(raw["calibration"]["slope"]), intercept=float(raw["calibration"]["intercept"]),
                       name=str(raw.get("name", cls.name)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ScorerUnavailable(f"cannot read the reader's settings {path}: {exc}; rebuild them with "
                                    f"`python -m lab.fit_reader`") from exc


def _head(text: str, words: int) -> str:
    return " ".join(text.split()[:words])


def _tail(text: str, words: int) -> str:
    return " ".join(text.split()[-words:]) if words else ""


def passage_text(passage: Passage, context_words: int) -> str:
    """The passage as the model reads it: the title, the end of the sentence before, the sentence, the start of
    the sentence after. Neighbours are cut to ``context_words`` words each (they say what the sentence is about
    without outweighing it in the mean of the token vectors, and they keep 24 passages fast to encode)."""
    parts = [" ".join(passage.sentence.split())]
    if context_words > 0:
        before, after = _tail(passage.before, context_words), _head(passage.after, context_words)
        parts = ([before] if before else []) + parts + ([after] if after else [])
    body = " [SEP] ".join(parts) if len(parts) > 1 else parts[0]
    title = " ".join(passage.title.split())
    return f"{title}. {body}" if title else body


def calibrate(cosine: np.ndarray, slope: float, intercept: float) -> np.ndarray:
    """The fitted logistic of the cosine: a probability in [0, 1]."""
    z = np.clip(slope * cosine.astype(np.float64) + intercept, -50.0, 50.0)
    out: np.ndarray = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
    return out


class OnnxAnswerScorer:
    """The fine-tuned MiniLM bi-encoder in ``onnx_path`` run by ONNX Runtime with ``threads`` intra-op threads.
    Calls are serialised by a lock (the session already uses every thread it has)."""

    def __init__(self, onnx_path: Path, config: ScorerConfig, *, threads: int = 2) -> None:
        from graphrag.language.embed_onnx import load_tokenizer, onnx_session
        from graphrag.language.encoding import model_path

        self.config = config
        # The weights' digest in the name: the store keeps passage vectors under it, so a refitted scorer never
        # reads vectors its predecessor made.
        self.name = f"{config.name}@{_digest(onnx_path)}"
        self._tokenizer = load_tokenizer(model_path())
        self._tokenizer.enable_truncation(config.max_tokens)
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        try:
            self._session = onnx_session(onnx_path, threads)
        except Exception as exc:  # onnxruntime raises its own (unexported) error types for a damaged file
            raise ScorerUnavailable(f"cannot load the reader's weights {onnx_path}: {exc}") from exc
        self._lock = threading.Lock()

    def _forward(self, encodings: Sequence[Encoding]) -> np.ndarray:
        from graphrag.language.embed_onnx import OUTPUT, mean_pool, padded

        ids, mask = padded(encodings, self._pad_id)
        (hidden,) = self._session.run([OUTPUT], {"input_ids": ids, "attention_mask": mask})
        return mean_pool(np.asarray(hidden, dtype=np.float32), mask)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised vectors of ``texts``, one forward pass each. Int8 activations are quantized per pass
        with one scale over the whole batch, so in a batch a passage's score would depend on its companions (by
        up to 0.02); one pass each also pads nothing, and took less CPU than a batch (245 vs 289 ms for 24
        passages of 96 tokens)."""
        out = np.zeros((len(texts), 384), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts)) if texts else []
        with self._lock:
            for i, e in enumerate(encodings):
                out[i] = self._forward([e])[0]
        return out

    # --- as a passage encoder (``graphrag.language.passage_encoder.PassageEncoder``) ----------------------------

    dim = 384

    @property
    def stores_passages(self) -> bool:
        """A passage is "title. sentence" alone (no neighbours), the text the store's passage vectors encode: its
        vectors can be computed once per sentence and kept, and an ask encodes only the question."""
        return self.config.context_words == 0

    def query(self, text: str) -> np.ndarray:
        """The question's vector."""
        out: np.ndarray = self.encode([text])[0]
        return out

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of passages already written as the model reads them ("title. sentence")."""
        return self.encode(texts)

    def calibrated(self, cosines: np.ndarray) -> np.ndarray:
        """The fitted probability of each cosine between the question's and a passage's vector."""
        return calibrate(cosines, self.config.slope, self.config.intercept)

    def cosine(self, question: str, passages: Sequence[Passage]) -> np.ndarray:
        """The cosine between the question's vector and each passage's (before calibration)."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        vecs = self.encode([question, *(passage_text(p, self.config.context_words) for p in passages)])
        sims: np.ndarray = vecs[1:] @ vecs[0]
        return sims

    def score(self, question: str, passages: Sequence[Passage]) -> np.ndarray:
        """One calibrated probability per passage that its sentence answers ``question``."""
        return calibrate(self.cosine(question, passages), self.config.slope, self.config.intercept)


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:12]


def _threads() -> int:
    import os

    return max(1, min(2, os.cpu_count() or 1))


@functools.cache
def load_scorer() -> AnswerScorer | None:
    """The shipped scorer, loaded once per process; None when its weights are not installed (a build without
    them: the caller keeps today's ordering). A damaged file raises ScorerUnavailable."""
    onnx_path, config_path = WEIGHTS_DIR / ONNX_FILE, WEIGHTS_DIR / CONFIG_FILE
    if not onnx_path.is_file() or not config_path.is_file():
        log.warning("no reader weights at %s: quotes keep the retrieval order", onnx_path)
        return None
    return OnnxAnswerScorer(onnx_path, ScorerConfig.read(config_path), threads=_threads())

