"""Where each test file belongs (issue 26): the tests mirror the code.

    tests/conftest.py               the fixtures, for every folder below
    tests/support/                  what the tests import: helpers, doubles, fakes, servers
    tests/browser/                  files with a ``browser`` test (headless Chromium against a dashboard)
    tests/unit/<package>/           files whose every test is ``unit`` and that reach no PostgreSQL server and
                                    no model fixture, in the folder of the package they exercise most
    tests/integration/              the rest: models, PostgreSQL, subprocesses, mixed files

Read from each file's text alone (markers, fixtures, imports), so it runs in a second and the layout test
(tests/unit/project/test_tests_layout.py) applies the same rules.

    python scripts/tests_layout.py              print the moves (nothing when every file is in place)
    python scripts/tests_layout.py --apply      make them with ``git mv`` and fix the repository-root idiom
    python scripts/tests_layout.py --rewrite-refs README.md docs/*.md
                                                rewrite old ``tests/...`` paths in those files to the new ones
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# Fixtures of tests/conftest.py that start or reach the PostgreSQL server, or load MiniLM / spaCy.
SERVER_FIXTURES = frozenset({"pg_server", "pg_url", "store_url", "any_store"})
MODEL_FIXTURES = frozenset({"embedder", "tiny_store"})
# heavy: no model or server, but seconds a file (documents drawn and read, vector indexes, AppTest pages): the
# unit tier is the loop run on every change, so these run with the integration tier.
NOT_UNIT_MARKERS = frozenset({"model", "postgresql", "browser", "heavy"})
PACKAGES = ("access", "answer", "cli", "ingest", "present", "store", "verify")
KERNEL = "kernel"  # graphrag's top-level modules (config, embed, errors, text, registry, ...)
PROJECT = "project"  # tests of the repository itself: docs, packaging, layout, the test suite
# Imports that say which part a test exercises besides graphrag's: the dashboard, the lab, the docs, the suite.
OTHER_ROOTS = {"dashboard": "dashboard", "views": "dashboard", "app": "dashboard", "lab": "lab",
               "docs_helpers": PROJECT, "conftest": PROJECT}
UNIT_FOLDERS = frozenset({*PACKAGES, KERNEL, *OTHER_ROOTS.values(), PROJECT})
TIERS = ("unit", "integration", "browser", "support")
# Modules a unit test may not import: the PostgreSQL server, the models, the browser.
NOT_UNIT_IMPORTS = frozenset({"pg_server", "sentence_transformers", "spacy", "playwright"})
ROOT_IDIOM = re.compile(r"Path\(__file__\)\.resolve\(\)\.(?:parent\.parent|parents\[\d+\])")


# --- what a test file says about itself --------------------------------------------------------------------


def _marks(node: ast.expr) -> set[str]:
    """Marker names in a ``pytestmark`` value or decorator: ``pytest.mark.X``, ``pytest.mark.X(...)``, lists."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return set().union(*(_marks(e) for e in node.elts))
    if isinstance(node, ast.Call):
        node = node.func
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "mark"):
        return {node.attr}
    return set()


def _fixture_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The fixtures a function asks for: its arguments and its ``usefixtures`` marks."""
    names = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and "usefixtures" in _marks(deco):
            names |= {a.value for a in deco.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return names


def _fixture_kind(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """"autouse", "fixture" or "" (not a fixture)."""
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if (isinstance(target, ast.Attribute) and target.attr == "fixture") or (
                isinstance(target, ast.Name) and target.id == "fixture"):
            autouse = isinstance(deco, ast.Call) and any(
                k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value for k in deco.keywords)
            return "autouse" if autouse else "fixture"
    return ""


class TestFile:
    """One test module read without importing it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        self.module_marks: set[str] = set()
        self.all_marks: set[str] = set()  # every pytest.mark.X anywhere, pytest.param(marks=...) included
        self.tests: list[tuple[set[str], set[str]]] = []  # (marks, fixtures) per test function
        self.fixtures: dict[str, set[str]] = {}  # fixtures defined here -> what they ask for
        self.autouse: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute):
                self.all_marks |= _marks(node)
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                    for t in node.targets):
                self.module_marks |= _marks(node.value)
            self._read(node, set())

    def _read(self, node: ast.stmt, outer: set[str]) -> None:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            marks = outer | set().union(*(_marks(d) for d in node.decorator_list))
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                        for t in stmt.targets):
                    marks |= _marks(stmt.value)
            for stmt in node.body:
                self._read(stmt, marks)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kind = _fixture_kind(node)
            if kind:
                self.fixtures[node.name] = _fixture_names(node)
                if kind == "autouse":
                    self.autouse.add(node.name)
            elif node.name.startswith("test"):
                marks = outer | set().union(*(_marks(d) for d in node.decorator_list))
                self.tests.append((marks, _fixture_names(node)))

    def reached_fixtures(self) -> set[str]:
        """The conftest fixtures its tests reach, through this file's own fixtures too; a fixture this
        file defines under a conftest name (a double for ``embedder``) hides the conftest one."""
        seen: set[str] = set()
        todo = [name for _, fixtures in self.tests for name in fixtures] + sorted(self.autouse)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo += list(self.fixtures.get(name, ()))
        return {name for name in seen if name not in self.fixtures}

    def imports(self) -> Iterator[str]:
        """Dotted names of what it imports, ``from graphrag import x`` giving ``graphrag.x``."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                yield from (alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "graphrag":
                    yield from (f"graphrag.{alias.name}" for alias in node.names)
                else:
                    yield from (node.module for _ in node.names)

    def is_unit(self) -> bool:
        marked = bool(self.tests) and all("unit" in self.module_marks | marks for marks, _ in self.tests)
        imported = {name.split(".")[0] for name in self.imports()}
        return (marked and not (self.all_marks & NOT_UNIT_MARKERS) and not (imported & NOT_UNIT_IMPORTS)
                and not (self.reached_fixtures() & (SERVER_FIXTURES | MODEL_FIXTURES)))

    def package(self, root: Path = ROOT) -> str:
        """The part of the code it exercises: the module its name names (test_store_url.py: graphrag/store/url.py)
        if it imports from that part, else the part it imports most (ties: the first imported), else the package
        its name starts with (test_cli_input.py), else the kernel if it imports graphrag, else the project."""
        stem = self.path.stem.removeprefix("test_")
        counts: Counter[str] = Counter()
        kernel = False
        for name in self.imports():
            parts = name.split(".")
            if parts[0] == "graphrag":
                if len(parts) > 1 and parts[1] in PACKAGES:
                    counts[parts[1]] += 1
                kernel = True
            elif parts[0] in OTHER_ROOTS:
                counts[OTHER_ROOTS[parts[0]]] += 1
        named = _modules(root).get(stem)
        if named is not None and (named in counts or (named == KERNEL and kernel)):
            return named
        if counts:
            return counts.most_common(1)[0][0]
        first = stem.split("_")[0]
        return first if first in PACKAGES else KERNEL if kernel else PROJECT


def _modules(root: Path) -> dict[str, str]:
    """graphrag's modules by name, and by name with the packages above it (``url``, ``store_url``) -> package."""
    names: dict[str, str] = {}
    for path in sorted((root / "graphrag").rglob("*.py")):
        parts = path.relative_to(root / "graphrag").with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts or parts[-1].startswith("_"):
            continue
        package = parts[0] if len(parts) > 1 or parts[0] in PACKAGES else KERNEL
        for i in range(len(parts)):
            names.setdefault("_".join(parts[i:]), package)
    return names


