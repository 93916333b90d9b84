"""``graphrag export``: every visible verdict with its claim and cited span, as CSV or JSON, or the whole visible
record as a signed evidence pack (``--format pack --out P.zip``; check it with ``graphrag pack verify``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_me_arg, add_store_arg, open_store, principal, write_out
from graphrag.errors import InputError
from graphrag.language.sentences import counted

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``export`` and its options."""
    s = subparsers.add_parser("export", help="export the verification record (one row per verdict, or a signed "
                                             "evidence pack)")
    s.add_argument("--format", choices=["csv", "json", "pack"], default="csv",
                   help="pack: a zip with the answers, verdicts, audit log, policy, estimate and a report, signed "
                        "with the store's key (needs --out)")
    s.add_argument("--out", help="file to write (default: stdout; a pack needs a file)")
    s.add_argument("--whole-record", action="store_true",
                   help="pack, local mode, blind review: export every verdict, those still judged blind and disputes "
                        "included (you will read them); a pack is never narrowed by blind review, so without this "
                        "it is refused while such verdicts exist")
    add_store_arg(s)
    add_access_arg(s)
    add_me_arg(s)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the verification record the access labels can see, and audit the export."""
    from graphrag.verify import export_pack, export_record

    if args.format == "pack":
        if not args.out:
            raise InputError("an evidence pack is a zip file: give --out PATH.zip")
        if args.me:  # a self-declared name narrows nothing in a pack: it holds every verdict or is refused
            print("note: --me does not change an evidence pack: it holds every verdict its labels show",
                  file=sys.stderr)
        with open_store(args) as store:
            pack = export_pack(store, principal(args), args.config, whole_record=args.whole_record)
        Path(args.out).write_bytes(pack.data)
        print(f"wrote an evidence pack of {counted(pack.answers, 'answer')} and {counted(pack.verdicts, 'verdict')} "
              f"(labels {', '.join(pack.labels)}) to {args.out}, signed by {pack.signer}", file=sys.stderr)
        return 0
    if args.whole_record:
        raise InputError("--whole-record is for --format pack (csv and json follow blind review: see --me)")
    with open_store(args) as store:
        done = export_record(store, principal(args), args.config, args.format, me=args.me)
    return write_out(done.text, args.out, counted(done.rows, "verdict"))
