"""``graphrag eval answers``: one panel of answer figures per question set, for every change.

Each question is asked through the product (``Asker.ask`` with default settings: retrieve, generate,
attribute, check support) against a store holding the set's documents, and scored against the set's
evidence:

- evidence in the context: the context holds the evidence (MuSiQue: the share of the gold supporting
  paragraphs that have a sentence in the context, as ``eval retrieval`` counts it); beside it the dense
  baseline: the same number of sentences, the most similar to the question by MiniLM;
- first citation inside the evidence / any citation inside it: the answer's first valid citation, and
  any of them, is a sentence inside the evidence;
- short answer in the answer: the gold short answer (or an alias) appears in the answer's text;
- citations per answer: distinct context items the answer cites; ask p50: the median time of one ask;
- MuSiQue also: anchored citations, bridge paragraph cited and cited through a route with a step, as
  ``lab.evaluate.retrieval`` defines them;
- sample corpus also: the expected sentence is the first quote, and a disagreement the question plants is
  said (read from the answer's ``disagreements`` field; "n/a" while answers carry none).

What "inside the evidence" means depends on the set: a gold paragraph's document (MuSiQue); most of
the cited sentence's words in the evidence paragraph, as the data README defines it (NQ articles, real
PDFs); the sentence written down for the question (sample corpus, ``sample_questions.json``).

Stores are kept per set in a folder (``--stores``) so a second run only re-reads unchanged documents.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from graphrag.answer.ask import Asker
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.load import load_graph
from graphrag.ingest.documents import Source
from graphrag.language.embed import top_k
from graphrag.model import Answer, AskSettings, RouteStart, Span, Support
from graphrag.store import Store
from graphrag.verify.support.base import SupportQuery
from lab import lab_config
from lab.evaluate.abstention import (
    AbstainQuestion,
    nq_abstention,
    run_abstention,
    sample_abstention,
    squad_abstention,
)
from lab.evaluate.matching import cited_items, clean_short_answer, contains_any, inside, same_sentence
from lab.evaluate.retrieval import bridge_documents, load_questions, named_keys

SAMPLE_QUESTIONS = Path(__file__).with_name("sample_questions.json")

# --- question sets ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PanelQuestion:
    """A question and what counts as its evidence. ``evidence`` holds paragraphs (kind "paragraph") or
    sentences (kind "sentence"); ``gold`` holds document ids (kind "document")."""

    text: str
    kind: str  # "document", "paragraph" or "sentence"
    evidence: tuple[str, ...] = ()
    document: str | None = None  # the evidence's document, when the set names it
    gold: frozenset[str] = frozenset()
    answers: tuple[str, ...] = ()  # short answer and aliases
    disagree: tuple[str, ...] = ()  # sentences a disagreement must name (sample corpus)

    def holds(self, span: Span) -> bool:
        """``span`` is inside this question's evidence."""
        if self.kind == "document":
            return span.document_id in self.gold
        if self.document is not None and span.document_id != self.document:
            return False
        if self.kind == "paragraph":
            return any(inside(span.text, e) for e in self.evidence)
        return any(same_sentence(span.text, e) for e in self.evidence)

    def coverage(self, spans: Sequence[Span]) -> float:
        """How much of the evidence ``spans`` hold: the share of gold documents (kind "document"), else 1.0
        when one span is inside the evidence."""
        if self.kind == "document":
            return len({s.document_id for s in spans} & self.gold) / len(self.gold) if self.gold else 0.0
        return float(any(self.holds(s) for s in spans))


@dataclass
class QuestionSet:
    """A named set: how to fill its store, and its questions."""

    name: str
    ingest: Callable[[Store], None]
    questions: list[PanelQuestion]
    musique: bool = False
    sample: bool = False
    # Questions for the abstention figures (``lab.evaluate.abstention``), asked in the same store.
    abstain: list[AbstainQuestion] = field(default_factory=list)


def musique_set(questions: Path, corpus: Path) -> QuestionSet:
    """MuSiQue questions over their paragraphs corpus."""
    from lab.evaluate.retrieval import ingest_corpus

    qs = [PanelQuestion(q.text, "document", gold=q.gold, answers=q.answers) for q in load_questions(questions, corpus)]
    return QuestionSet("musique", lambda store: ingest_corpus(store, corpus, sys.stderr), qs, musique=True)


