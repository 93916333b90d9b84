"""Fit the answer-span reader (``graphrag/answer/reader/span.onnx`` and ``span.json``): a cross-encoder that reads a
question together with one candidate sentence (its document's title and the end of the sentence before it, for "it"
and "he") and gives the probability that the sentence states the answer, and the answer's span inside it::

    python -m lab.fit_span_reader --data ../shared/data --out graphrag/answer/reader/

Not part of install: the weights ship in the package; this is how they were made (MODEL_CARD.md).

The fit runs in steps that fit a 2-core machine. It keeps its checkpoint in ``--work`` (default
``lab/.fit/span_reader``, ignored by git) every ``--save-every`` optimiser steps and when ``--hours`` run out, and the
same command continues from it (the examples' order is drawn once from the seed, so a resumed fit sees what an
unbroken one would). When every step is taken it exports int8 ONNX, calibrates the answer logit and chooses the
threshold on the ``choose`` articles, and reports the ``test`` articles. It runs unchanged on CUDA where torch has one.

Data (``../shared/data``), every file split by a seeded hash of the article title into ``fit`` / ``choose`` / ``test``:

- ``squad11_train.json.gz``: 87,599 answerable questions with their answer spans (4% of articles ``choose``);
- ``squad2_dev_part.json``: 10,497 questions of which 5,298 are written to look answerable from their paragraph
  (a third of the articles ``test``, a sixth ``choose``, half ``fit``);
- ``squad2_train_part.json``: the article the abstention panel uses (``lab.evaluate.matching.squad_held_out``) is
  ``test``, the rest ``fit``;
- ``nq_train.jsonl``: the articles ``lab/fit_abstain.py`` keeps for its dev figures are ``choose``.

Examples are sentences: a question against the sentence holding its answer (positive, with the span), against the
other sentence of its paragraph sharing most words with it (same passage, no answer), against the nearest sentence
of another paragraph of its article (same topic, no answer: the in-domain kind); a question written to look
answerable against the two sentences of its paragraph nearest to it (the near miss), oversampled.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import random
import re
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from graphrag.answer.reader.span import (
    SPAN_CONFIG,
    SPAN_ONNX,
    OnnxSpanReader,
    SpanConfig,
    cut_question,
    passage_text,
)
from graphrag.language.encoding import model_path
from graphrag.language.sentences import split_sentences
from lab.evaluate.matching import squad_held_out

MAX_ONNX_BYTES = 25 * 1024 * 1024
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("the a an of in on at to for is was are were who what when where which how why did does do "
                  "and or by with from as that this it its be been has have had name".split())
KINDS = ("positive", "passage", "article", "near_miss")


# --- data ---------------------------------------------------------------------------------------------------

def words(text: str) -> set[str]:
    """Lower-case content words (question words and articles left out)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def unit(seed: int, key: str) -> float:
    """A number in [0, 1) from a seeded hash of ``key`` (stable across runs and file orders)."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:4], "big") / 2**32


def split_of(source: str, title: str, squad_panel: str) -> str:
    """``fit``, ``choose`` (thresholds and calibration) or ``test`` (reported only) for an article."""
    if source == "squad2_dev":
        h = unit(59, title)
        return "test" if h < 1 / 3 else "choose" if h < 0.5 else "fit"
    if source == "squad2_train":
        return "test" if title == squad_panel else "fit"
    if source == "nq":  # lab/fit_abstain.py's dev articles (its own hash, so both agree)
        return "choose" if int(hashlib.sha1(title.encode()).hexdigest(), 16) % 5 == 0 else "fit"
    return "choose" if unit(59, title) < 0.04 else "fit"


@dataclass(frozen=True)
class Example:
    """A question against one candidate sentence: whether it states the answer, and where (character offsets in
    the sentence; -1 where it does not, or the answer is not one span of it)."""

    question: str
    title: str
    before: str
    sentence: str
    label: int
    start: int
    end: int
    kind: str
    source: str


@dataclass
class Paragraph:
    """A paragraph's sentences with their offsets."""

    sentences: list[tuple[int, int, str]]

    @classmethod
    def of(cls, text: str) -> Paragraph:
        """The paragraph split as ingest splits it."""
        return cls([(s.start, s.end, s.text) for s in split_sentences(text)])

    def holding(self, start: int, end: int) -> int | None:
        """The sentence that holds characters [start, end), if one does."""
        for i, (a, b, _) in enumerate(self.sentences):
            if a <= start and end <= b:
                return i
        return None

    def before(self, i: int) -> str:
        """The sentence before sentence ``i`` ("" for the first)."""
        return self.sentences[i - 1][2] if i > 0 else ""


def nearest(question: set[str], texts: Sequence[str], skip: set[int], n: int) -> list[int]:
    """The ``n`` texts sharing most content words with the question (ties: the earlier), leaving out ``skip``."""
    scored = sorted(((-len(question & words(t)), i) for i, t in enumerate(texts) if i not in skip))
    return [i for s, i in scored[:n] if s < 0 or n > 0]


