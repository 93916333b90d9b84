"""Who may do what is decided in one place: the doors' use cases (graphrag/<package>/actions.py). Nothing below
them (the store, the exports, the review and refit functions) checks a role, so reading the actions modules tells
every rule, and a facade, command or page that goes through them gets the same answer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.unit


def _role_checks(path: Path) -> list[int]:
    """Lines of ``path`` that call ``require`` (graphrag.access.identity's role check)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name == "require":
                lines.append(node.lineno)
    return lines


def test_roles_are_checked_only_by_the_use_cases() -> None:
    where = {str(p.relative_to(ROOT)): lines for p in sorted((ROOT / "graphrag").rglob("*.py"))
             if (lines := _role_checks(p))}
    assert {p for p in where if not p.endswith("/actions.py") and p != "graphrag/access/identity.py"} == set()
    # every door with an actions module checks roles there
    assert {p for p in where if p.endswith("/actions.py")} == {
        "graphrag/answer/actions.py", "graphrag/ingest/actions.py", "graphrag/verify/actions.py"}
