"""The PDF reader's assembly: every page's read put together into (text, title, layout): furniture set aside,
lines in reading order and their kinds, captions and table rows placed, the text joined, the title chosen and the
reading report written."""

from __future__ import annotations

import bisect
import re
import statistics
from collections import Counter

from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import PDF, Layout, ReadLine, sha256_bytes
from graphrag.ingest.readers.ocr import CONFIDENCE_FLOOR
from graphrag.ingest.readers.pdf_furniture import set_aside
from graphrag.ingest.readers.pdf_join import join_lines
from graphrag.ingest.readers.pdf_kinds import END_MATTER, IN_TEXT, NAMES, REPORT_ORDER, LineKind, classify
from graphrag.ingest.readers.pdf_lines import Line, PageRead, drawn_box, region_lines, xy_cut
from graphrag.ingest.readers.pdf_ocr import ocr_report
from graphrag.ingest.readers.pdf_tables import captions_aside, table_statements
from graphrag.ingest.readers.tables import ROW, TableTally
from graphrag.language.sentences import counted, split_sentences
from graphrag.model import PageSize

NO_TEXT = ("no text found: this PDF has no text layer, and OCR found no line to read on its pages' pictures (blank "
           "scans, or drawings only)")


def _report(pages: int, read: list[ReadLine], sentences: int, citable: int, rows: int = 0) -> str:
    """The reading report: pages, sentences (the count ingest reports and stores) and how many of them are
    citable (body text), lines by kind, and what was left out of the text and why."""
    counts = Counter(LineKind(r.kind) for r in read)
    kept = [counted(counts[k], *NAMES[k]) for k in (LineKind.BODY, *REPORT_ORDER)
            if counts[k] and k in IN_TEXT]
    what = "body text and table rows" if rows else "body text"
    head = (f"read {counted(pages, 'page')}: {counted(sentences, 'sentence')}, {citable:,} of them citable ({what}), from " + ", ".join(kept))
    out: list[str] = []
    for k in (LineKind.RUNNING, LineKind.PAGE_NUMBER, LineKind.FOOTNOTE, LineKind.EQUATION,
              LineKind.FIGURE_LABEL):
        if counts[k]:
            out.append(counted(counts[k], *NAMES[k]))
    closing = [r for r in read if r.kind == LineKind.REFERENCE]
    if closing:
        headings = (" ".join(r.text.split()).rstrip(":") for r in closing)
        names = list(dict.fromkeys(h for h in headings if h.lower() in END_MATTER))
        start, stop = closing[0].page, closing[-1].page
        where = f"page {start}" if start == stop else f"pages {start}-{stop}"
        out.append(f"{counted(len(closing), *NAMES[LineKind.REFERENCE])} ({', '.join(names)}; {where})")
    stamps = [r for r in read if r.kind == LineKind.STAMP]
    if stamps:
        first = stamps[0].text
        sample = first if len(first) <= 60 else first[:57] + "..."
        where = f"page {stamps[0].page}" if len(stamps) == 1 else f"{len(stamps)} pages"
        out.append(f"turned text on {where} (a margin stamp or rotated label: \"{sample}\")")
    return head + ("; left out of the text: " + ", ".join(out) if out else "")


_NOT_A_TITLE = re.compile(r"^(?:untitled|document\d*|microsoft (?:word|powerpoint) - .*|.*\.(?:docx?|pdf|tex|dvi|ps|"
                          r"rtf|odt|indd|qxd))$", re.IGNORECASE)


def _sane_title(title: str | None) -> bool:
    """Whether the PDF's Title metadata names the document (not empty, a file name or "Untitled")."""
    return title is not None and sum(c.isalpha() for c in title) >= 3 and not _NOT_A_TITLE.match(title.strip())


def _title_block(lines: list[Line], kinds: list[LineKind]) -> str | None:
    """The title printed on page 1: its largest lines (a title wrapped over two or three lines included), joined;
    None where no line there is set larger than the body."""
    first = [(ln, k) for ln, k in zip(lines, kinds) if ln.page == 1 and k in IN_TEXT]
    if not first:
        return None
    top = max(ln.size for ln, _ in first)
    if top < 1.15 * statistics.median(ln.size for ln, _ in first):
        return None
    at = next(i for i, (ln, _) in enumerate(first) if ln.size >= 0.95 * top)
    block = [first[at][0]]
    for ln, _ in first[at + 1:at + 4]:
        if ln.size < 0.95 * top or ln.core_y0 - block[-1].core_y1 > 1.0 * top:
            break
        block.append(ln)
    title = " ".join(" ".join(ln.text.split()) for ln in block)
    return title[:300] or None


def assemble(read: list[PageRead], pages: list[PageSize], data: bytes, title: str | None,
             floor: float = CONFIDENCE_FLOOR) -> tuple[str, str | None, Layout]:
    """(text, title, layout) of a PDF from each page's read (``pages``: their sizes, a printed page number becoming
    the label of a page the PDF does not label); ``title``: the PDF's Title metadata, used when it names the
    document, else the title printed on page 1. ``floor``: the OCR confidence under which a line was kept out."""
    kept, aside = set_aside(read, pages)
    ordered = [ln for p, frags in enumerate(kept)
               for ln in (read[p].ocr or [ln for region in xy_cut(frags, pages[p].width)
                                          for ln in region_lines(region, p + 1)])]
    # A sideways page's lines are read across its text (not yet turned back into reading order): what
    # they are cannot be told from them, and they are all kept as they are.
    kinds = [k if read[ln.page - 1].upright else LineKind.BODY for ln, k in zip(ordered, classify(ordered))]
    seen = sorted([*aside, *(ReadLine(ln.page, k.value, drawn_box(ln), ln.text) for ln, k in zip(ordered, kinds))],
                  key=lambda r: r.page)  # stable: the running header first, then reading order
    ordered, kinds = captions_aside(ordered, kinds)
    tally = TableTally()
    text, text_lines, blocks = join_lines(ordered, kinds, table_statements(ordered, kinds, tally))
    if not text.strip():
        raise ReadError(NO_TEXT)
    starts = [b.start for b in blocks]
    sentences = split_sentences(text)
    citable = sum(blocks[bisect.bisect_right(starts, s.start) - 1].kind in (LineKind.BODY, ROW) for s in sentences)
    notes = [_report(len(pages), seen, len(sentences), citable, tally.rows)]
    if table_note := tally.note():
        notes.append(table_note)
    title = title if _sane_title(title) else _title_block(ordered, kinds)
    if ocr_note := ocr_report(read, len(pages), floor):
        notes.append(ocr_note)
    layout = Layout(PDF, sha256_bytes(data), data, tuple(pages), tuple(text_lines), tuple(blocks),
                    notes=tuple(notes), read=tuple(seen))
    return text, title, layout
