"""The embedded support checker: MiniLM similarity plus lexical checks, calibrated offline.

For each pair the evidence (the cited span(s), plus neighbouring sentences when given) is
split into sentences and embedded with all-MiniLM-L6-v2. Evidence selection finds what the
claim could rest on: the most similar sentences, the best contiguous window, and the best
sentence for each chunk of the claim, so several sentences can support one claim together
and a long page works as well as a single cited sentence. Lexical features then compare the
claim with that selection: numbers, capitalised terms, negation, qualifiers, word coverage.
Token alignment compares MiniLM's contextual token embeddings of the claim with those of the
selected sentences: each claim content word needs some close evidence token (BERTScore-style
recall, IDF-weighted by word-piece rank), so one unsupported word can pull the score down.

A model fitted by ``lab/fit_support.py`` maps the features to a probability of
"supported" (at balanced odds: every dataset and class weighs the same in the fit); its
parameters ship in ``embedded_params.json``: gradient-boosted trees, monotonic in each
feature's known direction (the table in ``features.py``), walked in numpy here; the earlier logistic model
still loads (``kind: logistic``). Labels: supported at ``threshold`` and above, partial down
to ``partial_threshold``, else not supported. Runtime needs only numpy and the MiniLM model.

A team can adapt the checker to its own standard (``graphrag checker fit --from-verdicts``,
``graphrag.verify.support.learn``, the same trees refitted on the shipped rows plus the team's
verdicts): an adopted refit is a numbered version in the store, and a checker
given the store runs the active version; every score names its parameters, "embedded@shipped"
or "embedded@<version>".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from graphrag.config import Config
from graphrag.errors import ModelUnavailable
from graphrag.language import lexical as L
from graphrag.language.encoding import Embedder, JointEncoder, TokenEmbedding, TokenEncoder
from graphrag.language.sentences import split_sentences
from graphrag.model import Support, SupportLabel
from graphrag.verify.support import features as F
from graphrag.verify.support.base import SupportQuery

if TYPE_CHECKING:
    from graphrag.store.checkers import CheckerVersion

PARAMS_PATH = Path(__file__).with_name("embedded_params.json")
FEATURES = F.FEATURES  # the feature table's names and directions, re-exported for the fit and the tests
DIRECTION = F.DIRECTION


@dataclass
class PairFeatures:
    """Feature values of one pair plus what the reason string needs."""

    values: dict[str, float]
    selected: list[int]  # indices of the sentences the selection kept
    n_sentences: int
    missing_numbers: list[str] = field(default_factory=list)
    missing_terms: list[str] = field(default_factory=list)
    source_terms: list[str] = field(default_factory=list)
    missing_words: list[str] = field(default_factory=list)
    qualifiers: list[str] = field(default_factory=list)
    negation: bool = False

    def vector(self) -> np.ndarray:
        """The feature values in ``FEATURES`` order, as the fitted model reads them."""
        return np.array([self.values[f] for f in FEATURES], dtype=float)


def evidence_sentences(query: SupportQuery) -> list[str]:
    """Sentences of the cited evidence followed by its neighbours, duplicates dropped."""
    out: list[str] = []
    seen: set[str] = set()
    for block in (query.evidence, *query.neighbours):
        for s in split_sentences(block or ""):
            if s.text not in seen:
                seen.add(s.text)
                out.append(s.text)
    return out


def pair_features(
    claim: str, sentences: Sequence[str], claim_vec: np.ndarray, sent_vecs: np.ndarray,
    chunks: Sequence[str], chunk_vecs: np.ndarray,
) -> PairFeatures:
    """All pair features of one claim against its evidence sentences, given their embeddings
    (the token features are filled in by ``featurise``)."""
    if not sentences:
        return PairFeatures(F.without_evidence(claim), [], 0)
    pair = F.Pair(claim, sentences, claim_vec, sent_vecs, chunks, chunk_vecs)
    values = F.pair_values(pair)
    claim_stems = set(L.content_stems(claim))
    source_terms = [t for t in L.capitalised_terms(pair.selected_text) if not set(L.content_stems(t)) & claim_stems]
    # The reason names a negation problem only against the best-matching sentence: a "not" in
    # a neighbouring sentence is no reason to doubt a claim quoted word for word.
    negation_best = L.negation_mismatch(claim, sentences[pair.order[0]])
    # The reason says a number or a word is "not in source" only when no evidence sentence states it (a number in
    # any form it is written in), not merely the ones the selection kept.
    absent_numbers = L.missing_numbers(claim, pair.all_text)
    absent_words = L.absent_words(pair.coverage[1], pair.all_text)
    return PairFeatures(values, sorted(pair.selected), len(sentences), absent_numbers, pair.missing_terms,
                        source_terms, absent_words, pair.qualifiers, negation_best)


def _quote(items: Sequence[str], n: int = 3) -> str:
    return ", ".join(items[:n])


def reason(pf: PairFeatures, label: SupportLabel) -> str:
    """A short, readable account of the score: the first problems found, else what matched."""
    if pf.n_sentences == 0:
        return "no evidence text"
    problems = []
    if pf.missing_numbers:
        problems.append(f"{_quote(pf.missing_numbers)} not in source")
    if pf.negation:
        problems.append("negation differs")
    if pf.missing_terms:
        named = f"claim names {_quote(pf.missing_terms, 2)}"
        problems.append(f"source names {_quote(pf.source_terms, 2)}, {named}" if pf.source_terms else
                        f"{named}, source does not")
    if pf.qualifiers:
        problems.append(f"source does not say {_quote(pf.qualifiers, 2)}")
    if not problems and pf.values["cov_selected"] < 0.75 and pf.missing_words:
        problems.append(f"{_quote(pf.missing_words)} not in source")
    where = ""
    if pf.n_sentences > 1:  # long evidence: say which sentences the score rests on
        numbers = ", ".join(str(i + 1) for i in pf.selected[:4])
        plural = "es: sentences" if len(pf.selected) > 1 else ": sentence"
        where = f" (best match{plural} {numbers} of {pf.n_sentences})"
    if problems:
        return "; ".join(problems[:2]) + where
    if label is SupportLabel.SUPPORTED:
        close = pf.values["sim_max"] >= 0.8 or pf.values["cov_selected"] >= 0.9
        return ("close paraphrase" if close else "same content, reworded") + where
    return f"topic matches but content differs (similarity {pf.values['sim_max']:.2f})" + where


@dataclass(frozen=True)
class LogisticParams:
    """A standardised logistic model: p = sigmoid(b + w . (x - mean) / scale)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float
    partial_threshold: float

    @classmethod
    def load(cls, path: Path) -> LogisticParams:
        """Read fitted logistic parameters, refusing a file fitted on other features."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        if tuple(raw["features"]) != FEATURES:
            raise ModelUnavailable(f"{path} was fitted on other features; rerun python -m lab.fit_support",
                                   backend="embedded")
        return cls(tuple(raw["features"]), np.asarray(raw["mean"]), np.asarray(raw["scale"]),
                   np.asarray(raw["coef"]), float(raw["intercept"]), float(raw["threshold"]),
                   float(raw["partial_threshold"]))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Probability of support for each feature row."""
        z = self.intercept + ((x - self.mean) / self.scale) @ self.coef
        p: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return p


