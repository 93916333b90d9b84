"""The layout of graphrag/ (issue 26): a small kernel of top-level modules beside the domain packages, each
package's door (its __init__) hands out every name it lists, from the module that defines it, and no import runs
upward through the layers."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

pytestmark = pytest.mark.unit  # no model, server or browser

ROOT = Path(__file__).resolve().parents[3]
DOMAINS = ("access", "answer", "ingest", "present", "verify")
KERNEL = {"__init__", "__main__", "config", "errors", "model", "ollama_util", "registry", "serve"}
# Above the domains: the process object the facade (__init__), the command line and the dashboard build.
TOP = {"workspace"}
FLOOR = "language"  # sentences, the shared encoding, lexical measures, quantities, names: under every domain


def test_graphrag_holds_a_small_kernel_and_the_domain_packages() -> None:
    modules = {p.stem for p in (ROOT / "graphrag").glob("*.py")}
    packages = {p.parent.name for p in (ROOT / "graphrag").glob("*/__init__.py")}
    assert modules == KERNEL | TOP and len(modules) <= 12
    assert packages == {*DOMAINS, "cli", "store", FLOOR}


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_door_hands_out_every_name_it_lists(domain: str) -> None:
    door = importlib.import_module(f"graphrag.{domain}")
    assert door.__doc__ and door.__all__
    missing = [name for name in door.__all__ if not hasattr(door, name)]  # imports each defining module
    assert missing == []
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        getattr(door, "nothing_here")  # noqa: B009 - the door's __getattr__ is what is tested


def test_no_import_runs_upward(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # lint-imports' layer contract, binding here too and with no import excused: every import in graphrag/ (a
    # function's deferred import and a TYPE_CHECKING one included) runs down cli > present > answer > verify >
    # ingest > store > access > the language floor > the kernel. The store knows no review rule, ingest no page
    # cache, verify nothing of the answer's graph; the floor imports no domain (its own contract).
    pyproject = ROOT / "pyproject.toml"
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["id"] == "domain-layers"]
    assert layers["type"] == "layers" and "ignore_imports" not in layers
    *packages, kernel = layers["layers"]
    assert packages == ["graphrag.cli", "graphrag.present", "graphrag.answer", "graphrag.verify", "graphrag.ingest",
                        "graphrag.store", "graphrag.access", f"graphrag.{FLOOR}"]
    above = {"__init__", "__main__", "serve"}  # the facade and the entry points sit over the packages
    assert set(kernel.split(" : ")) == {f"graphrag.{m}" for m in KERNEL - above}
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    code = lint_imports(str(pyproject), limit_to_contracts=("domain-layers", "language-floor"), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out



def test_the_reader_decides_and_the_generators_compose(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # Inside graphrag.answer: ask runs the reader and hands its Reading to a generator; the generators import the
    # reader's reading, never the other way (issue 59: one place decides which sentence answers).
    pyproject = ROOT / "pyproject.toml"
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    (reader,) = [c for c in contracts if c["id"] == "answer-reader-decides"]
    assert reader["layers"] == ["ask", "generate", "reader"] and reader["containers"] == ["graphrag.answer"]
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    code = lint_imports(str(pyproject), limit_to_contracts=("answer-reader-decides",), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out
