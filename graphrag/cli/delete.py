"""``graphrag delete``: remove a document (every version, or one); its verdicts stay, marked "source removed"."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

from graphrag.cli.common import add_json_arg, add_store_arg, open_store, principal
from graphrag.errors import InputError

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``delete ID`` and its options."""
    s = subparsers.add_parser("delete", help="remove a document (every version, or one); its verdicts stay, "
                                             "marked \"source removed\"")
    s.add_argument("id", metavar="ID", help="the document id")
    add_store_arg(s)
    s.add_argument("--version", type=int, action="append", metavar="N",
                   help="remove only this version; repeat for several, removed together (default: every version)")
    s.add_argument("--yes", action="store_true", help="do not ask for confirmation (needed when stdin is not a "
                                                     "terminal)")
    s.add_argument("--reason", help="why, kept in the removal record")
    s.add_argument("--by", help="who removes it, kept in the removal record (default: this OS account)")
    add_json_arg(s)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Remove the document: asks first on a terminal, needs --yes otherwise; 1 when the person says no."""
    from graphrag.ingest import clean_actor, describe, preview_removal, remove_document

    actor = clean_actor(args.by or _os_user())
    with open_store(args) as store:
        plan = preview_removal(store, args.id, args.version)  # an unknown id or version stops here
        if not args.yes:
            if not sys.stdin.isatty():
                raise InputError("refusing to remove a document without confirmation: stdin is not a terminal; "
                                 "add --yes to remove it")
            for line in describe(plan, done=False):
                print(line)
            if input("This cannot be undone. Remove it? [y/N] ").strip().lower() not in ("y", "yes"):
                print("nothing removed")
                return 1
        done = remove_document(store, principal(args), args.config, args.id, args.version, actor=actor,
                               reason=args.reason or "")
    if args.json:
        print(json.dumps(asdict(done), indent=2, ensure_ascii=False))
    else:
        for line in describe(done):
            print(line)
    return 0


def _os_user() -> str:
    import getpass

    try:
        return f"{getpass.getuser()} (command line)"
    except (KeyError, OSError):  # no name for this uid (a container): still say where it came from
        return "command line"
