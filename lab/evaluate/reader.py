"""The reader's answer scorer alone, on the NQ dev panel::

    python -m lab.evaluate.reader --data ../shared/data --stores lab-output/stores [--json]

For each question of ``nq_articles_dev.json`` (31 articles, 319 questions; never used to train or tune the
scorer) the product retrieves as it does today with room for ``--candidates`` context sentences (fused
similarity, BM25 and graph routes), and the candidates are ordered three ways: by today's fused score, by the
scorer's probability, and by a blend of both (``--blend``: the scorer's weight, fixed beforehand, not tuned here).
For each order: the top sentence inside the evidence paragraph (as ``graphrag eval answers`` counts it), the
short answer in the top sentence, and both within the top three; and the ceiling (any candidate inside the
evidence). Also the scorer's time for one question's candidates (median and 90th percentile of the wall time,
median of the CPU time, over the first ``--timed`` questions) and the time ``load_scorer()`` takes in this process.

The store is the one ``graphrag eval answers`` builds (``<stores>/nq_articles.db``), reused when present.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.ask import Asker
from graphrag.answer.reader.scorer import AnswerScorer, OnnxAnswerScorer, Passage, load_scorer
from graphrag.model import AskSettings, ContextItem
from graphrag.store import Store
from lab import lab_config
from lab.evaluate.answers import PanelQuestion, nq_articles_set
from lab.evaluate.matching import contains_any

ORDERS = ("retrieval", "scorer", "blend")


@dataclass
class Counts:
    """Hits of one ordering over the questions."""

    top1_in: list[bool] = field(default_factory=list)
    top3_in: list[bool] = field(default_factory=list)
    short1: list[bool] = field(default_factory=list)
    short3: list[bool] = field(default_factory=list)

    def add(self, q: PanelQuestion, ranked: Sequence[ContextItem]) -> None:
        """Count one question's ordered candidates."""
        self.top1_in.append(bool(ranked) and q.holds(ranked[0].span))
        self.top3_in.append(any(q.holds(c.span) for c in ranked[:3]))
        if q.answers:
            self.short1.append(bool(ranked) and contains_any(ranked[0].span.text, q.answers))
            self.short3.append(any(contains_any(c.span.text, q.answers) for c in ranked[:3]))

    def figures(self) -> dict[str, float | None]:
        """The shares."""
        return {"top1_inside_evidence": share(self.top1_in), "top3_inside_evidence": share(self.top3_in),
                "short_answer_in_top1": share(self.short1), "short_answer_in_top3": share(self.short3)}


def share(xs: Sequence[bool]) -> float | None:
    """The share of True, rounded; None for no cases."""
    return round(sum(xs) / len(xs), 4) if xs else None


def passages(store: Store, titles: dict[tuple[str, int], str], items: Sequence[ContextItem]) -> list[Passage]:
    """Each candidate with its neighbours in its document version and its title."""
    out = []
    for c in items:
        s = c.span
        before = store.span(s.document_id, s.version, s.sentence_index - 1) if s.sentence_index > 0 else None
        after = store.span(s.document_id, s.version, s.sentence_index + 1)
        out.append(Passage(s.text, before.text if before else "", after.text if after else "",
                           titles.get((s.document_id, s.version), "")))
    return out


def minmax(x: np.ndarray) -> np.ndarray:
    """``x`` scaled to [0, 1] over one question's candidates (the fused score and the probability differ in range)."""
    spread = float(x.max() - x.min()) if len(x) else 0.0
    out: np.ndarray = (x - x.min()) / spread if spread > 0 else np.zeros_like(x)
    return out


