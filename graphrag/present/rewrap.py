"""Printed lines cut out of a page picture and rewrapped to a narrow width, so they stay legible in a column.

A cited sentence's lines run the page's full width: drawn across a column a third of a laptop screen wide, a
10-point line is 8 screen pixels tall, too small to read. Scaling cannot help (the whole width must fit), so
the picture is rewrapped instead: each printed line is found from the ink (rows with dark pixels), cut at the
widest word gaps into pieces at most ``width_lines`` line heights wide, and the pieces are stacked in reading
order at the render's own scale. The words are the page's own pixels, highlight included; only the line breaks
move. The whole page stays a toggle away for the layout as printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from PIL.Image import Image

INK = 160  # grey level below which a pixel is print (the highlight's yellow and white paper are lighter)
WRAP_LINES = 20  # a rewrapped piece is at most this many line heights wide: about 40 characters of body text
SLACK = 1.25  # a picture up to this much wider is left as printed (drawn at 0.8 of the wrapped size, still legible)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of True in a 1-D mask."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def text_rows(ink: np.ndarray) -> list[tuple[int, int]]:
    """The printed lines of a picture as [top, bottom) pixel rows of ink: runs of inked rows, a run closer to the
    next than a fifth of a line (an accent, a dot, a sub- or superscript) joined to it."""
    runs = _runs(np.asarray(ink.any(axis=1)))
    if not runs:
        return []
    height = float(np.median([b - a for a, b in runs]))
    rows = [runs[0]]
    for a, b in runs[1:]:
        if a - rows[-1][1] <= max(1.0, 0.2 * height):
            rows[-1] = (rows[-1][0], b)
        else:
            rows.append((a, b))
    return rows


def _cuts(cols: np.ndarray, width: int, gap: float) -> list[tuple[int, int]]:
    """A line's [left, right) pieces, each at most ``width`` pixels: cut in the middle of a word gap (blank columns
    at least ``gap`` wide) that fits, or at ``width`` where no gap does (a picture, a long URL)."""
    inked = np.flatnonzero(cols)
    if inked.size == 0:
        return []
    left, right = int(inked[0]), int(inked[-1]) + 1
    # as few pieces as fit, of about equal width: a line a little too wide splits in two halves, not one word
    pieces = -(-(right - left) // width)
    width = min(width, int(1.1 * (right - left) / pieces) + 1)
    out = []
    while right - left > width:
        # the widest gap in the window's last third: a space between words is wider than one between letters
        fits = [(b - a, left + (a + b) // 2) for a, b in _runs(~cols[left:left + width + 1]) if b - a >= gap]
        late = [f for f in fits if f[1] - left >= 0.66 * width]
        cut = max(late)[1] if late else fits[-1][1] if fits else left + width
        out.append((left, cut))
        rest = np.flatnonzero(cols[cut:right])
        if rest.size == 0:
            return out
        left = cut + int(rest[0])
    out.append((left, right))
    return out


def column_span(ink: np.ndarray, x0: int, x1: int, gutter: float) -> tuple[int, int]:
    """[x0, x1) widened to the printed column it lies in: out to either side while the next ink is nearer than
    ``gutter`` pixels, so neighbouring lines are not cut mid-word and the next column stays out."""
    cols = ink.any(axis=0)
    inked = np.flatnonzero(cols)
    left = inked[inked < x0]
    while left.size and x0 - left[-1] <= gutter:
        x0 = int(left[-1])
        left = left[left < x0]
    right = inked[inked >= x1]
    while right.size and right[0] - x1 <= gutter:
        x1 = int(right[0]) + 1
        right = right[right >= x1]
    return x0, x1


def rewrap(plain: Image, shown: Image, width_lines: float = WRAP_LINES) -> Image:
    """``shown`` (the picture with its highlight) with its printed lines rewrapped to ``width_lines`` line heights;
    ``plain`` is the same picture without the highlight, where the ink is found. Returned unchanged when it is
    narrow enough already or holds no print."""
    from PIL import Image as PILImage

    ink = np.asarray(plain.convert("L")) < INK
    rows = text_rows(ink)
    # a line the crop cut through at its top or bottom edge is a sliver, not a line to read
    rows = [r for r in rows if r[0] > 0 and r[1] < ink.shape[0]] or rows
    if not rows:
        return shown
    line = float(np.median([b - a for a, b in rows]))
    width = max(int(width_lines * line), 1)
    if shown.width <= SLACK * width:  # narrow enough: a column's lines are read best as printed
        return shown
    pieces = []
    for i, (a, b) in enumerate(rows):
        # each line's band reaches halfway to its neighbours, so the highlight around its words comes with it
        reach = int(0.3 * line)  # past the first and last line: their highlight, not the cut line beyond
        top = max(0, a - reach) if i == 0 else (rows[i - 1][1] + a) // 2
        bottom = min(shown.height, b + reach) if i == len(rows) - 1 else (b + rows[i + 1][0]) // 2
        for x0, x1 in _cuts(np.asarray(ink[a:b].any(axis=0)), width, max(2.0, 0.18 * line)):
            pad = max(2, int(0.1 * line))
            pieces.append(shown.crop((max(0, x0 - pad), top, min(shown.width, x1 + pad), bottom)))
    out = PILImage.new("RGB", (max(p.width for p in pieces), sum(p.height for p in pieces)), "white")
    y = 0
    for p in pieces:
        out.paste(p, (0, y))
        y += p.height
    return out
