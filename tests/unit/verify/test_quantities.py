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
    # issue 60: the forms a PDF or a typesetter writes a number in
    ("In 1869, however, it changed.", "Seats went in 1866,1869 restored them."),  # a list of years, no space
    ("Built in 1869.", "Built c.1869 by hand."),  # circa: 1869, not 0.1869
    ("It had 1869 members.", "It had 1\u202f869 members."),  # narrow no-break space between thousands
    ("It had 10,000 members.", "It had 10\u2009000 members."),  # thin space
    ("It had 10000 members.", "It had 10\u00a0000 members."),  # no-break space
    ("In 1869 it changed.", "In 18\u00ad69 it changed."),  # a soft hyphen left by a line break
    ("In 1869 it changed.", "In 18\u200b69 it changed."),  # a zero-width space
    ("It was the 19th century.", "It was the nineteenth century."),
    ("It was item 5.", "Item No.5 is here."),
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
    ("In 1866 it changed.", "It changed c.1869."),
    ("It had 5 clerks.", "It is worth .5 of it."),  # a decimal point after a space is still a decimal
    ("It had 869 members.", "It had 1\u202f869 members."),  # one number, not two
    ("It had 1869 members.", "It had 18,69 members."),  # not a thousands group
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


def test_a_word_named_not_in_source_is_not_in_it() -> None:
    """Issue 60: the check said "1869 not in source" of a sentence holding "In 1869, however": its word count
    reads "1869," as another word. What the reason names as missing is checked against the evidence by value."""
    source = "In 1869, however, the Circuit Judges Act returned the number of justices to nine."
    assert L.coverage("In 1869 Congress restored seats.", source)[1][0] == "1869"  # the measure, as fitted
    assert L.absent_words(["1869", "Congress", "restored", "seats"], source) == ["Congress", "restored", "seats"]
    assert L.absent_words(["1,869", "ninth", "2.50"], "It had 1869 members, the 9th time, for 2.5.") == []
    assert L.absent_words(["1896,", "tenth"], source) == ["1896", "tenth"]  # another value stays missing


def test_the_checker_s_reason_names_no_number_its_evidence_states() -> None:
    """The embedded checker's reason, from its pair features (any vectors: the lexical part names the words)."""
    import numpy as np

    from graphrag.model import SupportLabel
    from graphrag.verify.support.embedded import pair_features, reason

    claim = "In 1869 lawmakers restored seats on the bench."
    sentences = ["In 1869, however, the Circuit Judges Act returned the number of justices to nine."]
    rng = np.random.default_rng(0)
    pf = pair_features(claim, sentences, rng.normal(size=8), rng.normal(size=(1, 8)), [claim],
                       rng.normal(size=(1, 8)))
    said = reason(pf, SupportLabel.NOT_SUPPORTED)
    assert "not in source" in said and "1869" not in said, said
    pf = pair_features(claim.replace("1869", "1896"), sentences, rng.normal(size=8), rng.normal(size=(1, 8)),
                       [claim], rng.normal(size=(1, 8)))
    assert reason(pf, SupportLabel.NOT_SUPPORTED).startswith("1896 lawmakers not in source")  # a number it lacks
