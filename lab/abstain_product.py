"""The reader's features as the product computes them, for the abstention fit (``lab.fit_abstain --product``).

The fit's first examples approximated retrieval by the article's 12 sentences most similar to the question and
gave the answer scorer each sentence alone. The product reads what ``retrieve`` returns (the walk fused with
similarity, spread across documents) and gives the scorer each sentence with its neighbours and its document's
title, so its features sit elsewhere: a threshold set on the approximation answered 0.88 of NQ dev's answerable
questions where it was set for 0.95. Here the nq_train articles are stored one document per evidence paragraph
(as the panel's ``nq_abstention`` stores NQ dev) and each question is asked the three ways within its documents,
through ``Asker.retrieve`` and ``Reader.read``: the features are the product's own.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.ask import Asker
from graphrag.answer.reader.check import check_text
from graphrag.answer.reader.read import CHECKED
from graphrag.model import AskSettings
from graphrag.store import Store
from lab import lab_config
from lab.evaluate.abstention import AbstainQuestion, split_articles


@dataclass(frozen=True)
class ProductRow:
    """One question asked within its documents: the reader's features, and whether the product would read it at
    all (``read``: the best context sentence reaches ``min_relevance``; below it the product abstains unread)."""

    question: AbstainQuestion
    article: str
    features: list[float]
    read: bool
    # The sentences (with their titles) the answer check reads for it, the scorer's first: kept so that a check
    # trained later adds its feature to these rows without reading the questions again.
    check_texts: tuple[str, ...] = ()


def nq_train_articles(rows: Sequence[dict[str, Any]], keep: Callable[[str], bool]) -> dict[str, Any]:
    """nq_train.jsonl in ``nq_articles_dev.json``'s form: each kept document an article of its questions' distinct
    evidence paragraphs, and those questions."""
    paragraphs: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r["evidence"] and keep(r["document"]) and r["evidence"] not in paragraphs[r["document"]]:
            paragraphs[r["document"]].append(r["evidence"])
    ids = {t: f"a{n}" for n, t in enumerate(sorted(paragraphs))}
    return {"documents": [{"id": ids[t], "title": t, "text": "\n\n".join(ps)} for t, ps in paragraphs.items()],
            "questions": [{"question": r["question"], "short_answer": r["short_answer"], "evidence": r["evidence"],
                           "document": ids[r["document"]]} for r in rows if r["evidence"] and r["document"] in ids]}


def product_rows(data: dict[str, Any], store_path: Path, settings: AskSettings = AskSettings(),
                 progress: int = 200, limit: int = 0) -> list[ProductRow]:
    """Store ``data``'s articles one document per paragraph in ``store_path`` (kept: a rerun reuses it) and read
    every question the three ways (answerable, in-domain, absent) as the product reads it (``limit``: the first
    so many of them only, a quick try)."""
    from graphrag.answer.reader.features import reader_features
    from graphrag.ingest.extract import make_extractor
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.language.embed import get_embedder

    embedder = get_embedder(lab_config())
    sources, questions = split_articles(data, "nq_train.jsonl", lambda texts: embedder.encode(texts))
    article_of = {s.id: s.title for s in sources}
    questions = questions[:limit] if limit else questions
    out: list[ProductRow] = []
    with Store(store_path) as store:
        Ingestor(store, make_extractor("rules"), embedder, config=lab_config()).ingest(sources)
        asker = Asker(store, embedder=embedder, config=lab_config())
        reader = asker.reader
        graph = asker.graph()
        passages = asker.passages(graph)  # the scorer's passages, exactly as an ask builds them
        t0 = time.monotonic()
        for n, q in enumerate(questions):
            found = asker.retrieve(q.text, replace(settings, documents=q.documents))
            best = max((c.score for c in found.context), default=None)
            texts: tuple[str, ...] = ()
            if found.context:
                reading = reader.read(q.text, found.context, passages, encoder=embedder.name)
                assert reading.features is not None  # read without a relevance floor: every item is read
                features = reading.features.vector()
                scores = reading.scores or {}
                first = sorted(found.context, key=lambda c: (-scores.get(c.n, c.score), c.n))[:CHECKED]
                texts = tuple(check_text(p.title, p.sentence) for p in map(passages, first))
            else:
                features = reader_features(q.text, [], []).vector()
            out.append(ProductRow(q, article_of[q.documents[0]] if q.documents else "", features,
                                  best is not None and best >= settings.min_relevance, texts))
            if progress and n % progress == progress - 1:
                print(f"  {n + 1}/{len(questions)} read ({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)
    return out


def shift(approx: np.ndarray, product: np.ndarray, names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Each feature's mean under the approximation and in the product, for the same kind of examples."""
    return {n: (round(float(approx[:, i].mean()), 3), round(float(product[:, i].mean()), 3))
            for i, n in enumerate(names)}