# --- the plan ----------------------------------------------------------------------------------------------


def place(path: Path, root: Path = ROOT) -> Path:
    """Where a file of tests/ belongs, relative to the repository root. A unit file already in a unit folder
    stays there (the package is a judgement; the tier is not), so a second run moves only new or changed files."""
    rel = path.relative_to(root)
    if rel == Path("tests", "conftest.py"):
        return rel
    if rel.parts[1] == "support" or not path.name.startswith("test_"):
        return Path("tests", "support", *rel.parts[2 if rel.parts[1] == "support" else 1:])
    test = TestFile(path)
    if "browser" in test.all_marks:
        return Path("tests", "browser", path.name)
    if test.is_unit():
        if len(rel.parts) == 4 and rel.parts[1] == "unit" and rel.parts[2] in UNIT_FOLDERS:
            return rel
        return Path("tests", "unit", test.package(root), path.name)
    return Path("tests", "integration", path.name)


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def plan(root: Path = ROOT) -> dict[Path, Path]:
    """Files not where they belong: current -> new path, both relative to the repository root. A support
    package outside tests/support/ (tests/doubles/) moves as a whole."""
    moves: dict[Path, Path] = {}
    for path in python_files(root / "tests"):
        rel = path.relative_to(root)
        new = place(path, root)
        if new != rel:
            if len(rel.parts) > 2 and rel.parts[1] not in TIERS:
                rel, new = Path(*rel.parts[:2]), Path("tests", "support", rel.parts[1])
            moves[rel] = new
    return moves


def fix_root_idiom(path: Path, root: Path = ROOT) -> None:
    """``Path(__file__).resolve().parent.parent`` meant the repository root in tests/: keep it so at any depth."""
    depth = len(path.relative_to(root).parts) - 1
    text = path.read_text(encoding="utf-8")
    fixed = ROOT_IDIOM.sub(f"Path(__file__).resolve().parents[{depth}]", text)
    if fixed != text:
        path.write_text(fixed, encoding="utf-8")


def apply(moves: dict[Path, Path]) -> None:
    for old, new in moves.items():
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(old), str(new)], cwd=ROOT, check=True)
        for moved in [ROOT / new] if (ROOT / new).is_file() else python_files(ROOT / new):
            fix_root_idiom(moved)


def rewrite_refs(files: Iterable[Path]) -> None:
    """Old paths (``tests/test_x.py``, ``tests/pg_server.py``) in prose and comments, to where the files are now."""
    where = {p.name: p.relative_to(ROOT).as_posix() for p in python_files(TESTS) if p.name != "__init__.py"}
    old = re.compile(r"\btests/([A-Za-z_]+\.py)\b")
    for path in files:
        text = path.read_text(encoding="utf-8")
        fixed = old.sub(lambda m: where.get(m.group(1), m.group(0)), text)
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")
            print(f"rewrote {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apply", action="store_true", help="git mv the files and fix the root idiom")
    parser.add_argument("--rewrite-refs", nargs="+", type=Path, metavar="FILE", help="rewrite tests/... paths")
    args = parser.parse_args(argv)
    if args.rewrite_refs:
        rewrite_refs(args.rewrite_refs)
        return 0
    moves = plan()
    for old, new in sorted(moves.items()):
        print(f"{old} -> {new}")
    if args.apply:
        apply(moves)
    return 0


if __name__ == "__main__":
    sys.exit(main())
