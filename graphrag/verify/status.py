"""The store's rows read under the team's review policy.

The store keeps the setting (how many independent verdicts a claim needs) as a plain number and the
verdicts as raw, append-only rows; it knows no review rule. What they mean is derived here, with
``graphrag.verify.policy``: the policy itself, the current verdicts (the latest per claim, reviewer
and role) and an answer's *verified* status, for every surface that shows them (the Ask page, the
review workflow, the record's statistics and exports).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from graphrag.access.identity import Viewer
from graphrag.model import Answer, AnswerStatus, AuditEvent, Verdict
from graphrag.store import Store
from graphrag.store.audit import AuditKind
from graphrag.verify.policy import ReviewPolicy, answer_status, latest


def review_policy(store: Store) -> ReviewPolicy:
    """The team's review policy, as the store keeps it (one verdict when never set)."""
    return ReviewPolicy(store.required_verdicts())


def keep_review_policy(store: Store, policy: ReviewPolicy, *, by: Viewer, held: bool | None = None) -> None:
    """Keep ``policy`` as the team's; ``by`` (an admin) is audited with the change by the store. ``held``: whether
    readers wait for verified answers (``held_until_verified``), written in the same audit row; None keeps it as it
    is, written again so that every ``review-policy`` row states the whole policy in force from then on."""
    store.set_required_verdicts(policy.required, by=by,
                                held_until_verified=held_until_verified(store) if held is None else held)


def held_until_verified(store: Store) -> bool:
    """Whether the team holds answers back from readers until they are verified (graphrag.verify.held): the latest
    ``review-policy`` audit row says so. The row is the setting, so it cannot change without its audit row; off when
    no row says it (every store before issue 62). Read only where it matters (a team reader's answer, the Record
    page, the pack): it reads the audit log's rows of that event."""
    rows = policy_rows(store)
    return bool(rows) and rows[-1].detail.get("held_until_verified") is True


def policy_rows(store: Store) -> list[AuditEvent]:
    """The ``review-policy`` audit rows that set the policy, oldest first: not those of a change refused (they say
    ``refused``, and set nothing)."""
    return [e for e in store.audit_of(str(AuditKind.REVIEW_POLICY)) if "refused" not in e.detail]


def current_verdicts(store: Store, answer_id: int | None = None) -> list[Verdict]:
    """The current verdicts of one answer or all: a changed mind is a new row (``policy.latest``)."""
    from graphrag.verify.carry import verdict_rows  # carried verdicts count as their reviewers' own

    return latest(verdict_rows(store, answer_id))


def load_answer(store: Store, answer_id: int, verdicts: Sequence[Verdict] | None = None) -> Answer | None:
    """A stored answer with its status as a reader sees it: *verified* when every claim is, under the
    review policy (the store returns the status the answer was saved or withdrawn with). ``verdicts``: its verdict
    rows with carry-over (``verdict_rows``), when the caller has them."""
    answer = store.answer(answer_id)
    if answer is None or not answer.claims or answer.status == AnswerStatus.WITHDRAWN:
        return answer
    current = current_verdicts(store, answer_id) if verdicts is None else latest(verdicts)
    status = answer_status(answer, current, review_policy(store))
    return answer if status == answer.status else replace(answer, status=status)
