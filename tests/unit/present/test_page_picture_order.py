"""The Review page's picture of a cited PDF sentence, rewrapped to its column (issue 60): its lines stacked in the
PDF's reading order, every word whole, and its print large enough to read at 1280x800.

A page set as tightly as a printed web page (10-point type on 12-point lines, footnote marks raised over the words,
links underlined) has no white row between its lines: rewrapped from the ink, two lines were read as one and their
halves stacked in turn ("one seat w / of justices to nine / was removed in 1866 ... In / 1869, however"), words cut
between them, and the picture was rewrapped to twice the width, too small to read. Each printed line here is drawn
in its own colour, so the picture says which line each pixel came from: read top to bottom, the lines come in the
PDF's text order (a column at a time on a two-column page), each line's words counted whole. The PDFs are made
here with reportlab; ``python -m lab.check_page_pictures`` checks real PDFs the same way from their text layer."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np
import pytest

from graphrag.present import pages
from graphrag.present.pages import DPI, render_page

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

pytestmark = pytest.mark.unit

SIZE = 10.0  # points: a printed web page's type, on lines 1.2 times as high (no white row between them)
SPACE_PX = 6  # pixels: a gap wider than this between a line's inked columns is a space (5 points, 10 pixels)
# one dark colour per printed line, told apart by the direction of its ink (255 minus the colour): a glyph's edge
# blends it with white, which shortens that vector but keeps its direction
COLOURS = [(0.8, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 0.9), (0.0, 0.0, 0.0), (0.6, 0.0, 0.6), (0.8, 0.4, 0.0),
           (0.0, 0.45, 0.45), (0.4, 0.0, 0.8), (0.45, 0.45, 0.0), (0.8, 0.0, 0.4)]  # at least 13 degrees apart
WORDS = ("court justices seat removed nine congress act judicial circuit number reduced seven however "
         "vacancy president appointed increased states union").split()


def _line_words(i: int, n: int) -> list[str]:
    return [WORDS[(i * 7 + k) % len(WORDS)] for k in range(n)]


def _draw_line(c: Canvas, x: float, y: float, i: int, n: int, size: float) -> None:
    """Line ``i`` of ``n`` words at baseline ``y`` in its colour, a raised footnote mark after every fourth word
    (its top within a point of the descenders of the line above: no white row between the lines)."""
    c.setFillColorRGB(*COLOURS[i % len(COLOURS)])
    for k, word in enumerate(_line_words(i, n)):
        c.setFont("Times-Roman", size)
        c.drawString(x, y, word)
        x += c.stringWidth(word, "Times-Roman", size)
        if k % 4 == 2:
            c.setFont("Times-Roman", 0.7 * size)
            mark = f"[{i + k}]"
            c.drawString(x, y + 0.45 * size, mark)
            x += c.stringWidth(mark, "Times-Roman", 0.7 * size)
        x += c.stringWidth("  ", "Times-Roman", size)  # a wide space: words told apart in the picture for sure


def _pdf(columns: int, size: float = SIZE) -> tuple[bytes, int]:
    """One page of ``size``-point type: ``columns`` == 1, nine lines across about 470 points; 2: two columns of five
    lines of 6 words. Returns the PDF and its number of lines."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    if columns == 1:
        lines = 9
        for i in range(lines):
            _draw_line(c, 72, 700 - i * 1.2 * size, i, int(120 / size), size)
    else:
        lines = 10
        for i in range(lines):
            col, row = divmod(i, 5)
            _draw_line(c, 72 + col * 250, 700 - row * 1.2 * size, i, 6, size)
    c.showPage()
    c.save()
    return buf.getvalue(), lines


def _labels(png: bytes) -> np.ndarray:
    """Each pixel's line (-1: paper, highlight or too faint to tell)."""
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(float)
    ink = 255.0 - rgb
    strength = np.linalg.norm(ink, axis=2)
    palette = np.array([[255.0 * (1 - v) for v in colour] for colour in COLOURS])
    palette /= np.linalg.norm(palette, axis=1, keepdims=True)
    direction = ink / np.maximum(strength, 1e-6)[..., None]
    cosine = direction @ palette.T
    label = cosine.argmax(axis=2)
    sure = (strength > 150) & (cosine.max(axis=2) > 0.993)
    return np.where(sure, label, -1)


