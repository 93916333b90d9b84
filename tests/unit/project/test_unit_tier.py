"""The unit tier stays model-free: inside a test marked ``unit`` MiniLM and spaCy refuse to load,
even when an earlier test of the session loaded them, and a refusal swallowed by the code still fails."""

from __future__ import annotations

import pytest

from conftest import _REACHED, ModelLoadInUnitTest
from graphrag.ingest.extract.rules import RulesExtractor, load_spacy
from graphrag.language.embed import MiniLMEmbedder
from graphrag.language.sentences import split_sentences

pytestmark = pytest.mark.unit


def test_minilm_and_spacy_refuse_to_load_in_a_unit_test() -> None:
    with pytest.raises(ModelLoadInUnitTest):
        MiniLMEmbedder()
    with pytest.raises(ModelLoadInUnitTest):
        load_spacy()
    assert _REACHED == ["all-MiniLM-L6-v2", "spaCy"]
    _REACHED.clear()  # this test provoked them on purpose


def test_a_refusal_the_code_swallows_is_still_recorded() -> None:
    # The rules extractor reports any error as a failed extraction instead of raising.
    result = RulesExtractor().extract(split_sentences("Exports use snapshots."))
    assert result.status.value == "failed"
    assert _REACHED == ["spaCy"]  # the teardown hook fails the test on this
    _REACHED.clear()


def test_an_embedder_loaded_earlier_in_the_session_is_refused_too() -> None:
    loaded = object.__new__(MiniLMEmbedder)  # stands for the instance get_embedder() keeps
    with pytest.raises(ModelLoadInUnitTest):
        loaded.encode(["Exports use snapshots."])
    assert _REACHED == ["all-MiniLM-L6-v2"]
    _REACHED.clear()


class _Options:
    def __init__(self, markexpr: str) -> None:
        self.markexpr = markexpr

    def getoption(self, name: str) -> str:
        assert name == "markexpr"
        return self.markexpr


def test_the_unit_tier_is_the_tests_unit_folder() -> None:
    from pathlib import Path

    import conftest

    tests = Path(conftest.__file__).resolve().parent
    mixed = tests / "integration" / "test_review.py"  # marks some tests unit, and has PostgreSQL cases
    assert "pytest.mark.unit" in mixed.read_text(encoding="utf-8")
    assert conftest.pytest_ignore_collect(mixed, _Options("unit")) is True
    assert conftest.pytest_ignore_collect(tests / "browser" / "test_browser_documents.py", _Options("unit")) is True
    assert conftest.pytest_ignore_collect(Path(__file__).resolve(), _Options("unit")) is None
    assert conftest.pytest_ignore_collect(mixed, _Options("")) is None  # the full suite collects it
