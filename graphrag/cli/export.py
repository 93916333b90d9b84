"""``graphrag export``: every visible verdict with its claim and cited span, as CSV or JSON."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_me_arg, add_store_arg, open_store, principal, write_out
from graphrag.language.sentences import counted

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``export`` and its options."""
    s = subparsers.add_parser("export", help="export the verification record (one row per verdict)")
    s.add_argument("--format", choices=["csv", "json"], default="csv")
    s.add_argument("--out", help="file to write (default: stdout)")
    add_store_arg(s)
    add_access_arg(s)
    add_me_arg(s)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the verification record the access labels can see, and audit the export."""
    from graphrag.verify import export_record

    with open_store(args) as store:
        done = export_record(store, principal(args), args.config, args.format, me=args.me)
    return write_out(done.text, args.out, counted(done.rows, "verdict"))
