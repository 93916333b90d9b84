"""Numbers and dates compare by value across the forms a source and a claim write them in."""

from __future__ import annotations

import pytest

from graphrag.language import lexical as L
from graphrag.language import quantities as Q

pytestmark = pytest.mark.unit

SAME = [
    ("In 1869 the court was enlarged.", "In 1869, the Court had nine justices."),
    ("In 1869 the court was enlarged.", "The enlargement came in1869 by statute."),  # PDF lost the space
    ("It had 1,869 members.", "It had 1869 members."),
    ("It had 1869 members.", "It had 1,869 members."),
    ("The court had nine justices.", "The court had 9 justices."),
    ("The court had 9 justices.", "The court had nine justices."),
    ("It was the 9th amendment.", "It was the ninth amendment."),
    ("It was the ninth amendment.", "It was the 9th amendment."),
    ("It cost $5 million.", "It cost 5,000,000 dollars."),
    ("It cost 5,000,000 dollars.", "It cost $5 million."),
    ("It cost five million dollars.", "It cost $5m."),
    ("Twenty-one judges sat.", "21 judges sat."),
    ("Signed on 3 March 2024.", "Signed on March 3, 2024."),
    ("Signed on March 3, 2024.", "Signed 2024-03-03."),
    ("Signed 2024-03-03.", "Signed on the 3rd of March 2024."),
    ("Signed in 2024.", "Signed on 3 March 2024."),
    ("The fee rose to 2.50.", "The fee is 2.5."),
]

DIFFERENT = [
    ("In 1869 the court was enlarged.", "In 1896 the court was enlarged."),
    ("It cost 5 million.", "It cost 5 thousand."),
    ("It cost $5 million.", "It cost 5,000 dollars."),
    ("It was the 9th amendment.", "It was the tenth amendment."),
    ("Signed on 3 March 2024.", "Signed 2024-03-04."),
    ("Signed on March 3, 2024.", "Signed on 3 April 2024."),
    ("It had 3 clerks.", "Signed on 3 March 2024."),  # a day of a date is not a count
    ("It had nine justices.", "It had 19 justices."),
]


@pytest.mark.parametrize(("claim", "source"), SAME)
def test_the_same_value_in_another_form_is_found(claim: str, source: str) -> None:
    assert L.missing_numbers(claim, source) == []


@pytest.mark.parametrize(("claim", "source"), DIFFERENT)
def test_a_different_value_is_named_missing(claim: str, source: str) -> None:
    assert L.missing_numbers(claim, source) != []


def test_canonical_keys() -> None:
    assert Q.keys("$5 million in 1,869 and the ninth") == {"5000000", "1869", "9"}
    assert Q.keys("March 3, 2024") == {"date:2024-03-03", "date:--03-03", "2024"}
    assert L.missing_numbers("It cost $5 million in 1896", "It cost 5 thousand in 1869") == [
        "5 million in", "1896"]


def test_words_that_are_not_counts_are_not_demanded() -> None:
    assert L.missing_numbers("The first export runs once a second", "Exports run nightly.") == []
    assert L.missing_numbers("It may march on", "Nothing here.") == []
