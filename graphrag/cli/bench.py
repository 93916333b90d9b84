"""``graphrag bench``: benchmarks that print figures as JSON. The options are read here and passed on as
plain arguments to ``lab.bench``, ``lab.bench_scale``, ``lab.bench_million`` and ``lab.evaluate.support``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from graphrag.cli.common import sqlite_file_value, store_value

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers

MUSIQUE_DATA = "../shared/data"
MUSIQUE_CORPUS = f"{MUSIQUE_DATA}/musique_train_corpus.json"
MUSIQUE_QUESTIONS = "../shared/data/musique_train100.json"


def register(subparsers: Subparsers) -> None:
    """Add ``bench`` and one subcommand per benchmark, each with its options."""
    s = subparsers.add_parser("bench", help="benchmarks that print figures (JSON)")
    b = s.add_subparsers(dest="what", required=True)
    bi = b.add_parser("ingest", help="ingest a {title, text} JSON corpus with the rules extractor")
    bi.add_argument("--corpus", default=MUSIQUE_CORPUS)
    bi.add_argument("--limit", type=int)
    bi.add_argument("--no-bulk", action="store_true", help="skip measuring the bulk limit (the models alone)")
    ba = b.add_parser("ask", help="ask latency without generation on synthetic graphs")
    ba.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ba.add_argument("--queries", type=int, default=50)
    ba.add_argument("--after-ingest", type=int, default=100, metavar="N",
                    help="then ingest N paragraphs of --corpus and time the first answer after it (0: skip)")
    ba.add_argument("--after-ingest-rounds", type=int, default=3, metavar="R",
                    help="times to do so, with new paragraphs each time")
    ba.add_argument("--corpus", default=MUSIQUE_CORPUS)
    ba.add_argument("--browser", action="store_true",
                    help="instead: ask the sample questions on the Ask page in headless Chromium (sample corpus, "
                         "throwaway store) and print the click-to-answer p50/p95")
    ba.add_argument("--asks", type=int, default=20, help="with --browser: questions to time")
    ba.add_argument("--json", action="store_true", help="with --browser: the figures as JSON")
    b.add_parser("support", help="embedded support checker latency per pair")
    brd = b.add_parser("reader", help="the reader's time on 24 retrieved candidates, and the whole ask, on a store")
    brd.add_argument("--store", type=store_value, required=True,
                     help="a store already holding the documents (e.g. an eval store of `graphrag eval answers`)")
    brd.add_argument("--questions", help="a JSON list of {question} or a panel file with questions[] "
                                         "(default: the sample corpus's questions)")
    brd.add_argument("--limit", type=int, default=50)
    bl = b.add_parser("load", help="concurrent verdict writers and ask latency during an ingest; with --browser, "
                                   "reviewers in headless Chromium on one or two dashboards")
    bl.add_argument("--writers", type=int, default=8)
    # its own dest: a command's `store` is filled with the configured one, and these must default to a throwaway store
    bl.add_argument("--store", dest="load_store", metavar="STORE", type=store_value, help="an empty store to load (default: a temporary SQLite file); "
                    "e.g. postgresql+psycopg://user:password@host:5432/graphrag_bench")
    bl.add_argument("--verdicts", type=int, help="per writer (default 250); with --browser, per reviewer (20)")
    bl.add_argument("--browser", action="store_true",
                    help="instead: N reviewers at once in headless Chromium judge claims and ask questions on 1 or 2 "
                         "dashboards (throwaway stores: SQLite, and PostgreSQL on a server of its own); prints "
                         "p50/p95, throughput, the dashboards' CPU per verdict and per ask, and the record check")
    bl.add_argument("--reviewers", type=int, nargs="+", default=[1, 4, 8], help="with --browser: sessions at once")
    bl.add_argument("--dashboards", type=int, nargs="+", default=[1, 2],
                    help="with --browser: dashboard processes on one PostgreSQL store")
    bl.add_argument("--engines", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"],
                    help="with --browser: SQLite gets one dashboard")
    bl.add_argument("--asks", type=int, default=4, help="with --browser: questions per reviewer")
    bl.add_argument("--claims", type=int, default=40, help="with --browser: claims the store's answers hold")
    bl.add_argument("--json", action="store_true", help="with --browser: a JSON line per setting")
    br = b.add_parser("review", help="review-queue build time as answers accumulate; with --browser, a scripted "
                                     "reviewer's verdicts with the keyboard in headless Chromium")
    br.add_argument("--answers", type=int, nargs="+", default=[100, 1_000, 5_000])
    br.add_argument("--rounds", type=int, default=5)
    br.add_argument("--browser", action="store_true",
                    help="judge claims on the Review page (sample corpus, throwaway store) and print the verdict "
                         "round trip p50/p95 and claims per minute")
    br.add_argument("--claims", type=int, default=50, help="with --browser: claims to judge (fewer if the queue ends)")
    br.add_argument("--json", action="store_true", help="with --browser: the figures as JSON")
    br.add_argument("--store", dest="browser_store", metavar="PATH", type=sqlite_file_value,
                    help="with --browser: where to build the store (a path that does not exist yet; default: a "
                         "temporary file, removed after)")
    br.add_argument("--screenshot", metavar="PNG", help="with --browser: the page where the reviewer stopped")
    bd = b.add_parser("documents", help="a generated PDF through the reader and ingest; cited-page render time")
    bd.add_argument("--pages", type=int, default=200)
    bd.add_argument("--renders", type=int, default=20)
    bs = b.add_parser("scale", help="ingest a corpus repeated N times (distinct ids, light edits) and measure "
                                    "ingest time, peak memory, store size, ask p50 and dashboard cold start")
    bs.add_argument("--corpus", default=MUSIQUE_CORPUS)
    bs.add_argument("--questions", default=MUSIQUE_QUESTIONS,
                    help="questions to ask at each step (a JSON list with 'question')")
    bs.add_argument("--scale", type=int, default=10, help="copies of the corpus at the last step")
    bs.add_argument("--steps", type=int, nargs="*", default=[1],
                    help="earlier sizes measured on the way (default: 1x, then the full scale)")
    bs.add_argument("--limit", type=int, help="paragraphs of the corpus to use (for a quick run)")
    bs.add_argument("--start", type=int, default=0,
                    help="copies --store already holds (to grow a store an earlier run left, e.g. from 5x to 10x)")
    bs.add_argument("--queries", type=int, default=30)
    bs.add_argument("--store", dest="scale_store", type=sqlite_file_value, metavar="PATH",
                    help="where to build the SQLite store (default: a temporary file, removed after)")
    bs.add_argument("--no-dashboard", action="store_true", help="skip the dashboard cold start")
    bm = b.add_parser("million", help="a synthetic store of a million sentences and relations written straight "
                                      "into the tables: graph load, ask latency, ANN recall, peak memory, and "
                                      "the ONNX encoder on real sentences")
    bm.add_argument("--sentences", type=int, default=1_000_000)
    bm.add_argument("--relations", type=int, default=1_000_000)
    bm.add_argument("--store", dest="million_store", metavar="STORE", type=store_value,
                    help="build the synthetic store here and keep it: a SQLite file, or an empty PostgreSQL database "
                         "(postgresql+psycopg://...; measured beside a temporary SQLite store of the same sizes); a "
                         "store this command built with the same sizes is reused (default: a temporary SQLite file, "
                         "removed after)")
    bm.add_argument("--questions", type=int, default=50, help="questions to time (a vector and its anchors given)")
    bm.add_argument("--encoder-sentences", type=int, default=5_000,
                    help="real MuSiQue sentences for the ONNX-against-torch comparison (0: skip it)")
    bm.add_argument("--data", default=MUSIQUE_DATA, help="the folder holding musique_train_corpus.json (without "
                                                         "it the encoder comparison is skipped, and says so)")
    bm.add_argument("--decades", action="store_true",
                    help="first a row per decade from 10k sentences (relations in proportion)")
    bm.add_argument("--no-sqlite", action="store_true",
                    help="with a PostgreSQL --store: skip the temporary SQLite store measured beside it")
    bst = b.add_parser("start", help="seconds from `streamlit run app.py` to a usable Ask box and a first answer, "
                                     "first start (fresh store and ONNX cache) and second, in headless Chromium")
    bst.add_argument("--no-parts", action="store_true", help="skip timing the first start's parts one by one")
    bst.add_argument("--json", action="store_true", help="the figures as JSON")
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmark with the options given."""
    if args.what == "support":
        from lab.evaluate.support import cli_bench_support

        return cli_bench_support(as_json=True)
    if args.what == "reader":
        from lab.bench_reader import bench_reader

        return bench_reader(args.store.value, args.questions, args.limit)
    if args.what == "ask" and args.browser:
        from lab.bench_ask_browser import bench_ask_browser

        return bench_ask_browser(asks=args.asks, as_json=args.json)
    if args.what == "review" and args.browser:
        from lab.bench_review_browser import bench_review_browser

        return bench_review_browser(claims=args.claims, as_json=args.json, store=args.browser_store,
                                    screenshot=args.screenshot)
    if args.what == "load" and args.browser:
        from lab.bench_load_browser import bench_load_browser

        return bench_load_browser(sessions=args.reviewers, dashboards=args.dashboards, engines=args.engines,
                                  verdicts=20 if args.verdicts is None else args.verdicts, asks=args.asks,
                                  claims=args.claims, as_json=args.json)
    if args.what == "start":
        from lab.bench_start import bench_start

        return bench_start(as_json=args.json, parts=not args.no_parts)
    if args.what == "scale":
        from lab.bench_scale import bench_scale

        return bench_scale(corpus=args.corpus, questions_path=args.questions, scale=args.scale, steps=args.steps,
                           limit=args.limit, start=args.start, queries=args.queries, store=args.scale_store,
                           dashboard=not args.no_dashboard)
    if args.what == "million":
        from lab.bench_million import bench_million

        return bench_million(sentences=args.sentences, relations=args.relations, store=args.million_store,
                             n_questions=args.questions, encoder_sentences=args.encoder_sentences, data=args.data,
                             per_decade=args.decades, beside_sqlite=not args.no_sqlite)
    from lab import bench

    if args.what == "ingest":
        return bench.bench_ingest(args.corpus, limit=args.limit, bulk_limit=not args.no_bulk)
    if args.what == "ask":
        return bench.bench_ask(sizes=args.sizes, queries=args.queries, after_ingest=args.after_ingest,
                               after_ingest_rounds=args.after_ingest_rounds, corpus=args.corpus)
    if args.what == "load":
        return bench.bench_load(writers=args.writers, verdicts=250 if args.verdicts is None else args.verdicts,
                                store_url=args.load_store)
    if args.what == "review":
        return bench.bench_review(answers=args.answers, rounds=args.rounds)
    return bench.bench_documents(pages=args.pages, renders=args.renders)