@dataclass(frozen=True)
class Question:
    """A held-out question in the paragraph setting: its paragraph's sentences and its gold answers."""

    text: str
    title: str
    sentences: tuple[str, ...]
    befores: tuple[str, ...]
    answers: tuple[str, ...]  # empty: the paragraph does not answer it
    source: str


def squad_articles(data: Sequence[dict[str, Any]], source: str, squad_panel: str, rng: random.Random,
                   skip_titles: frozenset[str] = frozenset()) -> tuple[list[Example], dict[str, list[Question]]]:
    """The training examples of the ``fit`` articles and the held-out questions of the others."""
    examples: list[Example] = []
    held: dict[str, list[Question]] = {"choose": [], "test": []}
    for article in data:
        title = str(article["title"]).replace("_", " ")
        if article["title"] in skip_titles:
            continue
        split = split_of(source, str(article["title"]), squad_panel)
        paragraphs = [Paragraph.of(p["context"]) for p in article["paragraphs"]]
        for pi, (par, raw) in enumerate(zip(paragraphs, article["paragraphs"])):
            texts = [s[2] for s in par.sentences]
            for qa in raw["qas"]:
                q = " ".join(str(qa["question"]).split())
                impossible = bool(qa.get("is_impossible")) or not qa.get("answers")
                golds = tuple(dict.fromkeys(a["text"] for a in qa.get("answers", [])))
                if split != "fit":
                    held[split].append(Question(q, title, tuple(texts), tuple(par.before(i) for i in
                                                                              range(len(texts))),
                                                () if impossible else golds, source))
                    continue
                qw = words(q)
                if impossible:
                    for i in nearest(qw, texts, set(), 2):
                        examples.append(Example(q, title, par.before(i), texts[i], 0, -1, -1, "near_miss", source))
                    continue
                a = qa["answers"][0]
                start, end = int(a["answer_start"]), int(a["answer_start"]) + len(a["text"])
                hit = par.holding(start, end)
                if hit is None:
                    continue
                s0 = par.sentences[hit][0]
                examples.append(Example(q, title, par.before(hit), texts[hit], 1, start - s0, end - s0, "positive",
                                        source))
                others = {i for i, t in enumerate(texts) if any(g.lower() in t.lower() for g in golds)}
                for i in nearest(qw, texts, others | {hit}, 1):
                    examples.append(Example(q, title, par.before(i), texts[i], 0, -1, -1, "passage", source))
                far = [j for j in range(len(paragraphs)) if j != pi]
                if far and rng.random() < 0.5:
                    other = paragraphs[rng.choice(far)]
                    ot = [s[2] for s in other.sentences]
                    bad = {i for i, t in enumerate(ot) if any(g.lower() in t.lower() for g in golds)}
                    for i in nearest(qw, ot, bad, 1):
                        examples.append(Example(q, title, other.before(i), ot[i], 0, -1, -1, "article", source))
    return examples, held


def clean_answer(text: str) -> str:
    """An NQ short answer without the tokeniser's quote marks and stray brackets."""
    return " ".join(text.replace("``", "").replace("''", "").split()).strip(" (")


