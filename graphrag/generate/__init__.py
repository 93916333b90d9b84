"""Generator backends, chosen by name here and only here."""

from __future__ import annotations

from importlib import import_module

from graphrag.errors import UnknownBackend
from graphrag.generate.base import Generation, Generator

GENERATORS: dict[str, str] = {
    "extractive": "graphrag.generate.extractive:ExtractiveGenerator",
    "ollama": "graphrag.generate.ollama:OllamaGenerator",
    "scripted": "graphrag.generate.scripted:ScriptedGenerator",
}


def make_generator(name: str, **options: object) -> Generator:
    try:
        module, attr = GENERATORS[name].split(":")
    except KeyError:
        raise UnknownBackend(f"unknown generator {name!r}; choose one of {', '.join(GENERATORS)}") from None
    return getattr(import_module(module), attr)(**options)


__all__ = ["GENERATORS", "Generation", "Generator", "make_generator"]