@dataclass(frozen=True)
class TreeParams:
    """Gradient-boosted regression trees on the raw features: p = sigmoid(baseline + sum of leaves).

    Each tree is stored as flat node arrays (feature, threshold, left, right, value); a leaf
    points to itself, so every sample walks ``depth`` steps through every tree at once.
    """

    features: tuple[str, ...]
    baseline: float
    feature: np.ndarray  # (trees, nodes) int
    threshold_: np.ndarray  # (trees, nodes) float; x <= threshold goes left
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    depth: int
    threshold: float
    partial_threshold: float

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> TreeParams:
        """Build the trees from their JSON form, padding each tree's node arrays to the widest."""
        trees = raw["trees"]
        width = max(len(t["feature"]) for t in trees)

        def pad(key: str, fill: float, dtype: type) -> np.ndarray:
            return np.array([t[key] + [fill] * (width - len(t[key])) for t in trees], dtype=dtype)

        return cls(tuple(raw["features"]), float(raw["baseline"]), pad("feature", 0, np.int64),
                   pad("threshold", 0.0, float), pad("left", 0, np.int64), pad("right", 0, np.int64),
                   pad("value", 0.0, float), int(raw["depth"]), float(raw["threshold"]),
                   float(raw["partial_threshold"]))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Probability of support for each feature row: every tree walked to its leaf, all at once."""
        x = np.atleast_2d(np.asarray(x, dtype=float))
        n_trees = self.feature.shape[0]
        rows = np.arange(n_trees)[:, None]
        node = np.zeros((n_trees, x.shape[0]), dtype=np.int64)
        for _ in range(self.depth):
            f = self.feature[rows, node]
            go_left = x[np.arange(x.shape[0])[None, :], f] <= self.threshold_[rows, node]
            node = np.where(go_left, self.left[rows, node], self.right[rows, node])
        z = self.baseline + self.value[rows, node].sum(axis=0)
        p: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return p


def params_from_raw(raw: dict[str, Any], where: str = "checker parameters") -> LogisticParams | TreeParams:
    """A fitted model from its JSON: a tree ensemble or the logistic model (``kind``)."""
    if tuple(raw.get("features", ())) != FEATURES:
        raise ModelUnavailable(f"{where} were fitted on other features; rerun python -m lab.fit_support",
                               backend="embedded")
    if raw.get("kind") == "gbdt":
        return TreeParams.from_raw(raw)
    return LogisticParams(tuple(raw["features"]), np.asarray(raw["mean"]), np.asarray(raw["scale"]),
                          np.asarray(raw["coef"]), float(raw["intercept"]), float(raw["threshold"]),
                          float(raw["partial_threshold"]))


def load_params(path: Path) -> LogisticParams | TreeParams:
    """The fitted model in ``path``: a logistic model or a tree ensemble (``kind``)."""
    return params_from_raw(json.loads(path.read_text(encoding="utf-8")), str(path))


SHIPPED = "shipped"


def shipped_raw() -> dict[str, Any]:
    """The shipped parameters as JSON."""
    raw: dict[str, Any] = json.loads(PARAMS_PATH.read_text(encoding="utf-8"))
    return raw


class CheckerVersions(Protocol):
    """Where a team's fitted versions of the parameters are kept (the store)."""

    def active_checker(self) -> CheckerVersion | None:
        """The team's active fitted version, or None to use the shipped parameters."""


