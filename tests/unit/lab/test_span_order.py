"""Choosing the span reader's weight in the quotes' order: the blended first quote over the shortlist is counted,
and the choice is the figure's best with the smallest weight on a tie."""

from __future__ import annotations

import pytest

from lab.evaluate.span_order import first_right, sweep

pytestmark = pytest.mark.unit


def test_the_blend_moves_the_stating_sentence_first_only_inside_the_shortlist():
    # the scorer puts an "about" sentence first; the span reader finds the stating one second or fourth
    second = {"scorer": [0.9, 0.8, 0.1, 0.0], "span": [0.1, 0.9, 0.0, 0.0], "gold": [False, True, False, False]}
    fourth = {"scorer": [0.9, 0.8, 0.1, 0.0], "span": [0.1, 0.0, 0.0, 1.0], "gold": [False, False, False, True]}
    assert first_right([second], 0.0, 8) == 0.0
    assert first_right([second], 0.5, 2) == 1.0
    assert first_right([fourth], 1.0, 3) == 0.0 and first_right([fourth], 1.0, 5) == 1.0
    chosen = sweep([second, fourth])["chosen"]
    assert chosen["first_right"] == 1.0 and chosen["weight"] == 0.6 and chosen["shortlist"] == 5
    assert first_right([], 0.5, 3) == 0.0
