"""``graphrag eval``: the support checker on labelled claim/evidence pairs (or its learning curve), and
retrieval on multi-hop questions; the figures come from ``lab.evaluate``."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from graphrag.cli.common import add_json_arg, choices_help, sqlite_file_value
from graphrag.errors import InputError
from graphrag.verify import CHECKERS

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers

FORMATS = ["wice", "expertqa", "jsonl"]
# the sets of ``eval answers`` (lab.evaluate.answers.SETS, named here so the parser loads no model code)
ANSWER_SETS = ("musique", "nq_articles", "real_pdfs", "sample_corpus", "nq_abstention", "squad_abstention")


def register(subparsers: Subparsers) -> None:
    """Add ``eval support``, ``eval retrieval``, ``eval answers`` and ``eval themes`` and their options."""
    s = subparsers.add_parser("eval", help="measure on public labelled data")
    e = s.add_subparsers(dest="what", required=True)
    es = e.add_parser("support", help="support checker accuracy on claim/evidence pairs")
    es.add_argument("--data")
    es.add_argument("--format", choices=FORMATS, required=True)
    es.add_argument("--checker", choices=list(CHECKERS), default="embedded",
                    help=f"the support checker: {choices_help(CHECKERS, 'embedded')}")
    es.add_argument("--limit", type=int)
    add_json_arg(es)
    es.add_argument("--learn-from", metavar="DATA",
                    help="learning curve: treat this file's labels as a team's verdicts, refit on --sizes of them "
                         "and score the rest (with --format)")
    es.add_argument("--start-from", metavar="OTHER_DATA", help="the labelled file the starting model is fitted on")
    es.add_argument("--start-format", choices=FORMATS)
    es.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400])
    es.add_argument("--draws", type=int, default=5, help="random draws per size (default 5)")
    es.add_argument("--seed", type=int, default=0)
    es.add_argument("--cache", help="feature cache folder (default: a folder in the temporary directory)")
    er = e.add_parser("retrieval", help="supporting-paragraph recall of the context, beside a dense baseline")
    er.add_argument("--questions", required=True)
    er.add_argument("--corpus", required=True)
    er.add_argument("--limit", type=int)
    er.add_argument("--eval-store", type=sqlite_file_value, metavar="PATH", help="reuse this SQLite store for the ingested corpus (default: a temporary file)")
    er.add_argument("--off-topic", metavar="FOLDER",
                    help="also ask the questions against these documents, which cannot answer them, and count "
                         "how many the relevance floor refuses (e.g. sample_corpus)")
    add_json_arg(er)
    ea = e.add_parser("answers", help="the answer panel: evidence in the context (beside a dense baseline), "
                                      "citations inside the evidence, short answer, latency, per question set")
    ea.add_argument("--data", default="../shared/data",
                    help="folder of the public question sets (default ../shared/data); a set whose files are "
                         "absent is skipped with a message")
    ea.add_argument("--sample-corpus", default="sample_corpus", help="the sample corpus folder")
    ea.add_argument("--sample-questions", help="the sample corpus's questions with their expected sentences "
                                               "(default: lab/evaluate/sample_questions.json)")
    ea.add_argument("--sets", nargs="+", choices=list(ANSWER_SETS), default=list(ANSWER_SETS),
                    help="which sets to run (default: all)")
    ea.add_argument("--stores", default=str(Path(tempfile.gettempdir()) / "graphrag-eval-answers"),
                    help="folder of the per-set stores, kept between runs so a rerun only re-reads unchanged "
                         "documents (default: a folder in the temporary directory)")
    ea.add_argument("--limit", type=int, help="ask only the first N questions of each set")
    ea.add_argument("--no-check", action="store_true",
                    help="leave the support checker out (faster; latency then excludes it)")
    ea.add_argument("--detail", action="store_true", help="with --json: every question's first quote and figures")
    add_json_arg(ea)
    et = e.add_parser("themes", help="\"What are these documents about?\" on the 31 dev articles: articles cited, "
                                     "claims inside their theme, answer time")
    et.add_argument("--data", default="../shared/data", help="folder holding nq_articles_dev.json")
    et.add_argument("--stores", default=str(Path(tempfile.gettempdir()) / "graphrag-eval-answers"),
                    help="folder of the articles' store (the one `eval answers` fills, reused when present)")
    add_json_arg(et)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the evaluation asked for and print its figures."""
    if args.what == "support":
        return _support(args)
    if args.what == "themes":
        from lab.evaluate.themes import cli_eval_themes

        return cli_eval_themes(args.data, args.stores, as_json=args.json)
    if args.what == "answers":
        from lab.evaluate.answers import cli_eval_answers

        return cli_eval_answers(args.data, args.sample_corpus, args.stores, args.sets, as_json=args.json,
                                limit=args.limit, check=not args.no_check, detail=args.detail,
                                **({"sample_questions": args.sample_questions} if args.sample_questions else {}))
    from lab.evaluate.retrieval import cli_eval_retrieval

    return cli_eval_retrieval(args.questions, args.corpus, as_json=args.json, limit=args.limit,
                              store_path=args.eval_store, off_topic_dir=args.off_topic)


def _support(args: argparse.Namespace) -> int:
    if args.learn_from:
        from lab.evaluate.learning import cli_learning_curve

        if not args.start_from or not args.start_format:
            raise InputError("--learn-from needs --start-from and --start-format: the model to start from is "
                             "fitted on that other labelled file, so it never saw the scored claims")
        return cli_learning_curve(args.learn_from, args.format, args.start_from, args.start_format,
                                  sizes=args.sizes, draws=args.draws, seed=args.seed, cache=args.cache,
                                  as_json=args.json)
    if not args.data:
        raise InputError("graphrag eval support: give --data (or --learn-from for a learning curve)")
    from lab.evaluate.support import cli_eval_support

    return cli_eval_support(args.data, args.format, args.checker, args.json, limit=args.limit)
