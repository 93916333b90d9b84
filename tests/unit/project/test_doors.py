"""The domain packages' doors: each writes the names it exports once (the re-exports of its ``TYPE_CHECKING``
block, read by mypy and by graphrag.registry.door_exports), and each name is the object its module defines,
whenever it is asked for, while importing the door loads none of its modules.

A door loads its names on first use (graphrag.registry.lazy_exports). A name equal to one of the package's modules
would be shadowed by that module as soon as anything imports it (importing a submodule sets it as the package's
attribute, and the lazy loader is then never asked), so a surface would get a module where it expected a function.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from graphrag.registry import door_exports

ROOT = Path(__file__).resolve().parents[3]
DOORS = ["graphrag.access", "graphrag.answer", "graphrag.answer.retrieval", "graphrag.ingest", "graphrag.present",
         "graphrag.verify"]

pytestmark = pytest.mark.unit


def test_every_door_that_loads_on_first_use_is_checked_here() -> None:
    lazy = sorted(".".join(p.relative_to(ROOT).parent.parts) for p in (ROOT / "graphrag").rglob("__init__.py")
                  if "lazy_exports(__name__)" in p.read_text(encoding="utf-8"))
    assert lazy == DOORS


@pytest.mark.parametrize("door", DOORS)
def test_a_door_lists_what_it_exports_and_no_name_is_one_of_its_modules(door: str) -> None:
    package = importlib.import_module(door)
    exports = door_exports(door)
    assert exports and package.__all__ == sorted(exports)
    modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    assert sorted(set(exports) & modules) == []
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        getattr(package, "nothing_here")  # noqa: B009 - the door's __getattr__ is what is tested


@pytest.mark.parametrize("door", DOORS)
def test_every_name_a_door_exports_is_its_modules_object(door: str) -> None:
    package = importlib.import_module(door)
    for name, module in door_exports(door).items():
        importlib.import_module(module)  # as any other import of the module would, before the door is asked
        assert getattr(package, name) is getattr(importlib.import_module(module), name), name


def test_importing_the_doors_loads_none_of_their_modules() -> None:
    code = ("import sys\n"
            f"doors = {DOORS!r}\n"
            "for door in doors:\n    __import__(door)\n"
            "print(sorted(m for m in sys.modules if m.startswith(tuple(d + '.' for d in doors)) and m not in doors))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def test_a_door_refuses_an_import_in_its_list_that_is_not_an_export(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # A plain import there would be seen by mypy as private, yet handed out at run time: a half-declared name.
    package = tmp_path / "halfdoor"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\n\nfrom graphrag.registry import lazy_exports\n\n"
        "if TYPE_CHECKING:\n    from json import dumps as dumps\n    from json import loads\n\n"
        "__getattr__ = lazy_exports(__name__)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "halfdoor", raising=False)
    halfdoor = importlib.import_module("halfdoor")
    with pytest.raises(ImportError, match="line 7"):
        getattr(halfdoor, "dumps")  # noqa: B009 - the door's __getattr__ is what is tested


# The eager doors import what they list: every name in their ``__all__`` is there.
EAGER = ["graphrag", "graphrag.answer.generate", "graphrag.answer.reader.rank", "graphrag.cli",
         "graphrag.ingest.extract", "graphrag.ingest.readers", "graphrag.store", "graphrag.verify.support"]


@pytest.mark.parametrize("door", EAGER)
def test_every_name_an_eager_door_lists_is_there(door: str) -> None:
    package = importlib.import_module(door)
    assert [name for name in package.__all__ if name not in vars(package)] == []


# The one argument a door's read may not take: a bare list of access labels (who sees is a ``Viewer``). A parameter
# named ``access`` is how the code names "the labels this person may see"; the visibility rule itself takes an
# ``Access`` object, which is the rule's, not a person.
LABEL_LISTS = ("Iterable[str]", "Sequence[str]", "Collection[str]", "frozenset[str]", "tuple[str, ...]", "list[str]")
# The reads of visible data each door offers: each takes the Viewer it reads for.
VIEWER_READS = {
    "graphrag.answer": ["visible_entity", "relation_counts", "viewer_overview", "visible_themes"],
    "graphrag.present": ["neighbourhood", "possible_conflicts", "answer_sources", "route_steps", "review_board",
                         "review_items", "claim_review", "cited_source", "ask_scope", "graph_entity"],
    "graphrag.verify": ["review_queue", "visible_claims", "visible_answer", "visible_answer_questions",
                        "visible_unanswered", "visible_to", "record_stats", "record_by_kind", "export_record",
                        "export_pack", "export_audit_log", "unreviewed_estimate"],
}


def _door_functions(door: str) -> list[tuple[str, inspect.Signature]]:
    package = importlib.import_module(door)
    found = []
    for name in door_exports(door):
        obj = getattr(package, name)
        if inspect.isfunction(obj):
            found.append((name, inspect.signature(obj)))
    return found


@pytest.mark.parametrize("door", DOORS)
def test_no_function_a_door_exports_takes_the_viewers_labels_as_a_list(door: str) -> None:
    taking_labels = [f"{name}({p.name}: {p.annotation})" for name, sig in _door_functions(door)
                     for p in sig.parameters.values()
                     if p.name == "access" and any(t in str(p.annotation) for t in LABEL_LISTS)]
    assert taking_labels == [], f"{door}: pass a Viewer, not label lists"


@pytest.mark.parametrize("door", sorted(VIEWER_READS))
def test_every_read_of_visible_data_a_door_offers_takes_a_viewer(door: str) -> None:
    signatures = dict(_door_functions(door))
    without = [name for name in VIEWER_READS[door]
               if not any(str(p.annotation) == "Viewer" for p in signatures[name].parameters.values())]
    assert without == []
    # and each of a door's ``visible_*`` reads is listed above (a new one is checked too)
    assert sorted(n for n in signatures if n.startswith("visible_") and n not in ("visible_current", "visible_history")
                  and n not in VIEWER_READS[door]) == []
