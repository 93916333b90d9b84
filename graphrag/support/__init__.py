"""Support-checker backends, chosen by name here and only here."""

from __future__ import annotations

from graphrag.registry import make_backend
from graphrag.support.base import SupportChecker, SupportQuery

CHECKERS: dict[str, str] = {
    "embedded": "graphrag.support.embedded:EmbeddedChecker",
    "ollama": "graphrag.support.ollama:OllamaChecker",
}


def make_checker(name: str, **options: object) -> SupportChecker:
    return make_backend("support checker", CHECKERS, name, **options)  # type: ignore[return-value]


__all__ = ["CHECKERS", "SupportChecker", "SupportQuery", "make_checker"]