def nq_articles(path: Path, rng: random.Random) -> tuple[list[Example], dict[str, list[Question]]]:
    """NQ: each question against its evidence paragraph (positive: the sentence holding the short answer) and
    against another paragraph of its article (in-domain negatives); the ``choose`` articles as held-out questions,
    answerable against their evidence paragraph and unanswerable against another paragraph of their article."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_doc: dict[str, list[str]] = {}
    for r in rows:
        by_doc.setdefault(r["document"], [])
        if r["evidence"] not in by_doc[r["document"]]:
            by_doc[r["document"]].append(r["evidence"])
    pars = {e: Paragraph.of(e) for ev in by_doc.values() for e in ev}
    examples: list[Example] = []
    held: dict[str, list[Question]] = {"choose": [], "test": []}
    for r in rows:
        title, q = r["document"], " ".join(str(r["question"]).split())
        short = clean_answer(r.get("short_answer") or "")
        par = pars[r["evidence"]]
        texts = [s[2] for s in par.sentences]
        others = [e for e in by_doc[title] if e != r["evidence"]
                  and not (short and short.lower() in e.lower())]
        if split_of("nq", title, "") != "fit":
            if short and any(short.lower() in t.lower() for t in texts):
                held["choose"].append(Question(q, title, tuple(texts), tuple(par.before(i) for i in
                                                                             range(len(texts))), (short,), "nq"))
                if others:
                    o = pars[rng.choice(others)]
                    ot = [s[2] for s in o.sentences]
                    held["choose"].append(Question(q, title, tuple(ot), tuple(o.before(i) for i in range(len(ot))),
                                                   (), "nq_in_domain"))
            continue
        if not short:
            continue
        hits = [i for i, t in enumerate(texts) if short.lower() in t.lower()]
        if not hits:
            continue
        i = hits[0]
        at = texts[i].lower().index(short.lower())
        examples.append(Example(q, title, par.before(i), texts[i], 1, at, at + len(short), "positive", "nq"))
        qw = words(q)
        for j in nearest(qw, texts, set(hits), 1):
            examples.append(Example(q, title, par.before(j), texts[j], 0, -1, -1, "passage", "nq"))
        if others:
            o = pars[rng.choice(others)]
            ot = [s[2] for s in o.sentences]
            for j in nearest(qw, ot, set(), 1):
                examples.append(Example(q, title, o.before(j), ot[j], 0, -1, -1, "article", "nq"))
    return examples, held


def load_data(data: Path, seed: int, log: TextIO) -> tuple[list[Example], dict[str, list[Question]]]:
    """Every file's fit examples, and the held-out questions by split."""
    rng = random.Random(seed)
    train2 = json.loads((data / "squad2_train_part.json").read_text(encoding="utf-8"))["data"]
    panel = squad_held_out(train2)
    examples: list[Example] = []
    held: dict[str, list[Question]] = {"choose": [], "test": []}

    def add(got: tuple[list[Example], dict[str, list[Question]]], name: str) -> None:
        examples.extend(got[0])
        for k, v in got[1].items():
            held[k].extend(v)
        say(log, f"{name}: {len(got[0])} examples, held out {', '.join(f'{k} {len(v)}' for k, v in got[1].items())}")

    add(squad_articles(train2, "squad2_train", panel, rng), "squad2_train_part")
    dev2 = json.loads((data / "squad2_dev_part.json").read_text(encoding="utf-8"))["data"]
    add(squad_articles(dev2, "squad2_dev", panel, rng), "squad2_dev_part")
    with gzip.open(data / "squad11_train.json.gz", "rt", encoding="utf-8") as f:
        squad11 = json.load(f)["data"]
    add(squad_articles(squad11, "squad11", panel, rng, frozenset(str(a["title"]) for a in train2)), "squad11_train")
    add(nq_articles(data / "nq_train.jsonl", rng), "nq_train")
    return examples, held


def schedule(examples: Sequence[Example], batch: int, near_miss_weight: int, seed: int) -> list[list[int]]:
    """The fit's batches once, drawn from the seed: near misses repeated ``near_miss_weight`` times, shuffled, then
    grouped by length in pools of 50 batches (dynamic padding pads little) and the batches shuffled again."""
    rng = random.Random(seed)
    order = [i for i, e in enumerate(examples) for _ in range(near_miss_weight if e.kind == "near_miss" else 1)]
    rng.shuffle(order)
    batches: list[list[int]] = []
    pool = batch * 50
    for p in range(0, len(order), pool):
        chunk = sorted(order[p:p + pool], key=lambda i: len(examples[i].question) + len(examples[i].sentence) +
                       len(examples[i].before))
        batches.extend(chunk[k:k + batch] for k in range(0, len(chunk), batch))
    rng.shuffle(batches)
    return batches


# --- the model ----------------------------------------------------------------------------------------------

