"""Printed lines rewrapped to a narrow width (graphrag.present.rewrap): every inked pixel kept, in reading order,
no piece wider than asked, cuts made between words, not inside one. Synthetic pictures: words are black bars."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from graphrag.present.rewrap import column_span, rewrap, text_rows

pytestmark = pytest.mark.unit

LINE = 20  # pixels from a word's top to its bottom
LETTER, LETTER_GAP, SPACE = 8, 2, 8  # pixels
WORD = 3 * LETTER + 2 * LETTER_GAP  # a word's inked width


def _page(lines: int, words: int, width: int = 1200) -> Image.Image:
    """White, with ``lines`` lines of ``words`` words; each word three letters (bars) 2 px apart."""
    a = np.full((lines * 32 + 12, width), 255, dtype=np.uint8)
    for i in range(lines):
        y = 6 + i * 32
        x = 10
        for _ in range(words):
            for k in range(3):
                a[y:y + LINE, x + k * (LETTER + LETTER_GAP):x + k * (LETTER + LETTER_GAP) + LETTER] = 0
            x += WORD + SPACE
    return Image.fromarray(a).convert("RGB")


def test_lines_are_rewrapped_between_words_keeping_every_inked_pixel() -> None:
    page = _page(3, 30)  # lines of 1,072 pixels
    out = rewrap(page, page, width_lines=20)  # at most 400 pixels a piece
    ink = np.asarray(out.convert("L")) < 128
    assert out.width <= 20 * LINE + 2 * 4 and ink.sum() == (np.asarray(page.convert("L")) < 128).sum()
    rows = text_rows(ink)
    assert len(rows) > 3 * 2 and all(b - a == LINE for a, b in rows)
    for a, b in rows:  # every piece holds whole words: its inked width is a whole number of words
        cols = np.flatnonzero(ink[a:b].any(axis=0))
        span = cols[-1] - cols[0] + 1
        assert (span + SPACE) % (WORD + SPACE) == 0, span


def test_a_narrow_picture_is_left_as_it_is() -> None:
    page = _page(2, 5, width=400)
    assert rewrap(page, page, width_lines=20) is page
    column = _page(2, 13, width=480)  # a printed column a little wider than 400: read best as printed
    assert rewrap(column, column, width_lines=20) is column


def test_a_line_is_cut_into_pieces_of_about_equal_width() -> None:
    page = _page(1, 14)  # 496 pixels of words: two pieces of 7 words, not 11 and 3
    out = rewrap(page, page, width_lines=20)
    ink = np.asarray(out.convert("L")) < 128
    widths = [np.ptp(np.flatnonzero(ink[a:b].any(axis=0))) + 1 for a, b in text_rows(ink)]
    assert widths == [7 * WORD + 6 * SPACE] * 2


def test_the_crop_widens_to_its_column_not_into_the_next() -> None:
    ink = np.zeros((20, 1000), dtype=bool)
    ink[:, 100:400:20] = True  # a column of text: ink every 20 pixels
    ink[:, 460:900:20] = True  # the next column, 60 pixels across the gutter
    assert column_span(ink, 200, 260, gutter=30) == (100, 381)


def test_two_lines_whose_marks_touch_are_two_lines() -> None:
    """A scanned page set tightly: a raised mark over one line touches the line above (no white row between
    them), yet they are two lines, parted where the ink is thinnest."""
    a = np.full((70, 600), 255, dtype=np.uint8)
    a[5:25, 10:590:12] = 0  # line one: letters every 12 pixels
    a[35:55, 10:590:12] = 0  # line two
    a[25:35, 300:303] = 0  # a mark of line two reaching up to line one
    rows = text_rows(np.asarray(a) < 128)
    assert len(rows) == 2 and rows[0][0] == 5 and rows[1][1] == 55 and 25 <= rows[0][1] == rows[1][0] <= 35
