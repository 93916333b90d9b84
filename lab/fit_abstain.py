"""Fit the reader's abstention model (whether the documents answer) and write its parameters.

    python -m lab.fit_abstain --data ../shared/data [--cache /tmp/abstain_cache] [--limit N]

builds labelled examples from the development data, computes the reader's features with the very function the
product runs (``graphrag.answer.reader.features.reader_features``), fits a logistic regression (scikit-learn) and
writes ``graphrag/answer/reader/abstain_params.json``:

- answerable: each nq_train question against its own article (the distinct evidence paragraphs of its
  document's questions, as ``nq_articles_dev.json`` builds its articles);
- unanswerable, in-domain: the question against its own article with its evidence paragraph removed (and any
  paragraph holding its short answer): same topic, no answer;
- unanswerable, absent: the question against the most similar other article (mean sentence vector);
- SQuAD 2.0 (squad2_train_part.json): its answerable questions and its is_impossible ones against their article.

Retrieval is approximated by the article's ``CONTEXT`` sentences most similar to the question (the product's
context holds 12). Articles are split by a hash of their title into fit (80%) and dev (20%); the last SQuAD
article with unanswerable questions is held out whole. The threshold is the largest probability that still answers 95% of the dev
answerable NQ questions; the figures on dev (answerable answered, each unanswerable kind abstained, AUROC) are
written beside the parameters. nq_articles_dev.json (the panel's articles) is never read.

The answer scorer's features are used when ``load_scorer()`` returns a scorer (``with_scorer`` model); the
``without_scorer`` model is always refitted, so a reader without the scorer keeps a fitted decision.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.reader.abstain import PARAMS, WITH_CHECK, WITH_SCORER, WITHOUT_SCORER
from graphrag.answer.reader.check import OnnxAnswerCheck, check_text, load_check
from graphrag.answer.reader.features import ReaderFeatures, reader_features
from graphrag.answer.reader.read import CHECKED
from graphrag.answer.reader.scorer import AnswerScorer, Passage, load_scorer
from graphrag.language.embed import get_embedder
from graphrag.language.sentences import split_sentences
from lab import lab_config
from lab.evaluate.matching import squad_held_out
from lab.evaluate.ranker_fit import embed_all

CONTEXT = 12
ANSWERED_TARGET = 0.95
KINDS = ("answerable", "in_domain", "absent", "squad_answerable", "squad_unanswerable")


@dataclass
class Example:
    """A question against an article, with whether the article answers it."""

    question: str
    sentences: list[str]
    kind: str
    dev: bool
    title: str = ""  # the article's title, as the product gives it to the answer check

    @property
    def answerable(self) -> bool:
        """Whether the documents it is asked within answer it."""
        return self.kind in ("answerable", "squad_answerable")


def _dev(title: str) -> bool:
    return int(hashlib.sha1(title.encode()).hexdigest(), 16) % 5 == 0


def _sentences(paragraphs: Sequence[str]) -> list[str]:
    return [s.text for p in paragraphs for s in split_sentences(p)]


def nq_examples(rows: Sequence[dict[str, Any]], vec: Callable[[list[str]], np.ndarray]) -> list[Example]:
    """The three NQ kinds for every nq_train question (``rows``) with an evidence paragraph."""
    articles: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r["evidence"] and r["evidence"] not in articles[r["document"]]:
            articles[r["document"]].append(r["evidence"])
    titles = sorted(articles)
    means = np.stack([np.mean(vec(_sentences(articles[t])), axis=0) for t in titles])
    means /= np.linalg.norm(means, axis=1, keepdims=True)
    sims = means @ means.T
    np.fill_diagonal(sims, -1.0)
    related = {t: titles[int(np.argmax(sims[i]))] for i, t in enumerate(titles)}
    out: list[Example] = []
    for r in rows:
        doc, evidence, short = r["document"], r["evidence"], (r["short_answer"] or "").strip().lower()
        if not evidence:
            continue
        dev = _dev(doc)
        out.append(Example(r["question"], _sentences(articles[doc]), "answerable", dev, doc))
        rest = [p for p in articles[doc] if p != evidence and not (short and short in p.lower())]
        if rest:
            out.append(Example(r["question"], _sentences(rest), "in_domain", dev, doc))
        other = related[doc]
        if not (short and any(short in p.lower() for p in articles[other])):
            out.append(Example(r["question"], _sentences(articles[other]), "absent", dev or _dev(other), other))
    return out


def squad_examples(path: Path, answerable_per_article: int = 120) -> list[Example]:
    """SQuAD 2.0 questions against their article; one article is dev (``squad_held_out``, kept out of the fit)."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    held_out = squad_held_out(data)
    # The articles with unanswerable questions, and two more for answerable ones (each article's sentences cost
    # their encoding; ten cost minutes on two cores).
    with_impossible = [a for a in data if any(q.get("is_impossible") for p in a["paragraphs"] for q in p["qas"])]
    out: list[Example] = []
    for article in with_impossible + [a for a in data if a not in with_impossible][:2]:
        paragraphs = [p["context"] for p in article["paragraphs"]]
        sentences = _sentences(paragraphs)
        dev = article["title"] == held_out
        taken = 0
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                title = article["title"].replace("_", " ")
                if qa.get("is_impossible"):
                    out.append(Example(qa["question"], sentences, "squad_unanswerable", dev, title))
                elif taken < answerable_per_article:
                    taken += 1
                    out.append(Example(qa["question"], sentences, "squad_answerable", dev, title))
    return out