class SpanModel:
    """MiniLM's transformer with two heads: the answer logit on the first token, start and end logits per token."""

    def __init__(self, config: SpanConfig, device: str) -> None:
        import torch
        from transformers import AutoModel

        from graphrag.language.embed_onnx import load_tokenizer

        self.config, self.device = config, device
        self.body = AutoModel.from_pretrained(str(model_path()), local_files_only=True).to(device)
        hidden = self.body.config.hidden_size
        torch.manual_seed(13)
        self.answer = torch.nn.Linear(hidden, 1).to(device)
        self.span = torch.nn.Linear(hidden, 2).to(device)
        self.tokenizer = load_tokenizer(model_path())
        self.tokenizer.enable_truncation(config.max_tokens, strategy="only_second")
        self.counter = load_tokenizer(model_path())
        self.counter.no_truncation()

    def modules(self) -> list[Any]:
        """The torch modules (body and heads)."""
        return [self.body, self.answer, self.span]

    def state(self) -> dict[str, Any]:
        """The weights, for a checkpoint."""
        return {"body": self.body.state_dict(), "answer": self.answer.state_dict(), "span": self.span.state_dict()}

    def load_state(self, state: dict[str, Any]) -> None:
        """Weights from a checkpoint."""
        self.body.load_state_dict(state["body"])
        self.answer.load_state_dict(state["answer"])
        self.span.load_state_dict(state["span"])

    def encode(self, rows: Sequence[tuple[str, str, str, str]]) -> tuple[dict[str, Any], Any, list[Any]]:
        """Token ids, mask and types of (question, title, before, sentence) rows padded to the longest, the mask of
        each row's sentence tokens (where a span may lie), and the encodings."""
        import torch

        texts = [passage_text(t, b, s, self.config.context_words) for _, t, b, s in rows]
        enc = self.tokenizer.encode_batch([(cut_question(self.counter, q, self.config.max_tokens), p)
                                           for (q, _, _, _), (p, _) in zip(rows, texts)])
        width = max(len(e.ids) for e in enc)
        ids = torch.zeros((len(enc), width), dtype=torch.long)
        mask, types, allowed = torch.zeros_like(ids), torch.zeros_like(ids), torch.zeros((len(enc), width),
                                                                                          dtype=torch.bool)
        for row, (e, (_, offset)) in enumerate(zip(enc, texts)):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = torch.tensor(e.ids), 1, torch.tensor(e.type_ids)
            for k, (seq, (a, _)) in enumerate(zip(e.sequence_ids, e.offsets)):
                if seq == 1 and a >= offset and e.ids[k] != self.tokenizer.token_to_id("[SEP]"):
                    allowed[row, k] = True
        dev = self.device
        return ({"input_ids": ids.to(dev), "attention_mask": mask.to(dev), "token_type_ids": types.to(dev)},
                allowed.to(dev), enc)

    def forward(self, inputs: dict[str, Any]) -> tuple[Any, Any, Any]:
        """The answer logit per row and the start and end logits per token."""
        hidden = self.body(**inputs).last_hidden_state
        spans = self.span(hidden)
        return self.answer(hidden[:, 0]).squeeze(-1), spans[..., 0], spans[..., 1]


def span_targets(examples: Sequence[Example], enc: Sequence[Any], model: SpanModel) -> tuple[list[int], list[int]]:
    """Each positive's start and end token (-100 where there is none, or it was cut off)."""
    starts, ends = [], []
    for ex, e in zip(examples, enc):
        s = t = -100
        if ex.label and ex.start >= 0:
            _, offset = passage_text(ex.title, ex.before, ex.sentence, model.config.context_words)
            a, b = e.char_to_token(offset + ex.start, 1), e.char_to_token(offset + ex.end - 1, 1)
            if a is not None and b is not None and a <= b:
                s, t = a, b
        starts.append(s)
        ends.append(t)
    return starts, ends


def loss_of(model: SpanModel, batch: Sequence[Example]) -> Any:
    """Binary cross-entropy of the answer logit, plus the start and end cross-entropy of the positives' spans
    (over the sentence's tokens only)."""
    import torch
    import torch.nn.functional as F

    inputs, allowed, enc = model.encode([(e.question, e.title, e.before, e.sentence) for e in batch])
    logit, start, end = model.forward(inputs)
    labels = torch.tensor([float(e.label) for e in batch], device=model.device)
    loss = F.binary_cross_entropy_with_logits(logit, labels)
    starts, ends = span_targets(batch, enc, model)
    if any(s >= 0 for s in starts):
        neg = torch.finfo(start.dtype).min / 2
        st = torch.tensor(starts, device=model.device)
        en = torch.tensor(ends, device=model.device)
        loss = loss + 0.5 * (F.cross_entropy(start.masked_fill(~allowed, neg), st, ignore_index=-100) +
                             F.cross_entropy(end.masked_fill(~allowed, neg), en, ignore_index=-100))
    return loss


def predict(model: SpanModel, rows: Sequence[tuple[str, str, str, str]], batch: int = 64
            ) -> tuple[np.ndarray, list[str]]:
    """The answer logit and the best span's text per row, without gradients."""
    import torch

    for m in model.modules():
        m.eval()
    logits: list[np.ndarray] = []
    spans: list[str] = []
    with torch.no_grad():
        for i in range(0, len(rows), batch):
            part = rows[i:i + batch]
            inputs, allowed, enc = model.encode(part)
            logit, start, end = model.forward(inputs)
            logits.append(logit.float().cpu().numpy())
            st, en, ok = start.float().cpu().numpy(), end.float().cpu().numpy(), allowed.cpu().numpy()
            for r, (row, e) in enumerate(zip(part, enc)):
                text, _ = passage_text(row[1], row[2], row[3], model.config.context_words)
                spans.append(best_span(st[r], en[r], ok[r], e.offsets, text, model.config.max_answer_tokens))
    return (np.concatenate(logits) if logits else np.zeros(0, dtype=np.float32)), spans


def best_span(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, offsets: Sequence[tuple[int, int]],
              text: str, longest: int) -> str:
    """The highest-scoring span (start <= end, at most ``longest`` tokens) among the allowed tokens."""
    from graphrag.answer.reader.span import best_token_span

    got = best_token_span(start, end, allowed, longest)
    if got is None:
        return ""
    a, b = got
    return text[offsets[a][0]:offsets[b][1]]


