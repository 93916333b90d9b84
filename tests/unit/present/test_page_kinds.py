"""The Review page's debugging view (issue 24): a cited PDF page with each printed line outlined in the colour
of the kind the reader gave it, and the page's lines counted by kind for the legend."""

from __future__ import annotations

import io

import pytest

from graphrag.present import KIND_COLOURS, render_kinds
from graphrag.present.pages import PageNotDrawn, render_scale
from paper_pdf import ROWS, paper_drawn

pytestmark = pytest.mark.unit


def _pixels_near(image, box: tuple[float, ...], scale: float) -> set[tuple[int, int, int]]:
    """The colours on the outline's left edge, just outside the line's box."""
    x0, y0, _, y1 = box
    x = int(x0 * scale) - 2
    return {image.getpixel((x + dx, y)) for dx in (-1, 0, 1) for y in range(int(y0 * scale), int(y1 * scale))}


def test_each_line_is_outlined_in_its_kinds_colour_and_counted() -> None:
    from PIL import Image

    data, drawn = paper_drawn()
    png, counts = render_kinds(data, 1)
    assert counts["table"] == len(ROWS) and counts["stamp"] == 1 and counts["body"] >= 10
    image = Image.open(io.BytesIO(png)).convert("RGB")
    scale = render_scale(612, 792)
    row = next(d for d in drawn if d.text == ROWS[0])
    heading = next(d for d in drawn if d.text == "2 Models")
    assert KIND_COLOURS["table"] in _pixels_near(image, row.box, scale)
    assert KIND_COLOURS["heading"] in _pixels_near(image, heading.box, scale)
    assert KIND_COLOURS["table"] not in _pixels_near(image, heading.box, scale)


def test_a_file_that_cannot_be_read_is_a_message_not_a_traceback() -> None:
    with pytest.raises(PageNotDrawn, match="page 1"):
        render_kinds(b"%PDF-1.4 truncated", 1)
