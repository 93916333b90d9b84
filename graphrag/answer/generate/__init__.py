"""Generator backends, chosen by name here and only here."""

from __future__ import annotations

from typing import cast

from graphrag.answer.generate.base import Generation, Generator
from graphrag.registry import make_backend

GENERATORS: dict[str, str] = {
    "extractive": "graphrag.answer.generate.extractive:ExtractiveGenerator",
    "ollama": "graphrag.answer.generate.ollama:OllamaGenerator",
}


def make_generator(name: str, **options: object) -> Generator:
    """The generator registered under ``name`` (see ``GENERATORS``), built with ``options``."""
    return cast(Generator, make_backend("generator", GENERATORS, name, **options))  # GENERATORS: generators only


__all__ = ["GENERATORS", "Generation", "Generator", "make_generator"]
