"""The review queue as one reviewer's work: the order they go through it, what is left for them, how far they are.

``review_queue`` sorts claims by what needs a verdict most, so a claim just judged drops to the back and the next
one is always first: a position computed from it never moves. The work order here is stable while a reviewer
works: the claims they judged (in the order they judged them), then the claims left for them (in the queue's
order), then the claims others settled. Judging a claim moves it from the middle group to the end of the first, so
the position of the next claim is one further on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphrag.store import now
from graphrag.verify.policy import ReviewViewer
from graphrag.verify.review import QueueItem


@dataclass(frozen=True)
class WorkQueue:
    """One reviewer's queue: ``items`` in work order, ``left`` the keys still waiting for them (in that order)."""

    items: tuple[QueueItem, ...]
    left: tuple[tuple[int, int], ...]
    judged_today: int  # claims in the queue whose current verdict by this reviewer was given today (UTC)

    @property
    def keys(self) -> list[tuple[int, int]]:
        """(answer id, claim index) of every item, in work order."""
        return [q.key for q in self.items]

    def next_left(self, after: tuple[int, int] | None = None) -> tuple[int, int] | None:
        """The first claim left for the reviewer other than ``after``; None at the end of their queue."""
        return next((k for k in self.left if k != after), None)


def work_queue(items: Sequence[QueueItem], viewer: ReviewViewer, *, disputes: bool = False,
               today: str | None = None) -> WorkQueue:
    """``items`` (a ``review_queue``) in ``viewer``'s work order. A claim is left for them when it still needs a
    verdict and is not theirs; in the dispute queue (``disputes``), when they took no part in it."""
    day = (today or now())[:10]

    def own_time(q: QueueItem) -> str:
        return max((v.created_at or "" for v in q.verdicts if viewer.owns(v)), default="")

    def is_left(q: QueueItem) -> bool:
        return not q.mine if disputes else not q.reviewed

    mine = sorted((q for q in items if q.mine), key=own_time)
    left = [q for q in items if not q.mine and is_left(q)]
    rest = [q for q in items if not q.mine and not is_left(q)]
    return WorkQueue(tuple(mine + left + rest), tuple(q.key for q in left),
                     sum(own_time(q)[:10] == day for q in mine))
