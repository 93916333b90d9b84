"""Names loaded on first use: backends chosen by name (one table per role, "name" -> "module:factory"), so
choosing the embedded extractor never imports the ollama client and vice versa; and the names a domain package's
door exports (``lazy_exports``), so importing the door loads nothing else and no import cycle runs through it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module

from graphrag.errors import UnknownBackend


def make_backend(role: str, table: dict[str, str], name: str, **options: object) -> object:
    """Build the backend ``name`` from ``table`` ("module:attribute" by name); UnknownBackend lists the
    choices."""
    try:
        module, attr = table[name].split(":")
    except KeyError:
        raise UnknownBackend(f"unknown {role} {name!r}; choose one of {', '.join(table)}") from None
    return getattr(import_module(module), attr)(**options)


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``'s door: each name in ``exports`` (name -> defining module) is
    imported from its module on first use."""
    def __getattr__(name: str) -> object:
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        return getattr(import_module(module), name)

    return __getattr__
