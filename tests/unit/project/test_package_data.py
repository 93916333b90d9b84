"""Every data file inside graphrag/ ships in the wheel: a file the code reads beside itself (the checker's and the
ranker's parameters, the training rows) must match a [tool.setuptools.package-data] glob, or an installed copy
fails at the first question while a checkout works. Moving a package moves its globs with it."""

from __future__ import annotations

import tomllib
from pathlib import Path, PurePosixPath

import pytest

pytestmark = pytest.mark.unit  # no model, server or browser

ROOT = Path(__file__).resolve().parents[3]


def unshipped(package: Path, globs: list[str]) -> list[str]:
    """Data files (not Python, not caches) under ``package`` that no glob matches, relative to it."""
    files = (p.relative_to(package).as_posix() for p in package.rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts)
    return sorted(f for f in files if not any(_matches(f, g) for g in globs))


def _matches(path: str, glob: str) -> bool:
    """As setuptools globs package data: relative to the package, ``*`` within one folder."""
    p, g = PurePosixPath(path), PurePosixPath(glob)
    return len(p.parts) == len(g.parts) and p.match(glob)


def test_every_data_file_in_graphrag_ships() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["graphrag"]
    assert unshipped(ROOT / "graphrag", globs) == []


def test_a_data_file_outside_the_globs_is_named(tmp_path: Path) -> None:
    (tmp_path / "rank").mkdir()
    (tmp_path / "rank" / "params.json").write_text("{}")
    (tmp_path / "rank" / "code.py").write_text("")
    assert unshipped(tmp_path, ["support/*.json"]) == ["rank/params.json"]
    assert unshipped(tmp_path, ["rank/*.json"]) == []
    assert unshipped(tmp_path, ["*.json"]) == ["rank/params.json"]  # a glob stays in its folder
