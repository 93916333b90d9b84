"""The Generator protocol: a question and numbered context items in, answer text out.

The answer text carries markers like ``[2]`` that refer to ``ContextItem.n``; attribution
(graphrag.verify.attribution) parses them, so a generator never builds claims itself. Which sentence
answers is not the generator's to decide: the reader's ``Reading`` of the same context items (the
quotes' order, their typed short answers) is handed in, and a generator composes the answer from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from graphrag.model import ContextItem

if TYPE_CHECKING:
    from graphrag.answer.reader.read import Reading


@dataclass(frozen=True)
class Generation:
    """A generated answer text, with the backend and model that wrote it."""

    text: str
    generator: str  # backend name
    model: str | None = None


class Generator(Protocol):
    """Writes an answer with [n] markers from numbered context sentences."""

    name: str

    def generate(self, question: str, context: Sequence[ContextItem], reading: Reading | None = None) -> Generation:
        """Answer ``question`` from ``context``, as the reader's ``reading`` of it judged (None: read without the
        reader). Raises ModelUnavailable / BackendFailed."""
        ...
