"""Asking: an off-topic question gets no answer rather than quotes about something else."""

from __future__ import annotations

import pytest

from graphrag.answer.ask import Asker
from graphrag.answer.generate.extractive import ExtractiveGenerator
from graphrag.cli import main
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings
from helpers import ScriptedChecker, reference_corpus, reference_extractor


@pytest.fixture()
def asker(store, embedder, tmp_path):
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    return Asker(store, embedder=embedder, generator=ExtractiveGenerator(), checker=ScriptedChecker())


@pytest.mark.model
def test_off_topic_question_is_refused_not_answered(asker) -> None:
    out = asker.ask("Who won the football world cup in 1998?")
    # Without the floor the best of the unrelated sentences would be quoted, and each quote would
    # check as supported by itself.
    assert out.answer.text == "The documents do not say who won the football world cup in 1998."
    assert not out.answer.claims and out.answer.answered is False
    assert any("Nothing you can see is about this question" in w for w in out.warnings), out.warnings
    assert out.answer.context  # what was found is kept, so the refusal can be inspected
    # Without the floor the reader refuses too: nothing in the context answers (its probability is low).
    forced = asker.ask("Who won the football world cup in 1998?", AskSettings(min_relevance=0.0))
    assert not forced.answer.claims and forced.answer.answered is False
    assert forced.answer.answerable is not None and forced.answer.answerable < 0.1


@pytest.mark.model
def test_on_topic_question_still_answered(asker) -> None:
    out = asker.ask("How long do exports stay available after cancellation?")
    assert out.answer.claims and not any("Nothing you can see" in w for w in out.warnings)


@pytest.mark.unit
def test_min_relevance_must_be_between_0_and_1(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["ask", "anything?", "--min-relevance", "1.5"])
    assert exc.value.code == 2 and "from 0 to 1" in capsys.readouterr().err
