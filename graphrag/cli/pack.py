"""``graphrag pack``: check an evidence pack (``verify``) and print the store's public signing key (``key``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from graphrag.cli.common import add_json_arg, add_store_arg, open_store, principal

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers

EXIT_FAILED = 1  # the pack was read and something in it does not hold (bad input that is no pack at all: 2)


def register(subparsers: Subparsers) -> None:
    """Add ``pack verify`` and ``pack key``."""
    s = subparsers.add_parser("pack", help="check a signed evidence pack, or print the store's public key")
    p = s.add_subparsers(dest="what", required=True)
    v = p.add_parser("verify", help="check every file's SHA-256 and the manifest's signature (reads only, offline)")
    v.add_argument("pack", help="the pack (.zip) to check")
    v.add_argument("--key", help="the public key expected to have signed it ('ed25519:...' as `graphrag pack key` "
                                 "prints it, or a file holding it); without it, only the pack's own key is checked")
    add_json_arg(v)
    k = p.add_parser("key", help="print the store's public signing key (made with the store's first pack)")
    add_store_arg(k)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check a pack (``verify``: 0 when intact, 1 naming what failed, 2 for a file that is no pack) or print the
    store's public key (``key``)."""
    return _verify(args) if args.what == "verify" else _key(args)


def _verify(args: argparse.Namespace) -> int:
    from graphrag.verify import read_key_argument, read_pack_file, verify_pack

    check = verify_pack(read_pack_file(args.pack), read_key_argument(args.key) if args.key else None)
    if args.json:
        print(json.dumps({"ok": check.ok, "signer": check.signer, "expected_key": check.expected_key,
                          "labels": list(check.labels), "files": check.files, "failures": list(check.failures)},
                         indent=2, ensure_ascii=False))
    elif check.ok:
        print(f"ok: {check.files} files match the manifest, signed by {check.signer}; labels covered: "
              f"{', '.join(check.labels)}")
        if not check.expected_key:
            print("note: without --key this shows the pack is intact, not who signed it: compare the signer with "
                  "the key the exporting store's `graphrag pack key` prints", file=sys.stderr)
    else:
        for failure in check.failures:
            print(f"FAILED {failure}", file=sys.stderr)
    return 0 if check.ok else EXIT_FAILED


def _key(args: argparse.Namespace) -> int:
    from graphrag.verify import signing_key

    with open_store(args) as store:
        print(signing_key(store, principal(args), args.config))
    return 0
