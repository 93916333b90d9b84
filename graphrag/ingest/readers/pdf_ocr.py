"""OCR in the PDF reader: a page without a text layer but with a picture is drawn in a child process
(``picture_child``) and read by the OCR engine (``ocr``) into printed lines; the reading report's OCR part."""

from __future__ import annotations

import statistics
import time

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.limits import ReadLimits
from graphrag.ingest.readers.ocr import CONFIDENCE_FLOOR, OcrPage, blank, read_picture
from graphrag.ingest.readers.pdf_lines import Line, PageRead
from graphrag.ingest.readers.picture_child import Refused, Stopped, render_page
from graphrag.language.sentences import counted


def page_pictures(page: pdfium.PdfPage) -> list[tuple[int, int]]:
    """The size in pixels of each picture the page draws (a scan's page is one); none on a page of vector drawings
    only, which has nothing for OCR."""
    return [obj.get_px_size() for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=4)
            if isinstance(obj, pdfium.PdfImage)]


def check_pictures(pictures: list[tuple[int, int]], number: int, limits: ReadLimits) -> None:
    """Refuse a scanned page whose pictures hold more pixels than an uploaded picture may, before PDFium decodes
    them to render the page: a 20,000 x 20,000 picture packs into 1 MB and decodes to 1.2 GB (600 MB and 10 s
    for one page, measured), whatever the size the page is rendered at."""
    total = sum(w * h for w, h in pictures)
    if total <= limits.image_pixels:
        return
    what = (f"a picture of {pictures[0][0]:,} x {pictures[0][1]:,} pixels" if len(pictures) == 1
            else f"{len(pictures):,} pictures of {total:,} pixels in all")
    raise ReadError(f"page {number:,} is {what}; the limit is {limits.image_pixels:,} pixels a page (a 600 dpi A4 "
                    "scan has 35 million): scale the scan down")


def ocr_page(data: bytes, page: pdfium.PdfPage, number: int, pages: int, limits: ReadLimits,
             clock: list[float]) -> PageRead:
    """A page without a text layer, rendered and read by OCR (``ocr``): its lines in reading order as the
    upright page has them, in points; each line's characters spread evenly over its box. The page is drawn (its
    pictures decoded) in a child process under its own ceilings (``picture_child``), never here. A blank page is
    skipped without the engine; a page, or the document's OCR in all, past its bound on processor time (the
    process's, the engine's threads included) refuses the PDF. ``clock``: the document's processor seconds of OCR
    and of drawing pages in the child so far, added to here."""
    w, h = page.get_size()
    scale = min(limits.ocr_dpi / 72, (limits.ocr_page_pixels / max(w * h, 1.0)) ** 0.5)
    pixels = _drawn(data, number, scale, limits, clock)
    if blank(pixels):
        return PageRead([], scanned=True)
    started = time.process_time()  # the engine's threads included; by the clock a loaded machine would refuse
    read = read_picture(pixels, limits.ocr_confidence_floor)
    spent = time.process_time() - started
    clock[0] += spent
    if spent > limits.ocr_page_seconds:
        raise ReadError(f"OCR of page {number:,} took {spent:.0f} s of processor time; the limit is "
                        f"{limits.ocr_page_seconds:g} s a page: "
                        "its picture is too large or too busy to read")
    if clock[0] > limits.ocr_seconds:
        raise ReadError(f"OCR took {clock[0]:.0f} s of processor time by page {number:,} of {pages:,}; the limit is "
                        f"{limits.ocr_seconds:g} s a document: split it")
    return PageRead([], upright=read.turned == 0, ocr=_ocr_lines(read, number, scale), ocr_low=list(read.low),
                     scanned=True)


