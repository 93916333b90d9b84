"""``graphrag eval``: the support checker on labelled claim/evidence pairs (or its learning curve), and
retrieval on multi-hop questions; the figures come from ``graphrag.evaluate``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from graphrag.cli.common import add_json_arg, choices_help
from graphrag.errors import InputError
from graphrag.support import CHECKERS

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers

FORMATS = ["wice", "expertqa", "jsonl"]


def register(subparsers: Subparsers) -> None:
    """Add ``eval support`` and ``eval retrieval`` and their options."""
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
    er.add_argument("--eval-store", help="reuse this store for the ingested corpus (default: a temporary file)")
    er.add_argument("--off-topic", metavar="FOLDER",
                    help="also ask the questions against these documents, which cannot answer them, and count "
                         "how many the relevance floor refuses (e.g. sample_corpus)")
    add_json_arg(er)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the evaluation asked for and print its figures."""
    if args.what == "support":
        return _support(args)
    from graphrag.evaluate.retrieval import cli_eval_retrieval

    return cli_eval_retrieval(args.questions, args.corpus, as_json=args.json, limit=args.limit,
                              store_path=args.eval_store, off_topic_dir=args.off_topic)


def _support(args: argparse.Namespace) -> int:
    if args.learn_from:
        from graphrag.evaluate.learning import cli_learning_curve

        if not args.start_from or not args.start_format:
            raise InputError("--learn-from needs --start-from and --start-format: the model to start from is "
                             "fitted on that other labelled file, so it never saw the scored claims")
        return cli_learning_curve(args.learn_from, args.format, args.start_from, args.start_format,
                                  sizes=args.sizes, draws=args.draws, seed=args.seed, cache=args.cache,
                                  as_json=args.json)
    if not args.data:
        raise InputError("graphrag eval support: give --data (or --learn-from for a learning curve)")
    from graphrag.evaluate.support import cli_eval_support

    return cli_eval_support(args.data, args.format, args.checker, args.json, limit=args.limit)
