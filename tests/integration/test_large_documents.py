"""Large documents end to end: a long manual is read whole under the default bound (minutes on a loaded machine), and
files whose text expands past the bound are refused by `graphrag ingest` in seconds and bounded memory, measured in a
child process. The readers' own refusals are tested in tests/integration/test_document_bounds.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from doc_helpers import (
    LINE,
    docx_bomb,
    docx_with_part,
    drawing_pdf,
    glyph_run_pdf,
    html_page,
    one_line,
    raw_pdf,
    shared_stream_pdf,
)
from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers import read_document

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_300_page_manual_is_read_under_the_default_bound() -> None:
    """300 pages of 53 lines, 3,500 characters a page: 1.06 M characters (210 s on the loaded 2-core machine)."""
    read = read_document(shared_stream_pdf(300, lines=53), ".pdf")
    assert len(read.layout.pages) == 300 and 1_000_000 < len(read.text) < MAX_DOCUMENT_CHARS


# --- a small file whose text expands past the bound, through the command line in a child process ------------------

def _ingest_in_child(path: Path, store: Path, timeout: int) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run `graphrag ingest path` in a child; (the run, seconds, the child's own peak memory in MB). The child reports
    its VmHWM: getrusage would not do, since RUSAGE_CHILDREN is the largest child this process ever waited for and a
    child's ru_maxrss starts from its parent's size at fork."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("GRAPHRAG_MAX_DOCUMENT_CHARS", None)
    run = ("import re, sys\nfrom graphrag.cli import main\ncode = main(sys.argv[1:])\n"
           "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
           "print('PEAK_KB', hwm, file=sys.stderr)\nsys.exit(code)")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", run, "ingest", str(path), "--store", str(store)],
                          env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - t0
    return done, seconds, int(done.stderr.split("PEAK_KB")[1].split()[0]) / 1024


def test_a_5mb_single_line_file_is_refused_within_seconds_and_little_memory(tmp_path: Path) -> None:
    """Before, a 5 MB single-line upload was still ingesting after 2 min 44 s at about 2 GB."""
    big = tmp_path / "big.md"
    big.write_bytes(one_line(4_999_000))
    done, seconds, peak_mb = _ingest_in_child(big, tmp_path / "s.db", 180)
    assert done.returncode == 1, done.stderr  # nothing was ingested (the one document was refused)
    assert "rejected" in done.stdout and f"the limit is {MAX_DOCUMENT_CHARS:,} characters" in done.stdout
    assert seconds < 60, f"took {seconds:.0f} s"
    assert peak_mb < 1024, f"peak {peak_mb:.0f} MB"


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bombs")
    files = {
        "pdf": ("shared.pdf", shared_stream_pdf(2_000)),  # 2,000 pages x 4,600 characters, 320 KB
        "docx": ("bomb.docx", docx_bomb(14_000)),  # 14 M characters in 92 KB
        "html": ("page.html", html_page(5_500)),  # 5.4 M characters of text in 5.4 MB
        "text": ("notes.md", (LINE + "\n").encode() * 100_000),  # 7.6 MB, one character a byte
    }
    out = {}
    for kind, (name, data) in files.items():
        out[kind] = folder / name
        out[kind].write_bytes(data)
    return out


@pytest.mark.parametrize("kind", ["pdf", "docx", "html", "text"])
def test_a_document_expanding_past_the_bound_is_refused_in_seconds_and_bounded_memory(
        kind: str, bombs: dict[str, Path], tmp_path: Path) -> None:
    done, seconds, peak_mb = _ingest_in_child(bombs[kind], tmp_path / "s.db", 300)
    assert "rejected" in done.stdout, done.stdout + done.stderr
    # The DOCX body packs 150 times: refused from the ZIP directory (tests/integration/test_read_limits.py) before
    # its characters are counted.
    reason = "times larger than it is packed" if kind == "docx" else f"the limit is {MAX_DOCUMENT_CHARS:,} characters"
    assert reason in done.stdout
    assert seconds < 30, f"took {seconds:.0f} s"
    assert peak_mb < 1536, f"peak {peak_mb:.0f} MB"


# --- files whose cost is in what they draw or pack, not in the text they keep (graphrag/ingest/readers/limits.py) --

STYLE = b'<w:style w:type="character" w:customStyle="1" w:styleId="X"><w:name w:val="X"/></w:style>'
HOSTILE = {  # name, bytes, what the refusal says; what each cost before, measured with `graphrag ingest`
    # 150 MB of styles in 545 KB: 156 s and 2.2 GB (the figure), only the archive's total was checked
    "styles": ("styles.docx", lambda: docx_with_part("word/styles.xml", STYLE, 150),
               "the DOCX part word/styles.xml unpacks to"),
    # 50 pages of 200,000 lines, no glyph, 18 KB: 106 s to "no text layer" on the loaded machine
    "drawing": ("drawing.pdf", lambda: drawing_pdf(50, 200_000), "page 1 draws 200,000 objects"),
    # one page whose content unpacks to 200 MB of lines, 490 KB: PDFium needs about 3 GB to load it
    "content": ("content.pdf", lambda: raw_pdf(1, b"10 10 m 600 780 l S\n" * 10_000_000),
                "loading this PDF's pages needed more than 800 MB of memory"),
    # 62 pages of one run of "A A A ...", 4 KB: 2 M characters, a million words for spaCy (98 K of them took 47 s)
    "glyphs": ("glyphs.pdf", lambda: glyph_run_pdf(62, 32_000), "words"),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    out = {}
    for kind, (name, make, _) in HOSTILE.items():
        out[kind] = folder / name
        out[kind].write_bytes(make())
    return out


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_file_whose_parts_cost_more_than_its_text_is_refused_within_20_s_and_1_gb(
        kind: str, hostile: dict[str, Path], tmp_path: Path) -> None:
    """The PDF's pages are first loaded in a grandchild under a 1 GB ceiling of its own, so the child's peak here
    is the reader's; the figures with the whole tree are in docs/security.md."""
    done, seconds, peak_mb = _ingest_in_child(hostile[kind], tmp_path / "s.db", 120)
    assert done.returncode == 1 and "rejected" in done.stdout, done.stdout + done.stderr
    assert HOSTILE[kind][2] in done.stdout, done.stdout
    assert "loading the models" not in done.stderr  # refused while reading: nothing parsed, nothing stored
    assert seconds < 20, f"took {seconds:.0f} s"
    assert peak_mb < 1024, f"peak {peak_mb:.0f} MB"
