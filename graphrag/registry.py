"""Names loaded on first use: backends chosen by name (one table per role, "name" -> "module:factory"), so
choosing the embedded extractor never imports the ollama client and vice versa; and the names a domain package's
door exports (``lazy_exports``), so importing the door loads nothing else and no import cycle runs through it.

A door writes its names once, as the re-exports of its ``if TYPE_CHECKING:`` block (``from m import A as A``):
mypy reads them as the door's names, and the door's ``__getattr__`` reads the same block (on the first name
asked for, not at import) to know which module defines each name."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from importlib.abc import InspectLoader

from graphrag.errors import UnknownBackend


def make_backend(role: str, table: dict[str, str], name: str, **options: object) -> object:
    """Build the backend ``name`` from ``table`` ("module:attribute" by name); UnknownBackend lists the
    choices."""
    try:
        module, attr = table[name].split(":")
    except KeyError:
        raise UnknownBackend(f"unknown {role} {name!r}; choose one of {', '.join(table)}") from None
    return getattr(import_module(module), attr)(**options)


def door_exports(package: str) -> dict[str, str]:
    """The names ``package``'s door exports, each with the module that defines it, in the order written: the
    imports of the door's ``if TYPE_CHECKING:`` block. Every import there is an export, written ``A as A`` (the
    form that tells mypy the door re-exports it); any other import there is an error, so a name cannot be half
    declared."""
    spec = sys.modules[package].__spec__
    loader = spec.loader if spec else None
    source = loader.get_source(package) if isinstance(loader, InspectLoader) else None
    if source is None:
        raise ImportError(f"the door {package!r} has no source to read its exports from")
    exports: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for imp in node.body:
            if not (isinstance(imp, ast.ImportFrom) and imp.level == 0 and imp.module
                    and all(a.asname == a.name for a in imp.names)):
                raise ImportError(f"{package}: the TYPE_CHECKING block holds the door's exports only, each "
                                  f"written 'from module import Name as Name' (line {imp.lineno})")
            exports.update((a.name, imp.module) for a in imp.names)
    return exports


def lazy_exports(package: str) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``'s door: each name the door exports (``door_exports``) is imported
    from its module on first use, and ``__all__`` lists them."""
    exports: Mapping[str, str] | None = None

    def __getattr__(name: str) -> object:
        nonlocal exports
        if exports is None:
            exports = door_exports(package)
        if name == "__all__":
            return sorted(exports)
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        return getattr(import_module(module), name)

    return __getattr__
