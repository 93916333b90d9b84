"""Every bound on a PDF, checked before the reader loads a page: pages, objects and glyphs per page, glyphs in
all, processor time per page and for the whole file, memory, and text on the first pages.

PDFium parses a page's whole content stream when the page is loaded, and no public call tells its size first:
a 122 KB file whose one page draws 2.5 M lines took 1.7 s and 714 MB to load, and a larger stream would take
any amount. So each page is first loaded in a child process (this file, run as a script: it imports only the
standard library and pypdfium2; -P keeps this folder off its path) under an address-space and processor-time ceiling (``limits.ReadLimits``); the
child stops at the first page past a bound and says which. The reader proper then loads only pages that
passed, whose cost is known. Measured on this machine's loaded cores: about 0.3 s for the child to start.
"""

from __future__ import annotations

import json
import math
import resource
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Survey:
    """What the child found: the glyphs of each page it loaded, and where it stopped and why (None: it read
    every page within the bounds). ``stop`` is (kind, page, value): kind "pages", "objects", "glyphs",
    "seconds", "chars" (the document's glyphs passed the character limit), "words" (its words passed their
    bound) or "blank" (more pages without a glyph than OCR may read); ``unopened``: PDFium could not open the file (the reader says why, encrypted or corrupt)."""

    pages: int = 0
    glyphs: list[int] = field(default_factory=list)
    stop: tuple[str, int, float] | None = None
    unopened: bool = False


def _survey(data: bytes, params: dict[str, Any]) -> Survey:
    """Load each page in turn (in the child) and count what it draws, stopping at the first bound passed."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return Survey(unopened=True)
    out = Survey(pages=len(doc))
    if out.pages > params["pages"]:
        out.stop = ("pages", out.pages, out.pages)
        return out
    total = words = 0
    for p in range(out.pages):
        started = time.process_time()
        page = doc[p]  # PDFium parses the page's content here
        objects = pdfium_c.FPDFPage_CountObjects(page.raw)
        textpage = page.get_textpage()
        glyphs = max(textpage.count_chars(), 0)
        words += len(textpage.get_text_range().split()) if glyphs else 0  # in C but the split: no per-glyph work
        textpage.close()
        page.close()
        seconds = time.process_time() - started
        total += glyphs
        out.glyphs.append(glyphs)
        for kind, value, limit in (("objects", objects, params["page_objects"]),
                                   ("glyphs", glyphs, params["page_glyphs"]),
                                   ("seconds", seconds, params["page_seconds"])):
            if value > limit:
                out.stop = (kind, p + 1, value)
                return out
        if total > params["chars"]:
            out.stop = ("chars", p + 1, total)
            return out
        if words > params["words"]:
            out.stop = ("words", p + 1, words)
            return out
        if glyphs == 0 and out.glyphs.count(0) > params["ocr_pages"]:
            out.stop = ("blank", p + 1, out.glyphs.count(0))
            return out
    return out


def _child() -> None:
    """The script's entry: the ceilings first, then the PDF from stdin, the survey as JSON on stdout."""
    params = json.loads(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (params["memory"], params["memory"]))
    cpu = math.ceil(params["seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    data = sys.stdin.buffer.read()
    sys.stdout.write(json.dumps(asdict(_survey(data, params))))


def run_survey(data: bytes, max_chars: int, limits: Any) -> Survey:
    """Survey ``data`` in a child process under ``limits`` (a ``ReadLimits``). Raises ``SurveyFailed`` when
    the child ran out of time or memory (the file needs more than the bounds allow, or PDFium crashed)."""
    params = {"pages": limits.pdf_pages, "page_objects": limits.pdf_page_objects, "page_glyphs": limits.pdf_page_glyphs,
              "page_seconds": limits.pdf_page_seconds, "ocr_pages": limits.ocr_pages, "chars": max_chars,
              "words": max_chars // limits.chars_per_word,
              "memory": limits.pdf_survey_memory, "seconds": limits.pdf_survey_seconds}
    try:
        done = subprocess.run([sys.executable, "-P", __file__, json.dumps(params)], input=data, capture_output=True,
                              timeout=limits.pdf_survey_wall_seconds, check=False)
    except subprocess.TimeoutExpired:
        raise SurveyFailed("time") from None
    except OSError as exc:  # no process could be started (the machine's own limits)
        raise SurveyFailed("start", str(exc)) from exc
    if done.returncode != 0:
        raise SurveyFailed("time" if done.returncode == -signal.SIGXCPU else "memory")
    try:
        raw = json.loads(done.stdout)
    except ValueError:  # the child wrote something else than its answer: count it as a failure to load
        raise SurveyFailed("memory") from None
    stop = raw["stop"]
    return Survey(raw["pages"], raw["glyphs"], (stop[0], int(stop[1]), float(stop[2])) if stop else None,
                  raw["unopened"])


class SurveyFailed(Exception):
    """The child was stopped: ``reason`` is "time", "memory" or "start" (it could not be started: ``detail``)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


if __name__ == "__main__":
    _child()
