"""Check the Review page's rewrapped page pictures against real PDFs' own text (issue 60).

    python -m lab.check_page_pictures ../shared/data/documents/*.pdf [--every 12]

For every page of each PDF and about ``--every`` of its printed lines, the picture the Review page draws for a
sentence on that line (the line and 40 points around it, rewrapped to the column) is planned as the page does
(``graphrag.present.pages.crop_lines``, ``graphrag.present.rewrap.plan``) and each piece is read back from the PDF's
text layer, glyph by glyph (PDFium's own lines and words, not the ones the picture was cut by):

- every glyph of a line whose middle is in the crop lies in exactly one piece;
- every word lies whole in one piece (a word wider than a piece, a long web address, excepted);
- a line's glyphs come in its order across its pieces, and of two lines that share some width, the upper one is
  stacked first.

Prints each crop that breaks one and a count per file; exits 1 when any does. Nothing is copied anywhere.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

Glyph = tuple[int, int, float, float, float, float, str]  # PDFium line, word, x0, y0, x1, y1 (points), text


def glyphs(page: object) -> list[Glyph]:
    """Each glyph of ``page`` with the line and word PDFium's text order puts it in."""
    import pypdfium2.raw as pdfium_c

    left, _, _, top = page.get_cropbox()  # type: ignore[attr-defined]
    textpage = page.get_textpage()  # type: ignore[attr-defined]
    raw, rect = textpage.raw, pdfium_c.FS_RECTF()
    out: list[Glyph] = []
    line = word = 0
    for i in range(pdfium_c.FPDFText_CountChars(raw)):
        u = pdfium_c.FPDFText_GetUnicode(raw, i)
        ch = chr(u) if 0 < u < 0x110000 else ""
        if ch in ("\r", "\n"):
            line += 1
            word += 1
            continue
        if not ch or ch.isspace() or pdfium_c.FPDFText_IsGenerated(raw, i):
            word += 1
            continue
        if pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect):
            out.append((line, word, rect.left - left, top - rect.top, rect.right - left, top - rect.bottom, ch))
    textpage.close()
    return out


def problems(pieces: list[tuple[int, int, int, int]], gl: list[Glyph], scale: float, crop: tuple[float, ...],
             asked: tuple[float, float], widest: float) -> list[str]:
    """What is wrong with ``pieces`` (in the crop's pixels) for the glyphs ``gl``: ``crop`` (x0, y0, x1, y1) in the
    picture's pixels, ``asked`` the rows the crop was asked for before it took its lines whole."""
    x0, y0, x1, y1 = crop
    mids: dict[int, list[float]] = {}
    extent: dict[int, list[float]] = {}
    for g in gl:
        mids.setdefault(g[0], []).append((g[3] + g[5]) / 2 * scale)
        e = extent.setdefault(g[1], [g[2], g[4]])
        e[0], e[1] = min(e[0], g[2]), max(e[1], g[4])
    middle = {line: float(np.median(v)) for line, v in mids.items()}
    out: list[str] = []
    words: dict[int, set[int]] = {}
    lines: dict[int, list[int]] = {}
    for g in gl:
        cx, cy = (g[2] + g[4]) / 2 * scale - x0, (g[3] + g[5]) / 2 * scale - y0
        if not (0 <= cx < x1 - x0 and 0 <= cy < y1 - y0):
            continue
        inside = [j for j, p in enumerate(pieces) if p[0] <= cx < p[2] and p[1] <= cy < p[3]]
        # a raised mark PDFium reads as a line of its own belongs to the printed line under it, which may be out
        whole = len(mids[g[0]]) > 5 and asked[0] <= middle[g[0]] < asked[1]
        if len(inside) > 1 or (not inside and whole):
            out.append(f"glyph {g[6]!r} in {len(inside)} pieces")
        if len(inside) == 1:
            words.setdefault(g[1], set()).add(inside[0])
            lines.setdefault(g[0], []).append(inside[0])
    out += [f"word {w} cut between pieces {sorted(ps)}" for w, ps in words.items()
            if len(ps) > 1 and extent[w][1] - extent[w][0] <= widest]
    out += [f"line {line} out of order" for line, seq in lines.items() if seq != sorted(seq)]
    span = {line: (min(g[3] for g in gl if g[0] == line), min(g[2] for g in gl if g[0] == line),
                   max(g[4] for g in gl if g[0] == line)) for line in lines}
    out += ["a line stacked before the line over it" for a in lines for b in lines
            if span[a][0] + 3 < span[b][0] and span[a][1] < span[b][2] and span[b][1] < span[a][2]
            and min(lines[a]) > min(lines[b])]
    return out


def check(path: Path, every: int) -> int:
    """The crops of ``path`` with problems, each printed."""
    import pypdfium2 as pdfium

    from graphrag.present import pages
    from graphrag.present.printed import page_lines
    from graphrag.present.rewrap import INK, INKED, WRAP_LINES, column_span, plan

    doc = pdfium.PdfDocument(path.read_bytes())
    bad = total = 0
    for number in range(1, len(doc) + 1):
        page = doc[number - 1]
        width, height = page.get_size()
        scale = pages.render_scale(width, height)
        lines = sorted(page_lines(page), key=lambda ln: ln.top)
        gl = glyphs(page)
        image = page.render(scale=scale).to_pil().convert("RGB")
        for k in range(0, len(lines), max(1, len(lines) // every)):
            ln = lines[k]
            x0, x1 = max(0.0, ln.x0 - 10) * scale, min(image.width, (ln.x1 + 10) * scale)
            y0, y1 = max(0.0, ln.core[0] - 40) * scale, min(image.height, (ln.core[1] + 40) * scale)
            band = np.asarray(image.crop((0, int(y0), image.width, int(y1))).convert("L")) < INK
            x0, x1 = column_span(band, int(x0), int(x1), gutter=10 * scale)
            kept, top, bottom = pages.crop_lines(lines, scale, x0, y0, x1, y1, image.height)
            ink = np.asarray(image.crop((int(x0), top, int(x1), bottom)).convert("L")) < INK
            pieces = plan(ink, WRAP_LINES, kept)
            total += 1
            if pieces is None:
                continue
            # a word wider than a piece (a long web address) is cut between its letters: not counted as cut
            widest = WRAP_LINES * INKED * float(np.median([ln.height for ln in kept])) / scale if kept else 1e9
            found = problems(pieces, gl, scale, (x0, top, x1, bottom), (y0, y1), widest)
            if found:
                bad += 1
                print(f"{path.name} page {number}, line {k}: {'; '.join(dict.fromkeys(found))}")
    print(f"{path.name}: {total} crops, {bad} with problems")
    return bad


def main() -> int:
    """Check each PDF named; 1 when any crop has a problem."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pdfs", nargs="+", type=Path)
    parser.add_argument("--every", type=int, default=12, help="crops per page, about")
    args = parser.parse_args()
    return 1 if sum(check(p, args.every) for p in args.pdfs) else 0


if __name__ == "__main__":
    sys.exit(main())
