"""Support-checker backends, chosen by name here and only here."""

from __future__ import annotations

from importlib import import_module

from graphrag.errors import UnknownBackend
from graphrag.support.base import SupportChecker, SupportQuery

CHECKERS: dict[str, str] = {
    "embedded": "graphrag.support.embedded:EmbeddedChecker",
    "ollama": "graphrag.support.ollama:OllamaChecker",
}


def make_checker(name: str, **options: object) -> SupportChecker:
    try:
        module, attr = CHECKERS[name].split(":")
    except KeyError:
        raise UnknownBackend(f"unknown support checker {name!r}; choose one of {', '.join(CHECKERS)}") from None
    return getattr(import_module(module), attr)(**options)


__all__ = ["CHECKERS", "SupportChecker", "SupportQuery", "make_checker"]
