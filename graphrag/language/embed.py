"""Sentence embeddings with all-MiniLM-L6-v2, loaded from an installed package, offline.

The model is loaded once per process for each model setting (it takes seconds); every caller shares it through
``get_embedder(config)``. Vectors are L2-normalised so a dot product is the cosine similarity.
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from graphrag.config import Config
from graphrag.language.encoding import (
    DIM,
    MODEL_NAME,
    TokenEmbedding,
    _bound_heap_growth,
    model_path,
)

if TYPE_CHECKING:
    from graphrag.language.embed_onnx import OnnxMiniLMEmbedder

log = logging.getLogger(__name__)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from ``path`` (default: the installed package's weights), on the CPU, with ``threads``
    torch threads and, with ``malloc_tune``, the heap bounded (see ``_bound_heap_growth``); calls are serialised
    by a lock."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self, path: Path | None = None, *, threads: int = 1, malloc_tune: bool = True) -> None:
        # No hub lookups: the weights are local, and a stray request must fail fast.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        # One intra-op thread by default: with OpenMP spin-waiting, two threads on a 2-core
        # machine shared with spaCy, Streamlit or a second process ran 15x slower (measured:
        # 2.2 s vs 0.14 s for five sentences under load). GRAPHRAG_TORCH_THREADS overrides.
        torch.set_num_threads(max(1, threads))
        _bound_heap_growth(malloc_tune)
        self._model = SentenceTransformer(str(path or model_path()), device="cpu")
        self._lock = threading.Lock()  # one encode at a time: torch already uses every core

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """L2-normalised float32 vectors of ``texts``, shape (len(texts), dim)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vecs = self._model.encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vecs, dtype=np.float32)

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, dict[str, TokenEmbedding]]:
        """Sentence vectors and each text's contextual token embeddings, from one forward pass.

        The support checker reads both: the vectors select evidence, the tokens are aligned.
        """
        with self._lock:
            # output_value=None gives one dict of tensors per text; the library's annotation omits that case.
            outs = cast("list[dict[str, Any]]", self._model.encode(list(texts), output_value=None, batch_size=64,
                                                                   show_progress_bar=False))
        tokens: dict[str, TokenEmbedding] = {}
        for t, o in zip(texts, outs):
            n = int(o["attention_mask"].sum())
            ids = o["input_ids"][:n].cpu().numpy()
            tokens[t] = (ids, self._model.tokenizer.convert_ids_to_tokens(ids.tolist()),
                         o["token_embeddings"][:n].float().cpu().numpy())
        vecs = np.vstack([o["sentence_embedding"].float().cpu().numpy() for o in outs]).astype(np.float32)
        return vecs, tokens

    def encode_tokens(self, texts: Sequence[str]) -> dict[str, TokenEmbedding]:
        """Each text's contextual token embeddings (see ``encode_with_tokens``)."""
        return self.encode_with_tokens(texts)[1]


@contextmanager
def encode_threads(embedder: object, n: int | None) -> Iterator[None]:
    """Let ``embedder`` encode with ``n`` intra-op threads inside the block (None: leave it as it is): an ONNX
    encoder runs a session made with that many threads, torch is switched process-wide."""
    with_threads = getattr(embedder, "threads", None)
    if n is not None and callable(with_threads):
        with with_threads(n):
            yield
        return
    with torch_threads(n):
        yield


@contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run torch with ``n`` intra-op threads inside the block (None: leave it as it is)."""
    if n is None or "torch" not in sys.modules:  # no model loaded here: nothing to set
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


_EMBEDDER_LOCK = threading.Lock()  # a page's ask and an ingest job's thread may both ask first: load once


def settle_loaded_objects() -> None:
    """Move every object alive now out of the cyclic collector's sight (``gc.freeze``), after a model is loaded.

    torch, spaCy and their weights leave over half a million tracked objects that live as long as the process.
    Without this each full collection walks them all: 0.35 s idle and 1.3 s on a busy machine, holding the
    GIL. A dashboard runs one after every script run (a sidebar refresh each second while an ingest runs), so
    the ingest's own thread was starved. Objects dropped later are still freed by their reference counts."""
    gc.collect()  # what is garbage now must not be frozen with the rest
    gc.freeze()