def nq_articles_set(path: Path) -> QuestionSet:
    """Single-article questions (``nq_articles_dev.json``): documents and questions with evidence paragraphs."""
    data = json.loads(path.read_text(encoding="utf-8"))
    sources = [Source(d["id"], d["title"], d["text"], path=f"{path}#{d['id']}") for d in data["documents"]]
    qs = [PanelQuestion(q["question"], "paragraph", (q["evidence"],), q["document"],
                        answers=tuple(a for a in (clean_short_answer(q.get("short_answer") or ""),) if a))
          for q in data["questions"]]
    return QuestionSet("nq_articles", lambda store: _ingest_sources(store, sources), qs)


def pdfs_set(folder: Path) -> QuestionSet:
    """The real PDFs of ``folder`` and its ``nq_questions.jsonl`` (document = the PDF's name)."""
    rows = [json.loads(line) for line in (folder / "nq_questions.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    qs = [PanelQuestion(r["question"], "paragraph", (r["long_answer"],), r["doc_name"],
                        answers=tuple(a for a in (clean_short_answer(r.get("short_answer") or ""),) if a))
          for r in rows]
    return QuestionSet("real_pdfs", lambda store: _ingest_paths(store, sorted(folder.glob("*.pdf"))), qs)


def sample_set(folder: Path, questions: Path = SAMPLE_QUESTIONS) -> QuestionSet:
    """The sample corpus (with its manifest) and the questions written down for it."""
    rows = json.loads(questions.read_text(encoding="utf-8"))
    # Questions the corpus does not answer ("answerable": false) count only in the abstention figures.
    qs = [PanelQuestion(r["question"], "sentence", tuple(_listed(r["expected"])), answers=tuple(_listed(
        r.get("short_answer", []))), disagree=tuple(r.get("disagree", ()))) for r in rows if r.get("answerable", True)]
    return QuestionSet("sample_corpus", lambda store: _ingest_paths(store, [folder]), qs, sample=True,
                       abstain=sample_abstention(rows))


def abstention_set(name: str, path: Path) -> QuestionSet:
    """An abstention-only set: NQ dev split into paragraphs (``nq_abstention``) or the held-out SQuAD article
    (``squad_abstention``), each a store of its own."""
    if name == "nq_abstention":
        from graphrag.language.embed import get_embedder

        sources, qs = nq_abstention(path, lambda texts: get_embedder(lab_config()).encode(texts))
    else:
        sources, qs = squad_abstention(path)
    return QuestionSet(name, lambda store: _ingest_sources(store, sources), [], abstain=qs)


