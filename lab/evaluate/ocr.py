"""OCR's speed and character accuracy on scans made here (known text rendered, turned, skewed, speckled).

    python -m lab.evaluate.ocr [--json]

The made set is ``lab.scans``: three A4 pages at 150 dpi, one upright with 1.5 degrees of skew, one a quarter
turned, one upside down, each speckled with 300 dots, in a PDF without a text layer (stored losslessly), and
the same pages as JPEG (quality 75, what scanners write) read as image uploads. Each is read as ingest reads it;
character accuracy is 1 - (edit distance / printed characters) over each page's text, whitespace collapsed,
and again with spaces ignored (the recogniser drops word spaces more often than it misreads letters). Pages
per second are by the clock over the OCR'd pages, on this machine as loaded at the time.
"""

from __future__ import annotations

import argparse
import json
import time

from graphrag.ingest.readers import Layout, read_document
from lab.scans import SCAN_PAGES, image_bytes, scan_pdf, scanned_pages


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions) between ``a`` and ``b``."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def accuracy(printed: str, read: str, spaces: bool = True) -> float:
    """1 - edit distance over the printed characters (floored at 0), whitespace collapsed or, without
    ``spaces``, removed."""
    def norm(t: str) -> str:
        return " ".join(t.split()) if spaces else "".join(t.split())
    p, r = norm(printed), norm(read)
    return max(0.0, 1 - edit_distance(p, r) / max(len(p), 1))


def _page_texts(read_text: str, layout: Layout, pages: int) -> list[str]:
    """Each page's text, its lines joined."""
    lines = layout.lines
    return [" ".join(read_text[ln.start:ln.end] for ln in lines if ln.page == p + 1) for p in range(pages)]


def measure() -> dict[str, object]:
    """Pages per second and character accuracy for the lossless PDF and the JPEG uploads."""
    printed = [" ".join(lines) for lines in SCAN_PAGES]
    out: dict[str, object] = {}
    started = time.perf_counter()
    read = read_document(scan_pdf(), ".pdf")
    pdf_s = time.perf_counter() - started
    texts = _page_texts(read.text, read.layout, len(printed))
    out["pdf_lossless"] = {"pages": len(printed), "seconds": round(pdf_s, 1),
                           "pages_per_second": round(len(printed) / pdf_s, 3),
                           "char_accuracy": round(sum(accuracy(p, t) for p, t in zip(printed, texts)) / len(printed), 4),
                           "char_accuracy_no_spaces": round(sum(accuracy(p, t, False) for p, t in zip(printed, texts))
                                                            / len(printed), 4)}
    started = time.perf_counter()
    jpeg_texts = [read_document(image_bytes(page, "JPEG"), ".jpg").text for page in scanned_pages()]
    jpeg_s = time.perf_counter() - started
    out["jpeg_uploads"] = {"pages": len(printed), "seconds": round(jpeg_s, 1),
                           "pages_per_second": round(len(printed) / jpeg_s, 3),
                           "char_accuracy": round(sum(accuracy(p, t) for p, t in zip(printed, jpeg_texts))
                                                  / len(printed), 4),
                           "char_accuracy_no_spaces": round(sum(accuracy(p, t, False) for p, t in
                                                                zip(printed, jpeg_texts)) / len(printed), 4)}
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the figures (JSON with --json, else one line per set)."""
    parser = argparse.ArgumentParser(prog="python -m lab.evaluate.ocr", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = measure()
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, f in figures.items():
            print(name, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
