"""The review queue as one reviewer's work: the order they go through it, what is left for them, how far they are.

``review_queue`` sorts claims by what needs a verdict most, so a claim just judged drops to the back and the next
one is always first: a position computed from it never moves. The work order here starts as the claims the
reviewer judged (in the order they judged them), then the claims left for them (in the queue's order), then the
claims others settled; and it stays as it began while they work (``order``: the page keeps the one it showed), so a
claim keeps its number: "claim 8 of 40" is claim 8 before and after its verdict, and the next is 9, whichever claims
the reviewer skipped (a verdict once moved the claim judged to the end of the first group and every claim skipped
before it one on: "claim 8" became "claim 7"). Claims that came in since are numbered after the rest.
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
        """The next claim left for the reviewer after ``after`` in the work order (from the start again past the end);
        the first one left when ``after`` is None or not in the queue; None at the end of their queue."""
        keys = self.keys
        start = keys.index(after) + 1 if after in keys else 0
        waiting = set(self.left) - {after}
        return next((k for k in keys[start:] + keys[:start] if k in waiting), None)


def work_queue(items: Sequence[QueueItem], viewer: ReviewViewer, *, disputes: bool = False,
               today: str | None = None, order: Sequence[tuple[int, int]] = ()) -> WorkQueue:
    """``items`` (a ``review_queue``) in ``viewer``'s work order. A claim is left for them when it still needs a
    verdict and is not theirs; in the dispute queue (``disputes``), when they took no part in it. ``order``: the work
    order shown before (its keys): the claims still in the queue keep it, claims new to it follow in work order."""
    day = (today or now())[:10]

    def own_time(q: QueueItem) -> str:
        return max((v.created_at or "" for v in q.verdicts if viewer.owns(v)), default="")

    def is_left(q: QueueItem) -> bool:
        return not q.mine if disputes else not q.reviewed

    mine = sorted((q for q in items if q.mine), key=own_time)
    left = [q for q in items if not q.mine and is_left(q)]
    rest = [q for q in items if not q.mine and not is_left(q)]
    ordered = mine + left + rest
    if order:
        place = {k: i for i, k in enumerate(order)}
        ordered = (sorted((q for q in ordered if q.key in place), key=lambda q: place[q.key])
                   + [q for q in ordered if q.key not in place])
    return WorkQueue(tuple(ordered), tuple(q.key for q in ordered if not q.mine and is_left(q)),
                     sum(own_time(q)[:10] == day for q in mine))
