"""all-MiniLM-L6-v2 through ONNX Runtime: the vectors of ``MiniLMEmbedder``, in less time on a CPU.

The BERT encoder is exported to ONNX once, at first use, with torch's exporter, into a cache folder keyed by a
hash of the model's weights and of the export settings; later processes load that file and never import torch.
Tokenisation (the model folder's fast tokenizer), mean pooling over the attention mask and L2 normalisation
are done here, as the folder's sentence-transformers modules do (Transformer, Pooling, Normalize), so the
token embeddings come out of the same forward pass as the sentence vectors.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphrag.language.encoding import DIM, MODEL_NAME, TokenEmbedding, _bound_heap_growth, model_path

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

EXPORT_VERSION = 1  # part of the cache key: bump it when the export below changes what it writes
OPSET = 17  # the first opset with LayerNormalization, which ONNX Runtime runs as one kernel
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "token_embeddings"
# Padded tokens per forward pass (rows x longest row), within the caller's batch size: on one thread, passes of
# 512-1024 tokens ran about 9% faster than whole batches of 64 sentences (121 vs 111 sentences/s on 2,000 MuSiQue
# sentences), whose intermediate tensors (tokens x 1536 floats) outgrow the CPU's cache; it also bounds the
# session's memory arena.
RUN_TOKENS = 1024
WEIGHT_FILES = ("config.json", "model.safetensors", "pytorch_model.bin")  # what the export reads
# The sentence-transformers modules this encoder reproduces; a folder with others (Dense, ...) is refused.
SUPPORTED_MODULES = {"Transformer", "Pooling", "Normalize"}
log = logging.getLogger(__name__)


class UnsupportedModel(ValueError):
    """The model folder's sentence-transformers pipeline is not the one this encoder reproduces."""


def default_cache_dir() -> Path:
    """Where exports go unless GRAPHRAG_ONNX_CACHE says otherwise."""
    return Path.home() / ".cache" / "graphrag" / "onnx"


# --- export ------------------------------------------------------------------------------------------------

def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def export_key(model_dir: Path, quantize: bool) -> str:
    """A hash of the weights the export reads and of every setting that changes what it writes."""
    digest = hashlib.sha256()
    for name in WEIGHT_FILES:
        path = model_dir / name
        if path.is_file():
            with path.open("rb") as f:
                digest.update(name.encode() + b"\0" + hashlib.file_digest(f, "sha256").digest())
    settings = {"export": EXPORT_VERSION, "opset": OPSET, "torch": _version("torch"), "quantize": quantize,
                "onnxruntime": _version("onnxruntime") if quantize else None}
    digest.update(json.dumps(settings, sort_keys=True).encode())
    return digest.hexdigest()[:20]


