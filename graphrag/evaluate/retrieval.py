"""Retrieval evaluation on multi-hop questions (MuSiQue format).

For each question: did the context items (graph retrieval, no generation) include at least
one sentence of each gold supporting paragraph? Printed beside a plain dense baseline with
the same number of items: the top sentences by MiniLM similarity to the question.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

import numpy as np

from graphrag.documents import corpus_doc_id, read_corpus_json
from graphrag.embed import get_embedder, top_k
from graphrag.graph import load_graph
from graphrag.model import AskSettings
from graphrag.retrieve import diverse, retrieve_vector
from graphrag.store import Store


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    gold: frozenset[str]  # document ids of the supporting paragraphs


def load_questions(path: str | Path, corpus_path: str | Path) -> list[Question]:
    """MuSiQue questions, their supporting paragraphs mapped to corpus document ids."""
    corpus = json.loads(Path(corpus_path).read_text(encoding="utf-8"))
    by_content = {(c["title"], c["text"].strip()): corpus_doc_id(i, c["title"]) for i, c in enumerate(corpus)}
    out = []
    for q in json.loads(Path(path).read_text(encoding="utf-8")):
        gold = set()
        for p in q["paragraphs"]:
            if p.get("is_supporting"):
                doc = by_content.get((p["title"], p["paragraph_text"].strip()))
                if doc is None:
                    raise ValueError(f"question {q['id']}: a supporting paragraph ({p['title']!r}) is not in the corpus")
                gold.add(doc)
        out.append(Question(q["id"], q["question"], frozenset(gold)))
    return out


def ingest_corpus(store: Store, corpus_path: str | Path, out: TextIO) -> None:
    from graphrag.extract import make_extractor
    from graphrag.ingest import Ingestor

    items = read_corpus_json(Path(corpus_path))
    t0 = time.perf_counter()

    def progress(p):  # type: ignore[no-untyped-def]
        if p.done % 200 == 0 or p.done == p.total:
            print(f"ingest {p.done}/{p.total} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)

    Ingestor(store, make_extractor("rules")).ingest(items, progress)


def recall(found: set[str], gold: frozenset[str]) -> float:
    return len(found & gold) / len(gold) if gold else 0.0


def evaluate(store: Store, questions: Sequence[Question], settings: AskSettings) -> dict[str, object]:
    graph = load_graph(store)
    embedder = get_embedder()
    qvecs = embedder.encode([q.text for q in questions])
    visible_docs, _ = graph.visibility(settings.access)
    row_visible = visible_docs[graph.sentence_doc]
    graph_r, dense_r, spread_r, sizes, via_graph, best = [], [], [], [], [], []
    for q, qv in zip(questions, qvecs):
        got = retrieve_vector(store, graph, qv, settings)
        found = {c.span.document_id for c in got.context}
        graph_r.append(recall(found, q.gold))
        sizes.append(len(got.context))
        via_graph.extend(c.via != "similarity" for c in got.context)
        best.append(max((c.score for c in got.context), default=0.0))
        # the baseline gets exactly as many sentences as the graph gave
        n = max(len(got.context), 1)
        rows = np.array([i for i, _ in top_k(graph.sentence_vectors, qv, n * 8, row_visible)], dtype=np.int64)
        dense_r.append(recall({graph.docs[int(graph.sentence_doc[r])].id for r in rows[:n]}, q.gold))
        # the same baseline with the context's spread across documents, to show what the graph adds
        spread = diverse(rows, graph.sentence_doc, n) if len(rows) else []
        spread_r.append(recall({graph.docs[int(graph.sentence_doc[r])].id for r in spread}, q.gold))
    g, d = float(np.mean(graph_r)), float(np.mean(dense_r))
    return {
        "n": len(questions),
        "recall": round(g, 4),
        "baseline_recall": round(d, 4),
        "difference": round(g - d, 4),
        "all_gold_found": round(float(np.mean([r == 1.0 for r in graph_r])), 4),
        "baseline_all_gold_found": round(float(np.mean([r == 1.0 for r in dense_r])), 4),
        "baseline_spread_recall": round(float(np.mean(spread_r)), 4),
        "mean_context_items": round(float(np.mean(sizes)), 2),
        "context_share_via_graph": round(float(np.mean(via_graph)), 4) if via_graph else 0.0,
        # Every question here is answerable from the corpus: one below the relevance floor is refused wrongly.
        "best_similarity_min": round(float(np.min(best)), 4) if best else 0.0,
        "best_similarity_median": round(float(np.median(best)), 4) if best else 0.0,
        "refused_below_min_relevance": int(sum(b < settings.min_relevance for b in best)),
        "settings": {"k": settings.k, "hops": settings.hops, "direction": settings.direction,
                     "max_context": settings.max_context, "min_relevance": settings.min_relevance},
    }


def off_topic(store: Store, questions: Sequence[Question], settings: AskSettings) -> dict[str, object]:
    """The same questions against documents that cannot answer them: each should be refused."""
    graph = load_graph(store)
    qvecs = get_embedder().encode([q.text for q in questions])
    best = [max((c.score for c in retrieve_vector(store, graph, qv, settings).context), default=0.0) for qv in qvecs]
    return {
        "n": len(best),
        "refused": int(sum(b < settings.min_relevance for b in best)),
        "best_similarity_median": round(float(np.median(best)), 4) if best else 0.0,
        "best_similarity_max": round(float(np.max(best)), 4) if best else 0.0,
    }


def cli_eval_retrieval(questions: str, corpus: str, as_json: bool = False, limit: int | None = None,
                       store_path: str | None = None, out: TextIO = sys.stdout,
                       settings: AskSettings = AskSettings(), off_topic_dir: str | None = None) -> int:
    for p in (questions, corpus):
        if not Path(p).is_file():
            print(f"error: no such file {p}", file=sys.stderr)
            return 2
    if off_topic_dir and not Path(off_topic_dir).is_dir():
        print(f"error: no such folder {off_topic_dir}", file=sys.stderr)
        return 2
    qs = load_questions(questions, corpus)[:limit]
    with tempfile.TemporaryDirectory() as tmp:
        with Store(store_path or Path(tmp) / "eval.db") as store:
            ingest_corpus(store, corpus, out)
            result = evaluate(store, qs, settings)
        if off_topic_dir:
            from graphrag.extract import make_extractor
            from graphrag.ingest import Ingestor

            with Store(Path(tmp) / "off-topic.db") as other:
                Ingestor(other, make_extractor("rules")).ingest_paths([Path(off_topic_dir)])
                # Every label: refusals must come from relevance, not from documents hidden by access.
                labels = tuple(sorted({lab for d in other.documents() for lab in d.access}))
                result["off_topic"] = {"folder": str(off_topic_dir),
                                       **off_topic(other, qs, replace(settings, access=labels))}
    if as_json:
        print(json.dumps(result, indent=2), file=out)
    else:
        print(f"questions: {result['n']}\n"
              f"supporting-paragraph recall, graph: {result['recall']:.3f}   dense baseline: "
              f"{result['baseline_recall']:.3f}   difference: {result['difference']:+.3f}\n"
              f"all gold paragraphs found, graph: {result['all_gold_found']:.3f}   dense baseline: "
              f"{result['baseline_all_gold_found']:.3f}\n"
              f"dense baseline spread across documents like the context: {result['baseline_spread_recall']:.3f}\n"
              f"mean context items: {result['mean_context_items']}, share reached through the graph: "
              f"{result['context_share_via_graph']:.3f}\n"
              f"best question-sentence similarity: min {result['best_similarity_min']:.3f}, median "
              f"{result['best_similarity_median']:.3f}; answerable questions refused by the "
              f"{settings.min_relevance} relevance floor: {result['refused_below_min_relevance']}", file=out)
        if "off_topic" in result:
            o = result["off_topic"]
            print(f"the same questions against {o['folder']} (cannot answer them): refused {o['refused']} of "
                  f"{o['n']}; best similarity median {o['best_similarity_median']:.3f}, max "
                  f"{o['best_similarity_max']:.3f}", file=out)
    return 0
