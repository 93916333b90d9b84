"""Abstention figures for ``graphrag eval answers``: does the product say "the documents do not say" when, and
only when, they do not?

Each question is asked through the product (``Asker.ask``) and falls in one kind:

- ``answerable``: its documents answer it (NQ dev: the question scoped to its own article's paragraphs; the
  sample corpus's written-down questions; SQuAD's answerable questions of the held-out article);
- ``in_domain``: same topic, the fact is missing (NQ dev: scoped to its article without the evidence paragraph,
  nor any paragraph holding the short answer; the sample corpus's questions marked so);
- ``absent``: the topic is not in the documents (NQ dev: scoped to the most similar other article);
- ``near_miss``: written to look answerable from the passage that does not answer it (SQuAD 2.0's
  is_impossible questions of the article ``lab/fit_abstain.py`` keeps out of its fit).

Reported side by side at the one shipped threshold: answerable answered and answered right, over-refusal
(answerable abstained), each unanswerable kind abstained, the AUROC of the reader's probability (answerable
against unanswerable), and a truthfulness score (right +1, abstained 0, wrong -1: answering an unanswerable
question is wrong). Every share carries its Wilson 95% interval.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.answer.ask import Asker
from graphrag.answer.generate.abstention import SAYS
from graphrag.ingest.documents import Source
from graphrag.model import Answer, AskSettings, Span

UNANSWERABLE = ("in_domain", "absent", "near_miss")


@dataclass(frozen=True)
class AbstainQuestion:
    """A question, its kind, the documents it is asked within (empty: all) and what makes an answer right."""

    text: str
    kind: str
    documents: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()  # short answer and aliases
    evidence: tuple[str, ...] = ()  # paragraphs (or sentences) holding the answer

    @property
    def answerable(self) -> bool:
        """Whether the documents it is asked within answer it."""
        return self.kind == "answerable"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval (95%) of the share ``k / n``."""
    if n == 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)


def share(k: int, n: int) -> dict[str, Any]:
    """A share with its count and Wilson interval."""
    return {"share": round(k / n, 4) if n else None, "k": k, "n": n, "wilson95": wilson(k, n)}


def auroc(positive: Sequence[float], negative: Sequence[float]) -> float | None:
    """The probability that an answerable question's score is above an unanswerable one's (ties count half)."""
    if not positive or not negative:
        return None
    pos, neg = np.array(positive)[:, None], np.array(negative)[None, :]
    return round(float(np.mean((pos > neg) + 0.5 * (pos == neg))), 4)


def _right(q: AbstainQuestion, answer: Answer) -> bool:
    """An answerable question answered right: its short answer is in the text, else a citation (the first one)
    lies inside its evidence."""
    from lab.evaluate.matching import cited_items, contains_any, inside, same_sentence

    if q.answers:
        return contains_any(answer.text, q.answers)
    cited = cited_items(answer)
    span: Span | None = cited[0].span if cited else None
    return span is not None and any(inside(span.text, e) or same_sentence(span.text, e) for e in q.evidence)


def run_abstention(questions: Sequence[AbstainQuestion], asker: Asker, settings: AskSettings,
                   detail: bool = False) -> dict[str, Any]:
    """Ask each question (within its documents) and return the abstention panel."""
    from dataclasses import replace

    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    for q in questions:
        t0 = time.perf_counter()
        answer = asker.ask(q.text, replace(settings, documents=q.documents)).answer
        seconds.append(time.perf_counter() - t0)
        right = answer.answered and q.answerable and _right(q, answer)
        rows.append({"question": q.text, "kind": q.kind, "answered": answer.answered, "right": right,
                     "probability": answer.answerable, "answer": answer.text[:200],
                     "says_what_lacks": not answer.answered and answer.text.startswith(SAYS)})
    return summarise_abstention(rows, seconds, detail)


