"""Every picture the readers decode is decoded here, in a child process under a memory, processor-time and clock
ceiling (``limits.ReadLimits``), never in the server: a picture's pixels cost whatever its header says, and a
decoder's time need not follow its size (a 0.7 MB progressive JPEG of 10,000 scans took 36 s; a 4.8 MB TIFF of
21 pages 58 s and 2.0 GB).

Two jobs, this file run as a script (-P keeps this folder off its path; Pillow, reportlab, numpy and pypdfium2
are imported in the child only, after its ceilings are set):

- ``convert``: a PNG, JPEG or TIFF upload becomes a PDF of its frames (``images``). Before a pixel is decoded
  the frame count, every frame's header (size and colour mode) and, for a JPEG, its scans (counted from its
  markers) are checked; then each frame is decoded under its own processor-time ceiling.
- ``render``: one page of a PDF drawn for OCR (``pdf``) or for display (``graphrag.present.pages``: the Review
  page's pictures of a cited page); the scans of each JPEG the page draws are counted first.

The child writes one JSON line, then the bytes (the PDF; the page's RGB pixels). A refusal is a JSON line that
names what was past which bound; a decoder's error is the document's refusal, never an exception in the server.
"""

from __future__ import annotations

import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

_STUFFED = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")  # a marker after entropy-coded data (not a stuffed byte, RST or fill)


def jpeg_scans(data: bytes) -> int:
    """The most scans (SOS markers) any picture in a JPEG stream holds, read from its markers alone: each scan is
    a pass of the decoder over the whole picture, so their number bounds its work (a progressive JPEG has about
    10). Segments are skipped by their declared length, so an EXIF thumbnail's markers are not counted; a
    stream that holds several pictures (MPO) is counted picture by picture."""
    most = scans = 0
    i = data.find(b"\xff\xd8")
    while 0 <= i < len(data) - 1:
        if data[i] != 0xFF:  # between pictures, or garbage: look for the next picture's start
            i = data.find(b"\xff\xd8", i)
            continue
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker == 0xD8:  # a picture starts
            scans = 0
            i += 2
            continue
        if marker == 0xD9 or 0xD0 <= marker <= 0xD7 or marker == 0x01:  # no length
            i += 2
            continue
        if marker == 0xDA:
            scans += 1
            most = max(most, scans)
        if i + 4 > len(data):
            break
        end = i + 2 + int.from_bytes(data[i + 2:i + 4], "big")
        if marker == 0xDA:
            found = _STUFFED.search(data, end)
            end = found.start() if found else len(data)
        i = end
    return most


# --- the child ---------------------------------------------------------------------------------------------------

