"""The answer-span reader: a cross-encoder that reads the question together with one candidate sentence and gives
the probability that the sentence *states* the answer (not only that it is about the asked thing), and the
answer's span inside the sentence.

Input: ``[CLS] question [SEP] title. <last words of the sentence before> [SEP] sentence [SEP]``: the title and the
end of the sentence before resolve "it" and "he"; the span may lie only in the sentence. Outputs: one answer
logit (on the first token) and a start and an end logit per token. The logit becomes a probability through the
logistic fit stored in ``span.json``, made with its threshold on held-out articles (``lab/fit_span_reader.py``;
MODEL_CARD.md). int8 ONNX run by ONNX Runtime on the packaged MiniLM tokenizer; the file's sha256 is checked at
load, and a file that does not match is refused (``load_span_reader`` then returns None and says so once).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from graphrag.answer.reader.scorer import WEIGHTS_DIR, ScorerUnavailable

SPAN_ONNX = "span.onnx"
SPAN_CONFIG = "span.json"
log = logging.getLogger(__name__)


def passage_text(title: str, before: str, sentence: str, context_words: int) -> tuple[str, int]:
    """The second segment as the reader reads it, and where the sentence starts in it."""
    title, sentence = " ".join(title.split()), " ".join(sentence.split())
    tail = " ".join(before.split()[-context_words:]) if context_words > 0 else ""
    head = f"{title}. " if title else ""
    prefix = f"{head}{tail} [SEP] " if tail else f"{head}[SEP] "
    return prefix + sentence, len(prefix)


@dataclass(frozen=True)
class Candidate:
    """A candidate sentence, the sentence before it in its document, and its document's title."""

    sentence: str
    before: str = ""
    title: str = ""


@dataclass(frozen=True)
class SpanReading:
    """What the reader made of one candidate: the answer logit and its calibrated probability, and the best answer
    span inside the sentence (its text and character offsets in the sentence with its spaces collapsed; empty when
    no token was left for it); ``states``: the probability reaches the reader's threshold (chosen on held-out
    articles with its calibration), so the sentence is taken to state the answer."""

    logit: float
    probability: float
    span: str
    start: int
    end: int
    states: bool = False


@dataclass(frozen=True)
class SpanConfig:
    """The token limit, the words of the sentence before, the longest answer, the calibration
    ``p = 1 / (1 + exp(-(slope * logit + intercept)))``, the threshold on ``p`` (a question is answered when its best
    candidate reaches it) and the weights' sha256."""

    max_tokens: int
    context_words: int
    max_answer_tokens: int
    slope: float
    intercept: float
    threshold: float
    sha256: str
    name: str = "span-minilm-int8"

    @classmethod
    def read(cls, path: Path) -> SpanConfig:
        """The settings saved beside the weights."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(int(raw["max_tokens"]), int(raw["context_words"]), int(raw["max_answer_tokens"]),
                       float(raw["calibration"]["slope"]), float(raw["calibration"]["intercept"]),
                       float(raw["threshold"]), str(raw["sha256"]), str(raw.get("name", cls.name)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ScorerUnavailable(f"cannot read the span reader's settings {path}: {exc}; rebuild them with "
                                    "`python -m lab.fit_span_reader`") from exc

    def write(self, path: Path, extra: Mapping[str, Any]) -> None:
        """Save the settings (and ``extra``: recipe, figures) beside the weights."""
        raw = {"name": self.name, "max_tokens": self.max_tokens, "context_words": self.context_words,
               "max_answer_tokens": self.max_answer_tokens,
               "calibration": {"slope": self.slope, "intercept": self.intercept},
               "threshold": self.threshold, "sha256": self.sha256, **extra}
        path.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")

    def probability(self, logit: float) -> float:
        """The calibrated probability that a candidate with this answer logit states the answer."""
        z = max(-50.0, min(50.0, self.slope * logit + self.intercept))
        return float(1.0 / (1.0 + np.exp(-z)))


class SpanReader(Protocol):
    """Reads a question with each candidate: whether it states the answer, and where."""

    def read(self, question: str, candidates: Sequence[Candidate]) -> list[SpanReading]:
        """One reading per candidate, in the candidates' order."""
        ...


