"""Fitting the answer ranker (``graphrag.answer.reader.rank``) and printing its figures; the product only reads the JSON.

    python -m lab.evaluate.ranker_fit --out graphrag/answer/reader/rank/ranker_params.json

Training questions (from ``--data``, default ``../shared/data``):

* Natural Questions train (``nq_train.jsonl``): each article is rebuilt from the distinct evidence
  paragraphs of its questions (a fixed shuffled order, as the dev file was built). For a question,
  the positives are the sentences of its evidence paragraph that contain the short answer (when
  it has none, or no sentence contains it: the sentence sharing most of the question's words);
  the negatives are the sentences of the article's other paragraphs (hard, on-topic negatives)
  and, at half weight, the other sentences of the evidence paragraph when the short answer
  placed the positive (they are on the right topic but do not say the answer). A sentence
  elsewhere in the article that also contains the short answer is left out, not called wrong.
* MuSiQue (``musique_train100.json``): every sentence of the question's 20 paragraphs is a
  candidate; a positive is the sentence of a supporting paragraph that gives its hop's answer
  (else the one sharing most words with the hop's question); negatives are the sentences of the
  non-supporting paragraphs.

Model choice and the threshold come from 5-fold cross-validation grouped by article (a MuSiQue
question is its own group); the dev set (``nq_articles_dev.json``, 31 other articles) is only
reported: P@1 (the top sentence of the article is inside the evidence paragraph: most of its
words are in it) and MRR, against ranking by MiniLM cosine alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.reader.rank import FEATURES, NOT_A_CLAIM, Candidate, RankerParams, sentence_kind
from graphrag.answer.reader.rank.features import feature_rows
from graphrag.language import lexical as L
from graphrag.language.sentences import split_sentences
from lab import lab_config

# Of the held-out sentences scored at or above the threshold, at least this share lie inside the evidence
# (NQ: the evidence paragraph; MuSiQue: a supporting paragraph): a kept quote is mostly on the evidence.
TARGET_PRECISION = 0.6
IN_PARAGRAPH_WEIGHT = 0.5  # weight of the evidence paragraph's other sentences as negatives
C_VALUES = (0.1, 1.0, 10.0)
FOLDS = 5


@dataclass
class Question:
    """One question with its candidate sentences and labels (1 answer, 0 not, None left out of the fit)."""

    source: str
    group: str
    question: str
    candidates: list[Candidate]
    labels: list[float | None]
    weights: list[float]
    in_evidence: list[bool]  # inside the evidence paragraph (NQ) / a supporting paragraph (MuSiQue)
    cos: list[float] = field(default_factory=list)
    x: np.ndarray = field(default_factory=lambda: np.zeros((0, len(FEATURES))))  # feature rows, once computed
    non_claim: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _contains(sentence: str, answer: str) -> bool:
    a = _norm(answer)
    return bool(a) and f" {a} " in f" {_norm(sentence)} "


def _overlap(question: str, sentence: str) -> float:
    return L.coverage(question, sentence)[0]


def inside(sentence: str, paragraph_words: set[str]) -> bool:
    """The dev file's rule: a sentence is inside the evidence when most of its words are in the paragraph."""
    words = re.findall(r"\w+", sentence.lower())
    return bool(words) and sum(w in paragraph_words for w in words) / len(words) > 0.5


def _sentences(text: str) -> list[str]:
    return [" ".join(s.text.split()) for s in split_sentences(text) if s.text.strip()]


