"""Extractor backends, chosen by name here and only here."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from graphrag.ingest.extract.base import Extractor
from graphrag.registry import make_backend

if TYPE_CHECKING:
    from graphrag.store import Store

# Adding a backend is one file and one line here.
EXTRACTORS: dict[str, str] = {
    "rules": "graphrag.ingest.extract.rules:RulesExtractor",
    "ollama": "graphrag.ingest.extract.ollama:OllamaExtractor",
}


def make_extractor(name: str, **options: object) -> Extractor:
    """The extractor registered under ``name`` (see ``EXTRACTORS``), built with ``options``."""
    return cast(Extractor, make_backend("extractor", EXTRACTORS, name, **options))  # EXTRACTORS: extractors only


def store_extractor(name: str, store: Store, **options: object) -> Extractor:
    """The extractor ``name`` as every surface builds it for ``store``: Ollama's replies are cached in the store
    (a re-run resends no chunk) unless a cache is given; options with the value None are left to the backend's
    defaults (``model``, ``host``: the configuration's)."""
    options = {k: v for k, v in options.items() if v is not None}
    if name == "ollama":
        options.setdefault("cache", store.reply_cache())
    return make_extractor(name, **options)


__all__ = ["EXTRACTORS", "Extractor", "make_extractor", "store_extractor"]