@contextlib.contextmanager
def _staged(target: Path) -> Iterator[Path]:
    """A temporary file beside ``target``, renamed to it when the block succeeds: another process sees the
    whole file or none (two exporting at once each rename a complete copy)."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        tmp.chmod(0o644)  # mkstemp's file is private; the cache may be shared by several users
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _export_transformer(model_dir: Path, dest: Path) -> None:
    """Write the BERT encoder (token ids and attention mask in, token embeddings out) to ``dest``."""
    import torch
    from transformers import AutoModel

    # Eager attention: its graph is smaller than sdpa's (516 nodes vs 669) and ran as fast or faster.
    bert = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager").eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert  # a submodule, so its weights are exported as parameters

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            # One segment, as sentence-transformers feeds it (all token types 0).
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                            token_type_ids=torch.zeros_like(input_ids))
            hidden: torch.Tensor = out.last_hidden_state
            return hidden

    # A padded row in the example, so the trace keeps the attention mask's path rather than a shortcut for none.
    ids = torch.tensor([[101, 7592, 2088, 2003, 2182, 1012, 102], [101, 7592, 102, 0, 0, 0, 0]])
    mask = (ids != 0).long()
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, OUTPUT)}
    with torch.no_grad(), warnings.catch_warnings():
        # The legacy (TorchScript) exporter warns that it is deprecated, and the tracer about shape tests that
        # are constant for an encoder; the result is checked against torch by tests/integration/test_embed_onnx.py.
        warnings.simplefilter("ignore")
        torch.onnx.export(Encoder(), (ids, mask), str(dest), dynamo=False, input_names=list(INPUTS),
                          output_names=[OUTPUT], dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True)


def _quantize(source: Path, dest: Path) -> None:
    """Int8 weights for the matrix products (activations quantized per call), per output channel.

    1.6x as fast as fp32 but not the same vectors: on 5,000 MuSiQue sentences (lab/bench_encoder.py) the cosine
    to torch's was 0.993 on average and 0.976 at worst, under the 0.99 asked. The feed-forward inputs reach 20-30
    in one channel at [CLS] and [SEP], against under 2 in most channels, and one scale per tensor leaves the
    others few levels (leaving the feed-forward outputs in fp32, or smoothing the channels as SmoothQuant does,
    lifted the worst case to 0.98 at most). So it is measured, not offered as a setting."""
    from onnxruntime.quantization import QuantType, quantize_dynamic  # type: ignore[import-untyped]

    quantize_dynamic(source, dest, weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"])


def export_target(model_dir: Path, out_dir: Path, quantize: bool = False) -> Path:
    """Where the export of the model in ``model_dir`` goes in ``out_dir`` (whether it is there yet or not)."""
    return out_dir / f"{MODEL_NAME}-{'int8' if quantize else 'fp32'}-{export_key(model_dir, quantize)}.onnx"


def export_onnx(model_dir: Path, out_dir: Path, quantize: bool = False) -> Path:
    """The ONNX file of the model in ``model_dir`` (int8 when ``quantize``) in ``out_dir``, exported now unless an
    export with the same weights and settings is already there."""
    target = export_target(model_dir, out_dir, quantize)
    if target.is_file():
        return target
    out_dir.mkdir(parents=True, exist_ok=True)
    if quantize:
        source = export_onnx(model_dir, out_dir, quantize=False)
        log.info("quantizing %s to int8 into %s", MODEL_NAME, target)
        with _staged(target) as tmp:
            _quantize(source, tmp)
    else:
        log.info("exporting %s to ONNX into %s (once)", MODEL_NAME, target)
        with _staged(target) as tmp:
            _export_transformer(model_dir, tmp)
    return target


# --- the sentence-transformers pipeline around the transformer ----------------------------------------------

def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _check_pipeline(model_dir: Path) -> None:
    """Refuse a model whose sentence-transformers modules do more or other than mean pooling and normalising."""
    modules_file = model_dir / "modules.json"
    if not modules_file.is_file():
        raise UnsupportedModel(f"{model_dir} has no modules.json: not a sentence-transformers folder")
    for module in _read_json(modules_file):
        kind = str(module["type"]).rsplit(".", 1)[-1]
        if kind not in SUPPORTED_MODULES:
            raise UnsupportedModel(f"{model_dir} has a {kind} module, which the ONNX encoder does not run")
        if kind == "Pooling":
            pooling = _read_json(model_dir / module["path"] / "config.json")
            modes = {k for k, v in pooling.items() if k.startswith("pooling_mode_") and v is True}
            if pooling.get("pooling_mode", "mean") != "mean" or modes - {"pooling_mode_mean_tokens"}:
                raise UnsupportedModel(f"{model_dir} pools other than by the mean of its tokens")


def _sbert_config(model_dir: Path) -> dict[str, Any]:
    path = model_dir / "sentence_bert_config.json"
    return dict(_read_json(path)) if path.is_file() else {}


def max_seq_length(model_dir: Path) -> int:
    """The length sentence-transformers truncates to: sentence_bert_config.json's max_seq_length (256 here; the
    tokenizer.json in the folder says 128, which is not what the torch encoder uses), else the model's positions."""
    value = _sbert_config(model_dir).get("max_seq_length")
    return int(value) if value else int(_read_json(model_dir / "config.json")["max_position_embeddings"])


def load_tokenizer(model_dir: Path) -> Tokenizer:
    """The folder's fast tokenizer, truncating as sentence-transformers does, not padding (batches pad here)."""
    from tokenizers import Tokenizer

    path = model_dir / "tokenizer.json"
    if path.is_file():
        tokenizer = Tokenizer.from_file(str(path))
    else:  # a folder with only vocab.txt: transformers builds the same fast tokenizer from it
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True).backend_tokenizer
    tokenizer.enable_truncation(max_seq_length(model_dir))
    tokenizer.no_padding()
    return tokenizer