def cut_question(tokenizer: Any, question: str, max_tokens: int) -> str:
    """The question cut to half the window, so the sentence always has the other half (a 100,000-character
    question is read by its first words); ``tokenizer`` must not truncate (the pair's tokenizer truncates the
    sentence only, ``only_second``)."""
    q = " ".join(question.split()[:256])
    limit = max(8, max_tokens // 2)
    got = tokenizer.encode(q, add_special_tokens=False)
    return q if len(got.ids) <= limit else q[:got.offsets[limit - 1][1]]


def best_token_span(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, longest: int) -> tuple[int, int] | None:
    """The (first, last) token of the highest start + end score with first <= last < first + ``longest``, both
    allowed; None when no token is."""
    idx = np.flatnonzero(allowed)
    if not len(idx):
        return None
    s, e = start[idx], end[idx]
    n = len(idx)
    total = s[:, None] + e[None, :]
    gap = idx[None, :] - idx[:, None]
    total = np.where((gap >= 0) & (gap < longest), total, -np.inf)
    k = int(np.argmax(total))
    return int(idx[k // n]), int(idx[k % n])


class OnnxSpanReader:
    """The span reader in ONNX Runtime: one forward pass per candidate (int8 activations are quantized per pass, so
    a batch would make one candidate's reading depend on its companions)."""

    def __init__(self, onnx_path: Path, config: SpanConfig, *, threads: int = 2, verify: bool = True) -> None:
        from graphrag.language.embed_onnx import load_tokenizer, onnx_session
        from graphrag.language.encoding import model_path

        if verify:
            digest = hashlib.sha256(onnx_path.read_bytes()).hexdigest()
            if digest != config.sha256:
                raise ScorerUnavailable(f"the span reader's weights {onnx_path} do not match the sha256 in "
                                        f"{SPAN_CONFIG} ({digest[:12]} is not {config.sha256[:12]}): restore them from "
                                        "the package or rebuild both with `python -m lab.fit_span_reader`")
        self.config, self.name = config, config.name
        self._tokenizer = load_tokenizer(model_path())
        self._tokenizer.enable_truncation(config.max_tokens, strategy="only_second")
        self._counter = load_tokenizer(model_path())
        self._counter.no_truncation()
        self._sep = self._tokenizer.token_to_id("[SEP]")
        try:
            self._session = onnx_session(onnx_path, threads)
        except Exception as exc:  # onnxruntime raises its own (unexported) error types for a damaged file
            raise ScorerUnavailable(f"cannot load the span reader's weights {onnx_path}: {exc}") from exc
        self._lock = threading.Lock()

    @classmethod
    def load(cls, folder: Path, threads: int = 2, verify: bool = True) -> OnnxSpanReader:
        """The reader whose weights and settings are in ``folder``."""
        return cls(folder / SPAN_ONNX, SpanConfig.read(folder / SPAN_CONFIG), threads=threads, verify=verify)

    def read(self, question: str, candidates: Sequence[Candidate]) -> list[SpanReading]:
        """One reading per candidate, in the candidates' order."""
        if not candidates:
            return []
        q = cut_question(self._counter, question, self.config.max_tokens)
        texts = [passage_text(c.title, c.before, c.sentence, self.config.context_words) for c in candidates]
        encodings = self._tokenizer.encode_batch([(q, t) for t, _ in texts])
        out: list[SpanReading] = []
        with self._lock:
            for e, (text, offset) in zip(encodings, texts):
                feed = {"input_ids": np.array([e.ids], dtype=np.int64),
                        "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                        "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
                answer, start, end = self._session.run(None, feed)
                logit = float(np.asarray(answer).reshape(-1)[0])
                allowed = np.array([seq == 1 and a >= offset and i != self._sep
                                    for seq, (a, _), i in zip(e.sequence_ids, e.offsets, e.ids)])
                got = best_token_span(np.asarray(start)[0], np.asarray(end)[0], allowed,
                                      self.config.max_answer_tokens)
                span, s, t = "", 0, 0
                if got is not None:
                    s, t = e.offsets[got[0]][0] - offset, e.offsets[got[1]][1] - offset
                    span = text[offset + s:offset + t]
                p = self.config.probability(logit)
                out.append(SpanReading(logit, p, span, s, t, p >= self.config.threshold))
        return out


@functools.cache
def load_span_reader(folder: Path = WEIGHTS_DIR) -> OnnxSpanReader | None:
    """The span reader shipped in ``folder``, once per process; None when its weights are not installed, or do not
    match their digest or cannot be read (said once, as a warning: the reader then decides without it)."""
    if not (folder / SPAN_ONNX).is_file() or not (folder / SPAN_CONFIG).is_file():
        log.debug("no span reader weights at %s", folder / SPAN_ONNX)
        return None
    import os

    try:
        return OnnxSpanReader.load(folder, threads=max(1, min(2, os.cpu_count() or 1)))
    except ScorerUnavailable as exc:
        log.warning("%s; the reader decides without the span reader", exc)
        return None
