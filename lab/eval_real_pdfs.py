"""Ask real questions of real PDFs and check where the citations land.

    python -m lab.eval_real_pdfs --data ../shared/data/documents [--store FILE] [--json]

The folder holds PDFs (Wikipedia articles printed from a browser) and ``nq_questions.jsonl``
(Natural Questions: question, short answer, evidence paragraph, document name). The PDFs are
ingested with the rules extractor, each question is asked with the default settings, and every
valid citation is scored:

- *in evidence*: the cited sentence lies inside the evidence paragraph: it has at least 6 words
  and 70% of them occur in the paragraph (which comes from another revision of the article, so
  an exact match is too strict); for a short evidence row (an infobox line of under 12 words),
  the sentence holds 70% of the row's words;
- *right page*: the cited sentence's page is one on which the evidence paragraph is printed
  (the pages of the document's sentences that are inside the paragraph by the same measure).

Nothing here is copied into the repository; the data stays where it is.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from pathlib import Path

from graphrag.answer.ask import Asker
from graphrag.ingest.extract import make_extractor
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings
from graphrag.store import Store
from lab import lab_config

_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.lower().replace("–", " ").replace("-", " ")))


def inside(sentence: Counter[str], evidence: Counter[str], threshold: float = 0.7) -> bool:
    """The sentence lies inside the evidence paragraph (see the module docstring)."""
    n_s, n_e = sum(sentence.values()), sum(evidence.values())
    shared = sum((sentence & evidence).values())
    if n_e < 12:  # a short evidence row (an infobox line): the sentence must hold most of it
        return n_e >= 3 and shared / n_e >= threshold
    return n_s >= 8 and shared / n_s >= threshold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data/documents"))
    ap.add_argument("--store", help="store file (default: a temporary one)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    questions = [json.loads(line) for line in (a.data / "nq_questions.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(a.store or Path(tmp) / "eval.db")
        report = Ingestor(store, make_extractor("rules"), config=lab_config()).ingest_paths(sorted(a.data.glob("*.pdf")))
        ingest = {d.id: (d.status, d.sentences, d.error) for d in report.documents}
        asker = Asker(store, config=lab_config())
        rows = []
        for q in questions:
            doc = store.current_document(q["doc_name"])
            evidence = tokens(q["long_answer"])
            sentences = store.sentences(q["doc_name"], doc.version) if doc else []
            layouts = store.layouts(q["doc_name"], doc.version) if doc else {}
            pages = sorted({p for s in sentences if inside(tokens(s.text), evidence)
                            for p in (layouts[s.sentence_index].page,) if s.sentence_index in layouts and p})
            ans = asker.ask(q["question"], AskSettings()).answer
            cites = []
            for cl in ans.claims:
                for c in cl.citations:
                    if c.item is None:
                        continue
                    sp = c.item.span
                    lay = store.layout(sp.document_id, sp.version, sp.sentence_index)
                    hit = sp.document_id == q["doc_name"] and inside(tokens(sp.text), evidence)
                    cites.append({"document": sp.document_id, "page": lay.page if lay else None, "in_evidence": hit,
                                  "right_page": bool(lay and lay.page in pages), "sentence": " ".join(sp.text.split())})
            short = q["short_answer"].replace("``", "").replace("''", "").strip(" (")
            rows.append({"question": q["question"], "short_answer": short, "evidence_pages": pages,
                         "answer_has_short_answer": bool(short) and " ".join(short.lower().split()) in
                         " ".join(ans.text.lower().split()),
                         "citations": cites})
        store.close()
    n_cites = sum(len(r["citations"]) for r in rows)
    summary = {
        "ingest": ingest,
        "questions": len(rows),
        "questions_with_a_citation_in_evidence": sum(any(c["in_evidence"] for c in r["citations"]) for r in rows),
        "questions_with_a_citation_in_evidence_on_the_right_page": sum(
            any(c["in_evidence"] and c["right_page"] for c in r["citations"]) for r in rows),
        "citations": n_cites,
        "citations_in_evidence": sum(c["in_evidence"] for r in rows for c in r["citations"]),
        "citations_on_an_evidence_page": sum(c["right_page"] for r in rows for c in r["citations"]),
        "short_answer_in_answer": f"{sum(r['answer_has_short_answer'] for r in rows)} of "
                                  f"{sum(bool(r['short_answer']) for r in rows)} with a short answer",
    }
    if a.json:
        print(json.dumps({"summary": summary, "questions": rows}, indent=2, ensure_ascii=False))
        return
    for r in rows:
        print(f"\n{r['question']}  (evidence on pages {r['evidence_pages']})")
        for c in r["citations"]:
            mark = ("IN " if c["in_evidence"] else "out") + (" page ok" if c["right_page"] else " page --")
            print(f"  [{mark}] {c['document']} p.{c['page']}: {c['sentence'][:110]}")
    print("\n" + json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
