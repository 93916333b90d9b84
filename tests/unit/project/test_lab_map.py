"""lab/README.md maps every lab script to the section of docs/figures.md its figures are written in, and every
helper to what uses it: a new script without a row, or a row naming a section that is gone, fails here; and the
browser stays in the lab."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
ROW = re.compile(r"^\| `(lab/[\w/]+\.py)` \|(.*)\|$")


def _rows() -> dict[str, str]:
    rows: dict[str, str] = {}
    for line in (ROOT / "lab" / "README.md").read_text(encoding="utf-8").splitlines():
        if m := ROW.match(line):
            assert m.group(1) not in rows, f"{m.group(1)} has two rows"
            rows[m.group(1)] = m.group(2)
    return rows


def test_every_lab_file_has_a_row() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in (ROOT / "lab").rglob("*.py") if p.name != "__init__.py"}
    assert sorted(files - set(_rows())) == []


def test_every_section_a_row_names_is_a_heading_of_the_figures() -> None:
    headings = [re.sub(r"^#+\s*", "", h) for h in (ROOT / "docs" / "figures.md").read_text(encoding="utf-8")
                .splitlines() if h.startswith("#")]
    named = {section for row in _rows().values() for section in re.findall(r'"([^"]+)"', row)}
    assert named, "the map names no section"
    missing = [s for s in named if not any(h == s or h.startswith(f"{s} (") or h.startswith(f"{s}:") for h in headings)]
    assert sorted(missing) == []


def test_the_product_names_no_browser_type() -> None:
    # Playwright is a test and benchmark dependency: the Chromium that drives the dashboard is the lab's
    # (lab/browser.py); the kernel only starts the dashboard process (graphrag/serve.py).
    importing = [p.relative_to(ROOT).as_posix() for p in (ROOT / "graphrag").rglob("*.py")
                 if re.search(r"^\s*(from|import) playwright", p.read_text(encoding="utf-8"), re.MULTILINE)]
    assert importing == []
