"""When two typed reviewer names are one reviewer (graphrag.language.names.reviewer_key): case, width, compatibility
forms, combining marks, invisible characters and look-alike letters fold; a script's own spelling does not."""

from __future__ import annotations

import pytest

from graphrag.language.names import reviewer_key, same_reviewer

pytestmark = pytest.mark.unit

ANA = ("ana", "Ana", "ANA", "\u0430na", "\u0391na",  # Cyrillic а, Greek Α
       "\u1ea1na", "a\u0323na", "\u00e1na", "a\u0301na", "\u0386na", "\u01cena",  # ạ composed and not, á, Greek Ά, ǎ
       "\uff21na", "\uff41\uff4e\uff41", "\u24d0na", "\u1d43na", "\U0001d41ana",  # full-width, circled, modifier, bold
       "a\u200bna", "an\u00ada", "a\u200dna", "ana\ufe0f", "\u0301ana", "a\u0301\u0301\u0301na",  # invisible, stacked
       "a\u0903na", "  ana ")


@pytest.mark.parametrize("name", ANA)
def test_names_that_read_as_ana_are_ana(name: str) -> None:
    assert reviewer_key(name) == "ana" and same_reviewer(name, "ana")


@pytest.mark.parametrize(("a", "b"), [
    ("ana", "ben"), ("ana", "anna"), ("ana", "an a"), ("Søren", "Soren"), ("l1", "ll"),
    ("\u0938\u0941\u0928\u0940\u0932", "\u0938\u0928\u0940\u0932"),  # Devanagari: a vowel sign spells another name
    ("\u0e01\u0e34", "\u0e01"),  # Thai: the same
])
def test_other_names_stay_other_reviewers(a: str, b: str) -> None:
    assert not same_reviewer(a, b)


def test_a_script_keeps_its_marks_but_not_generic_diacritics() -> None:
    sunil = "\u0938\u0941\u0928\u0940\u0932"
    assert reviewer_key(sunil + "\u0301") == reviewer_key(sunil) == "\u0938\u0941\u0928\u0940\u0932"
    assert same_reviewer("\u0130na", "ina")  # İ: its dot is a mark
