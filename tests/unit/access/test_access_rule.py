"""One access rule: no module but graphrag/access/rule.py decides by hand whether access labels meet.

Every surface (graph walk, context, review queue, route steps, CLI entity, evidence panel, graph
page, uploads) asks ``Access.sees``; a new surface that intersects labels itself (``labels &
set(doc.access)``, ``.intersection``, ``.isdisjoint``, ``any(l in doc.access ...)``) fails here,
so the superseded handling and any later change to the rule cannot be forgotten in one place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit  # no model, server or browser

ROOT = Path(__file__).resolve().parents[3]
RULE = ROOT / "graphrag" / "access" / "rule.py"
SET_METHODS = {"intersection", "isdisjoint", "issubset", "issuperset", "__and__", "__rand__"}


def _about_labels(node: ast.AST) -> bool:
    """The expression reads access labels: ``x.access``, ``x.labels``, a name like ``labels`` or
    ``viewer_access``, or what ``store.access_of`` returns (possibly through set(...), [0], etc.)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and (n.attr in ("access", "labels") or n.attr == "access_of"):
            return True
        if isinstance(n, ast.Name) and ("access" in n.id.lower() or "label" in n.id.lower()
                                        or n.id in ("acc", "fresh")):
            return True
    return False


def by_hand(source: str) -> list[int]:
    """Lines where ``source`` compares access labels itself."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd) and (
                _about_labels(node.left) or _about_labels(node.right))) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SET_METHODS \
                and (_about_labels(node.func.value) or any(_about_labels(a) for a in node.args))):
            hits.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("any", "all"):
            for gen in (a for a in node.args if isinstance(a, ast.GeneratorExp | ast.ListComp | ast.SetComp)):
                tests = [gen.elt, *(c.iter for c in gen.generators)]
                if any(isinstance(t, ast.Compare) and any(isinstance(o, ast.In | ast.NotIn) for o in t.ops)
                       and _about_labels(t) for e in tests for t in ast.walk(e)):
                    hits.append(node.lineno)
    return sorted(set(hits))


def surfaces() -> list[Path]:
    files = [ROOT / "app.py", *sorted((ROOT / "graphrag").rglob("*.py")), *sorted((ROOT / "views").rglob("*.py")),
             *sorted((ROOT / "dashboard").rglob("*.py"))]
    return [f for f in files if f != RULE]


def test_no_surface_intersects_access_labels_by_hand() -> None:
    found = {str(f.relative_to(ROOT)): lines for f in surfaces() if (lines := by_hand(f.read_text(encoding="utf-8")))}
    assert found == {}, f"use graphrag.access.rule.Access.sees instead of intersecting labels by hand: {found}"


@pytest.mark.parametrize("code", [
    "visible = {(d.id, d.version) for d in docs if set(d.access) & set(a.access)}",
    "ok = bool(labels & set(doc.access))",
    "ok = fresh is None or not (set(fresh[0]) & labels)",
    "ok = (acc := store.access_of(d, v)) is not None and set(acc[0]) & set(access)",
    "ok = frozenset(doc.access).intersection(viewer_labels)",
    "ok = not set(doc.access).isdisjoint(me.labels)",
    "ok = any(label in doc.access for label in held)",
    "ok = any(x in allowed_labels for x in d.tags)",
])
def test_the_scan_finds_hand_written_label_checks(code: str) -> None:
    assert by_hand(code) == [1]


@pytest.mark.parametrize("code", [
    "docs = mask & (sentence_doc >= 0)",
    "flags = a.flags & b.flags",
    "shared = set(keys_a) & set(keys_b)",
    "labels = sorted({lab for d in store.documents() for lab in d.access} | {PUBLIC})",
    "ok = viewer.sees(doc.access, doc.superseded)",
    "ok = any(k in seen for k in route.entities())",
])
def test_the_scan_leaves_unrelated_code_alone(code: str) -> None:
    assert by_hand(code) == []