def summarise_abstention(rows: Sequence[dict[str, Any]], seconds: Sequence[float] = (),
                         detail: bool = False) -> dict[str, Any]:
    """The figures of a list of outcome rows (``kind``, ``answered``, ``right``, ``probability``)."""
    out: dict[str, Any] = {}
    ans = [r for r in rows if r["kind"] == "answerable"]
    if ans:
        out["answerable_answered"] = share(sum(r["answered"] for r in ans), len(ans))
        out["answerable_answered_right"] = share(sum(r["right"] for r in ans), len(ans))
        out["over_refusal"] = share(sum(not r["answered"] for r in ans), len(ans))
    for kind in UNANSWERABLE:
        rs = [r for r in rows if r["kind"] == kind]
        if rs:
            out[f"{kind}_abstained"] = share(sum(not r["answered"] for r in rs), len(rs))
    # Of the abstentions on unanswerable questions, those whose words say what the closest passage states beside
    # what was asked ("The documents say how long ..., but not who ..."); the rest say it the plain way.
    lacks = [r for r in rows if r["kind"] != "answerable" and not r["answered"]]
    if lacks and all("says_what_lacks" in r for r in lacks):
        out["abstained_saying_what_lacks"] = share(sum(r["says_what_lacks"] for r in lacks), len(lacks))
    # (None: the question was not read, e.g. nothing visible about it; it counts as lowest)
    prob = [(r["kind"] == "answerable", -1.0 if r["probability"] is None else r["probability"]) for r in rows]
    out["auroc_no_answer_score"] = auroc([p for a, p in prob if a], [p for a, p in prob if not a])
    # ... and answerable against each unanswerable kind alone: a near miss is harder to tell than an absent topic.
    by_kind = {kind: auroc([p for a, p in prob if a], [p for (_, p), r in zip(prob, rows) if r["kind"] == kind])
               for kind in UNANSWERABLE if any(r["kind"] == kind for r in rows)}
    if by_kind:
        out["auroc_by_kind"] = by_kind
    answered = [r for r in rows if r["answered"]]
    if rows:
        # The operating point on the risk-coverage curve: the share answered, and the share of those that are wrong.
        out["coverage"] = share(len(answered), len(rows))
        out["risk"] = share(sum(not (r["kind"] == "answerable" and r["right"]) for r in answered), len(answered))
        curve = risk_coverage(rows)
        out["risk_coverage_area"] = round(float(np.mean([risk for _, risk in curve])), 4)
    truth = [(1 if r["right"] else -1) if r["answered"] and r["kind"] == "answerable"
             else (-1 if r["answered"] else 0) for r in rows]
    out["truthfulness"] = round(float(np.mean(truth)), 4) if truth else None
    for kind in ("answerable", *UNANSWERABLE):
        ts = [t for t, r in zip(truth, rows) if r["kind"] == kind]
        if ts:
            out[f"truthfulness_{kind}"] = round(float(np.mean(ts)), 4)
    if seconds:
        out["ask_p50_ms"] = round(float(np.median(seconds)) * 1000)
    if detail:
        out["detail"] = list(rows)
    return out


def risk_coverage(rows: Sequence[dict[str, Any]]) -> list[tuple[float, float]]:
    """(coverage, risk) as the threshold falls: answering the most probable first, risk = share of the answered
    that are wrong (unanswerable, or answerable and not right)."""
    ranked = sorted(rows, key=lambda r: -(r["probability"] if r["probability"] is not None else -1.0))
    out, wrong = [], 0
    for i, r in enumerate(ranked, 1):
        wrong += not (r["kind"] == "answerable" and r["right"])
        out.append((round(i / len(ranked), 4), round(wrong / i, 4)))
    return out


# --- question sets --------------------------------------------------------------------------------------


def nq_abstention(path: Path, embed: Any) -> tuple[list[Source], list[AbstainQuestion]]:
    """NQ dev (``nq_articles_dev.json``) split into one document per evidence paragraph, and each question asked
    three ways: within its article, within its article less the evidence, within the most similar other article."""
    return split_articles(json.loads(path.read_text(encoding="utf-8")), str(path), embed)


