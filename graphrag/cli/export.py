"""``graphrag export``: every visible verdict with its claim and cited span, as CSV or JSON."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_me_arg, add_store_arg, open_store, write_out
from graphrag.model import AuditEvent

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
    from graphrag.identity import local_principal
    from graphrag.review import export_rows, review_viewer, rows_to_csv, rows_to_json

    with open_store(args) as store:
        rows = export_rows(store, args.access, review_viewer(local_principal(args.access), args.me))
        store.add_audit(AuditEvent("export", None, None, {"via": "cli", "what": "verification record",
                                                          "format": args.format, "rows": len(rows)}))
    text = rows_to_csv(rows) if args.format == "csv" else rows_to_json(rows)
    return write_out(text, args.out, f"{len(rows)} verdicts")
