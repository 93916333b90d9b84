"""Page furniture: running headers, footers and page numbers set aside before the reading order (a fragment in
the top or bottom band that repeats across pages, digits ignored, or is a bare page number)."""

from __future__ import annotations

import re

from graphrag.ingest.readers.layout import ReadLine
from graphrag.ingest.readers.pdf_kinds import LineKind
from graphrag.ingest.readers.pdf_lines import Fragment, PageRead, drawn_box
from graphrag.model import PageSize

BAND = 0.09  # top and bottom share of the page where running headers and footers live


_PAGE_NUMBER = re.compile(r"^(?:page\s+)?[-–—(\s]*(\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:/|of)\s*\d{1,5})?[-–—)\s]*$",
                          re.IGNORECASE)


def _furniture_key(f: Fragment) -> str:
    return re.sub(r"\d+", "#", " ".join(f.text.lower().split()))


def _in_band(f: Fragment, height: float) -> bool:
    return f.y1 <= height * BAND or f.y0 >= height * (1 - BAND)


def set_aside(read: list[PageRead], pages: list[PageSize]) -> tuple[list[list[Fragment]], list[ReadLine]]:
    """Each page's fragments without its running headers, footers and page numbers, and those set aside (with
    the turned text). A page number printed where the PDF has no page label becomes the page's label."""
    per_page = [page.fragments for page in read]
    aside = [ReadLine(p + 1, LineKind.STAMP.value, page.turned_box, page.turned)
             for p, page in enumerate(read) if page.turned and page.turned_box]
    # Running headers and footers: band lines whose text (digits ignored) recurs on other pages.
    seen: dict[str, set[int]] = {}
    for p, frags in enumerate(per_page):
        for f in frags:
            if _in_band(f, pages[p].height):
                seen.setdefault(_furniture_key(f), set()).add(p)
    repeat = max(2, len(per_page) // 3)
    # A bare number in the band is a page number when its offset from the physical page number
    # is shared by several pages (a table cell "2011" near the bottom of one page is not).
    offsets: dict[int, int] = {}
    for p, frags in enumerate(per_page):
        for f in frags:
            m = _PAGE_NUMBER.match(f.text.strip()) if _in_band(f, pages[p].height) else None
            if m and m.group(1).isdigit():
                offsets[int(m.group(1)) - p - 1] = offsets.get(int(m.group(1)) - p - 1, 0) + 1
    need = 1 if len(per_page) <= 2 else repeat
    page_offsets = {o for o, c in offsets.items() if c >= need}
    kept: list[list[Fragment]] = []
    for p, frags in enumerate(per_page):
        keep = []
        printed: str | None = None
        for f in frags:
            if _in_band(f, pages[p].height):
                m = _PAGE_NUMBER.match(f.text.strip())
                num = m.group(1) if m else None
                if num is not None and (not num.isdigit() or int(num) - p - 1 in page_offsets):
                    printed = printed or num
                    aside.append(ReadLine(p + 1, LineKind.PAGE_NUMBER.value, drawn_box(f), f.text))
                    continue
                if len(seen[_furniture_key(f)]) >= repeat:
                    aside.append(ReadLine(p + 1, LineKind.RUNNING.value, drawn_box(f), f.text))
                    continue
            keep.append(f)
        if pages[p].label is None and printed is not None:
            pages[p] = PageSize(pages[p].number, pages[p].width, pages[p].height, printed)
        kept.append(keep)
    return kept, aside
