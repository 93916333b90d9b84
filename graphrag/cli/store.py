"""``graphrag store migrate``: copy one store into another, empty one (SQLite into PostgreSQL) and print the
verified table counts."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from graphrag.cli.common import add_json_arg, store_value
from graphrag.model import Progress

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``store migrate`` and its options."""
    s = subparsers.add_parser("store", help="store administration: copy a SQLite store into PostgreSQL")
    st_ = s.add_subparsers(dest="what", required=True)
    sm = st_.add_parser("migrate", help="copy every row (original ids and times) into an empty database, "
                                        "then verify counts and hashes; all or nothing")
    sm.add_argument("--from", dest="source", type=store_value, required=True, help="the store to copy (a SQLite file)")
    sm.add_argument("--to", dest="target", type=store_value, required=True,
                    help="an empty database, e.g. postgresql+psycopg://user:password@host:5432/graphrag")
    add_json_arg(sm)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Copy the store, one progress line per table on stderr, then print what was verified."""
    from graphrag.store.transfer import copy_store

    def progress(p: Progress) -> None:  # one line per table copied
        print(f"store migrate: {p.done}/{p.total} tables ({p.message})", file=sys.stderr)

    report = copy_store(args.source, args.target, progress)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return 0
    print(f"copied {report.source} -> {report.target} (generation {report.generation}); verified:")
    for t in report.tables:
        print(f"  {t.table:<14} {t.rows:>9,} rows  sha256 {t.sha256[:16]}…  equal")
    return 0
