"""How much of what the PDF reader makes citable is junk, per document (issue 24's measure).

    python -m lab.evaluate.pdf_reading ../shared/data/documents [--json]

Each PDF in the folder is read as ingest reads it and split into sentences; the citable ones are those the
reader gives as body text (its table rows, captions and title block are paragraphs of their own kinds, never
quoted as claims). A citable sentence is junk when the
kind detector the answers use calls it a reference entry, an author line or a table row, when it holds
one-letter debris (three single letters in a row, as a stamp read letter by letter gives), or when it runs
over 500 characters (text glued across blocks). Printed: pages, citable sentences, the junk share and its
reasons, and the reader's report (lines by kind, what it left out).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from graphrag.answer.reader.rank import SentenceKind, sentence_kind
from graphrag.ingest.readers.pdf import read_pdf
from graphrag.language.sentences import split_sentences

JUNK_KINDS = {SentenceKind.REFERENCE: "reference", SentenceKind.AUTHOR_LINE: "author line",
              SentenceKind.TABLE_ROW: "table row"}
LONG = 500
_DEBRIS = re.compile(r"(?:^|\s)(?:\w\s+){3,}")


def junk_reason(text: str) -> str | None:
    """Why a citable sentence is junk, or None."""
    if len(text) > LONG:
        return f"over {LONG} characters"
    if _DEBRIS.search(" " + " ".join(text.split()) + " ") and sum(len(w) == 1 for w in text.split()) >= 3:
        return "one-letter debris"
    return JUNK_KINDS.get(sentence_kind(text))


def measure(path: Path) -> dict[str, object]:
    """One PDF's figures: pages, sentences, junk and its reasons, what the reader left out."""
    text, _, layout = read_pdf(path.read_bytes())
    sentences = [s.text for s in split_sentences(text) if layout.kind_at(s.start) == "body"]
    reasons = Counter(r for s in sentences if (r := junk_reason(s)))
    junk = sum(reasons.values())
    return {"document": path.name, "pages": len(layout.pages), "sentences": len(sentences),
            "junk": junk, "junk_share": round(junk / max(len(sentences), 1), 3), "reasons": dict(reasons),
            "left_out": list(layout.notes)}


def main(argv: list[str] | None = None) -> int:
    """The command line: one line per PDF of the folder, or JSON."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [measure(p) for p in sorted(args.folder.glob("*.pdf"))]
    if not rows:
        print(f"no PDF in {args.folder}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        print(f"{r['document']}: {r['pages']} pages, {r['sentences']} sentences, junk {r['junk']} "
              f"({r['junk_share']:.1%}): {r['reasons']}")
        for note in r["left_out"]:  # type: ignore[attr-defined]
            print(f"  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
