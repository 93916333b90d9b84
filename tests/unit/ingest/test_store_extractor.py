"""Every surface builds an extractor the same way (``store_extractor``): the command line, the Ingest page and
the Python facade once wired Ollama's reply cache and host each by hand."""

from __future__ import annotations

import pytest

from graphrag.ingest.extract import store_extractor
from graphrag.ingest.extract.ollama import OllamaExtractor
from graphrag.ingest.extract.rules import RulesExtractor

pytestmark = pytest.mark.unit


def test_ollama_replies_are_cached_in_the_store_unless_a_cache_is_given(store) -> None:
    x = store_extractor("ollama", store, model=None, host="http://127.0.0.1:9")
    assert isinstance(x, OllamaExtractor)
    assert x.cache is not None  # a re-ingest resends no chunk
    mine = object()
    assert store_extractor("ollama", store, cache=mine).cache is mine  # a given cache is kept
    assert isinstance(store_extractor("rules", store, model=None), RulesExtractor)


def test_an_unknown_extractor_is_named(store) -> None:
    with pytest.raises(Exception, match="nope"):
        store_extractor("nope", store)