def nq_train(path: Path, seed: int = 0) -> list[Question]:
    """The NQ training questions, each over all sentences of its rebuilt article."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_doc: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        by_doc[r["document"]].append(r)
    out: list[Question] = []
    rng = random.Random(seed)
    for doc, qs in sorted(by_doc.items()):
        paragraphs = list(dict.fromkeys(q["evidence"] for q in qs))
        rng.shuffle(paragraphs)
        sents: list[tuple[int, str]] = [(p, s) for p, para in enumerate(paragraphs) for s in _sentences(para)]
        count = len(sents)
        cands = [Candidate(s, index=i, count=count) for i, (_, s) in enumerate(sents)]
        for q in qs:
            ev = paragraphs.index(q["evidence"])
            ev_words = set(re.findall(r"\w+", q["evidence"].lower()))
            own = [i for i, (p, _) in enumerate(sents) if p == ev]
            if not own:
                continue
            answer = q["short_answer"].strip()
            pos = [i for i in own if _contains(sents[i][1], answer)]
            placed = bool(pos)
            if not pos:
                pos = [max(own, key=lambda i: _overlap(q["question"], sents[i][1]))]
            labels: list[float | None] = []
            weights: list[float] = []
            flags: list[bool] = []
            for i, (p, s) in enumerate(sents):
                in_ev = p == ev or inside(s, ev_words)
                flags.append(in_ev)
                if i in pos:
                    labels.append(1.0)
                    weights.append(1.0)
                elif p == ev:
                    labels.append(0.0 if placed else None)
                    weights.append(IN_PARAGRAPH_WEIGHT)
                elif in_ev or _contains(s, answer):
                    labels.append(None)
                    weights.append(0.0)
                else:
                    labels.append(0.0)
                    weights.append(1.0)
            out.append(Question("nq", f"nq:{doc}", q["question"], cands, labels, weights, flags))
    return out


def musique(path: Path) -> list[Question]:
    """The MuSiQue questions, each over every sentence of its 20 paragraphs."""
    out: list[Question] = []
    for q in json.loads(path.read_text(encoding="utf-8")):
        hops = {h["paragraph_support_idx"]: h for h in q["question_decomposition"]}
        cands: list[Candidate] = []
        labels: list[float | None] = []
        weights: list[float] = []
        flags: list[bool] = []
        for p in q["paragraphs"]:
            sents = _sentences(p["paragraph_text"])
            pos: set[int] = set()
            if p["is_supporting"]:
                hop = hops.get(p["idx"])
                if hop is not None:
                    pos = {i for i, s in enumerate(sents) if _contains(s, hop["answer"])}
                    if not pos and sents:
                        pos = {max(range(len(sents)), key=lambda i: _overlap(hop["question"], sents[i]))}
            for i, s in enumerate(sents):
                cands.append(Candidate(s, index=i, count=len(sents)))
                flags.append(bool(p["is_supporting"]))
                if i in pos:
                    labels.append(1.0)
                elif p["is_supporting"]:
                    labels.append(None)
                else:
                    labels.append(0.0)
                weights.append(1.0 if labels[-1] is not None else 0.0)
        out.append(Question("musique", f"musique:{q['id']}", q["question"], cands, labels, weights, flags))
    return out


@dataclass
class DevQuestion:
    """A dev question over every sentence of its article: which are inside the evidence, which give the answer."""

    question: str
    candidates: list[Candidate]
    in_evidence: list[bool]
    answer: list[bool]  # inside the evidence and containing the short answer
    cos: list[float] = field(default_factory=list)
    x: np.ndarray = field(default_factory=lambda: np.zeros((0, len(FEATURES))))
    non_claim: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def nq_dev(path: Path) -> list[DevQuestion]:
    """The dev questions, each over every sentence of its article as the product splits it."""
    data = json.loads(path.read_text(encoding="utf-8"))
    docs = {d["id"]: _sentences(d["text"]) for d in data["documents"]}
    out = []
    for q in data["questions"]:
        sents = docs[q["document"]]
        ev_words = set(re.findall(r"\w+", q["evidence"].lower()))
        flags = [inside(s, ev_words) for s in sents]
        answer = [f and _contains(s, q["short_answer"]) for f, s in zip(flags, sents)]
        out.append(DevQuestion(q["question"], [Candidate(s, index=i, count=len(sents)) for i, s in enumerate(sents)],
                               flags, answer))
    return out


# --- embeddings, cached by text ------------------------------------------------------------------

def embed_all(texts: Sequence[str], cache: Path) -> dict[str, np.ndarray]:
    """MiniLM vectors of ``texts``, reusing those in ``cache`` (an .npz keyed by text hash) and adding the rest."""
    from graphrag.language.embed import get_embedder

    key = {t: hashlib.sha1(t.encode()).hexdigest() for t in texts}
    have: dict[str, np.ndarray] = {}
    if cache.is_file():
        with np.load(cache) as data:
            have = {k: data[k] for k in data.files}
    todo = sorted({t for t in texts if key[t] not in have})
    if todo:
        print(f"encoding {len(todo)} texts", file=sys.stderr)
        vecs = get_embedder(lab_config()).encode(todo)
        for t, v in zip(todo, vecs):
            have[key[t]] = v
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, **have)  # type: ignore[arg-type]  # numpy's stub reads the keys as allow_pickle
    return {t: have[key[t]] for t in texts}


def attach_cosines(items: Sequence[Question | DevQuestion], cache: Path) -> None:
    """Set each item's ``cos``: MiniLM cosine of its question with each candidate."""
    texts = list(dict.fromkeys([t for it in items for t in (it.question, *(c.text for c in it.candidates))]))
    vec = embed_all(texts, cache)
    for it in items:
        q = vec[it.question]
        it.cos = [float(np.dot(q, vec[c.text])) for c in it.candidates]
        it.x = np.array(feature_rows(it.question, it.candidates, it.cos))
        it.non_claim = np.array([(c.kind or sentence_kind(c.text)) in NOT_A_CLAIM for c in it.candidates])