def evaluate(store: Store, questions: Sequence[PanelQuestion], scorer: AnswerScorer, candidates: int,
             blend: float, timed: int, progress: Callable[[str], None]) -> dict[str, Any]:
    """The figures of the three orders over ``questions`` (the store already holds their articles)."""
    asker = Asker(store, config=lab_config())
    graph = asker.graph()
    titles = {(d.id, d.version): d.title for d in graph.docs}
    settings = AskSettings(max_context=candidates)
    counts = {name: Counts() for name in ORDERS}
    ceiling: list[bool] = []
    seconds: list[float] = []
    cpu: list[float] = []
    sizes: list[int] = []
    for k, q in enumerate(questions):
        found = asker.retrieve(q.text, settings)
        items = sorted(found.context, key=lambda c: (-c.score, c.n))[:candidates]
        sizes.append(len(items))
        ceiling.append(any(q.holds(c.span) for c in items))
        if not items:
            for name in ORDERS:
                counts[name].add(q, [])
            continue
        cands = passages(store, titles, items)
        t0, c0 = time.perf_counter(), time.process_time()
        p = scorer.score(q.text, cands)
        if k < timed:  # wall time, and this process's CPU time (what a loaded machine does not inflate)
            seconds.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        fused = np.asarray([c.score for c in items], dtype=np.float64)
        mixed = blend * minmax(p.astype(np.float64)) + (1 - blend) * minmax(fused)
        for name, key in (("retrieval", fused), ("scorer", p.astype(np.float64)), ("blend", mixed)):
            order = sorted(range(len(items)), key=lambda i: (-float(key[i]), i))
            counts[name].add(q, [items[i] for i in order])
        if (k + 1) % 50 == 0:
            progress(f"{k + 1}/{len(questions)} questions")
    return {
        "questions": len(questions), "candidates_asked": candidates,
        "candidates_median": statistics.median(sizes) if sizes else 0,
        "ceiling_any_candidate_inside_evidence": share(ceiling),
        "blend_scorer_weight": blend,
        **{name: counts[name].figures() for name in ORDERS},
        "scorer_ms_median": round(statistics.median(seconds) * 1000, 1) if seconds else None,
        "scorer_ms_p90": round(float(np.percentile(seconds, 90)) * 1000, 1) if seconds else None,
        "scorer_cpu_ms_median": round(statistics.median(cpu) * 1000, 1) if cpu else None,
        "timed_questions": len(seconds),
    }


def format_figures(fig: dict[str, Any]) -> str:
    """The figures as a small table."""
    rows = [f"NQ dev panel: {fig['questions']} questions, {fig['candidates_asked']} candidates asked "
            f"(median {fig['candidates_median']}); any candidate inside the evidence "
            f"{fig['ceiling_any_candidate_inside_evidence']}",
            f"{'order':<10} {'top1 in ev.':>12} {'top3 in ev.':>12} {'short top1':>11} {'short top3':>11}"]
    for name in ORDERS:
        f = fig[name]
        label = name if name != "blend" else f"blend {fig['blend_scorer_weight']}"
        rows.append(f"{label:<10} {f['top1_inside_evidence']:>12} {f['top3_inside_evidence']:>12} "
                    f"{f['short_answer_in_top1']:>11} {f['short_answer_in_top3']:>11}")
    rows.append(f"scorer: load {fig['load_seconds']} s; {fig['scorer_ms_median']} ms median, "
                f"{fig['scorer_ms_p90']} ms p90, {fig['scorer_cpu_ms_median']} ms CPU median per question "
                f"({fig['timed_questions']} questions)")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Load the scorer, fill (or reuse) the panel's store, print the figures."""
    parser = argparse.ArgumentParser(prog="python -m lab.evaluate.reader", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data", help="folder holding nq_articles_dev.json")
    parser.add_argument("--stores", default="lab-output/stores", help="folder of the panel's stores")
    parser.add_argument("--candidates", type=int, default=24)
    parser.add_argument("--blend", type=float, default=0.5, help="the scorer's weight in the blended order")
    parser.add_argument("--timed", type=int, default=50, help="questions whose scoring is timed")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--context-words", type=int, default=None,
                        help="neighbour words per passage at run time (default: the trained setting)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    path = Path(args.data) / "nq_articles_dev.json"
    if not path.is_file():
        print(f"no {path}: pass --data", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    scorer = load_scorer()
    load_s = time.perf_counter() - t0
    if scorer is None:
        print("the reader's weights are not installed: build them with `python -m lab.fit_reader`", file=sys.stderr)
        return 2
    if args.context_words is not None and isinstance(scorer, OnnxAnswerScorer):
        scorer.config = dataclasses.replace(scorer.config, context_words=args.context_words)
    qset = nq_articles_set(path)
    folder = Path(args.stores)
    folder.mkdir(parents=True, exist_ok=True)
    with Store(folder / f"{qset.name}.db") as store:
        qset.ingest(store)
        progress(f"store ready; scoring {len(qset.questions[:args.limit])} questions")
        fig = evaluate(store, qset.questions[:args.limit], scorer, args.candidates, args.blend, args.timed, progress)
    fig["load_seconds"] = round(load_s, 2)
    if isinstance(scorer, OnnxAnswerScorer):
        fig["context_words"] = scorer.config.context_words
    print(json.dumps(fig, indent=2) if args.json else format_figures(fig))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
