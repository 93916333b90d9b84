"""The Generator protocol: a question and numbered context items in, answer text out.

The answer text carries markers like ``[2]`` that refer to ``ContextItem.n``; attribution
(graphrag.verify.attribution) parses them, so a generator never builds claims itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from graphrag.model import ContextItem


@dataclass(frozen=True)
class Generation:
    """A generated answer text, with the backend and model that wrote it."""

    text: str
    generator: str  # backend name
    model: str | None = None


class Generator(Protocol):
    """Writes an answer with [n] markers from numbered context sentences."""

    name: str

    def generate(self, question: str, context: Sequence[ContextItem]) -> Generation:
        """Answer ``question`` from ``context``. Raises ModelUnavailable / BackendFailed."""
        ...
