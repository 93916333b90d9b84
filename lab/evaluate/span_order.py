"""Choose how much the answer-span reader weighs in the quotes' order, on articles kept out of every fit.

    python -m lab.evaluate.span_order --data ../shared/data --stores DIR --span DIR [--rows FILE] [--product]

The span reader (``graphrag/answer/reader/span.py``) reads the question with each of the first quotes the answer
scorer orders, and gives the probability that the sentence states the answer. This asks the answerable questions
of SQuAD 2.0 dev's ``choose`` articles (``lab/fit_span_reader.py`` keeps them out of its fit to choose its
calibration and threshold; the panel never held them and no weight of the quotes' order was chosen on them)
through the product's ask path, reads the scorer's first ``--shortlist`` quotes with the span reader, and for each
weight ``w`` and shortlist length ``k`` says how often the first quote of the order ``(1 - w) * scorer + w * span``
is the sentence holding a gold answer. The chosen ``(w, k)`` is the one with the most, the smallest ``w`` on a tie.
``--product`` asks the same questions through the whole ask path with the chosen blend on the order for a question
one sentence answers, on both orders (a bridge question's too), and without the span reader, and counts the answers
whose first citation holds a gold answer. The figures of the choice on unseen articles are
``lab.evaluate.held_out_articles --compare span`` and the panel's: they confirm and are never chosen on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphrag.answer.ask import Asker
from graphrag.answer.reader.check import load_check
from graphrag.answer.reader.read import Reader
from graphrag.answer.reader.scorer import load_scorer
from graphrag.answer.reader.span import Candidate, OnnxSpanReader
from graphrag.model import AskSettings
from graphrag.store import Store
from lab import lab_config
from lab.evaluate.answers import NoChecker
from lab.evaluate.held_out_articles import (
    DATA_FILE,
    HeldQuestion,
    HeldStore,
    _slug,
    fill_store,
    holds_gold,
    load_articles,
)
from lab.evaluate.matching import cited_items

WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))
SHORTLISTS = (2, 3, 5, 8)


def question_row(q: HeldQuestion, asker: Asker, span: OnnxSpanReader, store: Store, shortlist: int, title: str
                 ) -> dict[str, Any] | None:
    """The scorer's first ``shortlist`` quotes with their scorer score, span probability and gold flag; None when
    the reader abstained or read nothing."""
    outcome = asker.ask(q.text, AskSettings())
    reading = outcome.reading
    if reading is None or reading.quotes is None:
        return None
    ranked = reading.quotes.ranked(False)[:shortlist]
    got = span.read(q.text, [Candidate(" ".join(c.span.text.split()), asker.sentence_before(c), title) for c in ranked])
    return {"id": q.qid, "question": q.text,
            "scorer": [reading.quotes.single[c] for c in ranked],
            "span": [r.probability for r in got], "gold": [holds_gold(q, c, store) for c in ranked]}


def first_right(rows: Sequence[dict[str, Any]], w: float, k: int) -> float:
    """The share of ``rows`` whose first quote of the blended order over the first ``k`` holds a gold answer."""
    hits = 0
    for r in rows:
        n = min(k, len(r["gold"]))
        if not n:
            continue
        blend = [(1 - w) * r["scorer"][i] + w * r["span"][i] for i in range(n)]
        hits += r["gold"][max(range(n), key=lambda i: (blend[i], -i))]
    return hits / len(rows) if rows else 0.0


def sweep(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every (weight, shortlist) figure and the choice."""
    grid = {f"{w}/{k}": round(first_right(rows, w, k), 4) for k in SHORTLISTS for w in WEIGHTS}
    best = max(((w, k) for k in SHORTLISTS for w in WEIGHTS), key=lambda wk: (grid[f"{wk[0]}/{wk[1]}"], -wk[0], -wk[1]))
    return {"questions": len(rows), "scorer_alone": grid[f"0.0/{SHORTLISTS[0]}"], "grid": grid,
            "chosen": {"weight": best[0], "shortlist": best[1], "first_right": grid[f"{best[0]}/{best[1]}"]}}


def product_rows(part: HeldStore, store: Store, arms: dict[str, Asker]) -> list[dict[str, Any]]:
    """Each question asked through the product's whole ask path by each arm: whether the answer's first citation
    holds a gold answer."""
    rows = []
    for q in part.questions:
        row: dict[str, Any] = {"id": q.qid, "question": q.text}
        for name, asker in arms.items():
            cited = cited_items(asker.ask(q.text, AskSettings()).answer)
            row[name] = bool(cited) and holds_gold(q, cited[0], store)
        rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(prog="python -m lab.evaluate.span_order", description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--stores", required=True, help="folder of the stores (kept for a rerun)")
    ap.add_argument("--span", required=True, help="folder of span.onnx and span.json")
    ap.add_argument("--rows", help="save the rows here (JSON lines); with --summarise, only read them")
    ap.add_argument("--summarise", action="store_true", help="sweep the saved --rows only")
    ap.add_argument("--per-article", type=int, default=200)
    ap.add_argument("--product", action="store_true",
                    help="instead of the sweep: the answer's first citation through the whole ask path, without the "
                         "span reader, with it on the order for a question one sentence answers, and on both orders")
    args = ap.parse_args(argv)
    if args.summarise:
        saved = [json.loads(x) for x in Path(args.rows).read_text(encoding="utf-8").splitlines() if x.strip()]
        print(json.dumps(sweep(saved), indent=1))
        return 0
    path = Path(args.data) / DATA_FILE
    if not path.is_file():
        print(f"no {path}", file=sys.stderr)
        return 2
    span = OnnxSpanReader.load(Path(args.span))
    reader = Reader(load_scorer(), check=load_check())  # the shipped reader without the span reader: its order
    folder = Path(args.stores)
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for part in load_articles(path, args.per_article, split="choose"):
        with Store(folder / f"{_slug(part.name)}.db") as store:
            fill_store(store, part, reader)
            if args.product:
                readers = {"without": reader, "single": Reader(reader.scorer, check=reader.check, span=span),
                           "both": Reader(reader.scorer, check=reader.check, span=span, span_bridged=True)}
                got = product_rows(part, store, {k: Asker(store, checker=NoChecker(), reader=r, config=lab_config())
                                                 for k, r in readers.items()})
                rows.extend(got)
                print(f"{part.name}: " + ", ".join(f"{k} {sum(r[k] for r in got)}" for k in readers) +
                      f" of {len(got)}", file=sys.stderr, flush=True)
                continue
            asker = Asker(store, checker=NoChecker(), reader=reader, config=lab_config()).warm()
            got = [r for r in (question_row(q, asker, span, store, max(SHORTLISTS), part.sources[0].title) for q in part.questions) if r]
        print(f"{part.name}: {len(got)} of {len(part.questions)} answered", file=sys.stderr, flush=True)
        rows.extend(got)
        if args.rows:
            with open(args.rows, "a", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in got)
    if args.product:
        print(json.dumps({k: round(sum(r[k] for r in rows) / len(rows), 4) for k in ("without", "single", "both")}
                         | {"questions": len(rows)}, indent=1))
        return 0
    print(json.dumps(sweep(rows), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
