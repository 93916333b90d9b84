"""Backends are chosen by name in one table per role; an unknown name lists the choices."""

from __future__ import annotations

import pytest

from graphrag.errors import UnknownBackend
from graphrag.extract import make_extractor
from graphrag.generate import make_generator
from graphrag.support import make_checker

pytestmark = pytest.mark.unit


def test_unknown_backend_names_the_choices() -> None:
    with pytest.raises(UnknownBackend, match="unknown extractor 'gpt'; choose one of rules, ollama, scripted"):
        make_extractor("gpt")
    with pytest.raises(UnknownBackend, match="unknown support checker"):
        make_checker("nli")


def test_backends_are_built_by_name_with_their_options() -> None:
    gen = make_generator("extractive", max_sentences=2)
    assert gen.name == "extractive" and gen.max_sentences == 2
    assert make_extractor("scripted").name == "scripted"
    ollama = make_generator("ollama", model="qwen2.5:7b", host="127.0.0.1:9")
    assert ollama.name == "ollama"
