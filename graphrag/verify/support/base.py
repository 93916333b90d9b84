"""The SupportChecker protocol: does the cited text support the claim?

A checker returns a score in [0, 1], a label and a short reason a reviewer can read.
``neighbours`` are the sentences around the cited span, for checkers that use context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from graphrag.model import Support


@dataclass(frozen=True)
class SupportQuery:
    """One (claim, evidence) pair to score, with the evidence's neighbouring sentences for context."""

    claim: str
    evidence: str  # the cited span text (several spans joined with a space)
    neighbours: tuple[str, ...] = ()


class SupportChecker(Protocol):
    """A backend that scores whether evidence supports a claim."""

    name: str  # recorded on every Support, e.g. "embedded", "ollama:bespoke-minicheck"
    threshold: float  # scores at or above this are "supported"

    def check(self, queries: Sequence[SupportQuery]) -> list[Support | None]:
        """Score many (claim, evidence) pairs at once; batched for speed.

        ``None`` for a pair the checker could not score (e.g. a judge model answered
        off-format): that citation stays "not checked" rather than getting an invented score.
        Raises ModelUnavailable / BackendFailed when the checker cannot run at all.
        """
        ...