def padded(encodings: Sequence[Encoding], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Token ids padded to the longest of one batch, and the attention mask that marks the real tokens."""
    width = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    for row, e in enumerate(encodings):
        ids[row, :len(e.ids)] = e.ids
        mask[row, :len(e.ids)] = 1
    return ids, mask


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token embeddings under the attention mask, L2-normalised (Pooling then Normalize)."""
    weights = mask.astype(np.float32)
    summed = np.einsum("bsd,bs->bd", hidden, weights)
    means = summed / np.maximum(weights.sum(axis=1, keepdims=True), 1e-9)
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    pooled: np.ndarray = (means / np.maximum(norms, 1e-12)).astype(np.float32)
    return pooled


def onnx_session(path: Path, threads: int) -> Any:
    """An ONNX Runtime session of the model at ``path`` on the CPU, with ``threads`` threads that sleep when idle
    (every ONNX model of the product is run through one)."""
    import onnxruntime as ort  # type: ignore[import-untyped]

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, threads)
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle pool threads sleep rather than spin: spinning threads on this 2-core machine, shared with spaCy or
    # another process, are what made torch 15x slower (see MiniLMEmbedder).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 from ``path`` (default: the installed package's weights) run by ONNX Runtime on the CPU,
    with ``threads`` intra-op threads; ``quantize`` runs the int8 export (faster, not the same vectors: see
    ``_quantize``). The export is made once into
    ``cache_dir`` (default ``~/.cache/graphrag/onnx``). Calls are serialised by a lock, as MiniLMEmbedder's."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self, path: Path | None = None, *, threads: int = 1, quantize: bool = False,
                 cache_dir: Path | None = None, malloc_tune: bool = True) -> None:
        model_dir = path or model_path()
        _check_pipeline(model_dir)
        _bound_heap_growth(malloc_tune)
        self.onnx_path = export_onnx(model_dir, cache_dir or default_cache_dir(), quantize)
        self._lowercase = bool(_sbert_config(model_dir).get("do_lower_case"))
        self._tokenizer = load_tokenizer(model_dir)
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        self._threads = max(1, threads)
        self._sessions = {self._threads: onnx_session(self.onnx_path, self._threads)}
        self._local = threading.local()  # the thread count an ingest asked for, in its own thread only
        self._lock = threading.Lock()  # one encode at a time: the session already uses every thread it has

    @contextlib.contextmanager
    def threads(self, n: int) -> Iterator[None]:
        """Encode with ``n`` intra-op threads inside the block, in the calling thread only (a dashboard's asks
        meanwhile keep the default). A session's thread count is fixed when it is made, so each count gets its
        own session, made on first use (about 0.2 s and the weights once more in memory)."""
        before = getattr(self._local, "threads", None)
        self._local.threads = max(1, n)
        try:
            yield
        finally:
            self._local.threads = before

    @property
    def _session(self) -> Any:
        n = getattr(self._local, "threads", None) or self._threads
        if n not in self._sessions:
            self._sessions[n] = onnx_session(self.onnx_path, n)  # under self._lock: encode holds it
        return self._sessions[n]

    def _tokenize(self, texts: Sequence[str]) -> list[Encoding]:
        return self._tokenizer.encode_batch([t.lower() if self._lowercase else t for t in texts])

    def _forward(self, encodings: Sequence[Encoding]) -> tuple[np.ndarray, np.ndarray]:
        """Token embeddings (batch, tokens, dim) and the attention mask of one padded batch."""
        ids, mask = padded(encodings, self._pad_id)
        (hidden,) = self._session.run([OUTPUT], {"input_ids": ids, "attention_mask": mask})
        return np.asarray(hidden, dtype=np.float32), mask

    @staticmethod
    def _batches(encodings: Sequence[Encoding], batch_size: int) -> Iterator[list[int]]:
        """Indices of ``encodings`` in forward passes of at most ``batch_size`` texts and RUN_TOKENS padded tokens
        (one text at least). Sorted by token count, not by characters as sentence-transformers sorts: on 1,000
        MuSiQue sentences that padded 17% instead of 54%, a large part of this encoder's lead over torch."""
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        batch: list[int] = []
        for i in order:  # ascending: the text added is the batch's longest
            if batch and (len(batch) == batch_size or (len(batch) + 1) * len(encodings[i].ids) > RUN_TOKENS):
                yield batch
                batch = []
            batch.append(i)
        if batch:
            yield batch

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """L2-normalised float32 vectors of ``texts``, shape (len(texts), dim)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenize(texts)
        with self._lock:
            for idx in self._batches(encodings, batch_size):
                out[idx] = mean_pool(*self._forward([encodings[i] for i in idx]))
        return out

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, dict[str, TokenEmbedding]]:
        """Sentence vectors and each text's contextual token embeddings (with [CLS] and [SEP]), from one pass."""
        vecs = np.zeros((len(texts), self.dim), dtype=np.float32)
        tokens: dict[str, TokenEmbedding] = {}
        encodings = self._tokenize(texts) if texts else []
        with self._lock:
            for idx in self._batches(encodings, 64):
                hidden, mask = self._forward([encodings[i] for i in idx])
                vecs[idx] = mean_pool(hidden, mask)
                for row, i in enumerate(idx):
                    e = encodings[i]
                    tokens[texts[i]] = (np.asarray(e.ids, dtype=np.int64), list(e.tokens),
                                        hidden[row, :len(e.ids)].copy())
        return vecs, tokens

    def encode_tokens(self, texts: Sequence[str]) -> dict[str, TokenEmbedding]:
        """Each text's contextual token embeddings (see ``encode_with_tokens``)."""
        return self.encode_with_tokens(texts)[1]