# --- fitting and measuring -------------------------------------------------------------------------

def rows_of(items: Sequence[Question]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Feature rows, labels, weights and question numbers of the labelled candidates."""
    xs, ys, ws, qs = [], [], [], []
    for n, it in enumerate(items):
        for f, y, w in zip(it.x, it.labels, it.weights):
            if y is None or w <= 0:
                continue
            xs.append(f)
            ys.append(y)
            ws.append(w)
            qs.append(n)
    return np.array(xs), np.array(ys), np.array(ws), np.array(qs)


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, c: float) -> dict[str, Any]:
    """A weighted logistic regression on standardised features, as JSON-ready parameters."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit((x - mean) / scale, y, sample_weight=w)
    return {"kind": "logistic", "features": list(FEATURES), "C": c,
            "mean": [round(float(v), 6) for v in mean], "scale": [round(float(v), 6) for v in scale],
            "coef": [round(float(v), 6) for v in model.coef_[0]], "intercept": round(float(model.intercept_[0]), 6),
            "threshold": 0.5}


def scores(params: RankerParams, item: Question | DevQuestion) -> np.ndarray:
    """The ranker's scores of an item's precomputed features (what ``score_sentences`` does after encoding)."""
    p: np.ndarray = np.where(item.non_claim, 0.0, params.predict(item.x))
    return p


def ranking(score: np.ndarray, relevant: Sequence[bool]) -> tuple[float, float]:
    """P@1 and reciprocal rank of the first relevant item (ties broken by position)."""
    order = sorted(range(len(score)), key=lambda i: (-score[i], i))
    first = next((r for r, i in enumerate(order) if relevant[i]), None)
    return (1.0 if first == 0 else 0.0), (0.0 if first is None else 1.0 / (first + 1))


def folds(items: Sequence[Question], k: int = FOLDS, seed: int = 0) -> list[int]:
    """A fold number per question; all questions of one group share a fold."""
    groups = sorted({it.group for it in items})
    random.Random(seed).shuffle(groups)
    fold_of = {g: i % k for i, g in enumerate(groups)}
    return [fold_of[it.group] for it in items]


def cross_validate(items: Sequence[Question], c: float) -> dict[str, Any]:
    """Held-out figures per source, and the held-out (score, is-answer) pairs for the threshold."""
    fold = folds(items)
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    held: list[tuple[float, bool]] = []
    for f in range(FOLDS):
        train = [it for it, g in zip(items, fold) if g != f]
        x, y, w, _ = rows_of(train)
        params = RankerParams(fit_logistic(x, y, w, c))
        for it, g in zip(items, fold):
            if g != f:
                continue
            s = scores(params, it)
            m = per[it.source]
            for name, sc in (("ranker", s), ("cosine", np.array(it.cos))):
                p1, rr = ranking(sc, it.in_evidence)
                m[f"{name}_p1"].append(p1)
                m[f"{name}_mrr"].append(rr)
                a1, _ = ranking(sc, [lab == 1.0 for lab in it.labels])
                m[f"{name}_answer_p1"].append(a1)
            held.extend((float(v), bool(e)) for v, e in zip(s, it.in_evidence))
    figures = {src: {k: round(statistics.mean(v), 3) for k, v in m.items()} | {"questions": len(m["ranker_p1"])}
               for src, m in per.items()}
    return {"figures": figures, "held": held}


def choose_threshold(held: Sequence[tuple[float, bool]], target: float = TARGET_PRECISION) -> dict[str, float]:
    """The lowest score at which held-out precision (sentences inside the evidence among those at or above it)
    reaches ``target``."""
    pairs = sorted(held, key=lambda t: -t[0])
    total = sum(a for _, a in pairs)
    tp = 0
    best: dict[str, float] | None = None
    for n, (s, a) in enumerate(pairs, 1):
        tp += a
        if tp / n >= target:
            best = {"threshold": round(s, 4), "precision": round(tp / n, 3), "recall": round(tp / max(total, 1), 3)}
    if best is None:
        raise SystemExit(f"no threshold reaches precision {target} on the held-out folds")
    return best


def precision_recall(pairs: Sequence[tuple[float, bool]], threshold: float) -> dict[str, float]:
    """Precision and recall of "answers" for the (score, is-answer) pairs kept at ``threshold``."""
    kept = [a for s, a in pairs if s >= threshold]
    total = sum(a for _, a in pairs)
    return {"precision": round(sum(kept) / max(len(kept), 1), 3), "recall": round(sum(kept) / max(total, 1), 3)}


def evaluate_dev(params: RankerParams, dev: Sequence[DevQuestion]) -> dict[str, Any]:
    """Dev figures: P@1 and MRR of the ranker and of cosine alone, and what the threshold keeps."""
    m: dict[str, list[float]] = defaultdict(list)
    in_ev_pairs: list[tuple[float, bool]] = []
    top_pairs: list[tuple[float, bool]] = []
    for q in dev:
        s = scores(params, q)
        for name, sc in (("ranker", s), ("cosine", np.array(q.cos))):
            p1, rr = ranking(sc, q.in_evidence)
            m[f"{name}_p1"].append(p1)
            m[f"{name}_mrr"].append(rr)
        in_ev_pairs.extend((float(v), f) for v, f in zip(s, q.in_evidence))
        top = int(np.argmax(s))
        top_pairs.append((float(s[top]), q.in_evidence[top]))
    out: dict[str, Any] = {k: round(statistics.mean(v), 3) for k, v in m.items()}
    out["questions"] = len(dev)
    out["threshold_on_sentences_inside_evidence"] = precision_recall(in_ev_pairs, params.threshold)
    out["top_sentence_kept_share"] = round(sum(s >= params.threshold for s, _ in top_pairs) / len(top_pairs), 3)
    out["top_sentence_kept_precision"] = precision_recall(top_pairs, params.threshold)["precision"]
    return out


def latency(params: RankerParams, runs: int = 100) -> dict[str, float]:
    """Median milliseconds to score 12 sentences, with their cosines given and with everything encoded."""
    from graphrag.language.embed import get_embedder

    embedder = get_embedder(lab_config())
    from graphrag.answer.reader.rank import score_sentences

    question = "Who can set up single sign-on for the workspace?"
    texts = [f"Sentence {i} says that workspace owners on the Business plan configured SAML in 2021 for {i} teams."
             for i in range(12)]
    given = [Candidate(t, similarity=0.5, index=i, count=12) for i, t in enumerate(texts)]
    bare = [Candidate(t, index=i, count=12) for i, t in enumerate(texts)]
    out = {}
    for name, cands in (("similarity_given_ms", given), ("encoded_ms", bare)):
        score_sentences(question, cands, embedder, params)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            score_sentences(question, cands, embedder, params)
            times.append((time.perf_counter() - t0) * 1000)
        out[name] = round(statistics.median(times), 2)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Build the training rows, cross-validate, fit, print the figures and write ``--out``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, help="write the fitted parameters here (JSON)")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "graphrag" / "ranker_embeddings.npz",
                    help="MiniLM vectors of the training texts, reused between runs")
    ap.add_argument("--no-latency", action="store_true")
    args = ap.parse_args(argv)
    train = nq_train(args.data / "nq_train.jsonl") + musique(args.data / "musique_train100.json")
    dev = nq_dev(args.data / "nq_articles_dev.json")
    attach_cosines([*train, *dev], args.cache)
    report: dict[str, Any] = {"train_questions": len(train), "cv": {}}
    best_c, best_key = C_VALUES[0], -1.0
    held_of: dict[float, list[tuple[float, bool]]] = {}
    for c in C_VALUES:
        cv = cross_validate(train, c)
        report["cv"][f"C={c}"] = cv["figures"]
        held_of[c] = cv["held"]
        key = cv["figures"]["nq"]["ranker_p1"] + cv["figures"]["musique"]["ranker_p1"]
        if key > best_key:
            best_c, best_key = c, key
    chosen = choose_threshold(held_of[best_c])
    x, y, w, _ = rows_of(train)
    raw = fit_logistic(x, y, w, best_c)
    raw["threshold"] = chosen["threshold"]
    raw["threshold_rule"] = (f"lowest score with held-out precision >= {TARGET_PRECISION} (5-fold CV grouped by "
                             f"article): precision {chosen['precision']}, recall {chosen['recall']}")
    raw["trained_on"] = {"nq_train": sum(it.source == "nq" for it in train),
                         "musique": sum(it.source == "musique" for it in train), "rows": int(len(y))}
    params = RankerParams(raw)
    report["chosen"] = {"C": best_c, **chosen}
    report["held_out_precision_recall"] = {str(t): precision_recall(held_of[best_c], t)
                                           for t in (0.1, 0.2, 0.3, 0.4, 0.5, chosen["threshold"])}
    report["coef"] = dict(zip(FEATURES, raw["coef"]))
    report["dev"] = evaluate_dev(params, dev)
    if not args.no_latency:
        report["latency_12_sentences"] = latency(params)
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
