"""docs/team.md's list of audit events is generated from the typed events the code writes
(scripts/audit_events_doc.py), and every event the product writes is one of them."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from graphrag.store import EVENTS, AuditKind

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.unit


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("audit_events_doc", ROOT / "scripts" / "audit_events_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_list_of_audit_events_is_the_generated_one() -> None:
    script = _script()
    doc = (ROOT / "docs" / "team.md").read_text(encoding="utf-8")
    assert script.updated(doc) == doc, "run python scripts/audit_events_doc.py"
    for kind in AuditKind:
        assert f"| `{kind.value}` |" in doc


def test_a_changed_event_makes_the_doc_out_of_date(monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    doc = (ROOT / "docs" / "team.md").read_text(encoding="utf-8")
    spec = EVENTS[AuditKind.EXPORT]
    monkeypatch.setitem(script.EVENTS, AuditKind.EXPORT, type(spec)("never", spec.written_by, spec.detail))
    assert script.updated(doc) != doc


def test_every_kind_is_described_and_every_event_written_is_a_kind() -> None:
    """No audit row is written under a bare string: each call of the row builder names an ``AuditKind``."""
    assert set(EVENTS) == set(AuditKind)
    bare = []
    for path in (ROOT / "graphrag").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in ("event", "audit_event") and isinstance(node.args[1], ast.Constant):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bare == []
