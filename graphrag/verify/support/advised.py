"""A model judge as advice beside the embedded checker: the embedded score decides, the model's verdict is kept
beside it (``Support.advisory``).

A judge model reads the same untrusted text as the generator: a sentence that tells it to answer "Yes" is obeyed by
an obliging model, and a fabricated claim would then be marked supported. The embedded checker cannot be talked to,
so its score is the one that labels a claim, orders the review queue and flags low support; the model's answer is
shown next to it for a reviewer to weigh.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from graphrag.errors import BackendFailed, ModelUnavailable
from graphrag.model import Support
from graphrag.verify.support.base import SupportChecker, SupportQuery

log = logging.getLogger(__name__)


class AdvisedChecker:
    """``decider``'s supports, each with ``advisor``'s verdict on the same pair beside it."""

    def __init__(self, decider: SupportChecker, advisor: SupportChecker) -> None:
        self.decider = decider
        self.advisor = advisor
        self.name = decider.name  # the score is the decider's
        self.threshold = decider.threshold

    def check(self, queries: Sequence[SupportQuery]) -> list[Support | None]:
        """The decider's results, with the advisor's beside each; when the advisor cannot run, the decider's
        results say so in their reason and stand."""
        decided = self.decider.check(queries)
        try:
            advice = self.advisor.check(queries)
        except (ModelUnavailable, BackendFailed) as exc:
            log.warning("%s gave no advice: %s", self.advisor.name, exc)
            note = f"model judge {self.advisor.name} not asked: {exc}"
            return [None if d is None else replace(d, reason=f"{d.reason}; {note}") for d in decided]
        return [None if d is None else replace(d, advisory=a) for d, a in zip(decided, advice, strict=True)]
