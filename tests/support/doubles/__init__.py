"""Test doubles of the backends. The product's registries never name them (`graphrag ingest --extractor
scripted` is refused on a user's install); a test that wants one by name registers it with ``register``,
through the ``scripted_backends`` fixture, which undoes it after the test."""

from __future__ import annotations

import operator
from collections.abc import Callable

# role -> name -> "module:factory", as in the product's tables (tests/support/ is on sys.path)
DOUBLES: dict[str, dict[str, str]] = {
    "extractor": {"scripted": "doubles.extract:ScriptedExtractor"},
    "generator": {"scripted": "doubles.generate:ScriptedGenerator"},
}


def register(set_item: Callable[[dict[str, str], str, str], object] = operator.setitem) -> None:
    """Add the doubles to the product's backend tables; ``set_item`` is pytest's ``monkeypatch.setitem`` when
    the registration must end with the test."""
    from graphrag.answer.generate import GENERATORS
    from graphrag.ingest.extract import EXTRACTORS

    for table, role in ((EXTRACTORS, "extractor"), (GENERATORS, "generator")):
        for name, target in DOUBLES[role].items():
            set_item(table, name, target)