def _set_ceilings(params: dict[str, Any]) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (params["memory"], params["memory"]))
    cpu = math.ceil(params["seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _step_ceiling(seconds: float) -> None:
    """At most ``seconds`` more of processor time for the next step (within the whole job's hard ceiling)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    used = time.process_time()
    resource.setrlimit(resource.RLIMIT_CPU, (min(hard, math.ceil(used + seconds)), hard))


def _at(page: int) -> None:
    """Say on stderr which page the child is on: a child stopped by a ceiling is reported with its page."""
    sys.stderr.write(f"page {page}\n")
    sys.stderr.flush()


class _Refuse(Exception):
    """What the child answers for a picture it refuses (its JSON line)."""

    def __init__(self, head: dict[str, Any]) -> None:
        super().__init__(head["refused"])
        self.head = head


def _answer(head: dict[str, Any], body: bytes | memoryview = b"") -> None:
    sys.stdout.buffer.write(json.dumps(head).encode() + b"\n")
    sys.stdout.buffer.write(body)  # not joined to the line: the body may be hundreds of MB
    sys.stdout.buffer.flush()


def _detail(exc: BaseException) -> str:
    """The decoder's reason, without the object it names ("cannot identify image file <_io.BytesIO object at ...>")."""
    said = re.sub(r"\s*<[\w.]+ object at 0x[0-9a-f]+>", "", " ".join(str(exc).split()))
    said = "".join(ch if ch.isprintable() else "?" for ch in said)  # it may quote the file's own bytes
    return said[:200] or type(exc).__name__


def _a85(data: bytes) -> str:
    """reportlab's ASCII85 encoding, character for character, in numpy: reportlab (without its optional C
    accelerator) encodes in pure Python, 27 s of a 40 M-pixel photo's 35 s and most of its 1.9 GB."""
    import numpy as np

    words, rest = divmod(len(data), 4)
    parts = []
    step = 1 << 20  # words a chunk: bounds the arrays to a few tens of MB whatever the picture
    for start in range(0, words, step):
        count = min(step, words - start)
        w = np.frombuffer(data, dtype=">u4", count=count, offset=4 * start).astype(np.uint32)
        zero = w == 0
        digits = np.empty((count, 5), np.uint8)
        for k in range(4, -1, -1):
            digits[:, k] = w % 85 + 33
            w //= 85
        digits[zero, 0] = ord("z")
        keep = np.ones((count, 5), bool)
        keep[zero, 1:] = False
        parts.append(digits[keep].tobytes().decode("latin-1"))
    if rest:
        num = int.from_bytes(data[4 * words:] + b"\0" * (4 - rest), "big")
        last = bytearray(5)
        for k in range(4, -1, -1):
            num, last[k] = divmod(num, 85)
            last[k] += 33
        parts.append(last[:rest + 1].decode("latin-1"))
    parts.append("~>")
    return "".join(parts)


def _convert(data: bytes, params: dict[str, Any]) -> None:
    """An upload's frames as pages of a PDF, each at the picture's size in points at 150 dpi (72 if it says none),
    stored losslessly; ``invariant`` makes the same picture give the same bytes (and the same version)."""
    import io
    import warnings

    from PIL import Image

    expected = params["format"]
    if expected == "JPEG" and (scans := jpeg_scans(data)) > params["jpeg_scans"]:
        raise _Refuse({"refused": "scans", "page": 1, "value": scans}) from None
    warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # above our own bound: refused below
    _at(1)
    _step_ceiling(params["frame_seconds"])  # the headers: a TIFF's frames are counted by walking them all
    try:
        picture = Image.open(io.BytesIO(data))  # the header only: no pixel is decoded yet
    except Image.DecompressionBombError as exc:  # Pillow's own ceiling, far above ours, refused it first
        raise _Refuse({"refused": "bomb", "page": 1, "value": _held(exc)}) from None
    except MemoryError:
        raise _Refuse({"refused": "memory", "page": 1}) from None
    # Pillow's plugins raise what they meet (OSError, SyntaxError, ValueError, struct.error, EOFError...): every one
    # is this file's refusal, answered by the child.
    except Exception as exc:  # noqa: BLE001
        raise _Refuse({"refused": "unreadable", "page": 1, "detail": _detail(exc)}) from None
    frames = _frames(picture, params)
    import reportlab.pdfbase.pdfdoc as pdfdoc
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    pdfdoc.asciiBase85Encode = _a85  # type: ignore[attr-defined]  # the same characters, in C-speed numpy
    out = io.BytesIO()
    c = canvas.Canvas(out, invariant=1)
    for i in range(frames):
        _at(i + 1)
        _step_ceiling(params["frame_seconds"])
        try:
            picture.seek(i)
            frame = picture.convert("RGB")
            dpi = picture.info.get("dpi", (150, 150))[0] or 150
            w, h = frame.width * 72 / dpi, frame.height * 72 / dpi
            c.setPageSize((w, h))
            c.drawImage(ImageReader(frame), 0, 0, w, h)
            c.showPage()
            del frame
        except Image.DecompressionBombError as exc:
            raise _Refuse({"refused": "bomb", "page": i + 1, "value": _held(exc)}) from None
        except MemoryError:
            raise _Refuse({"refused": "memory", "page": i + 1}) from None
        except Exception as exc:  # noqa: BLE001 - a decoder's error: the file's refusal
            raise _Refuse({"refused": "undecodable", "page": i + 1, "detail": _detail(exc)}) from None
    del picture
    c.save()
    _answer({"pages": frames}, out.getbuffer())


def _frames(picture: Any, params: dict[str, Any]) -> int:
    """The picture's frame count, every frame's header (size, colour mode) checked before any frame's pixels are
    decoded. A TIFF declares no count: its frames are walked, to one past the bound at most. An animated PNG
    declares its count, and its frames are drawn on the first one's canvas (Pillow decodes a frame to reach the
    next): its first header is its frames'."""
    from PIL import Image

    limit = params["frames"]
    if picture.format == "PNG":
        declared = int(getattr(picture, "n_frames", 1))
        if declared > limit:
            raise _Refuse({"refused": "frames", "page": 1, "value": declared})
        _header(picture, 0, params)
        return declared
    count = 0
    while count <= limit + 1:
        try:
            picture.seek(count)
        except EOFError:
            break
        except Image.DecompressionBombError as exc:
            raise _Refuse({"refused": "bomb", "page": count + 1, "value": _held(exc)}) from None
        except MemoryError:
            raise _Refuse({"refused": "memory", "page": count + 1}) from None
        except Exception as exc:  # noqa: BLE001 - a decoder's error: the file's refusal
            raise _Refuse({"refused": "unreadable", "page": count + 1, "detail": _detail(exc)}) from None
        if count < limit:
            _header(picture, count, params)
        count += 1
    if count > limit:  # count is exact up to one past the bound; "more" past that
        raise _Refuse({"refused": "frames", "page": 1, "value": count, "detail": "more" if count > limit + 1 else ""})
    return count


def _header(picture: Any, index: int, params: dict[str, Any]) -> None:
    """Refuse frame ``index`` (the current one) by its header: its size, and a colour mode Pillow can convert."""
    from PIL import ImageMode

    w, h = picture.size
    if w * h > params["pixels"] or w <= 0 or h <= 0:
        raise _Refuse({"refused": "pixels", "page": index + 1, "width": w, "height": h})
    try:
        ImageMode.getmode(picture.mode)
    except KeyError:
        raise _Refuse({"refused": "mode", "page": index + 1, "detail": str(picture.mode)[:20]}) from None


def _held(exc: BaseException) -> int:
    held = re.search(r"\((\d+) pixels\)", str(exc))  # Pillow names the count, not the sides
    return int(held.group(1)) if held else 0


def _render(data: bytes, params: dict[str, Any]) -> None:
    """Page ``params["page"]`` (0-based) drawn at ``params["scale"]`` (and turned ``params["rotation"]`` degrees
    clockwise past its own /Rotate, as pypdfium2's ``render`` takes it) as RGB pixels, after its JPEGs' scans are
    counted."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    number = params["page"] + 1
    _at(number)
    try:
        doc = pdfium.PdfDocument(data)
        page = doc[params["page"]]
        # as deep as PDFium draws forms (about 40; a JPEG 5 forms deep was drawn uncounted at a depth of 4), each
        # JPEG under its other filters (a Flate-packed one had no markers to count). Pictures drawn by a pattern, a
        # Type 3 glyph or an annotation are not listed here: the ceilings bound them.
        for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=64):
            if isinstance(obj, pdfium.PdfImage) and "DCTDecode" in obj.get_filters():
                scans = jpeg_scans(bytes(obj.get_data(decode_simple=True)))
                if scans > params["jpeg_scans"]:
                    raise _Refuse({"refused": "scans", "page": number, "value": scans}) from None
        rgb = page.render(scale=params["scale"], rotation=params.get("rotation", 0)).to_pil().convert("RGB")
    except _Refuse:
        raise
    except MemoryError:
        raise _Refuse({"refused": "memory", "page": number}) from None
    except Exception as exc:  # noqa: BLE001 - PDFium's or Pillow's error on this page: the file's refusal
        raise _Refuse({"refused": "undecodable", "page": number, "detail": _detail(exc)}) from None
    _answer({"width": rgb.width, "height": rgb.height, "seconds": time.process_time()}, rgb.tobytes())


def _child() -> None:
    """The script's entry: the ceilings first, then the bytes from stdin, the answer on stdout."""
    params = json.loads(sys.argv[1])
    _set_ceilings(params)
    data = sys.stdin.buffer.read()
    try:
        (_convert if params["job"] == "convert" else _render)(data, params)
    except _Refuse as no:
        _answer(no.head)


# --- the parent ----------------------------------------------------------------------------------------------------

@dataclass
class Refused(Exception):
    """The child refused the picture: ``kind`` ("scans", "bomb", "frames", "mode", "pixels", "unreadable",
    "undecodable", "memory") on ``page`` (1-based), with its ``value``, ``width`` x ``height`` or ``detail``."""

    kind: str
    page: int
    value: int = 0
    width: int = 0
    height: int = 0
    detail: str = ""


class Stopped(Exception):
    """The child was stopped on ``page``: ``reason`` "time" (processor or clock), "memory" (its address space, or
    the decoder crashed) or "start" (no process could be started: ``detail``)."""

    def __init__(self, reason: str, page: int, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.page = page
        self.detail = detail


# One thread for numpy's BLAS: its per-thread buffers would count against the address-space ceiling on a machine
# of many cores, and the child does no linear algebra.
_ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _run(data: bytes, params: dict[str, Any], wall: float) -> tuple[dict[str, Any], bytes]:
    try:
        done = subprocess.run([sys.executable, "-P", __file__, json.dumps(params)], input=data, capture_output=True,
                              timeout=wall, check=False, env=_ENV)
    except subprocess.TimeoutExpired as exc:
        raise Stopped("time", _last_page(exc.stderr)) from None
    except OSError as exc:  # no process could be started (the machine's own limits)
        raise Stopped("start", 0, str(exc)) from exc
    head, _, body = done.stdout.partition(b"\n")
    try:
        answer = json.loads(head) if done.returncode == 0 else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise Stopped("time" if done.returncode == -signal.SIGXCPU else "memory", _last_page(done.stderr))
    if "refused" in answer:
        raise Refused(str(answer["refused"]), int(answer.get("page", 0)), int(answer.get("value", 0)),
                      int(answer.get("width", 0)), int(answer.get("height", 0)), str(answer.get("detail", "")))
    return answer, body


def _last_page(stderr: bytes | None) -> int:
    found = re.findall(rb"^page (\d+)$", stderr or b"", re.MULTILINE)
    return int(found[-1]) if found else 0


def convert_picture(data: bytes, expected: str, limits: Any) -> bytes:
    """The PDF of an upload's frames (``limits`` a ``ReadLimits``), made in the child. Raises ``Refused`` (a
    bound or the decoder said no) or ``Stopped`` (a ceiling stopped the child)."""
    params = {"job": "convert", "format": expected, "frames": limits.ocr_pages, "pixels": limits.image_pixels,
              "jpeg_scans": limits.jpeg_scans, "frame_seconds": limits.picture_frame_seconds,
              "seconds": limits.picture_seconds, "memory": limits.picture_memory}
    _, pdf = _run(data, params, limits.picture_wall_seconds)
    return pdf


def render_page(data: bytes, page: int, scale: float, limits: Any, rotation: int = 0) -> tuple[int, int, bytes, float]:
    """(width, height, RGB bytes, the child's processor seconds) of page ``page`` (0-based) of a PDF drawn at
    ``scale``, turned ``rotation`` degrees (0, 90, 180 or 270) past the page's own /Rotate, in the child. Raises
    ``Refused`` or ``Stopped``."""
    params = {"job": "render", "page": page, "scale": scale, "rotation": rotation, "jpeg_scans": limits.jpeg_scans,
              "seconds": limits.picture_render_seconds, "memory": limits.picture_memory}
    answer, pixels = _run(data, params, limits.picture_render_wall_seconds)
    w, h = int(answer["width"]), int(answer["height"])
    if len(pixels) != w * h * 3:
        raise Stopped("memory", page + 1)
    return w, h, pixels, float(answer.get("seconds", 0.0))


if __name__ == "__main__":
    _child()