def split_articles(data: dict[str, Any], path: str, embed: Any) -> tuple[list[Source], list[AbstainQuestion]]:
    """Articles in ``nq_articles_dev.json``'s form (``documents``, ``questions``) as one document per paragraph, and
    each question asked the three ways of ``nq_abstention`` (``path`` names the sources' origin)."""
    sources: list[Source] = []
    paragraphs: dict[str, list[tuple[str, str]]] = {}
    for d in data["documents"]:
        for i, para in enumerate(p for p in d["text"].split("\n\n") if p.strip()):
            pid = f"{d['id']}-p{i}"
            sources.append(Source(pid, d["title"], para, path=f"{path}#{pid}"))
            paragraphs.setdefault(d["id"], []).append((pid, para))
    ids = list(paragraphs)
    vecs = np.stack([np.mean(embed([p for _, p in paragraphs[i]]), axis=0) for i in ids])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    sims = vecs @ vecs.T
    np.fill_diagonal(sims, -1.0)
    related = {i: ids[int(np.argmax(sims[n]))] for n, i in enumerate(ids)}
    from lab.evaluate.matching import clean_short_answer, inside

    qs: list[AbstainQuestion] = []
    for q in data["questions"]:
        doc, evidence = q["document"], q["evidence"]
        short = clean_short_answer(q.get("short_answer") or "")
        answers = (short,) if short else ()
        own = tuple(pid for pid, _ in paragraphs.get(doc, []))
        qs.append(AbstainQuestion(q["question"], "answerable", own, answers, (evidence,)))
        rest = tuple(pid for pid, para in paragraphs.get(doc, [])
                     if not inside(para, evidence) and not inside(evidence, para)
                     and not (short and short.lower() in para.lower()))
        if rest:
            qs.append(AbstainQuestion(q["question"], "in_domain", rest))
        other = related.get(doc)
        if other is not None and not (short and any(short.lower() in p.lower() for _, p in paragraphs[other])):
            qs.append(AbstainQuestion(q["question"], "absent", tuple(pid for pid, _ in paragraphs[other])))
    return sources, qs


def squad_abstention(path: Path, answerable: int = 100) -> tuple[list[Source], list[AbstainQuestion]]:
    """The SQuAD 2.0 article kept out of the abstention fit, one document per paragraph: its unanswerable
    questions (near misses) and as many of its answerable ones (at most ``answerable``)."""
    from lab.evaluate.matching import squad_held_out

    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    title = squad_held_out(data)
    article = next(a for a in data if a["title"] == title)
    sources = [Source(f"squad-{i}", title.replace("_", " "), p["context"], path=f"{path}#{i}")
               for i, p in enumerate(article["paragraphs"])]
    qs: list[AbstainQuestion] = []
    taken = 0
    for p in article["paragraphs"]:
        for qa in p["qas"]:
            if qa.get("is_impossible"):
                qs.append(AbstainQuestion(qa["question"], "near_miss"))
            elif taken < answerable:
                taken += 1
                qs.append(AbstainQuestion(qa["question"], "answerable",
                                          answers=tuple(dict.fromkeys(a["text"] for a in qa["answers"])),
                                          evidence=(p["context"],)))
    return sources, qs


def sample_abstention(rows: Sequence[dict[str, Any]]) -> list[AbstainQuestion]:
    """The sample corpus's questions: the written-down ones answerable, those marked ``"answerable": false``
    of the kind they name (``"unanswerable": "in_domain"`` or ``"absent"``)."""
    out = []
    for r in rows:
        if r.get("answerable", True):
            expected = r["expected"] if isinstance(r["expected"], list) else [r["expected"]]
            short = r.get("short_answer", [])
            out.append(AbstainQuestion(r["question"], "answerable",
                                       answers=tuple(short if isinstance(short, list) else [short]),
                                       evidence=tuple(expected)))
        else:
            out.append(AbstainQuestion(r["question"], r.get("unanswerable", "in_domain")))
    return out
