"""The loaded models stay out of the cyclic garbage collector's walks.

spaCy, torch and their weights (when MiniLM runs on torch) are over half a million tracked objects. Each full collection walked them all
(0.35 s idle, 1.3 s on a busy machine, holding the GIL), and a dashboard ran one after every script run: while
an ingest ran, the sidebar's refresh each second left the ingest's own thread waiting for the GIL."""

from __future__ import annotations

import gc

import pytest

from graphrag.config import Config
from graphrag.ingest.extract.rules import load_spacy
from graphrag.language.embed import get_embedder

pytestmark = pytest.mark.model


def _collected(obj: object) -> bool:
    """Whether a full collection would walk ``obj`` (frozen objects are in no generation)."""
    return any(o is obj for o in gc.get_objects())


def test_the_embedder_and_the_parser_are_frozen_once_loaded() -> None:
    embedder = get_embedder(Config())
    nlp = load_spacy()
    assert gc.get_freeze_count() > 100_000
    assert not _collected(embedder)  # the ONNX encoder (the default) or torch's
    assert not _collected(getattr(embedder, "_model", embedder))
    assert not _collected(nlp)
    # Objects made afterwards are collected as usual: only what was alive at the load is frozen.
    later: list[object] = []
    later.append(later)
    assert _collected(later)