class EmbeddedChecker:
    """Support checker with no server: MiniLM + lexical features + a fitted model (numpy only)."""

    name = "embedded@shipped"  # "embedded@<version>" when a team's version from the store is active

    def __init__(self, params_path: str | None = None, embedder: Embedder | None = None,
                 store: CheckerVersions | None = None, config: Config | None = None) -> None:
        """Parameters: ``params_path`` if given; else the store's active checker version (see
        ``graphrag checker``) when ``store`` has one; else the shipped JSON. Without ``embedder``, the shared one
        ``config`` describes (default: the defaults) is loaded at the first check."""
        version = None
        if params_path is None and store is not None:
            version = store.active_checker()
        if version is not None:
            self.params = params_from_raw(version.params, f"checker version {version.version}")
            self.name = f"embedded@{version.version}"
        else:
            path = Path(params_path) if params_path else PARAMS_PATH
            if not path.is_file():
                raise ModelUnavailable(f"support parameters not found at {path}; run python -m lab.fit_support",
                                       backend="embedded")
            self.params = load_params(path)  # tens of KB of JSON: cheap
            self.name = f"embedded@{SHIPPED}" if params_path is None else f"embedded@{path.name}"
        self.threshold = self.params.threshold
        self.partial_threshold = self.params.partial_threshold
        self._embedder = embedder  # the model loads on first check(), not here
        self._config = config or Config()

    @property
    def embedder(self) -> Embedder:
        """The sentence embedder, loaded on first use so building a checker stays cheap."""
        if self._embedder is None:
            from graphrag.language.embed import get_embedder

            self._embedder = get_embedder(self._config)
        return self._embedder

    def featurise(self, queries: Sequence[SupportQuery]) -> list[PairFeatures]:
        """Feature values of each pair, embedded with this checker's model."""
        return featurise(queries, self.embedder)

    def label(self, score: float) -> SupportLabel:
        """The label for a score: supported, partial or not supported by this checker's thresholds."""
        if score >= self.threshold:
            return SupportLabel.SUPPORTED
        if score >= self.partial_threshold:
            return SupportLabel.PARTIAL
        return SupportLabel.NOT_SUPPORTED

    def check(self, queries: Sequence[SupportQuery]) -> list[Support | None]:
        """Score every pair in one batch, each with a label and a reason naming what is missing."""
        if not queries:
            return []
        pfs = self.featurise(queries)
        scores = self.params.predict(np.vstack([pf.vector() for pf in pfs]))
        out: list[Support | None] = []
        for pf, score in zip(pfs, scores):
            s = float(np.clip(score, 0.0, 1.0))
            label = self.label(s)
            out.append(Support(score=round(s, 4), label=label, checker=self.name, reason=reason(pf, label)))
        return out


