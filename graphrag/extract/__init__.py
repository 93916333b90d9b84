"""Extractor backends, chosen by name here and only here."""

from __future__ import annotations

from importlib import import_module

from graphrag.errors import UnknownBackend
from graphrag.extract.base import Extractor

# name -> "module:factory". Imported lazily so choosing `rules` never imports the ollama
# client and vice versa. Adding a backend is one file and one line here.
EXTRACTORS: dict[str, str] = {
    "rules": "graphrag.extract.rules:RulesExtractor",
    "ollama": "graphrag.extract.ollama:OllamaExtractor",
    "scripted": "graphrag.extract.scripted:ScriptedExtractor",
}


def make_extractor(name: str, **options: object) -> Extractor:
    try:
        module, attr = EXTRACTORS[name].split(":")
    except KeyError:
        raise UnknownBackend(f"unknown extractor {name!r}; choose one of {', '.join(EXTRACTORS)}") from None
    return getattr(import_module(module), attr)(**options)


__all__ = ["EXTRACTORS", "Extractor", "make_extractor"]
