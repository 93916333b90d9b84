"""Sources that disagree: the pairs found, which side comes first, and what is not a disagreement."""

from __future__ import annotations

import pytest

from graphrag.answer import (  # the door's names (defined in graphrag.model)
    disagreement_from_json,
    disagreement_json,
)
from graphrag.model import ContextItem, Route, Span
from graphrag.verify.disagreement import differing_values, find_disagreements

pytestmark = pytest.mark.unit


def _item(n: int, doc: str, text: str, date: str | None = None, version: int = 1,
          superseded: bool = False) -> ContextItem:
    return ContextItem(n, Span(doc, version, n, 0, len(text), text), Route("e"), 0.5, "mention", superseded, date)


def test_numbers_of_one_unit_that_differ_about_the_same_thing_disagree() -> None:
    assert differing_values("Nightly snapshots are kept for 35 days.",
                            "Larkspur keeps nightly snapshots for 14 days.") == ("35 days", "14 days")


def test_sentences_about_other_things_or_saying_the_same_do_not_disagree() -> None:
    assert differing_values("Nightly snapshots are kept for 35 days.", "Invoices are due within 14 days.") is None
    assert differing_values("Nightly snapshots are kept for 35 days.",
                            "Larkspur keeps nightly snapshots for 35 days.") is None
    # numbers naming things rather than measuring them (found by the store tests' generated documents)
    assert differing_values("Falcon2 follows Alpha0 during step 3 of runbook 2.",
                            "Falcon2 follows Alpha0 during step 2 of runbook 1.") is None


def test_numbers_of_two_named_things_are_not_a_disagreement() -> None:
    """Found by the answers panel: 29 of 100 MuSiQue answers said "Sources disagree", nearly all between pages about
    two cities, two sailors or two films (each sentence names its own subject)."""
    assert differing_values("The Intrepid Wind Farm in Iowa consists of 107 wind turbines on farmland.",
                            "The Windy Hill farm in Australia has 20 wind turbines on farmland.") is None
    assert differing_values("Big Eyes is a 2014 American drama film directed by Tim Burton.",
                            "Planet of the Apes is a 2001 American film directed by Tim Burton.") is None
    # one side naming what the other does not is still one thing: a policy and its FAQ
    assert differing_values("Nightly snapshots are kept for 35 days in Frankfurt.",
                            "Nightly snapshots are kept for 14 days.") == ("35 days", "14 days")
    assert differing_values("Snapshots of Larkspur Pro are kept for 35 days.",
                            "Larkspur Pro keeps snapshots for 14 days.") == ("35 days", "14 days")
    # the price: a restatement swapping one name for another reads as two things ("CSV or JSON" still differs)
    assert differing_values("Exports are delivered as CSV files to Larkspur.",
                            "Exports are delivered as JSON files to Larkspur.") is None


def test_a_denial_between_pages_of_one_date_is_not_a_disagreement_but_a_restatement_naming_more_is() -> None:
    """Found by the sample corpus panel: two current pages ("Reactivation restores the workspace but does not
    restore deleted snapshots" / "Restoring replaces the workspace contents") were said to disagree."""
    a = "Reactivation restores the workspace but does not restore deleted snapshots."
    b = "Restoring replaces the current workspace contents with the snapshot contents."
    assert differing_values(a, b, same_date=True) is None and differing_values(a, b) == (a, b)
    assert differing_values("Exports are delivered as CSV files.",
                            "Exports are delivered as CSV or JSON files inside a single archive.") is not None


def test_the_current_side_comes_first_and_one_document_never_disagrees_with_itself() -> None:
    old = _item(1, "faq", "Larkspur keeps nightly snapshots for 14 days.", "2023-04-01")
    new = _item(2, "retention", "Nightly snapshots are kept for 35 days.", "2025-06-01")
    same_doc = _item(3, "retention", "Nightly snapshots are kept for 30 days in the archive.", "2025-06-01")
    found = find_disagreements([old, new], lambda d, v: d.title())
    assert [[s.n for s in d.sides] for d in found] == [[2, 1]]
    assert found[0].sides[0].title == "Retention" and found[0].sides[0].says == "35 days"
    assert find_disagreements([new, same_doc]) == []
    superseded = _item(4, "retention", "Nightly snapshots are kept for 7 days.", "2026-01-01", 1, superseded=True)
    current = _item(5, "retention", "Nightly snapshots are kept for 35 days.", "2025-06-01", 2)
    assert [s.n for s in find_disagreements([superseded, current])[0].sides] == [5, 4]  # not superseded first


def test_a_disagreement_survives_its_stored_form() -> None:
    d = find_disagreements([_item(1, "faq", "Larkspur keeps nightly snapshots for 14 days.", "2023-04-01"),
                            _item(2, "retention", "Nightly snapshots are kept for 35 days.", "2025-06-01")])[0]
    assert disagreement_from_json(disagreement_json(d)) == d


def test_two_units_that_both_differ_give_the_same_pair_whatever_the_hash_seed() -> None:
    # The pair named is the first unit of the first sentence, not whichever a set yields first (which changed with
    # PYTHONHASHSEED, so two runs of the same store could say "108 cm" or "42.5 inches").
    import os
    import subprocess
    import sys

    code = ("from graphrag.verify.disagreement import differing_values; print(differing_values("
            "'The desk is 108 cm wide and 42.5 inches deep.', 'The desk is 110 cm wide and 40 inches deep.'))")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.strip() for seed in range(6)}
    assert seen == {"('108 cm', '110 cm')"}
