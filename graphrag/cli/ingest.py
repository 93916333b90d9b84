"""``graphrag ingest``: read files or folders, extract and store them, and print the report."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Never, TextIO

from tqdm import tqdm

from graphrag.cli.common import add_json_arg, add_store_arg, choices_help, open_store, principal
from graphrag.config import parse_count
from graphrag.ingest import DEFAULT_MAX_BYTES, EXTRACTORS, EtaClock, format_eta
from graphrag.model import LOADING_MODELS, READING, Progress

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


class IngestProgress:
    """Ingest progress on stderr, updated per window: a tqdm bar with an ETA on a terminal, plain
    lines (at most one every ``every_s`` seconds, and the last) when stderr is piped. Counts only:
    a document's name is never printed here."""

    def __init__(self, stream: TextIO | None = None, every_s: float = 2.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every_s = every_s
        self._bar: tqdm[Never] | None = None  # a bar over no iterable: updated by counts
        self._t0 = time.perf_counter()
        self._clock = EtaClock()
        self._last = -float("inf")
        self._ended = False

    def __call__(self, p: Progress) -> None:
        """Show progress: a bar on a terminal, else a line now and then with the ETA."""
        if p.message == LOADING_MODELS:  # before the first document: seconds idle, minutes on a busy machine
            print(f"ingest: {LOADING_MODELS}…", file=self.stream, flush=True)
            return
        if p.message == READING:  # a scan's OCR, a line a page (seconds each): "page 3 of 12 read by OCR"
            print(f"ingest: {p.detail}", file=self.stream, flush=True)
            return
        if self.tty:
            if self._bar is None:
                self._bar = tqdm(total=p.total, unit="doc", desc="ingest", file=self.stream, dynamic_ncols=True)
            self._bar.update(p.done - self._bar.n)
            if p.done >= p.total:
                self._bar.close()
            return
        self._clock.update(p.done)
        now = time.perf_counter()
        final = p.done >= p.total
        if p.done == 0 or self._ended or (not final and now - self._last < self.every_s):
            return
        self._last, self._ended = now, final
        elapsed = now - self._t0
        eta = "" if final else f", {format_eta(self._clock.eta(p.done, p.total))}"
        print(f"ingest: {p.done:,}/{p.total:,} documents, {elapsed:.0f} s elapsed{eta}", file=self.stream, flush=True)


def _count(raw: str) -> int:
    try:
        return parse_count(raw)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(subparsers: Subparsers) -> None:
    """Add ``ingest`` and its options."""
    s = subparsers.add_parser("ingest", help="ingest text, Markdown, PDF, HTML and DOCX files or folders "
                                             "(the nearest manifest.toml at or above each file sets its labels)")
    s.add_argument("paths", nargs="+", metavar="PATH")
    add_store_arg(s)
    s.add_argument("--extractor", choices=list(EXTRACTORS), default="rules",
                   help=f"the extractor: {choices_help(EXTRACTORS, 'rules')}")
    s.add_argument("--model", help="model name for the ollama extractor")
    s.add_argument("--host", help="Ollama host (default: OLLAMA_HOST or http://127.0.0.1:11434)")
    s.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help="reject files larger than this many bytes, unread (default %(default)s)")
    s.add_argument("--max-chars", type=_count, metavar="N",
                   help="reject a document whose text passes N characters, counted while it is read (default: "
                        "GRAPHRAG_MAX_DOCUMENT_CHARS, 2,000,000)")
    s.add_argument("--access", nargs="+", metavar="LABEL",
                   help="ingest as someone holding these labels: a document is refused unless every label it gets is "
                        "one of them and, for a new version or new labels, its current version is visible to them "
                        "(default: the store's own access, nothing refused)")
    add_json_arg(s)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Ingest the paths and print the report; 1 when no document was ingested (each failed, found no model
    or was refused: ``DocumentReport.not_ingested``)."""
    from graphrag.ingest import ingest_paths, store_extractor

    with open_store(args) as store:
        # --host, else OLLAMA_HOST, else the default (the rules extractor takes neither option)
        options = {"model": args.model or None, "host": args.config.ollama_host} if args.extractor == "ollama" else {
            "model": args.model or None}
        config = args.config.override(max_document_chars=args.max_chars)
        # the role, the relabels' rows and the ingest's own row are the ingest door's (ingest_paths)
        report = ingest_paths(store, principal(args), config, args.paths,
                              store_extractor(args.extractor, store, **options), progress=IngestProgress(),
                              max_bytes=args.max_bytes, bound=args.access is not None)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for p in report.problems:
            print(f"warning: {p}", file=sys.stderr)
        print(f"{'document':<32} {'ver':>3} {'status':<18} {'sent':>5} {'ent':>5} {'rel':>5} {'impl':>5}  note")
        for d in report.documents:
            note = d.error or d.note or (f"supersedes v{d.supersedes}" if d.supersedes else "")
            print(f"{d.id[:32]:<32} {d.version or '-':>3} {d.status:<18} {d.sentences:>5} {d.entities:>5} "
                  f"{d.relations:>5} {d.implied_entities:>5}  {note}")
        t = report.totals()
        print("totals: " + ", ".join(f"{k} {v}" for k, v in t.items()))
    bad = sum(d.not_ingested for d in report.documents)
    return 1 if bad and bad == len(report.documents) else 0
