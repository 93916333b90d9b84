"""A scripted generator for tests: returns a fixed answer text, whatever the context."""

from __future__ import annotations

from collections.abc import Sequence

from graphrag.answer.generate.base import Generation
from graphrag.answer.reader.read import Reading
from graphrag.model import ContextItem


class ScriptedGenerator:
    """A test generator that returns a fixed text and records what it was asked."""

    def __init__(self, text: str = "", name: str = "scripted") -> None:
        self.text = text
        self.name = name
        self.calls: list[tuple[str, tuple[ContextItem, ...]]] = []  # what it was asked, in order
        self.readings: list[Reading | None] = []  # the reader's reading it was given with each call

    def generate(self, question: str, context: Sequence[ContextItem], reading: Reading | None = None) -> Generation:
        """Record the call and return the fixed text."""
        self.calls.append((question, tuple(context)))
        self.readings.append(reading)
        return Generation(self.text, self.name)