def _drawn(data: bytes, number: int, scale: float, limits: ReadLimits, clock: list[float]) -> np.ndarray:
    """Page ``number`` of the PDF drawn at ``scale`` as an RGB array, by the child (``picture_child``), its processor
    time added to ``clock[1]``; a ReadError when its pictures are refused there or a ceiling stops it."""
    try:
        width, height, rgb, seconds = render_page(data, number - 1, scale, limits)
    except Refused as no:
        if no.kind == "scans":
            raise ReadError(f"page {number:,} draws a JPEG of {no.value:,} scans; the limit is {limits.jpeg_scans:,} (a "
                            "progressive JPEG has about 10, and each scan is a pass of the decoder over the whole "
                            "picture): re-export the scan") from None
        if no.kind == "undecodable":
            raise ReadError(f"corrupt PDF: page {number:,} cannot be drawn for OCR ({no.detail})") from None
        raise ReadError(f"drawing page {number:,} for OCR needed more than {limits.picture_memory // 1_000_000:,} MB "
                        "of memory: its pictures are too large, or built to exhaust the reader") from None
    except Stopped as stop:
        if stop.reason == "start":
            raise ReadError(f"page {number:,} could not be drawn for OCR: no process could be started ({stop.detail}); "
                            "try again when the machine is less busy") from None
        if stop.reason == "time":
            raise ReadError(f"drawing page {number:,} for OCR passed its bound on time "
                            f"({limits.picture_render_seconds:g} s of processor time, "
                            f"{limits.picture_render_wall_seconds:g} s by the clock): its pictures are too complex to "
                            "decode, or built to exhaust the reader") from None
        raise ReadError(f"drawing page {number:,} for OCR needed more than {limits.picture_memory // 1_000_000:,} MB "
                        "of memory, or the decoder failed on it: its pictures are too large, corrupt, or built to "
                        "exhaust the reader") from None
    clock[1] += seconds
    return np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)


def _ocr_lines(read: OcrPage, number: int, scale: float) -> list[Line]:
    """OCR lines as printed lines of page ``number``: their geometry in the upright page (points), what the
    reading order and the line kinds are judged on; on a turned page each keeps its box as the page lies."""
    out = []
    for ol in read.lines:
        x0, y0, x1, y1 = (v / scale for v in ol.upright)
        step = (x1 - x0) / max(len(ol.text), 1)
        x0s = [x0 + i * step for i in range(len(ol.text))]
        ln = Line(number, list(ol.text), x0s, [x + step for x in x0s], y0, y1, y0, y1, confidence=ol.confidence)
        if read.turned:
            ln.frame = tuple(v / scale for v in ol.box)  # type: ignore[assignment]
        out.append(ln)
    return out


def ocr_report(read: list[PageRead], pages: int, floor: float = CONFIDENCE_FLOOR) -> str | None:
    """What OCR read: pages, lines and their mean confidence, blank pages, and each line under the confidence
    floor (kept out of the text) with its page; and pages with neither a text layer nor a picture. None where
    every page had a text layer."""
    scanned = [p for p, page in enumerate(read) if page.scanned]
    drawn = sum(1 for page in read if not page.fragments and not page.scanned)
    out = []
    if scanned:
        lines = [ln for page in read for ln in page.ocr]
        text = f"{counted(len(scanned), 'page')} of {pages} read by OCR (no text layer): {counted(len(lines), 'line')}"
        if lines:
            text += f", mean confidence {statistics.mean(ln.confidence or 0.0 for ln in lines):.2f}"
        turned = sum(1 for p in scanned if read[p].ocr and not read[p].upright)
        if turned:
            text += f"; {counted(turned, 'page')} turned (read upright)"
        empty = sum(1 for p in scanned if not read[p].ocr and not read[p].ocr_low)
        if empty:
            text += f"; {counted(empty, 'page')} with nothing to read"
        low = [(p + 1, ln) for p in scanned for ln in read[p].ocr_low]
        if low:
            shown = "; ".join(f'p. {p} "{_cut(ln.text, 40)}" ({ln.confidence:.2f})' for p, ln in low[:10])
            more = f" and {len(low) - 10} more" if len(low) > 10 else ""
            text += (f"; {counted(len(low), 'line')} under the confidence floor {floor:g} kept out of the "
                     f"text: {shown}{more}")
        out.append(text)
    if drawn:
        out.append(f"{drawn} of {pages} pages have no text layer and no picture (drawings only) and were skipped")
    return "; ".join(out) or None


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1].rstrip() + "…"
