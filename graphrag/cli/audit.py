"""``graphrag audit export``: the audit log (sign-ins, ingests, exports, verdicts), for whoever holds the
store, less the rows that name documents or answers the ``--access`` labels do not show."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_store_arg, open_store, principal, write_out

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``audit export`` and its options."""
    s = subparsers.add_parser("audit", help="the audit log: sign-ins, ingests, exports, verdicts (who and when)")
    au = s.add_subparsers(dest="audit_cmd", required=True)
    ae = au.add_parser("export", help="every event, oldest first")
    ae.add_argument("--format", choices=["csv", "json"], default="csv")
    ae.add_argument("--out", help="write to this file (default: standard output)")
    ae.add_argument("--since", help="only events from this ISO date or time on")
    add_access_arg(ae)  # rows naming a document or answer these labels do not show are left out
    add_store_arg(ae)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write every audit event (from --since on), oldest first, as CSV or JSON; the export is audited too."""
    from graphrag.verify import export_audit_log

    with open_store(args) as store:
        done = export_audit_log(store, principal(args), args.config, args.format, since=args.since)
    if done.withheld:
        print(f"{done.withheld} audit events left out: they name documents or answers that --access "
              f"{' '.join(args.access)} does not show", file=sys.stderr)
    return write_out(done.text, args.out, f"{done.rows} audit events")
