"""The library facade: ``import graphrag`` is cheap, its four functions run the ingest, ask, review
loop, and the documented Python example (docs/python.md) runs as written."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import graphrag
from docs_helpers import doc_files, headings, section
from graphrag.answer.generate.extractive import ExtractiveGenerator
from graphrag.errors import InputError
from helpers import ScriptedChecker
from proc_helpers import HashEmbedder, PatternExtractor, write_synthetic_corpus

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "sentence_transformers", "transformers", "spacy", "sklearn", "streamlit", "pandas")


@pytest.mark.unit
def test_importing_graphrag_loads_no_model_library() -> None:
    code = f"import sys, graphrag; print([m for m in {HEAVY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.unit
def test_ingest_ask_and_review_through_the_facade(tmp_path: Path, unparsed_questions: None) -> None:
    with graphrag.open_store(tmp_path / "s.db") as store:
        report = graphrag.ingest_paths(store, [write_synthetic_corpus(tmp_path / "c", 6)], extractor=PatternExtractor(),
                                 embedder=HashEmbedder())
        assert {d.status for d in report.documents} == {"ok"}
        outcome = graphrag.ask_question(store, "What does Alpha0 use?", embedder=HashEmbedder(),
                               generator=ExtractiveGenerator(), checker=ScriptedChecker(), min_relevance=0.0, k=2)
        answer = outcome.answer
        assert answer.id is not None and answer.claims
        assert (answer.settings.k, answer.settings.checker) == (2, "scripted-checker")
        verdict = graphrag.review_claim(store, answer.id, 0, "supported", reviewer="ana", note="ok")
        assert [(v.id, v.reviewer, v.verdict.value) for v in store.verdicts(answer.id)] == [
            (verdict.id, "ana", "supported")]
        with pytest.raises(InputError, match="no claim 100"):
            graphrag.review_claim(store, answer.id, 99, "supported", reviewer="ana")
        with pytest.raises(InputError, match="no answer"):
            graphrag.review_claim(store, answer.id + 1, 0, "supported", reviewer="ana")


@pytest.mark.unit
def test_extractor_options_need_an_extractor_name(tmp_path: Path) -> None:
    with graphrag.open_store(tmp_path / "s.db") as store, pytest.raises(TypeError):
        graphrag.ingest_paths(store, [tmp_path], extractor=PatternExtractor(), model="x")


def documented_python_example() -> str:
    """The python block of the documentation's 'Use it from Python' page (docs/python.md, linked from the README)."""
    pages = [p for p in doc_files() if "Use it from Python" in {h for _, h in headings(p.read_text(encoding="utf-8"))}]
    assert len(pages) == 1, f"one documentation page has the heading 'Use it from Python', not {pages}"
    section_text = section(pages[0].read_text(encoding="utf-8"), "Use it from Python")
    found = re.search(r"```python\n(.*?)```", section_text, flags=re.S)
    assert found, f"the 'Use it from Python' section of {pages[0].name} has no python block"
    return found.group(1)


@pytest.mark.model
def test_the_documented_python_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(ROOT / "sample_corpus", tmp_path / "sample_corpus")
    monkeypatch.chdir(tmp_path)
    exec(compile(documented_python_example(), "docs/python.md", "exec"), {})
    out = capsys.readouterr().out
    assert "30 days after an account is cancelled" in out  # the exports policy answers it
    assert re.search(r"claim 0 \((supported|not supported|partially supported)\)", out), out
    assert re.search(r"verdict \d+: supported", out), out
    with graphrag.open_store(tmp_path / "handbook.db") as store:
        assert store.counts()["verdicts"] == 1
