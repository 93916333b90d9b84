"""Support-checker backends, chosen by name here and only here."""

from __future__ import annotations

from typing import cast

from graphrag.config import Config
from graphrag.registry import make_backend
from graphrag.verify.support.base import SupportChecker, SupportQuery

CHECKERS: dict[str, str] = {
    "embedded": "graphrag.verify.support.embedded:EmbeddedChecker",
    "ollama": "graphrag.verify.support.ollama:OllamaChecker",
}


def make_checker(name: str, **options: object) -> SupportChecker:
    """The support checker registered under ``name`` (see ``CHECKERS``), built with ``options``."""
    return cast(SupportChecker, make_backend("support checker", CHECKERS, name, **options))  # CHECKERS: checkers only


def checker_for_store(name: str, store: object, config: Config | None = None, **options: object) -> SupportChecker:
    """The checker to score answers saved in ``store``: the embedded one runs the store's active
    version of its parameters (``graphrag checker``), named on every score it gives, with the sentence embedder
    ``config`` describes (default: the defaults). A model judge (``ollama``) is advice beside the embedded checker,
    never the score that decides (see ``advised``)."""
    embedded = {"store": store, "config": config or Config()}
    if name == "embedded":
        return make_checker(name, **{**embedded, **options})
    from graphrag.verify.support.advised import AdvisedChecker

    return AdvisedChecker(make_checker("embedded", **embedded), make_checker(name, **options))


__all__ = ["CHECKERS", "SupportChecker", "SupportQuery", "checker_for_store", "make_checker"]
