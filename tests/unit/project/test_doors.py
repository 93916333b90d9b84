"""The domain packages' doors: each name a door exports is the object its module defines, whenever it is asked for.

A door loads its names on first use (graphrag.registry.lazy_exports). A name equal to one of the package's modules
would be shadowed by that module as soon as anything imports it (importing a submodule sets it as the package's
attribute, and the lazy loader is then never asked), so a surface would get a module where it expected a function.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

DOORS = ["graphrag.access", "graphrag.answer", "graphrag.ingest", "graphrag.present", "graphrag.verify"]

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("door", DOORS)
def test_a_door_lists_what_it_exports_and_no_name_is_one_of_its_modules(door: str) -> None:
    package = importlib.import_module(door)
    exports: dict[str, str] = package._EXPORTS
    assert sorted(package.__all__) == sorted(exports)
    modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    assert sorted(set(exports) & modules) == []


@pytest.mark.parametrize("door", DOORS)
def test_every_name_a_door_exports_is_its_modules_object(door: str) -> None:
    package = importlib.import_module(door)
    for name, module in package._EXPORTS.items():
        importlib.import_module(module)  # as any other import of the module would, before the door is asked
        assert getattr(package, name) is getattr(importlib.import_module(module), name), name
