"""Retrieval evaluation on multi-hop questions (MuSiQue format).

For each question: did the context items include at least one sentence of each gold
supporting paragraph? Printed beside a plain dense baseline with the same number of items:
the top sentences by MiniLM similarity to the question. Then the embedded (extractive) answer
is written and attributed, without the support check, to measure its citations' routes:

- anchored: the share of citations whose route starts at an entity the question names,
  measured independently of the product's anchor finder: the question's named entities,
  noun chunks and proper nouns (spaCy), normalised, that are entity keys of the graph;
- bridge paragraphs: gold paragraphs that mention none of those entities (reachable only
  through another entity); of the questions that have one, how many answers cite one, and
  how many cite one through a route with at least one step (relation or co-mention);
- the route depth of every citation, and whether the answer contains the gold answer or
  one of its aliases (case-insensitive).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from graphrag.answer.generate.extractive import ExtractiveGenerator
from graphrag.answer.retrieval.anchors import find_anchors
from graphrag.answer.retrieval.context import diverse
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.load import load_graph
from graphrag.answer.retrieval.retrieve import retrieve_vector
from graphrag.ingest.documents import corpus_doc_id, read_corpus_json
from graphrag.language.embed import get_embedder, top_k
from graphrag.language.sentences import normalise
from graphrag.model import AskSettings, Progress, RouteStart
from graphrag.store import Store
from graphrag.verify.attribution import attribute
from lab import lab_config


@dataclass(frozen=True)
class Question:
    """A benchmark question with the documents that support its answer."""

    id: str
    text: str
    gold: frozenset[str]  # document ids of the supporting paragraphs
    answers: tuple[str, ...] = ()  # the gold answer and its aliases


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
        answers = tuple(a for a in (q.get("answer"), *q.get("answer_aliases", ())) if a)
        out.append(Question(q["id"], q["question"], frozenset(gold), answers))
    return out


def ingest_corpus(store: Store, corpus_path: str | Path, out: TextIO) -> None:
    """Ingest a corpus of paragraphs into ``store`` with the rules extractor, printing how long it took."""
    from graphrag.ingest.extract import make_extractor
    from graphrag.ingest.pipeline import Ingestor

    items = read_corpus_json(Path(corpus_path))
    t0 = time.perf_counter()

    def progress(p: Progress) -> None:
        if p.done % 200 == 0 or p.done == p.total:
            print(f"ingest {p.done}/{p.total} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)

    Ingestor(store, make_extractor("rules"), config=lab_config()).ingest(items, progress)


def recall(found: set[str], gold: frozenset[str]) -> float:
    """Share of the gold documents found; 0 when there are none."""
    return len(found & gold) / len(gold) if gold else 0.0


def named_keys(graph: KnowledgeGraph, question: str) -> set[str]:
    """The yardstick for "an entity the question names": its named entities, noun chunks and
    proper nouns (single and runs), normalised, that are entity keys of the graph."""
    from graphrag.ingest.extract.rules import load_spacy

    doc = load_spacy()(question)
    texts = [e.text for e in doc.ents] + [c.text for c in doc.noun_chunks]
    run: list[str] = []
    for tok in [*doc, None]:
        if tok is not None and tok.pos_ == "PROPN":
            texts.append(tok.text)
            run.append(tok.text)
        elif run:
            texts.append(" ".join(run))
            run = []
    return {k for t in texts if (k := normalise(t)) in graph.index}


def bridge_documents(graph: KnowledgeGraph, named: set[str], gold: frozenset[str]) -> frozenset[str]:
    """The gold paragraphs that mention none of the ``named`` entities: reachable only through another one."""
    naming_docs = {graph.docs[int(graph.sentence_doc[r])].id for k in named
                   for r in graph.mention_rows(graph.index[k]).tolist()}
    return gold - naming_docs


def _contains_answer(text: str, answers: Sequence[str]) -> bool:
    low = " ".join(text.lower().split())
    return any(" ".join(a.lower().split()) in low for a in answers)


def evaluate(store: Store, questions: Sequence[Question], settings: AskSettings) -> dict[str, Any]:
    """Figures of ``questions`` against ``store``: recall of the gold documents against a dense-retrieval
    baseline, how citations were reached, whether answers contain the gold answer."""
    graph = load_graph(store)
    embedder = get_embedder(lab_config())
    qvecs = embedder.encode([q.text for q in questions])
    visible_docs, visible_entities = graph.visibility(settings.access)
    row_visible = visible_docs[graph.sentence_doc]
    generator = ExtractiveGenerator().for_graph(graph)
    graph_r: list[float] = []
    dense_r: list[float] = []
    spread_r: list[float] = []
    sizes: list[int] = []
    via_graph: list[bool] = []
    best: list[float] = []
    cited_anchored: list[bool] = []
    depths: Counter[int] = Counter()
    bridge_questions = bridge_cited = bridge_routed = bridge_in_context = 0
    cited_from_linker: list[bool] = []
    has_answer: list[bool] = []
    from_question = 0
    for q, qv in zip(questions, qvecs):
        anchors = find_anchors(graph, q.text, visible_entities, embedder)
        got = retrieve_vector(store, graph, qv, settings, anchors)
        from_question += got.seeding is RouteStart.QUESTION
        found = {c.span.document_id for c in got.context}
        answer = generator.generate(q.text, got.context).text
        if q.answers:
            has_answer.append(_contains_answer(answer, q.answers))
        named = named_keys(graph, q.text)
        citations = [c.item for cl in attribute(answer, got.context) for c in cl.citations
                     if c.valid and c.item is not None]
        for item in citations:
            cited_anchored.append(item.route.start is RouteStart.QUESTION and item.route.seed in named)
            cited_from_linker.append(item.route.start is RouteStart.QUESTION and item.via != "similarity")
            depths[item.route.depth] += 1
        bridges = bridge_documents(graph, named, q.gold)
        if bridges:
            bridge_questions += 1
            bridge_in_context += bool(bridges & found)
            cited = [i for i in citations if i.span.document_id in bridges]
            bridge_cited += bool(cited)
            bridge_routed += any(i.route.depth >= 1 and i.via != "similarity" for i in cited)
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
        "baseline_spread_difference": round(g - float(np.mean(spread_r)), 4),
        "questions_anchored": from_question,
        "citations": len(cited_anchored),
        "citations_anchored": round(float(np.mean(cited_anchored)), 4) if cited_anchored else 0.0,
        # The same with this product's own anchor finder (names, aliases, name similarity).
        "citations_from_question_anchors": round(float(np.mean(cited_from_linker)), 4) if cited_from_linker else 0.0,
        "citation_route_depths": {str(d): depths[d] for d in sorted(depths)},
        "questions_with_bridge_paragraph": bridge_questions,
        "bridge_paragraph_in_context": bridge_in_context,
        "bridge_paragraph_cited": bridge_cited,
        "bridge_paragraph_cited_through_route": bridge_routed,
        "answer_contains_gold": round(float(np.mean(has_answer)), 4) if has_answer else 0.0,
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
    qvecs = get_embedder(lab_config()).encode([q.text for q in questions])
    best = [max((c.score for c in retrieve_vector(store, graph, qv, settings).context), default=0.0) for qv in qvecs]
    return {
        "n": len(best),
        "refused": int(sum(b < settings.min_relevance for b in best)),
        "best_similarity_median": round(float(np.median(best)), 4) if best else 0.0,
        "best_similarity_max": round(float(np.max(best)), 4) if best else 0.0,
    }


def cli_eval_retrieval(questions: str, corpus: str, as_json: bool = False, limit: int | None = None,
                       store_path: str | Path | None = None, out: TextIO = sys.stdout,
                       settings: AskSettings = AskSettings(), off_topic_dir: str | None = None) -> int:
    """``graphrag eval retrieval``: ingest the corpus, ask the questions and print the figures (or JSON); 2
    when an input is missing."""
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
            from graphrag.ingest.extract import make_extractor
            from graphrag.ingest.pipeline import Ingestor

            with Store(Path(tmp) / "off-topic.db") as other:
                Ingestor(other, make_extractor("rules"), config=lab_config()).ingest_paths([Path(off_topic_dir)])
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
              f"dense baseline spread across documents like the context: {result['baseline_spread_recall']:.3f}   "
              f"graph minus spread: {result['baseline_spread_difference']:+.3f}\n"
              f"questions whose routes start at entities the question names: {result['questions_anchored']} of "
              f"{result['n']} (the rest start from similarity)\n"
              f"citations whose route starts at an entity the question names: {result['citations_anchored']:.3f} "
              f"of {result['citations']} (from the anchors this product's linker found: "
              f"{result['citations_from_question_anchors']:.3f})\n"
              f"route depth of citations (steps: count): "
              f"{', '.join(f'{d}: {c}' for d, c in result['citation_route_depths'].items())}\n"
              f"questions with a bridge paragraph: {result['questions_with_bridge_paragraph']}; in the context: "
              f"{result['bridge_paragraph_in_context']}; answer cites it: "
              f"{result['bridge_paragraph_cited']}; through a route with a step: "
              f"{result['bridge_paragraph_cited_through_route']}\n"
              f"extractive answer contains the gold answer (or an alias): {result['answer_contains_gold']:.3f}\n"
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
