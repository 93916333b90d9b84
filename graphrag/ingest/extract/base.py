"""The Extractor protocol: one document's sentences in, entities and relations out.

Extractors refer to sentences by index, so every entity and relation maps to an exact span
of the document; the ingest pipeline turns indices into spans. An extractor reports one of
four outcomes (see ``ExtractionStatus``) and never turns a failure into an empty result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from graphrag.language.sentences import Sentence
from graphrag.model import ExtractionResult


class Extractor(Protocol):
    """Finds entities and relations in a document's sentences."""

    name: str  # recorded on every mention and relation, e.g. "rules", "ollama:llama3.1"

    def extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        """Extract from one document, given as its sentences (with indices and offsets)."""
        ...


class ReplyCache(Protocol):
    """Model replies kept across runs, keyed by (model, prompt version, chunk hash).

    The store provides one whose writes commit at once, independently of the document's
    transaction, so a chunk answered before a failure is not sent again on the re-run.
    """

    def get(self, key: str) -> str | None:
        """The cached reply under ``key``, or None."""

    def put(self, key: str, value: str, sources: Sequence[str] = ()) -> None:
        """``sources``: the sha256 of each sentence the reply is about (graphrag.language.sentences.sentence_hash),
        so removing a document can drop the replies that hold its text."""
        ...


class MemoryCache:
    """A ReplyCache in memory, for tests and one-off runs."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        """The cached reply under ``key``, or None."""
        return self.data.get(key)

    def put(self, key: str, value: str, sources: Sequence[str] = ()) -> None:
        """Keep ``value`` under ``key`` (``sources`` is not needed in memory)."""
        self.data[key] = value
