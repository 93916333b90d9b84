"""``python -m lab.bench_held N``: what holding answers until verified and the oversight report cost, on a store of N
answers written directly (no model).

Each answer cites a sentence of its own document (as answers to varied questions do) and makes two claims with words
of their own (so no verdict carries to another answer); the first three quarters of the answers are judged by one
reviewer, every claim supported but the second claim of one answer in ten. Then, medians of a few runs: the hold's
check for a team reader with the setting off, for a reviewer and for a reader with it on (the last one places the
answer in the review queue); the Review page's filter of a held reader's claims, batched as the product does it and
answer by answer (``held_answer`` for each, which reads each answer's verdicts again); the oversight report's figures
(``graphrag.verify.oversight.oversight``); with ``--pack``, a whole evidence pack.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from graphrag.access.identity import Identity, Viewer
from graphrag.config import Config
from graphrag.ingest.documents import Source
from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, Support, SupportLabel
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.store.documents import DocumentWrite, EntityRow, MentionRow, SentenceRow
from graphrag.verify import exports
from graphrag.verify.actions import answer_for, set_review_policy
from graphrag.verify.held import held_answer, readable_claims
from graphrag.verify.oversight import oversight
from graphrag.verify.review import record_verdict, visible_answers, visible_claims
from graphrag.verify.sampling import record_estimate


def _member(role: str, name: str) -> Viewer:
    return Viewer(Identity(f"sub-{name}", f"{name}@example.com", frozenset(), "iss"), frozenset({"public"}), role,
                  team=True)


def _median_s(f: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _store(path: Path, n: int) -> tuple[Store, list[Answer]]:
    s = Store(path)
    answers = []
    for i in range(n):
        text = f"Document {i} keeps exports for {i} days."
        s.write_document(DocumentWrite(Source(f"doc{i}", f"Doc {i}", text, access=("public",)).as_document(),
                                       "scripted", "ok", [SentenceRow(0, len(text), text)], None,
                                       [EntityRow("export", "Export", "thing")], {},
                                       [MentionRow("export", 0, "", False)], []))
        span = s.span(f"doc{i}", 1, 0)
        assert span is not None
        item = ContextItem(1, span, Route("export"), 0.9, "similarity")
        claims = tuple(Claim(j, f"claim {i}-{j}", 0, 1, (Citation("1", True, item),),
                             support=Support(score, SupportLabel.SUPPORTED, "embedded", "bench"))
                       for j, score in enumerate([0.9, 0.3 + (i % 7) / 10]))
        stored = s.answer(s.save_answer(Answer(f"Question {i}?", AskSettings(access=("public",)), "x", (), (),
                                               (item,), claims)))
        assert stored is not None
        answers.append(stored)
    return s, answers


def main(argv: list[str] | None = None) -> int:
    """Build the store, measure, print one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("answers", type=int)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pack", action="store_true", help="also time a whole evidence pack (slow on large stores)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    s, answers = _store(tmp / "store.db", args.answers)
    ana, cat, bob = _member("admin", "ana"), _member("reviewer", "cat"), _member("viewer", "bob")
    for i, a in enumerate(answers[: 3 * len(answers) // 4]):
        for c in a.claims:
            label = V.UNSUPPORTED if i % 10 == 0 and c.index == 1 else V.SUPPORTED
            record_verdict(s, a, c, c.citations[0], label, cat.name, by=cat)
    cfg, last = Config(), answers[-1]
    off_reader = _median_s(lambda: answer_for(s, bob, cfg, last), args.runs)
    set_review_policy(s, ana, cfg, held_until_verified=True)
    on_reviewer = _median_s(lambda: answer_for(s, cat, cfg, last), args.runs)
    on_reader = _median_s(lambda: answer_for(s, bob, cfg, last), args.runs)
    claims = visible_claims(s, bob)

    def one_by_one() -> list[dict[str, object]]:
        shown = {a for a in {c["answer_id"] for c in claims} if held_answer(s, bob, s.answer(a)) is None}  # type: ignore[arg-type]
        return [c for c in claims if c["answer_id"] in shown]

    assert one_by_one() == readable_claims(s, bob, claims)  # the same claims either way
    batched = _median_s(lambda: readable_claims(s, bob, claims), 3)
    per_answer = _median_s(one_by_one, 1)
    shown, events = visible_answers(s, ["public"]), s.audit()
    estimate = record_estimate(s, ["public"]).to_json()
    report = _median_s(lambda: oversight(s, ["public"], shown, [], events, estimate), 3)
    pack = _median_s(lambda: exports.export_pack(s, by=ana, config_home=tmp / "keys"), 1) if args.pack else None
    print(json.dumps({
        "answers": len(answers), "claims": 2 * len(answers), "verdicts": len(s.verdicts()), "audit_rows": len(events),
        "held_check_reader_off_ms": round(off_reader * 1e3, 2), "held_check_reviewer_on_ms": round(on_reviewer * 1e3, 2),
        "held_check_reader_on_ms": round(on_reader * 1e3, 1),
        "review_filter_batched_ms": round(batched * 1e3, 1), "review_filter_answer_by_answer_ms": round(per_answer * 1e3, 1),
        "oversight_report_s": round(report, 3), "pack_export_s": None if pack is None else round(pack, 1)}))
    s.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