def _reading(labels: np.ndarray, lines: int) -> tuple[list[int], dict[int, int]]:
    """The lines in the order the picture stacks them (one entry per run of rows a line's print takes) and the
    number of words each line's print holds (runs of its pixels across, apart by more than a letter's gap)."""
    runs: list[tuple[int, int]] = []
    words: dict[int, int] = {}
    for line in range(lines):
        # a row it prints in (three pixels at least: the underline of the line above or the tip of a mark of the
        # line below, where tight lines overlap, is not a piece of it)
        rows = np.flatnonzero((labels == line).sum(axis=1) >= 3)
        if rows.size == 0:
            continue
        # the rows a piece of this line takes: apart from the next piece by rows without it
        breaks = np.flatnonzero(np.diff(rows) > 1)
        for a, b in zip(np.concatenate(([rows[0]], rows[breaks + 1])), np.concatenate((rows[breaks], [rows[-1]]))):
            if b - a < 6:  # a piece of a line is at least its letters' body high
                continue
            runs.append((int(a), line))
            mine = labels[a:b + 1] == line
            weight = mine.sum(axis=1)
            # its words across the rows of its letters' bodies: a speck of another line's glyph or of a mark at
            # the band's edge does not join two words
            cols = np.flatnonzero(mine[weight >= 0.3 * weight.max()].any(axis=0))
            gaps = np.flatnonzero(np.diff(cols) > SPACE_PX)
            starts, ends = np.concatenate(([cols[0]], cols[gaps + 1])), np.concatenate((cols[gaps], [cols[-1]]))
            # a word is wider than a letter: a speck of a glyph edge is not one
            words[line] = words.get(line, 0) + int((ends - starts >= 4).sum())
    return [line for _, line in sorted(runs)], words


def _cited(columns: int, size: float = SIZE) -> list[tuple[int, float, float, float, float]]:
    """The boxes of a sentence: lines 4 and 5 of the single column; the last line of the left column and the first
    of the right one on the two-column page."""
    top, leading = 792 - 700 - size, 1.2 * size
    if columns == 1:
        return [(1, 72, top + 4 * leading, 540, top + 4 * leading + size + 2),
                (1, 72, top + 5 * leading, 300, top + 5 * leading + size + 2)]
    return [(1, 72, top + 4 * leading, 290, top + 4 * leading + size + 2),
            (1, 322, top, 540, top + size + 2)]


@pytest.fixture
def unmarked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sentence's highlight drawn clear (its yellow would change the colours that tell the lines apart), and
    nothing drawn before in the cache."""
    from collections import OrderedDict

    monkeypatch.setattr(pages, "BOX_FILL", (0, 0, 0, 0))
    monkeypatch.setattr(pages, "BOX_LINE", (0, 0, 0, 0))
    monkeypatch.setattr(pages, "_cache", OrderedDict())


@pytest.mark.parametrize(("columns", "size"), [(1, SIZE), (1, 8.0), (2, SIZE)])
def test_the_pictures_lines_come_in_the_pdfs_text_order_with_every_word_whole(columns: int, size: float,
                                                                               unmarked: None) -> None:
    data, lines = _pdf(columns, size)
    png = render_page(data, 1, _cited(columns, size), around=40, wrap=20)
    order, counted = _reading(_labels(png), lines)
    shown = sorted(set(order))
    assert len(shown) >= 5, order  # the cited lines and their neighbours
    # each line's pieces together, the lines in the PDF's order: never a line's half, the next line, its other half
    assert [line for k, line in enumerate(order) if k == 0 or order[k - 1] != line] == shown, order
    assert shown == list(range(shown[0], shown[-1] + 1)), shown
    # every word of every line shown whole: a word cut between two pieces would count twice (counted alike on the
    # page as printed, where no word is cut)
    _, printed = _reading(_labels(render_page(data, 1)), lines)
    assert {line: counted[line] for line in shown} == {line: printed[line] for line in shown}


def test_a_tightly_set_page_is_rewrapped_large_enough_to_read_in_the_review_column() -> None:
    from PIL import Image

    data, _ = _pdf(1)
    picture = Image.open(io.BytesIO(render_page(data, 1, _cited(1), around=40, wrap=20)))
    # The source column is about 325 CSS pixels wide at 1280x720 and 1280x800: the picture is shrunk to it. Its
    # 10-point print must stay at least 14 pixels a line there (drawn at the printed width it was about 7).
    on_screen = SIZE * DPI / 72 * min(1.0, 325 / picture.width)
    assert on_screen >= 14, (picture.width, on_screen)


def test_a_page_of_scattered_glyphs_is_drawn_in_bounded_time() -> None:
    """A page whose text layer is thousands of glyphs each read apart (here drawn right to left, a line up or down in
    turn, each one a piece of its own) joins no lines: that costs the pieces' number squared (8.5 s for 3,500 of them,
    hours for a page's 100,000). Its picture is rewrapped from the ink."""
    import time

    from reportlab.pdfgen import canvas

    from graphrag.present.printed import MAX_RUNS, page_lines

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    c.setFont("Times-Roman", 10)
    for k in range(MAX_RUNS + 500):  # each glyph left of the one before and a line up or down: a piece each
        c.drawString(560 - (k * 6) % 540, 700 + (k % 2) * 7, "ab"[k % 2])
    c.showPage()
    c.save()
    data = buf.getvalue()
    import pypdfium2 as pdfium

    assert page_lines(pdfium.PdfDocument(data)[0]) == []
    started = time.perf_counter()
    render_page(data, 1, [(1, 72, 82, 560, 94)], around=40, wrap=20)
    assert time.perf_counter() - started < 20
