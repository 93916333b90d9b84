"""``graphrag ask``: answer a question with cited claims and print it (or JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from graphrag.answer import GENERATORS
from graphrag.cli.common import (
    add_access_arg,
    add_json_arg,
    add_store_arg,
    choices_help,
    open_store,
    principal,
)
from graphrag.model import AskSettings
from graphrag.verify import CHECKERS

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def _unit_interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}")
    return value


def register(subparsers: Subparsers) -> None:
    """Add ``ask QUESTION`` and its retrieval, backend and output options."""
    s = subparsers.add_parser("ask", help="ask a question; every claim is cited and checked")
    s.add_argument("question")
    add_store_arg(s)
    add_access_arg(s)
    s.add_argument("--k", type=int, default=3, help="similarity seeds when the question names no known entity (default 3)")
    s.add_argument("--hops", type=int, default=2, help="walk depth (default 2)")
    s.add_argument("--direction", choices=["both", "out"], default="both")
    s.add_argument("--include-superseded", action="store_true", help="also use superseded document versions")
    s.add_argument("--max-context", type=int, default=12)
    s.add_argument("--document", action="append", default=[], metavar="ID", dest="documents",
                   help="answer only from this document (its id; repeat for several). Applied inside retrieval, "
                        "like the access labels: nothing outside these documents is read")
    s.add_argument("--min-relevance", type=_unit_interval, default=AskSettings.min_relevance,
                   help="answer only when a visible sentence is at least this similar to the question "
                        f"(default {AskSettings.min_relevance})")
    s.add_argument("--mode", choices=["local", "themes", "changes"], default="local",
                   help="local: from the sentences nearest the question (default; a question about the documents "
                        "as a whole, \"What are these documents about?\", is answered by themes); themes: a global "
                        "question answered theme by theme from the graph's communities; "
                        "changes: what two documents (two --document) or two versions of one (one --document) "
                        "state differently")
    s.add_argument("--generator", choices=list(GENERATORS), default="extractive",
                   help=f"the answer's writer: {choices_help(GENERATORS, 'extractive')}")
    s.add_argument("--model", help="model for the ollama generator")
    s.add_argument("--checker", choices=list(CHECKERS), default="embedded",
                   help=f"the support checker: {choices_help(CHECKERS, 'embedded')}")
    s.add_argument("--checker-model", help="model for the ollama support checker")
    s.add_argument("--fresh", action="store_true",
                   help="answer afresh, even when an earlier answer to the same question (same labels, scope and mode) "
                        "is verified and its sources unchanged (by default that verified answer is given, saying so)")
    add_json_arg(s)
    s.set_defaults(run=run)


def _settings(args: argparse.Namespace) -> AskSettings:
    return AskSettings(k=args.k, hops=args.hops, direction=args.direction, access=tuple(sorted(set(args.access))),
                       include_superseded=args.include_superseded, max_context=args.max_context,
                       generator=args.generator, generator_model=args.model, checker=args.checker,
                       checker_model=args.checker_model, min_relevance=args.min_relevance,
                       documents=tuple(dict.fromkeys(args.documents)), mode=args.mode)


def run(args: argparse.Namespace) -> int:
    """Ask the question, save the answer and print it with each claim's support and citations; 2 when the
    store holds no documents."""
    from graphrag.answer import answer_question, load_graph
    from graphrag.present import (
        VERBATIM,
        VERBATIM_CHECKS,
        answer_json,
        cited_keys,
        closest_passages,
        is_verbatim,
        offers_scope,
        offers_themes,
        quoted_documents,
        route_text,
        status_words,
        support_json,
    )
    from graphrag.verify import answer_standing, review_viewer

    empty = (f"error: the store {args.store} holds no documents; ingest some first, e.g. `graphrag ingest "
             "sample_corpus/` (or point --store / GRAPHRAG_STORE at another store)")
    if args.store.kind == "sqlite" and not (args.store.path and args.store.path.is_file()):  # asking never creates a store
        print(empty, file=sys.stderr)
        return 2
    with open_store(args) as store:
        if not store.counts()["versions"]:
            print(empty, file=sys.stderr)
            return 2
        known = {d.id for d in load_graph(store).docs}  # the cached graph: no document text is read
        unknown = [d for d in dict.fromkeys(args.documents) if d not in known]
        if unknown:
            print(f"error: no document with id {', '.join(map(repr, unknown))} in {args.store}; "
                  "the ids are those `graphrag ingest` reports (first column)", file=sys.stderr)
            return 2
        outcome = answer_question(store, principal(args), args.config, args.question, _settings(args),
                                  fresh=args.fresh)
        if outcome.held is not None:  # the team holds it until verified: only the question and where it stands
            print(json.dumps(outcome.held.to_json(), indent=2, ensure_ascii=False) if args.json
                  else outcome.held.words)
            return 0
        names = store.entity_names()
        ans = outcome.answer
        # where it stands with its reviewers, in the words every surface uses (graphrag.verify.standing)
        standing = answer_standing(store, ans, review_viewer(principal(args)))
        layouts = store.span_layouts(cited_keys(ans))
        if outcome.search_note:  # how it was searched: for the asker, on stderr, never in the answer
            print(f"note: {outcome.search_note}", file=sys.stderr)
        if args.json:
            def sentence(doc: str, version: int, idx: int) -> str | None:
                span = store.span(doc, version, idx)
                return span.text if span else None

            print(json.dumps({**answer_json(ans, names, outcome.warnings, sentence, layouts, outcome.reading,
                                            outcome.read_from),
                              "offer_themes": offers_themes(ans), "search_note": outcome.search_note,
                              "standing": standing.to_json(),
                              "earlier": outcome.earlier.to_json() if outcome.earlier is not None else None},
                             indent=2, ensure_ascii=False))
            return 0
    for w in outcome.warnings:
        print(f"note: {w}", file=sys.stderr)
    if outcome.earlier is not None:  # a verified answer reused, or named as outdated beside a fresh one
        print(outcome.earlier.words + ("" if outcome.earlier.outdated else " Ask again with --fresh for a new answer.")
              + "\n")
    print(ans.text or "(no answer)")
    print(f"\nanswer {ans.id}: {status_words(ans)}")
    print(f"  standing: {standing.words}")
    if not ans.answered and ans.context:
        print("  closest passages (not claims; nothing to review):")
        for passage in closest_passages(ans):
            sp = passage.span
            print(f"    {sp.document_id} v{sp.version}: {' '.join(sp.text.split())}")
    if offers_scope(ans):
        print("  the quotes come from several documents: "
              + ", ".join(f"{d} v{v}" for d, v in quoted_documents(ans))
              + "; ask again with --document ID to answer from one of them")
    if offers_themes(ans):
        print("  this question may be about the documents as a whole: ask again with --mode themes to answer it "
              "theme by theme")
    for d in ans.disagreements:
        print("  sources disagree: " + "; ".join(
            f"[{s.n}] {s.document_id} v{s.version} ({s.effective_date or 'no date'}) says {s.says}" for s in d.sides))
    for cl in ans.claims:
        s = support_json(cl.support)
        flags = f"  flags: {', '.join(f.value for f in cl.flags)}" if cl.flags else ""
        if is_verbatim(cl):  # a score of a quote against itself is not evidence
            print(f"\n  claim {cl.index + 1}: {cl.text}\n    verbatim quote: {VERBATIM['reason']}{flags}\n"
                  f"    still for a person: {' '.join(VERBATIM_CHECKS)}")
        else:
            print(f"\n  claim {cl.index + 1}: {cl.text}\n    support: {s['label']} {s['score']}  ({s['reason']}){flags}")
            if cl.support is not None and cl.support.advisory is not None:
                a = cl.support.advisory
                print(f"    model judge (advisory): {a.label.value} {a.score:.2f}  ({a.reason})")
        for c in cl.citations:
            if c.item is None:
                print(f"    [{c.marker}] does not resolve")
                continue
            sp = c.item.span
            lay = layouts.get((sp.document_id, sp.version, sp.sentence_index))
            where = f" ({lay.source_text})" if lay is not None and lay.source_text else ""
            one_line = " ".join(sp.text.split())  # a PDF sentence keeps its line breaks in the store
            print(f"    [{c.marker}] {sp.document_id} v{sp.version}{where} [{sp.start}:{sp.end}] {one_line}")
            print(f"         route: {route_text(c.item.route, names)}")
    return 0