def _listed(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _ingest_sources(store: Store, sources: Sequence[Source]) -> None:
    from graphrag.ingest.extract import make_extractor
    from graphrag.ingest.pipeline import Ingestor

    Ingestor(store, make_extractor("rules"), config=lab_config()).ingest(sources)


def _ingest_paths(store: Store, paths: Sequence[Path]) -> None:
    from graphrag.ingest.extract import make_extractor
    from graphrag.ingest.pipeline import Ingestor

    Ingestor(store, make_extractor("rules"), config=lab_config()).ingest_paths(paths)


# --- the panel ----------------------------------------------------------------------------------


class NoChecker:
    """A support checker that scores nothing: ``--no-check`` leaves the checker's time out of the panel."""

    name = "none"
    threshold = 1.0

    def check(self, queries: Sequence[SupportQuery]) -> list[Support | None]:
        """Nothing scored: every citation stays "not checked"."""
        return [None] * len(queries)


def disagreement_texts(answer: Answer) -> list[str] | None:
    """Every text the answer's disagreement field holds (strings anywhere inside it), or None when answers
    carry no such field."""
    names = [n for n in ("disagreements", "disagreement", "conflicts") if hasattr(answer, n)]
    return list(_strings(getattr(answer, names[0]))) if names else None


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _strings(getattr(value, f.name))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _strings(v)


@dataclass
class _Tally:
    """Per-question outcomes of one set."""

    in_context: list[float] = field(default_factory=list)
    dense_in_context: list[float] = field(default_factory=list)
    first_in: list[bool] = field(default_factory=list)
    any_in: list[bool] = field(default_factory=list)
    short: list[bool] = field(default_factory=list)
    cites: list[int] = field(default_factory=list)
    claims: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    anchored: list[bool] = field(default_factory=list)
    bridge_questions: int = 0
    bridge_cited: int = 0
    bridge_routed: int = 0
    disagree_asked: int = 0
    disagree_said: int = 0
    disagree_false: int = 0
    disagree_field: bool = False
    rows: list[dict[str, Any]] = field(default_factory=list)


def _mean(xs: Sequence[float | bool]) -> float | None:
    return round(float(np.mean(xs)), 4) if len(xs) else None


class _Dense:
    """The dense baseline: the sentences most similar to the question, as many as the context holds."""

    def __init__(self, store: Store, graph: KnowledgeGraph, settings: AskSettings) -> None:
        self.store, self.graph = store, graph
        visible_docs, _ = graph.visibility(settings.access)
        self.row_visible = visible_docs[graph.sentence_doc]

    def spans(self, qvec: np.ndarray, n: int) -> list[Span]:
        g = self.graph
        out = []
        for row, _ in top_k(g.sentence_vectors, qvec, max(n, 1), self.row_visible)[:n]:
            d = g.docs[int(g.sentence_doc[row])]
            span = self.store.span(d.id, d.version, int(g.sentence_idx[row]))
            if span is not None:
                out.append(span)
        return out


def score_answer(q: PanelQuestion, answer: Answer, dense: Sequence[Span], tally: _Tally) -> dict[str, Any]:
    """Add one answer's outcomes to ``tally``; returns its row for the JSON detail."""
    cited = cited_items(answer)
    spans = [c.span for c in answer.context]
    in_context, dense_in_context = q.coverage(spans), q.coverage(dense)
    tally.in_context.append(in_context)
    tally.dense_in_context.append(dense_in_context)
    first = bool(cited) and q.holds(cited[0].span)
    tally.first_in.append(first)
    anywhere = any(q.holds(c.span) for c in cited)
    tally.any_in.append(anywhere)
    if q.answers:
        tally.short.append(contains_any(answer.text, q.answers))
    tally.cites.append(len(cited))
    tally.claims.append(len(answer.claims))
    row: dict[str, Any] = {"question": q.text, "first_citation_inside": first, "any_citation_inside": anywhere,
                           "citations": len(cited), "claims": len(answer.claims), "evidence_in_context": in_context,
                           "dense_evidence_in_context": dense_in_context,
                           "first_quote": cited[0].span.text if cited else None}
    said = disagreement_texts(answer)
    if said is not None:
        tally.disagree_field = True
        if q.disagree:
            tally.disagree_asked += 1
            ok = all(any(same_sentence(t, d) or contains_any(t, [d]) for t in said) for d in q.disagree)
            tally.disagree_said += ok
            row["disagreement_said"] = ok
        elif said:
            tally.disagree_false += 1
    elif q.disagree:
        tally.disagree_asked += 1
    return row


def score_routes(graph: KnowledgeGraph, q: PanelQuestion, answer: Answer, tally: _Tally) -> None:
    """MuSiQue: anchored citations and bridge paragraphs, as ``eval retrieval`` counts them."""
    named = named_keys(graph, q.text)
    cited = cited_items(answer)
    tally.anchored.extend(c.route.start is RouteStart.QUESTION and c.route.seed in named for c in cited)
    bridges = bridge_documents(graph, named, q.gold)
    if bridges:
        tally.bridge_questions += 1
        on_bridge = [c for c in cited if c.span.document_id in bridges]
        tally.bridge_cited += bool(on_bridge)
        tally.bridge_routed += any(c.route.depth >= 1 and c.via != "similarity" for c in on_bridge)


def run_set(qset: QuestionSet, store: Store, settings: AskSettings, check: bool = True,
            limit: int | None = None, detail: bool = False) -> dict[str, Any]:
    """Ask every question of ``qset`` against ``store`` (already filled) and return its panel; with the abstention
    figures when the set has questions for them."""
    questions = qset.questions[:limit]
    asker = Asker(store, checker=None if check else NoChecker(), config=lab_config()).warm()
    if not questions:
        return {"abstention": run_abstention(qset.abstain[:limit], asker, settings, detail)}
    graph = load_graph(store)
    dense = _Dense(store, graph, settings)
    qvecs = asker.embedder.encode([q.text for q in questions])
    if questions:  # warm up: the first ask loads models, which a user pays once per process
        asker.ask(questions[0].text, settings)
    tally = _Tally()
    for q, qv in zip(questions, qvecs):
        t0 = time.perf_counter()
        answer = asker.ask(q.text, settings).answer
        tally.seconds.append(time.perf_counter() - t0)
        tally.rows.append(score_answer(q, answer, dense.spans(qv, len(answer.context)), tally))
        if qset.musique:
            score_routes(graph, q, answer, tally)
    out = summarise(qset, tally, check)
    if qset.abstain:
        out["abstention"] = run_abstention(qset.abstain[:limit], asker, settings, detail)
    return out


def summarise(qset: QuestionSet, t: _Tally, check: bool) -> dict[str, Any]:
    """The panel's figures of one set."""
    out: dict[str, Any] = {
        "questions": len(t.in_context),
        "evidence_in_context": _mean(t.in_context),
        "dense_evidence_in_context": _mean(t.dense_in_context),
        "first_citation_inside_evidence": _mean(t.first_in),
        "any_citation_inside_evidence": _mean(t.any_in),
        "short_answer_in_answer": _mean(t.short),
        "citations_per_answer": round(float(np.mean(t.cites)), 2) if t.cites else None,
        # what a reader checks: each claim is a sentence of the answer with its own citations
        "claims_per_answer": round(float(np.mean(t.claims)), 2) if t.claims else None,
        "ask_p50_ms": round(statistics.median(t.seconds) * 1000) if t.seconds else None,
        "support_checked": check,
    }
    if qset.musique:
        out.update({"citations_anchored": _mean(t.anchored), "questions_with_bridge": t.bridge_questions,
                    "bridge_cited": _share(t.bridge_cited, t.bridge_questions),
                    "bridge_through_step": _share(t.bridge_routed, t.bridge_questions)})
    if not qset.sample and t.disagree_field:  # no set but the sample corpus plants a disagreement
        out["answers_saying_sources_disagree"] = t.disagree_false
    if qset.sample:
        out.update({"expected_first_quote": out["first_citation_inside_evidence"],
                    "disagreements_planted": t.disagree_asked,
                    "disagreement_said": _share(t.disagree_said, t.disagree_asked) if t.disagree_field else "n/a",
                    "disagreement_said_where_none": t.disagree_false if t.disagree_field else "n/a"})
    out["detail"] = t.rows
    return out


def _share(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


# --- command ------------------------------------------------------------------------------------

SETS = ("musique", "nq_articles", "real_pdfs", "sample_corpus", "nq_abstention", "squad_abstention")


def build_sets(data: Path, sample_corpus: Path, wanted: Sequence[str], out: TextIO,
               sample_questions: Path = SAMPLE_QUESTIONS) -> list[QuestionSet]:
    """The wanted sets whose files exist; a message for each one skipped."""
    found: list[QuestionSet] = []
    paths = {"musique": [data / "musique_train100.json", data / "musique_train_corpus.json"],
             "nq_articles": [data / "nq_articles_dev.json"],
             "real_pdfs": [data / "documents" / "nq_questions.jsonl"],
             "sample_corpus": [sample_corpus / "manifest.toml", sample_questions],
             "nq_abstention": [data / "nq_articles_dev.json"],
             "squad_abstention": [data / "squad2_train_part.json"]}
    for name in wanted:
        missing = [p for p in paths[name] if not p.is_file()]
        if missing:
            print(f"skipped {name}: no {missing[0]}", file=out)
            continue
        if name == "musique":
            found.append(musique_set(*paths[name]))
        elif name == "nq_articles":
            found.append(nq_articles_set(paths[name][0]))
        elif name == "real_pdfs":
            found.append(pdfs_set(data / "documents"))
        elif name in ("nq_abstention", "squad_abstention"):
            found.append(abstention_set(name, paths[name][0]))
        else:
            found.append(sample_set(sample_corpus, sample_questions))
    return found


def cli_eval_answers(data: str, sample_corpus: str, stores: str, wanted: Sequence[str] = SETS,
                     as_json: bool = False, limit: int | None = None, check: bool = True, detail: bool = False,
                     settings: AskSettings = AskSettings(), out: TextIO = sys.stdout,
                     sample_questions: str | Path = SAMPLE_QUESTIONS) -> int:
    """``graphrag eval answers``: fill (or reuse) each set's store, ask its questions, print the panel."""
    folder = Path(stores)
    folder.mkdir(parents=True, exist_ok=True)
    panel: dict[str, Any] = {}
    for qset in build_sets(Path(data), Path(sample_corpus), wanted, sys.stderr, Path(sample_questions)):
        with Store(folder / f"{qset.name}.db") as store:
            t0 = time.perf_counter()
            qset.ingest(store)
            print(f"{qset.name}: store ready in {time.perf_counter() - t0:.0f} s, asking {len(qset.questions)} "
                  f"questions", file=sys.stderr, flush=True)
            panel[qset.name] = run_set(qset, store, settings, check=check, limit=limit, detail=detail)
        if not detail:
            panel[qset.name].pop("detail", None)
    if as_json:
        print(json.dumps(panel, indent=2, ensure_ascii=False), file=out)
    else:
        print(format_panel(panel), file=out)
    return 0


ROWS = [
    ("questions", "questions"),
    ("evidence in the context", "evidence_in_context"),
    ("  dense baseline", "dense_evidence_in_context"),
    ("first citation inside the evidence", "first_citation_inside_evidence"),
    ("any citation inside the evidence", "any_citation_inside_evidence"),
    ("short answer in the answer", "short_answer_in_answer"),
    ("citations per answer", "citations_per_answer"),
    ("claims per answer", "claims_per_answer"),
    ("ask p50 (ms)", "ask_p50_ms"),
    ("anchored citations", "citations_anchored"),
    ("bridge paragraph cited", "bridge_cited"),
    ("bridge cited through a step", "bridge_through_step"),
    ("disagreement said", "disagreement_said"),
    ("disagreement said where none", "disagreement_said_where_none"),
    ("answerable answered", "abstention.answerable_answered"),
    ("answerable answered right", "abstention.answerable_answered_right"),
    ("over-refusal", "abstention.over_refusal"),
    ("in-domain unanswerable abstained", "abstention.in_domain_abstained"),
    ("absent topic abstained", "abstention.absent_abstained"),
    ("near miss abstained", "abstention.near_miss_abstained"),
    ("  saying what the documents lack", "abstention.abstained_saying_what_lacks"),
    ("AUROC of the no-answer score", "abstention.auroc_no_answer_score"),
    ("  against in-domain only", "abstention.auroc_by_kind.in_domain"),
    ("  against absent only", "abstention.auroc_by_kind.absent"),
    ("  against near misses only", "abstention.auroc_by_kind.near_miss"),
    ("coverage (share answered)", "abstention.coverage"),
    ("risk (answered and wrong)", "abstention.risk"),
    ("area under risk-coverage", "abstention.risk_coverage_area"),
    ("truthfulness (+1/0/-1)", "abstention.truthfulness"),
]


def format_panel(panel: dict[str, dict[str, Any]]) -> str:
    """The panel as a table: one row per measure, one column per set ("-" where a measure does not apply)."""
    names = list(panel)
    width = max(len(label) for label, _ in ROWS)
    lines = [" " * width + "".join(f"  {n:>17}" for n in names)]
    for label, key in ROWS:
        cells = [_cell(_get(panel[n], key)) for n in names]
        if any(c != "-" for c in cells):
            lines.append(f"{label:<{width}}" + "".join(f"  {c:>17}" for c in cells))
    return "\n".join(lines)


def _get(figures: dict[str, Any], key: str) -> object:
    """A figure by its dotted key ("abstention.over_refusal")."""
    value: object = figures
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict) and "share" in value:  # a share with its Wilson interval
        lo_hi = value.get("wilson95")
        return "-" if value["share"] is None else (f"{value['share']:.2f} [{lo_hi[0]:.2f},{lo_hi[1]:.2f}]"
                                                   if lo_hi else f"{value['share']:.2f}")
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