# --- held-out figures ---------------------------------------------------------------------------------------

def auroc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """The probability that a positive scores above a negative (ties count half)."""
    if not len(pos) or not len(neg):
        return float("nan")
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(np.mean((p > n) + 0.5 * (p == n)))


def _norm(text: str) -> str:
    text = re.sub(r"\b(a|an|the)\b", " ", re.sub(r"[^\w\s]", " ", text.lower()))
    return " ".join(text.split())


def f1(prediction: str, gold: str) -> float:
    """SQuAD's token F1 (lower case, punctuation and articles left out)."""
    p, g = _norm(prediction).split(), _norm(gold).split()
    common = sum(min(p.count(w), g.count(w)) for w in set(p))
    if not common:
        return 0.0
    prec, rec = common / len(p), common / len(g)
    return 2 * prec * rec / (prec + rec)


def read_questions(model: SpanModel, questions: Sequence[Question]) -> list[dict[str, Any]]:
    """Each question in the paragraph setting: every sentence read, the best one's logit and span."""
    rows = [(q.text, q.title, b, s) for q in questions for s, b in zip(q.sentences, q.befores)]
    logits, spans = predict(model, rows)
    out, k = [], 0
    for q in questions:
        n = len(q.sentences)
        if n == 0:
            continue
        best = k + int(np.argmax(logits[k:k + n]))
        span, sentence = spans[best], q.sentences[best - k]
        out.append({"source": q.source, "answerable": bool(q.answers), "logit": float(logits[best]),
                    "f1": max((f1(span, g) for g in q.answers), default=0.0),
                    "gold_in_sentence": any(g.lower() in sentence.lower() for g in q.answers),
                    "gold_in_answer": any(g.lower() in (span + " " + sentence).lower() for g in q.answers)})
        k += n
    return out


def figures(rows: Sequence[dict[str, Any]], threshold: float | None = None, answered: float = 0.9) -> dict[str, Any]:
    """AUROC of the best logit (answerable against not), and at ``threshold`` (else the one answering ``answered``
    of the answerable questions): answerable answered, near misses abstained, span F1 and gold in the best
    sentence for the answerable ones."""
    pos = [r["logit"] for r in rows if r["answerable"]]
    neg = [r["logit"] for r in rows if not r["answerable"]]
    if threshold is None:
        threshold = float(np.quantile(pos, 1 - answered)) if pos else 0.0
    ans = [r for r in rows if r["answerable"]]
    return {"n_answerable": len(pos), "n_unanswerable": len(neg), "auroc": round(auroc(pos, neg), 4),
            "threshold_logit": round(threshold, 4),
            "answerable_answered": round(float(np.mean([x >= threshold for x in pos])), 4) if pos else None,
            "unanswerable_abstained": round(float(np.mean([x < threshold for x in neg])), 4) if neg else None,
            "span_f1": round(float(np.mean([r["f1"] for r in ans])), 4) if ans else None,
            "gold_in_best_sentence": round(float(np.mean([r["gold_in_sentence"] for r in ans])), 4) if ans else None}


def sample_questions(held: Sequence[Question], n: int, seed: int) -> list[Question]:
    """Up to ``n`` answerable and ``n`` unanswerable questions of each source, drawn from the seed."""
    rng = random.Random(seed)
    out: list[Question] = []
    for source in sorted({q.source for q in held}):
        for answerable in (True, False):
            pool = [q for q in held if q.source == source and bool(q.answers) == answerable]
            out.extend(rng.sample(pool, min(n, len(pool))))
    return out


def by_source(model: SpanModel, questions: Sequence[Question]) -> dict[str, Any]:
    """Figures per held-out set: SQuAD 2.0 (near misses), NQ (answerable against another paragraph)."""
    rows = read_questions(model, questions)
    squad = [r for r in rows if r["source"].startswith("squad2")]
    nq = [r for r in rows if r["source"].startswith("nq")]
    return {"squad2": figures(squad), "nq": figures(nq), "rows": len(rows)}


# --- training -----------------------------------------------------------------------------------------------

def say(log: TextIO, message: str) -> None:
    """A progress line to stderr and the fit's log."""
    line = f"[{time.strftime('%H:%M:%S')}] {message}"
    print(line, file=sys.stderr, flush=True)
    log.write(line + "\n")
    log.flush()


class Stop:
    """Set by SIGTERM / SIGINT: the loop saves its checkpoint and ends."""

    def __init__(self) -> None:
        self.asked = False
        signal.signal(signal.SIGTERM, self._ask)
        signal.signal(signal.SIGINT, self._ask)

    def _ask(self, *_: Any) -> None:
        self.asked = True


