"""Support-checker backends, chosen by name here and only here."""

from __future__ import annotations

from typing import cast

from graphrag.registry import make_backend
from graphrag.verify.support.base import SupportChecker, SupportQuery

CHECKERS: dict[str, str] = {
    "embedded": "graphrag.verify.support.embedded:EmbeddedChecker",
    "ollama": "graphrag.verify.support.ollama:OllamaChecker",
}


def make_checker(name: str, **options: object) -> SupportChecker:
    """The support checker registered under ``name`` (see ``CHECKERS``), built with ``options``."""
    return cast(SupportChecker, make_backend("support checker", CHECKERS, name, **options))  # CHECKERS: checkers only


def checker_for_store(name: str, store: object, **options: object) -> SupportChecker:
    """The checker to score answers saved in ``store``: the embedded one runs the store's active
    version of its parameters (``graphrag checker``), named on every score it gives. A model judge
    (``ollama``) is advice beside the embedded checker, never the score that decides (see ``advised``)."""
    if name == "embedded":
        return make_checker(name, **{"store": store, **options})
    from graphrag.verify.support.advised import AdvisedChecker

    return AdvisedChecker(make_checker("embedded", store=store), make_checker(name, **options))


__all__ = ["CHECKERS", "SupportChecker", "SupportQuery", "checker_for_store", "make_checker"]
