"""The reader's shipped answer scorer loads from the package, offline, once, and ranks a sentence that answers
the question above ones that do not, with probabilities in [0, 1] in the passages' order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphrag.answer.reader import scorer as reader_scorer
from graphrag.answer.reader.scorer import Passage, ScorerConfig, load_scorer, passage_text

pytestmark = pytest.mark.model

QUESTION = "Who founded the Larkspur Botanical Society?"
ANSWERS = Passage("The Larkspur Botanical Society was founded in 1891 by the botanist Margaret Ellison.",
                  before="Larkspur is a town in the north of the county.",
                  after="It keeps a herbarium of 40,000 sheets.", title="Larkspur")
UNRELATED = Passage("The recipe needs two cups of flour, an egg and a pinch of salt.",
                    before="Preheat the oven.", after="Bake for twenty minutes.", title="Pancakes")
NEAR_MISS = Passage("The Larkspur Botanical Society holds its spring show every April in the town hall.",
                    title="Larkspur")


def test_the_shipped_weights_load_once_and_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    first = load_scorer()
    assert first is not None, "reader.onnx or reader.json is missing from graphrag/answer/reader/"
    assert load_scorer() is first  # cached: loaded at start, not per question
    assert (reader_scorer.WEIGHTS_DIR / reader_scorer.ONNX_FILE).stat().st_size <= 25 * 1024 * 1024


def test_an_answering_sentence_scores_above_unrelated_ones_in_order() -> None:
    scorer = load_scorer()
    assert scorer is not None
    scores = scorer.score(QUESTION, [UNRELATED, ANSWERS, NEAR_MISS])
    assert scores.shape == (3,)
    assert scores.dtype.kind == "f"
    assert np.all((scores >= 0.0) & (scores <= 1.0))
    assert scores[1] > scores[2] > scores[0]  # the answer, then the same topic without it, then another topic
    # the order of the result follows the order of the passages
    again = scorer.score(QUESTION, [ANSWERS, UNRELATED])
    assert again[0] == pytest.approx(scores[1], abs=1e-5) and again[1] == pytest.approx(scores[0], abs=1e-5)
    assert scorer.score(QUESTION, []).shape == (0,)


def test_a_damaged_settings_file_says_how_to_rebuild(tmp_path: Path) -> None:
    bad = tmp_path / "reader.json"
    bad.write_text("{\"context_words\": 12}")
    with pytest.raises(reader_scorer.ScorerUnavailable, match=r"lab\.fit_reader"):
        ScorerConfig.read(bad)


def test_neighbours_are_cut_and_the_title_leads() -> None:
    text = passage_text(Passage("Middle sentence.", before="one two three four", after="five six seven",
                                title="Title"), context_words=2)
    assert text == "Title. three four [SEP] Middle sentence. [SEP] five six"
    assert passage_text(Passage("Only.", before="x", after="y"), context_words=0) == "Only."
