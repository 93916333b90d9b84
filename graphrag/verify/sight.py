"""What a holder of labels, or a reviewer under the review policy, may see of the record: which answers and claims
(the one rule of ``graphrag.access.rule.answer_visible``, superseded versions included) and which verdicts (blind
review). Below the review queue, the exports and an answer's standing, which all read through it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphrag.access.identity import Viewer
from graphrag.access.rule import Access, answer_visible, footprint
from graphrag.model import Answer, Verdict
from graphrag.store import Store
from graphrag.verify.policy import ReviewPolicy, ReviewViewer, latest, visible_verdicts
from graphrag.verify.status import review_policy


def reviewer_access(access: Iterable[str]) -> Access:
    """A holder of ``access`` as reviewing sees it: answers that cite superseded versions too (their verdicts
    are marked stale)."""
    # Reviewers see answers that cite superseded versions too: their verdicts are marked stale.
    return Access.of(access, include_superseded=True)


def sees_answer(answer: Answer, labels: Iterable[str], store: Store) -> bool:
    """The one rule for showing an answer (see graphrag.access.rule.answer_visible), for a holder of ``labels``:
    below the doors, where only labels are at hand (exports, packs)."""
    fp = footprint(answer)
    return answer_visible(fp, reviewer_access(labels), store.visibility_sources([fp]))


def visible_to(answer: Answer, by: Viewer, store: Store) -> bool:
    """Whether ``by`` may see ``answer`` (``sees_answer`` with their labels)."""
    return sees_answer(answer, by.labels, store)


def claims_seen(store: Store, labels: Iterable[str]) -> list[dict[str, Any]]:
    """Claim summaries of every answer a holder of ``labels`` may see whole (a gone source hides it)."""
    viewer = reviewer_access(labels)
    claims = store.claim_summaries()
    fps = store.answer_footprints()
    sources = store.visibility_sources(fps.values())
    ok = {aid: answer_visible(fp, viewer, sources) for aid, fp in fps.items()}
    return [c for c in claims if ok.get(c["answer_id"], False)]


def visible_claims(store: Store, by: Viewer) -> list[dict[str, Any]]:
    """Claim summaries of every answer ``by`` may see whole (``claims_seen`` with their labels)."""
    return claims_seen(store, by.labels)


def visible_history(store: Store, viewer: ReviewViewer, answer_id: int | None = None,
                    claim_index: int | None = None, policy: ReviewPolicy | None = None) -> list[Verdict]:
    """Verdict rows (history included, oldest first) of one claim, one answer or all, as many as
    ``viewer`` may see under the review policy."""
    policy = review_policy(store) if policy is None else policy
    from graphrag.verify.carry import verdict_rows  # carried verdicts count as the reviewer's own

    return visible_verdicts(verdict_rows(store, answer_id, claim_index), policy, viewer)


def visible_current(store: Store, viewer: ReviewViewer, answer_id: int | None = None,
                    policy: ReviewPolicy | None = None) -> list[Verdict]:
    """The current verdicts (the latest per claim, reviewer and role) ``viewer`` may see."""
    return latest(visible_history(store, viewer, answer_id, policy=policy))
