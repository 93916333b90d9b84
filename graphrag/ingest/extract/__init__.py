"""Extractor backends, chosen by name here and only here."""

from __future__ import annotations

from typing import cast

from graphrag.ingest.extract.base import Extractor
from graphrag.registry import make_backend

# Adding a backend is one file and one line here.
EXTRACTORS: dict[str, str] = {
    "rules": "graphrag.ingest.extract.rules:RulesExtractor",
    "ollama": "graphrag.ingest.extract.ollama:OllamaExtractor",
}


def make_extractor(name: str, **options: object) -> Extractor:
    """The extractor registered under ``name`` (see ``EXTRACTORS``), built with ``options``."""
    return cast(Extractor, make_backend("extractor", EXTRACTORS, name, **options))  # EXTRACTORS: extractors only


__all__ = ["EXTRACTORS", "Extractor", "make_extractor"]