def optimiser(model: SpanModel, args: argparse.Namespace, total: int) -> tuple[Any, Any, list[Any]]:
    """AdamW (the heads at 20x the body's rate), linear warm-up over 5% of the steps then linear decay; the
    embeddings and the lower ``--freeze-layers`` layers frozen."""
    import torch

    for module in [model.body.embeddings, *model.body.encoder.layer[:args.freeze_layers]]:
        for p in module.parameters():
            p.requires_grad = False
    body = [p for p in model.body.parameters() if p.requires_grad]
    heads = [*model.answer.parameters(), *model.span.parameters()]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": heads, "lr": args.lr * 20}],
                            weight_decay=0.01)
    warm = max(1, int(0.05 * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm)))
    return opt, sched, body + heads


def save(path: Path, payload: dict[str, Any]) -> None:
    """Write the checkpoint atomically (a stop mid-write leaves the last one whole)."""
    import torch

    tmp = path.with_suffix(".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)


def fit(model: SpanModel, examples: Sequence[Example], held: Sequence[Question], args: argparse.Namespace,
        work: Path, log: TextIO) -> bool:
    """Train from the checkpoint in ``work`` (if any) until every step is taken (True) or time or a signal stops
    it (False, checkpoint saved)."""
    import torch

    batches = schedule(examples, args.batch, args.near_miss_weight, args.seed)
    if args.examples:
        batches = batches[:max(1, args.examples // args.batch)]
    total = len(batches)
    opt, sched, params = optimiser(model, args, total)
    ckpt = work / "checkpoint.pt"
    step, curve, spent_before, extended = 0, [], 0.0, 0
    if ckpt.is_file():
        state = torch.load(ckpt, map_location=model.device, weights_only=False)
        extended = int(state.get("extended_from", 0))
        if (args.extend and state["total"] < total and state["step"] == state["total"] and not extended
                and {**state["recipe"], "examples": args.examples} == recipe(args)):
            # a finished fit goes on over the next examples of the same order: the weights and the optimiser's
            # moments carry over; the rate restarts at half the peak and decays to zero at the new end
            extended = state["total"]
            say(log, f"extending the finished fit of {extended} steps to {total}")
        elif not _same_run(state, total, args):
            raise SystemExit(f"{ckpt} was written by another recipe or data ({state['recipe']}, {state['total']} "
                             f"steps); move it away to start afresh, or pass --extend to continue a finished fit "
                             f"over more examples")
        model.load_state(state["model"])
        opt.load_state_dict(state["opt"])
        if extended:
            sched = _extension_schedule(opt, args.lr, extended, total)
            if state["total"] == total:
                sched.load_state_dict(state["sched"])
        else:
            sched.load_state_dict(state["sched"])
        step, curve, spent_before = state["step"], state["curve"], state["seconds"]
        say(log, f"resumed at step {step}/{total} ({spent_before / 3600:.2f} h spent before)")
    if step >= total or args.finish_now:
        return True
    stop, t0, deadline = Stop(), time.perf_counter(), time.perf_counter() + args.hours * 3600
    probe = sample_questions(held, args.eval_questions, args.seed)

    def checkpoint() -> None:
        save(ckpt, {"model": model.state(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step,
                    "total": total, "curve": curve, "recipe": recipe(args), "extended_from": extended,
                    "seconds": spent_before + time.perf_counter() - t0})

    def evaluate() -> None:
        got = by_source(model, probe)
        curve.append({"step": step, "examples": step * args.batch,
                      "hours": round((spent_before + time.perf_counter() - t0) / 3600, 3),
                      "squad2": got["squad2"], "nq": got["nq"]})
        s, n = got["squad2"], got["nq"]
        say(log, f"held out at {step * args.batch} examples: SQuAD2 AUROC {s['auroc']} near misses abstained "
                 f"{s['unanswerable_abstained']} at 90% answered, span F1 {s['span_f1']}; NQ AUROC {n['auroc']}")
        for m in model.modules():
            m.train()

    for m in model.modules():
        m.train()
    if step == 0:
        evaluate()
    seen_t, seen_n = time.perf_counter(), 0
    while step < total:
        batch = [examples[i] for i in batches[step]]
        loss = loss_of(model, batch)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        step += 1
        seen_n += len(batch)
        if step % args.log_every == 0:
            rate = seen_n / (time.perf_counter() - seen_t)
            say(log, f"step {step}/{total} loss {loss.item():.3f} {rate:.1f} examples/s, about "
                     f"{(total - step) * args.batch / max(rate, 1e-6) / 3600:.2f} h left")
        if step % args.eval_every == 0 or step == total:
            evaluate()
        if step % args.save_every == 0 or step == total:
            checkpoint()
        if stop.asked or time.perf_counter() > deadline:
            checkpoint()
            say(log, f"stopped at step {step}/{total}: run the same command to continue")
            return False
    return True


def _same_run(state: dict[str, Any], total: int, args: argparse.Namespace) -> bool:
    """Whether the checkpoint is this command's own (an extended one was written with its new ``--examples``)."""
    return bool(state["total"] == total and state["recipe"] == recipe(args))


def _extension_schedule(opt: Any, lr: float, start: int, total: int) -> Any:
    """The rate of an extended fit: half the peak at ``start``, linearly to zero at ``total``."""
    import torch

    for group, scale in zip(opt.param_groups, (1.0, 20.0)):
        group["initial_lr"] = lr * scale
    return torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * max(0.0, (total - s) / max(1, total - start)) if s >= start else 0.0,
        last_epoch=start - 1)


def recipe(args: argparse.Namespace) -> dict[str, Any]:
    """What a checkpoint must share with the run that continues it."""
    return {k: getattr(args, k) for k in ("batch", "lr", "seed", "near_miss_weight", "freeze_layers",
                                          "context_words", "max_tokens", "examples")}


# --- calibration, export, report ----------------------------------------------------------------------------

def fit_platt(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Slope and intercept of a logistic fit of ``y`` on ``x``."""
    from sklearn.linear_model import LogisticRegression

    lr = LogisticRegression(C=1e4).fit(x.reshape(-1, 1), y)
    return {"slope": float(lr.coef_[0][0]), "intercept": float(lr.intercept_[0])}


def export(model: SpanModel, fp32: Path) -> None:
    """The body and heads as one ONNX graph: ids, mask and types in; the answer logit and start/end logits out."""
    import torch

    class Whole(torch.nn.Module):
        def __init__(self, m: SpanModel) -> None:
            super().__init__()
            self.body, self.answer, self.span = m.body, m.answer, m.span

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.body(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            spans = self.span(hidden)
            return self.answer(hidden[:, 0]).squeeze(-1), spans[..., 0], spans[..., 1]

    model.body.to("cpu")
    model.answer.to("cpu")
    model.span.to("cpu")
    model.device = "cpu"
    inputs, _, _ = model.encode([("who wrote it", "Title", "", "It was written by someone.")])
    torch.onnx.export(Whole(model).eval(), (inputs["input_ids"], inputs["attention_mask"], inputs["token_type_ids"]),
                      str(fp32), input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["answer", "start", "end"], opset_version=17, dynamo=False,
                      dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask",
                                                                            "token_type_ids", "start", "end")}
                      | {"answer": {0: "batch"}})


def quantize(fp32: Path, dest: Path) -> None:
    """Int8 weights per output channel for the matrix products and the word-embedding table."""
    from onnxruntime.quantization import QuantType, quantize_dynamic  # type: ignore[import-untyped]

    quantize_dynamic(fp32, dest, weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul", "Gather"])


def onnx_rows(reader: OnnxSpanReader, questions: Sequence[Question]) -> list[dict[str, Any]]:
    """The shipped int8 model read as the product reads (one pass per candidate), per question."""
    from graphrag.answer.reader.span import Candidate

    out = []
    for q in questions:
        got = reader.read(q.text, [Candidate(s, b, q.title) for s, b in zip(q.sentences, q.befores)])
        if not got:
            continue
        best = max(got, key=lambda g: g.logit)
        sentence = q.sentences[got.index(best)]
        out.append({"source": q.source, "answerable": bool(q.answers), "logit": best.logit,
                    "probability": best.probability,
                    "f1": max((f1(best.span, g) for g in q.answers), default=0.0),
                    "gold_in_sentence": any(g.lower() in sentence.lower() for g in q.answers),
                    "gold_in_answer": any(g.lower() in best.span.lower() for g in q.answers)})
    return out


def finish(model: SpanModel, held: dict[str, list[Question]], args: argparse.Namespace, out: Path, work: Path,
           data_files: dict[str, str], log: TextIO) -> None:
    """Export int8, calibrate and choose the threshold on ``choose``, report ``test``, write the settings."""
    fp32 = work / "span.fp32.onnx"
    export(model, fp32)
    quantize(fp32, out / SPAN_ONNX)
    size = (out / SPAN_ONNX).stat().st_size
    say(log, f"int8 ONNX {size / 2**20:.1f} MB")
    if size > MAX_ONNX_BYTES:
        raise SystemExit(f"{out / SPAN_ONNX} is {size / 2**20:.1f} MB, over 25 MB")
    config = SpanConfig(args.max_tokens, args.context_words, args.max_answer_tokens, 1.0, 0.0, 0.0, "")
    config.write(out / SPAN_CONFIG, {})
    reader = OnnxSpanReader.load(out, verify=False)
    # every SQuAD 2.0 and NQ choose question, and as many SQuAD 1.1 ones (answerable only: they weigh the
    # calibration towards answering less than all 3,336 would)
    choose = [q for q in held["choose"] if q.source != "squad11"]
    choose += random.Random(args.seed).sample([q for q in held["choose"] if q.source == "squad11"],
                                              min(len(choose) // 2, sum(q.source == "squad11" for q in held["choose"])))
    rows = onnx_rows(reader, choose)
    # calibration: "the question's best sentence states its answer" on the choose questions' best logits
    x = np.array([r["logit"] for r in rows])
    y = np.array([1 if r["answerable"] and r["gold_in_sentence"] else 0 for r in rows])
    platt = fit_platt(x, y)
    # threshold: answerable choose questions answered at least ``--answered`` of the time
    pos = np.array([r["logit"] for r in rows if r["answerable"]])
    threshold_logit = float(np.quantile(pos, 1 - args.answered))
    threshold = 1 / (1 + math.exp(-(platt["slope"] * threshold_logit + platt["intercept"])))
    say(log, f"calibration {platt}; threshold p {threshold:.4f} (logit {threshold_logit:.3f})")
    test = onnx_rows(reader, held["test"])
    report = {"choose": {"squad2": figures([r for r in rows if r["source"].startswith("squad2")], threshold_logit),
                         "nq": figures([r for r in rows if r["source"].startswith("nq")], threshold_logit)},
              "test_squad2_dev": figures([r for r in test if r["source"] == "squad2_dev"], threshold_logit),
              "test_squad2_panel_article": figures([r for r in test if r["source"] == "squad2_train"],
                                                   threshold_logit)}
    for name, part in (("test_squad2_dev", "squad2_dev"), ("test_squad2_panel_article", "squad2_train")):
        ans = [r for r in test if r["source"] == part and r["answerable"] and r["logit"] >= threshold_logit]
        report[name]["gold_in_answer_of_answered"] = round(float(np.mean([r["gold_in_answer"] for r in ans])), 4) \
            if ans else None
    state = json.loads((work / "curve.json").read_text()) if (work / "curve.json").is_file() else {}
    digest = hashlib.sha256((out / SPAN_ONNX).read_bytes()).hexdigest()
    config = SpanConfig(args.max_tokens, args.context_words, args.max_answer_tokens, platt["slope"],
                        platt["intercept"], threshold, digest)
    config.write(out / SPAN_CONFIG, {"recipe": recipe(args), "figures": report, "curve": state.get("curve", []),
                                     "steps": f"{state.get('step')} of {state.get('total')}",
                                     "hours": state.get("hours"), "data": data_files})
    say(log, json.dumps(report, indent=1))


def file_sha(path: Path) -> str:
    """The file's sha256, to say which data the weights came from."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    """Fit (or continue fitting) and, once every step is taken, export, calibrate and report."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--out", type=Path, default=Path("graphrag/answer/reader"))
    p.add_argument("--work", type=Path, default=Path("lab/.fit/span_reader"),
                   help="checkpoint and log folder (continue a fit by running the same command)")
    p.add_argument("--hours", type=float, default=1.9, help="stop (checkpoint saved) after this long")
    p.add_argument("--examples", type=int, default=0, help="train on the first N examples of the order (0: all)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--near-miss-weight", type=int, default=3)
    p.add_argument("--freeze-layers", type=int, default=0)
    p.add_argument("--context-words", type=int, default=10)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--max-answer-tokens", type=int, default=24)
    p.add_argument("--answered", type=float, default=0.92,
                   help="share of the choose articles' answerable questions the threshold keeps answered")
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--eval-every", type=int, default=300)
    p.add_argument("--eval-questions", type=int, default=150)
    p.add_argument("--save-every", type=int, default=100)
    p.add_argument("--finish-now", action="store_true",
                   help="export, calibrate and report the checkpoint as it stands, without further steps")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: every core)")
    p.add_argument("--extend", action="store_true",
                   help="continue a finished fit over the next examples of the same order, up to --examples")
    args = p.parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with open(args.work / "fit.log", "a", encoding="utf-8") as log:
        say(log, f"fit_span_reader on {device}, {torch.get_num_threads()} threads: {vars(args)}")
        examples, held = load_data(args.data, args.seed, log)
        counts = {k: sum(e.kind == k for e in examples) for k in KINDS}
        say(log, f"{len(examples)} examples {counts}")
        config = SpanConfig(args.max_tokens, args.context_words, args.max_answer_tokens, 1.0, 0.0, 0.0, "")
        model = SpanModel(config, device)
        done = fit(model, examples, held["choose"], args, args.work, log)
        state = torch.load(args.work / "checkpoint.pt", map_location="cpu", weights_only=False)
        (args.work / "curve.json").write_text(json.dumps({"curve": state["curve"], "step": state["step"],
                                                           "total": state["total"],
                                                           "hours": round(state["seconds"] / 3600, 2)}, indent=1))
        if not done:
            return 0
        data_files = {name: file_sha(args.data / name) for name in
                      ("squad11_train.json.gz", "squad2_dev_part.json", "squad2_train_part.json", "nq_train.jsonl")}
        finish(model, held, args, args.out, args.work, data_files, log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

