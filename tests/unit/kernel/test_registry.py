"""Backends are chosen by name in one table per role; an unknown name lists the choices. The product's
tables hold only product backends: test doubles are registered by the tests that use them."""

from __future__ import annotations

import pytest

from graphrag.answer.generate import GENERATORS, make_generator
from graphrag.answer.generate.extractive_settings import ExtractiveSettings
from graphrag.errors import UnknownBackend
from graphrag.ingest.extract import EXTRACTORS, make_extractor
from graphrag.verify.support import CHECKERS, make_checker

pytestmark = pytest.mark.unit


def test_unknown_backend_names_the_choices() -> None:
    with pytest.raises(UnknownBackend, match=r"unknown extractor 'gpt'; choose one of rules, ollama$"):
        make_extractor("gpt")
    with pytest.raises(UnknownBackend, match="unknown support checker"):
        make_checker("nli")


def test_backends_are_built_by_name_with_their_options() -> None:
    gen = make_generator("extractive", settings=ExtractiveSettings(max_sentences=2))
    assert gen.name == "extractive" and gen.settings.max_sentences == 2  # type: ignore[attr-defined]
    ollama = make_generator("ollama", model="qwen2.5:7b", host="127.0.0.1:9")
    assert ollama.name == "ollama"


def test_the_product_tables_hold_no_test_double() -> None:
    for table in (EXTRACTORS, GENERATORS, CHECKERS):
        assert "scripted" not in table
        assert all(target.startswith("graphrag.") for target in table.values()), table
    with pytest.raises(UnknownBackend, match="unknown extractor 'scripted'"):
        make_extractor("scripted")


def test_tests_register_the_doubles_for_themselves(scripted_backends: None) -> None:
    assert make_extractor("scripted").name == "scripted"
    assert make_generator("scripted", text="x").generate("q", []).text == "x"
    assert list(EXTRACTORS)[:2] == ["rules", "ollama"]  # the product's own entries are untouched
