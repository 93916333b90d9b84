"""The tests mirror the code (issue 26): no test file in the flat tests/ root, a file under tests/unit/ holds only
``unit`` tests that reach no PostgreSQL server, model or browser, and the rules are those of
scripts/tests_layout.py, which moves a file added in the wrong place (``python scripts/tests_layout.py --apply``)."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
FIX = "run `python scripts/tests_layout.py --apply`"


def _layout() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tests_layout", ROOT / "scripts" / "tests_layout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


layout = _layout()


def test_the_tests_root_holds_only_the_conftest_and_the_tier_folders() -> None:
    tests = ROOT / "tests"
    files = sorted(p.name for p in tests.iterdir() if p.is_file() and p.suffix == ".py")
    folders = sorted(p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert files == ["conftest.py"], f"{FIX}: files in the flat tests/ root: {files}"
    assert folders == sorted(layout.TIERS)


def test_every_file_is_in_its_tier() -> None:
    misplaced = {str(old): str(new) for old, new in layout.plan().items()}
    assert misplaced == {}, f"{FIX}: {misplaced}"
    unit = list((ROOT / "tests" / "unit").rglob("test_*.py"))
    assert unit and {p.parent.name for p in unit} <= layout.UNIT_FOLDERS


def test_test_file_names_are_unique() -> None:
    # pytest imports each test file by its bare name (the folders are not packages), and the tests import the
    # support modules by theirs.
    names = Counter(p.name for p in (ROOT / "tests").rglob("*.py") if p.name not in ("__init__.py", "conftest.py"))
    assert [name for name, n in names.items() if n > 1] == []


def _write(tmp_path: Path, rel: str, text: str) -> Path:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


UNIT_HEAD = "import pytest\n\nfrom graphrag.store import Store\n\npytestmark = pytest.mark.unit\n\n"


@pytest.mark.parametrize(("body", "tier"), [
    ("def test_a(tmp_path):\n    pass\n", "unit"),
    # The session's PostgreSQL server, directly or through a fixture of the file, or the real MiniLM.
    ("def test_a(pg_url):\n    pass\n", "integration"),
    ("@pytest.fixture()\ndef db(store_url):\n    return store_url\n\ndef test_a(db):\n    pass\n", "integration"),
    ("@pytest.fixture(autouse=True)\ndef _seeded(tiny_store):\n    pass\n\ndef test_a():\n    pass\n", "integration"),
    ("def test_a(embedder):\n    pass\n", "integration"),
    ("from pg_server import PgServer\n\ndef test_a():\n    pass\n", "integration"),
    # ... but a file's own double under the conftest's name is no model.
    ("@pytest.fixture()\ndef embedder():\n    return None\n\ndef test_a(embedder):\n    pass\n", "unit"),
    # One test marked model (here through a parameter) makes the file integration; a browser test, browser.
    ("@pytest.mark.parametrize('x', [1, pytest.param(2, marks=pytest.mark.model)])\ndef test_a(x):\n    pass\n",
     "integration"),
    ("@pytest.mark.browser\ndef test_a():\n    pass\n", "browser"),
])
def test_a_file_is_placed_by_its_markers_fixtures_and_imports(tmp_path: Path, body: str, tier: str) -> None:
    path = _write(tmp_path, "tests/test_new.py", UNIT_HEAD + body)
    assert layout.place(path, tmp_path).parts[1] == tier


def test_a_file_with_a_test_not_marked_unit_is_integration(tmp_path: Path) -> None:
    path = _write(tmp_path, "tests/test_new.py", "import pytest\n\n@pytest.mark.unit\ndef test_a():\n    pass\n\n"
                  "def test_b():\n    pass\n")
    assert layout.place(path, tmp_path) == Path("tests/integration/test_new.py")


def test_a_heavy_unit_file_runs_with_the_integration_tier(tmp_path: Path) -> None:
    """A file that needs no model but takes seconds (documents drawn and read, AppTest pages) would slow the
    loop run on every change: marked ``heavy``, it belongs in tests/integration/, even from a unit folder."""
    head = "import pytest\n\npytestmark = [pytest.mark.unit, pytest.mark.heavy]\n\n"
    path = _write(tmp_path, "tests/unit/ingest/test_big.py", head + "def test_a():\n    pass\n")
    assert layout.place(path, tmp_path) == Path("tests/integration/test_big.py")


def test_a_unit_file_goes_to_the_package_it_exercises_and_stays_in_its_folder(tmp_path: Path) -> None:
    _write(tmp_path, "graphrag/store/url.py", "")
    _write(tmp_path, "graphrag/verify/review.py", "")
    named = _write(tmp_path, "tests/test_store_url.py", UNIT_HEAD + "def test_a():\n    pass\n")
    assert layout.place(named, tmp_path) == Path("tests/unit/store/test_store_url.py")
    most = _write(tmp_path, "tests/test_verdicts.py", UNIT_HEAD.replace(
        "from graphrag.store import Store", "from graphrag.verify.review import a\nfrom graphrag.verify import b\n"
        "from graphrag.store import Store") + "def test_a():\n    pass\n")
    assert layout.place(most, tmp_path) == Path("tests/unit/verify/test_verdicts.py")
    # Once in a unit folder a file is not moved between packages again: a second run only places new files.
    kept = _write(tmp_path, "tests/unit/answer/test_verdicts.py", most.read_text(encoding="utf-8"))
    assert layout.place(kept, tmp_path) == Path("tests/unit/answer/test_verdicts.py")


def test_helpers_go_to_support_and_the_conftest_stays(tmp_path: Path) -> None:
    _write(tmp_path, "tests/conftest.py", "")
    _write(tmp_path, "tests/fakes.py", "")
    _write(tmp_path, "tests/doubles/__init__.py", "")
    _write(tmp_path, "tests/support/helpers.py", "")
    assert {str(k): str(v) for k, v in layout.plan(tmp_path).items()} == {
        "tests/fakes.py": "tests/support/fakes.py", "tests/doubles": "tests/support/doubles"}


def test_the_repository_root_idiom_is_kept_at_any_depth(tmp_path: Path) -> None:
    path = _write(tmp_path, "tests/unit/store/test_x.py", "ROOT = Path(__file__).resolve().parent.parent\n")
    layout.fix_root_idiom(path, tmp_path)
    assert path.read_text(encoding="utf-8") == "ROOT = Path(__file__).resolve().parents[3]\n"
