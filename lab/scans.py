"""Scanned pages made for the OCR tests and figures: known text rendered to a picture, turned, skewed and speckled, in a PDF or
an image file, so OCR can be checked against what was printed."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw, ImageFont

# Each page's lines as printed; the questions the OCR tests ask are answered on pages 2 and 3.
SCAN_PAGES: list[list[str]] = [
    ["Larkspur Field Operations Manual", "Every depot keeps a logbook of arrivals.",
     "The logbook is checked by the shift lead each morning."],
    ["Spare batteries are stored in the north shed.", "The north shed is locked after eight in the evening.",
     "Keys are kept by the night porter."],
    ["Damaged parcels are photographed before they are opened.", "Returned parcels are sorted within 48 hours.",
     "Claims are settled by the Dorrance office."],
]
# How each page lies in the scan (degrees clockwise from upright) and its skew.
SCAN_TURNS = [(0, 1.5), (90, 0.0), (180, -1.0)]


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "LiberationSans-Regular.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def scanned_page(lines: list[str], turned: int = 0, skew: float = 0.0, specks: int = 300, seed: int = 0,
                 size: tuple[int, int] = (1240, 1754)) -> Image.Image:
    """An A4 page at 150 dpi with ``lines`` printed, skewed by ``skew`` degrees, turned ``turned`` degrees
    clockwise, and speckled with ``specks`` dark dots."""
    img = Image.new("L", size, 255)
    draw = ImageDraw.Draw(img)
    font = _font(30)
    for i, line in enumerate(lines):
        draw.text((110, 160 + 60 * i), line, font=font, fill=0)
    if skew:
        img = img.rotate(skew, expand=False, fillcolor=255, resample=Image.Resampling.BICUBIC)
    if turned:
        img = img.rotate(-turned, expand=True, fillcolor=255)
    rng = random.Random(seed)
    draw = ImageDraw.Draw(img)
    for _ in range(specks):
        x, y = rng.randrange(img.width), rng.randrange(img.height)
        draw.ellipse((x, y, x + rng.randint(1, 3), y + rng.randint(1, 3)), fill=rng.randint(0, 120))
    return img


def scanned_pages() -> list[Image.Image]:
    """The made scan's pages: the first upright and skewed, the second a quarter turn, the third upside down."""
    return [scanned_page(lines, turned, skew, seed=i) for i, (lines, (turned, skew)) in
            enumerate(zip(SCAN_PAGES, SCAN_TURNS))]


def scan_pdf(pages: list[Image.Image] | None = None) -> bytes:
    """A PDF of page pictures only (no text layer), one A4-sized page per picture, stored losslessly (a
    scanner's JPEG costs this engine word spaces: docs/documents.md#scanned-pages-and-images)."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(595, 842))
    for picture in (pages if pages is not None else scanned_pages()):
        w, h = (595, 842) if picture.height >= picture.width else (842, 595)
        c.setPageSize((w, h))
        c.drawImage(ImageReader(picture.convert("RGB")), 0, 0, w, h)
        c.showPage()
    c.save()
    return out.getvalue()


def image_bytes(page: Image.Image, fmt: str) -> bytes:
    """One page picture as a PNG, JPEG or TIFF file's bytes."""
    out = io.BytesIO()
    page.convert("RGB" if fmt == "JPEG" else "L").save(out, fmt)
    return out.getvalue()