def build_embedder(cfg: Config) -> MiniLMEmbedder | OnnxMiniLMEmbedder:
    """A new MiniLM embedder as ``cfg`` says: on ONNX Runtime (GRAPHRAG_ENCODER=onnx, the default) or on torch.

    When the ONNX encoder cannot be made (no onnxruntime, a cache folder it cannot write, a model folder whose
    pipeline it does not reproduce, a failed export), torch runs instead, with a warning that says why: both give
    the same vectors (cosine 1.0 on 5,000 MuSiQue sentences), so a store is never mixed by it."""
    threads = cfg.torch_threads or 1
    if cfg.encoder == "onnx":
        try:
            from graphrag.language.embed_onnx import (
                OnnxMiniLMEmbedder,  # onnxruntime is imported only when chosen
            )

            return OnnxMiniLMEmbedder(cfg.embed_model, threads=threads, cache_dir=cfg.onnx_cache,
                                      malloc_tune=cfg.malloc_tune)
        except (ImportError, OSError, ValueError, RuntimeError) as exc:  # UnsupportedModel is a ValueError
            log.warning("the ONNX encoder is unavailable (%s: %s); MiniLM runs on torch instead "
                        "(GRAPHRAG_ENCODER=torch silences this)", type(exc).__name__, exc)
    return MiniLMEmbedder(cfg.embed_model, threads=threads, malloc_tune=cfg.malloc_tune)


def _model_settings(cfg: Config) -> Config:
    """The part of ``cfg`` that makes an embedder (the rest left at its defaults): two configurations with the same
    model settings share one embedder."""
    return Config(encoder=cfg.encoder, embed_model=cfg.embed_model, torch_threads=cfg.torch_threads,
                  onnx_cache=cfg.onnx_cache, malloc_tune=cfg.malloc_tune)


@functools.cache
def _embedder_once(settings: Config) -> MiniLMEmbedder | OnnxMiniLMEmbedder:
    log.info("loading %s (%s)", MODEL_NAME, settings.encoder)
    embedder = build_embedder(settings)
    settle_loaded_objects()
    return embedder


def get_embedder(config: Config) -> MiniLMEmbedder | OnnxMiniLMEmbedder:
    """The process's MiniLM embedder for ``config``'s model settings (GRAPHRAG_ENCODER, GRAPHRAG_EMBED_MODEL,
    GRAPHRAG_TORCH_THREADS, GRAPHRAG_MALLOC_TUNE, GRAPHRAG_ONNX_CACHE), loaded on the first call with them (a few
    seconds) and shared by every later one."""
    with _EMBEDDER_LOCK:
        return _embedder_once(_model_settings(config))


def similarities(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine similarity of every (normalised) row with ``query``.

    einsum rather than ``matrix @ query``: OpenBLAS's threaded matrix-vector product paid
    about 7 ms of thread wake-up per call on this 2-core machine (10k x 384: 7.7 ms vs 0.6 ms),
    which dominated a question's latency.
    """
    sims: np.ndarray = np.einsum("ij,j->i", matrix, query.astype(matrix.dtype, copy=False))
    return sims


def top_k(matrix: np.ndarray, query: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Indices and cosine scores of the k rows of ``matrix`` most similar to ``query``.

    ``mask`` (bool per row) excludes rows; ties are broken by row index so results are stable.
    """
    if matrix.shape[0] == 0 or k <= 0:
        return []
    scores = similarities(matrix, query)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    k = min(k, int(np.isfinite(scores).sum()))
    if k == 0:
        return []
    part = np.argpartition(-scores, k - 1)[:k]
    order = sorted(part.tolist(), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]
