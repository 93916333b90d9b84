"""Text read from a picture of a page (a scanned PDF page, a PNG/JPEG/TIFF upload) by OCR.

The engine is RapidOCR on ONNX Runtime (``rapidocr-onnxruntime``, Apache-2.0: PaddleOCR's PP-OCRv4 detection and
recognition models and its direction classifier, shipped inside the wheel, so it runs offline with nothing to
download). It finds each line's quadrilateral, turns each crop upright (the classifier reads a line upside down
as well) and recognises it with a confidence. A page turned by 90, 180 or 270 degrees is told from its lines:
tall boxes mean a quarter turn, and the classifier's votes say which way; such a page is read again turned
upright (the detector cuts turned text into words), its lines put in reading order there, and each keeps its
box as the page lies (what a viewer of the scan draws). Mild skew needs nothing: each line is cut out along
its own quadrilateral.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphrag.ingest.readers.limits import LIMITS

CONFIDENCE_FLOOR = LIMITS.ocr_confidence_floor  # lines under it are kept out of the text (see ``limits``)
# Told after each page without a text layer is read (pages done, pages to read; 0 done before the first): OCR takes
# seconds a page, so the ingest job and ``graphrag ingest`` show it page by page.
PageProgress = Callable[[int, int], None]
_LOCK = threading.Lock()  # one engine, shared by the dashboard's threads; ONNX Runtime sessions are not re-entrant here


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: its text, its box as the picture lies (x0, y0, x1, y1 in pixels) and confidence."""

    text: str
    box: tuple[float, float, float, float]
    confidence: float
    upright: tuple[float, float, float, float]  # the same box in the upright page, for reading order


@dataclass(frozen=True)
class OcrPage:
    """A page read by OCR: lines at or over the floor in reading order, those under it, and how it was turned
    (degrees clockwise the scan lies from upright: 0, 90, 180 or 270)."""

    lines: tuple[OcrLine, ...]
    low: tuple[OcrLine, ...]
    turned: int
    upright_size: tuple[int, int]  # (width, height) of the upright page in pixels


def progress_text(done: int, total: int) -> str:
    """What the ingest shows while a scan is read: "reading 12 pages by OCR", then "page 3 of 12 read by OCR"."""
    if done == 0:
        return f"reading {total:,} page{'s' if total != 1 else ''} by OCR"
    return f"page {done:,} of {total:,} read by OCR"


@functools.cache
def _engine() -> Any:  # rapidocr ships no type information
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR()


def _turn(quads: list[np.ndarray], labels: list[str]) -> int:
    """How the page lies (degrees clockwise from upright), from its lines' shapes and the classifier's votes. A
    crop taller than wide is turned a quarter counter-clockwise before it is classified, so on a page turned
    clockwise it comes out upright ("0") and on one turned counter-clockwise upside down ("180")."""
    tall = [(np.ptp(q[:, 1]) > 1.5 * np.ptp(q[:, 0])) for q in quads]
    quarter = sum(tall) > len(tall) / 2
    votes = [lab for lab, t in zip(labels, tall) if t == quarter]
    flipped = sum(lab == "180" for lab in votes) > len(votes) / 2
    if quarter:
        return 270 if flipped else 90
    return 180 if flipped else 0


def _reading_order(lines: list[OcrLine]) -> list[OcrLine]:
    """Lines top to bottom in the upright page, boxes whose middles are within half a line of each other
    one row, read left to right."""
    if not lines:
        return []
    height = float(np.median([ln.upright[3] - ln.upright[1] for ln in lines]))
    rows: list[list[OcrLine]] = []
    for ln in sorted(lines, key=lambda ln: (ln.upright[1] + ln.upright[3]) / 2):
        mid = (ln.upright[1] + ln.upright[3]) / 2
        if rows and abs(mid - (rows[-1][0].upright[1] + rows[-1][0].upright[3]) / 2) < 0.5 * height:
            rows[-1].append(ln)
        else:
            rows.append([ln])
    return [ln for row in rows for ln in sorted(row, key=lambda ln: ln.upright[0])]


def _picture_box(box: tuple[float, float, float, float], turned: int, w: int, h: int
                 ) -> tuple[float, float, float, float]:
    """A box of the upright page in the picture's coordinates (``w`` x ``h`` pixels as the picture lies)."""
    u0, v0, u1, v1 = box
    if turned == 180:
        return w - u1, h - v1, w - u0, h - v0
    if turned == 90:
        return w - v1, u0, w - v0, u1
    if turned == 270:
        return v0, h - u1, v1, h - u0
    return box


def _recognise(pixels: np.ndarray) -> tuple[list[np.ndarray], list[tuple[str, float]], list[str]]:
    """The engine's lines on a picture: quadrilaterals, (text, confidence) and the direction classifier's
    vote ("0" or "180") for each."""
    engine = _engine()
    result, _ = engine(pixels, text_score=0.0)  # every line: the floor is applied by the caller, and reported
    if not result:
        return [], [], []
    quads = [np.asarray(r[0], dtype=np.float32) for r in result]
    _, votes, _ = engine.text_cls(engine.get_crop_img_list(pixels, np.asarray(quads)))
    return quads, [(str(r[1]), float(r[2])) for r in result], [str(v[0]) for v in votes]


def read_picture(pixels: np.ndarray, floor: float = CONFIDENCE_FLOOR) -> OcrPage:
    """The lines of one page's picture (an RGB array), in reading order, split at the confidence floor. A
    turned page is read a second time turned upright: the detector finds whole lines only on upright text."""
    h, w = pixels.shape[:2]
    with _LOCK:
        quads, texts, votes = _recognise(pixels)
        turned = _turn(quads, votes) if quads else 0
        if turned:
            quads, texts, _ = _recognise(np.ascontiguousarray(np.rot90(pixels, {90: 1, 180: 2, 270: -1}[turned])))
    lines = []
    for quad, (text, score) in zip(quads, texts):
        text = " ".join(text.split())
        if not text:
            continue
        upright = (float(quad[:, 0].min()), float(quad[:, 1].min()), float(quad[:, 0].max()),
                   float(quad[:, 1].max()))
        lines.append(OcrLine(text, _picture_box(upright, turned, w, h), score, upright))
    ordered = _reading_order(lines)
    size = (h, w) if turned in (90, 270) else (w, h)
    return OcrPage(tuple(ln for ln in ordered if ln.confidence >= floor),
                   tuple(ln for ln in ordered if ln.confidence < floor), turned, size)


def blank(pixels: np.ndarray) -> bool:
    """A page with nothing on it to read: almost every pixel the paper's own shade (a blank scan, with its
    specks), judged in a few milliseconds before the engine spends seconds on it."""
    grey = pixels.mean(axis=2) if pixels.ndim == 3 else pixels
    paper = float(np.median(grey))
    return float(np.mean(np.abs(grey - paper) > 60)) < 0.0003
