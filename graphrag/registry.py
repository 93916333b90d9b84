"""Backends chosen by name: one table per role ("name" -> "module:factory"), imported lazily
so choosing the embedded extractor never imports the ollama client and vice versa."""

from __future__ import annotations

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
