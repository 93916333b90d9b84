"""Every table a page draws goes through render.table, which makes its text cells spreadsheet-safe: the grid's own
"Download as CSV" must not hand a spreadsheet a formula taken from a document, a question or a name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
FORMULAS = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
            "\t=1+1", "\r=1+1"]


def _draw(cells: list[str]) -> None:  # AppTest runs the function's source alone: it imports what it uses
    import pandas as pd

    from dashboard import render

    render.table(pd.DataFrame([{"entity": text, "n": 3, "score": -0.5} for text in cells]
                              + [{"entity": "Acme = Beacon", "n": 1, "score": 0.5}]), hide_index=True)


def test_a_table_shows_no_cell_a_spreadsheet_would_run() -> None:
    at = AppTest.from_function(_draw, args=(FORMULAS,)).run()
    assert not at.exception
    df = at.dataframe[0].value
    assert list(df["entity"]) == ["'" + f for f in FORMULAS] + ["Acme = Beacon"]
    assert list(df["n"]) == [3] * len(FORMULAS) + [1] and df["score"].iloc[0] == -0.5  # numbers stay numbers


def test_every_table_of_every_page_goes_through_render_table() -> None:
    files = [ROOT / "app.py", *sorted((ROOT / "views").glob("*.py")), *sorted((ROOT / "dashboard").glob("*.py"))]
    direct = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "table" and path.name == "render.py":
                node.body = []  # the one place allowed to call st.dataframe
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in ("dataframe", "data_editor", "table")
                    and isinstance(node.value, ast.Name) and node.value.id == "st"):
                direct.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert direct == [], "tables drawn without render.table (their cells are not spreadsheet-safe)"
    uses = sum(path.read_text(encoding="utf-8").count("render.table(") for path in (ROOT / "views").glob("*.py"))
    assert uses >= 9  # the scan saw the pages' tables
