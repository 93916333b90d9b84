"""Feature computation for evaluations over thousands of labelled pairs, cached on disk.

MiniLM over a few thousand claims and pages takes minutes; the sentence vectors and token
embeddings are cached by text hash (``CachedEmbedder``), and the finished feature matrix of a
data file by the file's hash (``cached_features``), in a temporary folder, never the repo.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphrag.language.encoding import Embedder, TokenEmbedding
from lab import lab_config

if TYPE_CHECKING:
    from lab.evaluate.support import SupportExample

DEFAULT_CACHE = Path(tempfile.gettempdir()) / "graphrag-support-cache"


class CachedEmbedder:
    """Wraps an embedder with a disk cache keyed by a hash of the text."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.name = inner.name
        self.dim = inner.dim
        self.cache: dict[str, np.ndarray] = {}
        if path.is_file():
            data = np.load(path)
            self.cache = dict(zip(data["keys"].tolist(), data["vecs"]))

    @staticmethod
    def key(text: str) -> str:
        """The cache key of a text: its SHA-1."""
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Vectors of ``texts``, encoding only those not cached yet and saving the cache after."""
        todo = sorted({t for t in texts if self.key(t) not in self.cache})
        if todo:
            print(f"  encoding {len(todo)} new texts ...", file=sys.stderr, flush=True)
            vecs = self.inner.encode(todo, batch_size=batch_size)
            self.cache.update({self.key(t): v for t, v in zip(todo, vecs)})
            self.save()
        return np.vstack([self.cache[self.key(t)] for t in texts]).astype(np.float32)

    def encode_tokens(self, texts: Sequence[str]) -> dict[str, TokenEmbedding]:
        """Token embeddings (ids, word pieces, vectors), cached beside the sentence vectors."""
        from graphrag.verify.support.embedded import encode_tokens

        tok_path = self.path.with_name(self.path.stem + "-tokens.pkl")
        if not hasattr(self, "tok_cache"):
            self.tok_cache = pickle.loads(tok_path.read_bytes()) if tok_path.is_file() else {}
        todo = [t for t in dict.fromkeys(texts) if self.key(t) not in self.tok_cache]
        if todo:
            print(f"  token-encoding {len(todo)} new texts ...", file=sys.stderr, flush=True)
            for i in range(0, len(todo), 256):
                got = encode_tokens(self.inner, todo[i:i + 256])
                self.tok_cache.update({self.key(t): (ids, pieces, emb.astype(np.float16))
                                       for t, (ids, pieces, emb) in got.items()})
            tok_path.parent.mkdir(parents=True, exist_ok=True)
            tok_path.write_bytes(pickle.dumps(self.tok_cache))
        out = {}
        for t in texts:
            ids, pieces, emb = self.tok_cache[self.key(t)]
            out[t] = (ids, pieces, emb.astype(np.float32))
        return out

    def save(self) -> None:
        """Write the cache atomically (a temporary file, then a rename)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.cache)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vecs=np.vstack([self.cache[k] for k in keys]))
        tmp.replace(self.path)


def cached_features(path: str | Path, fmt: str, examples: Sequence[SupportExample], cache: str | Path | None = None) -> np.ndarray:
    """The checker's feature rows for ``examples`` loaded from ``path``; computed once per file
    content and feature set, then read from ``cache``."""
    from graphrag.language.embed import get_embedder
    from graphrag.verify.support.embedded import FEATURES, featurise

    folder = Path(cache) if cache else DEFAULT_CACHE
    digest = hashlib.sha1(Path(path).read_bytes() + fmt.encode() + ",".join(FEATURES).encode()).hexdigest()[:16]
    target = folder / f"features-{fmt}-{digest}.npz"
    if target.is_file():
        x: np.ndarray = np.load(target)["x"]
        if len(x) == len(examples):
            return x
    print(f"computing features of {len(examples)} pairs in {path} (MiniLM; cached in {folder}) ...",
          file=sys.stderr, flush=True)
    embedder = CachedEmbedder(get_embedder(lab_config()), folder / "minilm.npz")
    pfs = featurise([ex.query() for ex in examples], embedder)
    x = np.vstack([pf.vector() for pf in pfs])
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(target, x=x)
    return x