def encode_tokens(embedder: object, texts: Sequence[str]) -> dict[str, TokenEmbedding]:
    """MiniLM's contextual token embeddings of ``texts`` (one forward pass, batched).

    From the embedder's own ``encode_tokens`` (MiniLM's, or the fit script's cache); an embedder
    without one (a test's counting wrapper) gets the shared MiniLM's, as the defaults make it.
    """
    texts = list(dict.fromkeys(texts))
    if not texts:
        return {}
    if isinstance(embedder, TokenEncoder):
        return embedder.encode_tokens(texts)
    from graphrag.language.embed import get_embedder

    return get_embedder(Config()).encode_tokens(texts)


ONE_PASS_MAX_TEXTS = 1024  # up to this many distinct texts, one forward pass gives vectors and tokens


def add_token_features(pf: PairFeatures, claim: str, sentences: Sequence[str],
                       tokens: dict[str, TokenEmbedding]) -> None:
    """Fill the tok_* features of ``pf`` from the claim's and the selected sentences' tokens."""
    if not pf.selected:
        return
    ids, pieces, emb = tokens[claim]
    ev = [tokens[sentences[i]] for i in pf.selected]
    ev_ids = np.concatenate([e[0][1:-1] for e in ev])
    ev_emb = np.vstack([e[2][1:-1] for e in ev])
    pf.values.update(F.token_alignment(ids, pieces, emb, ev_ids, ev_emb))


def featurise(queries: Sequence[SupportQuery], embedder: Embedder) -> list[PairFeatures]:
    """Features for many pairs with one batched encode of every distinct text.

    Sentence vectors drive the evidence selection; a second pass gets token embeddings of
    the claims and the selected sentences only, so a long page costs little extra.
    """
    sentences = [evidence_sentences(q) for q in queries]
    chunks = [L.claim_chunks(q.claim) for q in queries]
    texts: dict[str, int] = {}
    for q, sents, chs in zip(queries, sentences, chunks):
        for t in (q.claim, *sents, *chs):
            texts.setdefault(t, len(texts))
    # Few texts (the live checker): one pass yields both the sentence vectors and the token
    # embeddings. Many (an evaluation over long pages) or an embedder with its own token
    # encoder (the fit script's cache): sentence vectors first, tokens for the selection only.
    joint = embedder if len(texts) <= ONE_PASS_MAX_TEXTS and isinstance(embedder, JointEncoder) else None
    tokens: dict[str, TokenEmbedding] = {}
    if joint is not None:
        vecs, tokens = joint.encode_with_tokens(list(texts))
    else:
        vecs = embedder.encode(list(texts))

    def rows(items: Sequence[str]) -> np.ndarray:
        return vecs[[texts[t] for t in items]] if items else np.zeros((0, vecs.shape[1]), dtype=vecs.dtype)

    pfs = [
        pair_features(q.claim, sents, vecs[texts[q.claim]], rows(sents), chs, rows(chs))
        for q, sents, chs in zip(queries, sentences, chunks)
    ]
    wanted = [t for q, sents, pf in zip(queries, sentences, pfs) if pf.selected
              for t in (q.claim, *(sents[i] for i in pf.selected))]
    if joint is None:
        tokens = encode_tokens(embedder, wanted)
    for q, sents, pf in zip(queries, sentences, pfs):
        add_token_features(pf, q.claim, sents, tokens)
    return pfs