def featurise(examples: Sequence[Example], cache: Path, scorer: AnswerScorer | None,
              check: OnnxAnswerCheck | None = None) -> np.ndarray:
    """The reader's features of each example, its context the ``CONTEXT`` sentences most like the question (the
    answer check reads the ``CHECKED`` the scorer puts first, as ``Reader.read`` does)."""
    texts = list(dict.fromkeys([t for e in examples for t in (e.question, *e.sentences)]))
    vec = embed_all(texts, cache)
    rows = []
    t0 = time.monotonic()
    for n, e in enumerate(examples):
        q = vec[e.question]
        cos = np.array([float(np.dot(q, vec[s])) for s in e.sentences])
        top = np.argsort(-cos)[:CONTEXT]
        context = [e.sentences[i] for i in top]
        scores = None
        if scorer is not None:
            scores = list(scorer.score(e.question, [Passage(s) for s in context]))
        checks = None
        if check is not None:
            first = sorted(range(len(context)), key=lambda i: -(scores[i] if scores is not None else cos[top[i]]))
            checks = list(check.score(e.question, [check_text(e.title, context[i]) for i in first[:CHECKED]]))
        rows.append(reader_features(e.question, context, [float(cos[i]) for i in top], scores,
                                    checks=checks).vector())
        if n % 1000 == 999:
            print(f"  {n + 1}/{len(examples)} examples ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    return np.array(rows)


def _row_json(r: Any) -> dict[str, Any]:
    """A product row (``lab.abstain_product.ProductRow``) as saved between runs."""
    return {"question": r.question.text, "kind": r.question.kind, "features": r.features, "read": r.read,
            "check_texts": list(r.check_texts)}


def _with_check(saved: dict[str, Any], check: OnnxAnswerCheck | None) -> dict[str, Any]:
    """Saved product rows with the answer check's feature filled in from the sentences it reads (rows read before
    the check was trained hold them); unchanged without a check."""
    names = ReaderFeatures.names()
    if check is None or saved["names"] != list(names):
        return saved
    at = names.index("check_top")
    for r in saved["rows"]:
        if r.get("check_texts") and not r["features"][at]:
            r["features"][at] = float(max(check.score(r["question"], r["check_texts"])))
    return saved


def _feature_sets() -> tuple[list[str], list[str]]:
    """The features of the model without the scorer, and of the one with the scorer but not the check."""
    names = ReaderFeatures.names()
    return ([n for n in names if not n.startswith(("scorer_", "check_"))],
            [n for n in names if not n.startswith("check_")])


def auroc(answerable: np.ndarray, p: np.ndarray) -> float:
    """The probability that an answerable example scores above an unanswerable one (ties half)."""
    pos, neg = p[answerable], p[~answerable]
    if not len(pos) or not len(neg):
        return float("nan")
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1.0
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def fit(x: np.ndarray, examples: Sequence[Example], names: Sequence[str],
        unread: np.ndarray | None = None) -> dict[str, Any]:
    """A logistic regression on the fit part, its threshold and figures on the dev part (``unread``: examples the
    product abstains on unread, nothing in their documents being similar enough: they count as not answered)."""
    from sklearn.linear_model import LogisticRegression

    cols = [ReaderFeatures.names().index(n) for n in names]
    xs = x[:, cols]
    y = np.array([e.answerable for e in examples])
    dev = np.array([e.dev for e in examples])
    kinds = np.array([e.kind for e in examples])
    # Each kind weighs the same in all, so no source's size decides the boundary.
    weight = np.array([1.0 / np.sum((kinds == k) & ~dev) for k in kinds])
    model = LogisticRegression(C=1.0, max_iter=2000)
    model.fit(xs[~dev], y[~dev], sample_weight=weight[~dev] * len(weight[~dev]))
    p = model.predict_proba(xs)[:, 1]
    # The typed precondition (``AbstainModel.requires_type``) applies before the threshold is chosen.
    names_all = ReaderFeatures.names()
    untyped = x[:, names_all.index("type_in_context")] == 0
    p = np.where(untyped, 0.0, p)
    if unread is not None:
        p = np.where(unread, 0.0, p)
    dev_answerable = p[dev & (kinds == "answerable")]
    threshold = (float(np.quantile(dev_answerable, 1 - ANSWERED_TARGET, method="lower")) if len(dev_answerable)
                 else 0.5)  # "lower": at least the target answered, never just under it
    figures: dict[str, Any] = {}
    for k in KINDS:
        sel = dev & (kinds == k)
        answered = p[sel] >= threshold
        share = float(answered.mean() if k in ("answerable", "squad_answerable") else (~answered).mean())
        figures[k] = {"n": int(sel.sum()), ("answered" if k.endswith("answerable") and "un" not in k
                                              else "abstained"): round(share, 3)}
    nq_dev = dev & np.isin(kinds, ["answerable", "in_domain", "absent"])
    figures["auroc_nq_dev"] = round(auroc(y[nq_dev], p[nq_dev]), 3)
    sq_dev = dev & np.isin(kinds, ["squad_answerable", "squad_unanswerable"])
    figures["auroc_squad_dev"] = round(auroc(y[sq_dev], p[sq_dev]), 3)
    return {"features": list(names), "coef": [round(float(c), 6) for c in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6), "threshold": round(threshold, 6), "requires_type": True,
            "dev_figures": figures}


def main(argv: Sequence[str] | None = None) -> int:
    """Build the examples, fit, print the dev figures and write the parameters."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data", help="folder with nq_train.jsonl and squad2_train_part.json")
    ap.add_argument("--cache", default=str(Path("/tmp") / "graphrag_abstain_cache.npz"),
                    help="sentence vectors cached here between runs (outside the repository)")
    ap.add_argument("--out", default=str(PARAMS))
    ap.add_argument("--limit", type=int, default=0, help="use at most this many examples (a quick try)")
    ap.add_argument("--product", metavar="DIR",
                    help="compute the NQ examples' features through the product's retrieval and reader, on stores "
                         "kept in DIR (lab/abstain_product.py); without it retrieval is approximated")
    ap.add_argument("--product-fit-questions", type=int, default=600,
                    help="with --product: at most this many nq_train questions of the fit articles (each is read "
                         "three ways; the dev articles are read whole)")
    ap.add_argument("--rethreshold", metavar="DIR",
                    help="keep the fitted coefficients in --out and choose only the thresholds, on the dev articles "
                         "read through the product (rows and store kept in DIR: nq_train_dev.rows.json, .db)")
    args = ap.parse_args(argv)
    data, cache = Path(args.data), Path(args.cache)
    if args.rethreshold:
        folder = Path(args.rethreshold)
        rows_file = folder / "nq_train_dev.rows.json"
        if not rows_file.is_file():  # the dev articles read through the product (their store kept in the folder)
            from lab.abstain_product import nq_train_articles, product_rows

            folder.mkdir(parents=True, exist_ok=True)
            nq_rows = [json.loads(line) for line in (data / "nq_train.jsonl").read_text(encoding="utf-8").splitlines()
                       if line.strip()]
            got = product_rows(nq_train_articles(nq_rows, _dev), folder / "nq_train_dev.db")
            rows_file.write_text(json.dumps({"names": list(ReaderFeatures.names()), "rows": [
                _row_json(r) for r in got]}), encoding="utf-8")
        return rethreshold(rows_file, Path(args.out))

    nq_rows = [json.loads(line) for line in (data / "nq_train.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    every = embed_all(list(dict.fromkeys(s for r in nq_rows if r["evidence"] for s in _sentences([r["evidence"]]))),
                      cache)

    def vec(texts: list[str]) -> np.ndarray:
        return np.stack([every[t] for t in texts])

    if args.product:
        return fit_on_product(nq_rows, squad_examples(data / "squad2_train_part.json"), Path(args.product),
                              args.product_fit_questions, cache, Path(args.out), args.limit)
    examples = nq_examples(nq_rows, vec) + squad_examples(data / "squad2_train_part.json")
    if args.limit:
        examples = examples[::max(1, len(examples) // args.limit)]
    print(f"{len(examples)} examples: " + ", ".join(f"{k} {sum(e.kind == k for e in examples)}" for k in KINDS),
          file=sys.stderr)
    scorer, check = load_scorer(), load_check()
    # The feature rows are reused only for the same examples, features and weights (the settings files and
    # weights are hashed: a recalibrated scorer of the same name gives other scores).
    weights = hashlib.sha1()
    if scorer is not None:
        for f in sorted(PARAMS.parent.glob("reader.*")):
            weights.update(f.read_bytes())
    if check is not None:
        for f in sorted(PARAMS.parent.glob("check.*")):
            weights.update(f.read_bytes())
    rows = cache.with_name(cache.stem + f"_rows_{len(examples)}_{scorer.name if scorer else 'none'}_"
                           f"{weights.hexdigest()[:12]}.npy")
    names_file = rows.with_suffix(".json")
    if rows.is_file() and names_file.is_file() and json.loads(names_file.read_text()) == list(ReaderFeatures.names()):
        x = np.load(rows)  # the same examples and features as last time: refit only
    else:
        x = featurise(examples, cache, scorer, check)
        np.save(rows, x)
        names_file.write_text(json.dumps(list(ReaderFeatures.names())))
    without, scored = _feature_sets()
    out: dict[str, Any] = {"fitted_on": "nq_train.jsonl (three kinds) and squad2_train_part.json; dev = articles "
                                        "whose title hashes to 0 mod 5, and SQuAD's last article with unanswerable "
                                        "questions",
                           "answered_target": ANSWERED_TARGET,
                           WITHOUT_SCORER: {**fit(x, examples, without), "encoder": get_embedder(lab_config()).name}}
    if scorer is not None:
        out[WITH_SCORER] = {**fit(x, examples, scored), "scorer": scorer.name, "encoder": get_embedder(lab_config()).name}
        if check is not None:
            out[WITH_CHECK] = {**fit(x, examples, ReaderFeatures.names()), "scorer": scorer.name,
                               "check": check.name, "encoder": get_embedder(lab_config()).name}
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    for key in (WITHOUT_SCORER, WITH_SCORER, WITH_CHECK):
        if key in out:
            print(key, json.dumps(out[key]["dev_figures"]))
    return 0


def fit_on_product(nq_rows: Sequence[dict[str, Any]], squad: Sequence[Example], folder: Path, fit_questions: int,
                   cache: Path, out_path: Path, limit: int = 0) -> int:
    """The fit with the NQ examples' features computed by the product (``lab.abstain_product``): the dev articles
    (title hash) read whole, the fit articles up to ``fit_questions`` questions; SQuAD's examples approximated as
    before. The threshold answers 95% of the dev articles' answerable questions as the product reads them."""
    from lab.abstain_product import nq_train_articles, product_rows

    scorer, check = load_scorer(), load_check()
    folder.mkdir(parents=True, exist_ok=True)
    fit_titles = sorted({r["document"] for r in nq_rows if r["evidence"] and not _dev(r["document"])},
                        key=lambda t: hashlib.sha1(t.encode()).hexdigest())
    taken: set[str] = set()
    count = 0
    for t in fit_titles:  # whole articles, in a fixed pseudo-random order, until enough questions
        if count >= fit_questions:
            break
        taken.add(t)
        count += sum(1 for r in nq_rows if r["document"] == t and r["evidence"])
    parts = [(True, nq_train_articles(nq_rows, _dev), folder / "nq_train_dev.db"),
             (False, nq_train_articles(nq_rows, taken.__contains__), folder / "nq_train_fit.db")]
    examples: list[Example] = []
    feats: list[list[float]] = []
    unread: list[bool] = []
    for dev, data, store in parts:
        print(f"{'dev' if dev else 'fit'}: {len(data['documents'])} articles, {len(data['questions'])} questions",
              file=sys.stderr, flush=True)
        saved = store.with_suffix(f".rows{limit or ''}.json")  # each part kept as it is read: a rerun refits only
        if not saved.is_file():
            got = [_row_json(r) for r in product_rows(data, store, limit=limit)]
            saved.write_text(json.dumps({"names": list(ReaderFeatures.names()), "rows": got}), encoding="utf-8")
        for r in _with_check(json.loads(saved.read_text(encoding="utf-8")), check)["rows"]:
            examples.append(Example(r["question"], [], r["kind"], dev))
            feats.append(r["features"])
            unread.append(not r["read"])
    squad = squad[::max(1, len(squad) // limit)] if limit else squad
    squad_x = featurise(squad, cache, scorer, check)
    x = np.vstack([np.array(feats), squad_x])
    examples += list(squad)
    mask = np.array(unread + [False] * len(squad))
    without, scored = _feature_sets()
    source = ("nq_train.jsonl (three kinds, features from the product's retrieval and reader, one document per "
              "paragraph) and squad2_train_part.json (approximated); dev = nq_train articles whose title hashes to 0 "
              "mod 5 (read whole), and SQuAD's last article with unanswerable questions")
    out: dict[str, Any] = {"fitted_on": source, "answered_target": ANSWERED_TARGET,
                           WITHOUT_SCORER: {**fit(x, examples, without, mask), "encoder": get_embedder(lab_config()).name}}
    if scorer is not None:
        out[WITH_SCORER] = {**fit(x, examples, scored, mask), "scorer": scorer.name, "encoder": get_embedder(lab_config()).name}
        if check is not None:
            out[WITH_CHECK] = {**fit(x, examples, ReaderFeatures.names(), mask), "scorer": scorer.name,
                               "check": check.name, "encoder": get_embedder(lab_config()).name}
    out_path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    for key in (WITHOUT_SCORER, WITH_SCORER, WITH_CHECK):
        if key in out:
            print(key, json.dumps(out[key]["dev_figures"]))
    return 0


def rethreshold(rows_file: Path, params: Path) -> int:
    """Each shipped model's threshold chosen again so that the product answers ``ANSWERED_TARGET`` of the dev
    articles' answerable questions as it reads them (``--product``'s saved rows); its coefficients kept."""
    from graphrag.answer.reader.abstain import AbstainModel

    saved = _with_check(json.loads(rows_file.read_text(encoding="utf-8")), load_check())
    names = saved["names"]
    raw = json.loads(params.read_text(encoding="utf-8"))
    kinds = np.array([r["kind"] for r in saved["rows"]])
    for key in (WITHOUT_SCORER, WITH_SCORER, WITH_CHECK):
        if key not in raw:
            continue
        model = AbstainModel.from_json(raw[key])
        feats = [ReaderFeatures(**dict(zip(names, r["features"]))) for r in saved["rows"]]
        # Refused whatever the threshold: not read (nothing similar enough), or no phrase of the asked kind.
        forced = np.array([not r["read"] or (model.requires_type and not f.type_in_context)
                           for r, f in zip(saved["rows"], feats)])
        p = np.array([0.0 if out else model.probability(f) for out, f in zip(forced, feats)])
        ranked = np.where(forced, -np.inf, p)[kinds == "answerable"]
        threshold = max(0.0, float(np.quantile(ranked, 1 - ANSWERED_TARGET, method="lower")))
        answered = ~forced & (p >= threshold)
        figures: dict[str, Any] = {k: {"n": int((kinds == k).sum()),
                                       ("answered" if k == "answerable" else "abstained"): round(float(
                                           answered[kinds == k].mean() if k == "answerable"
                                           else (~answered[kinds == k]).mean()), 3)}
                                   for k in ("answerable", "in_domain", "absent") if (kinds == k).any()}
        figures["auroc"] = round(auroc(kinds == "answerable", p), 3)
        print(f"{key}: threshold {model.threshold:.4f} -> {threshold:.4f}; product dev {json.dumps(figures)}")
        raw[key]["threshold"] = round(threshold, 6)
        raw[key]["product_dev_figures"] = figures
    raw["threshold_chosen_on"] = ("nq_train dev articles (title hash), one document per paragraph, read through the "
                                  "product's retrieval and reader (lab.fit_abstain --product, --rethreshold)")
    params.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
