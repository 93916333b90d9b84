"""A verified answer reused (issue 62, item 2): a question asked again, as its words normalise (``carry.claim_words``),
under the same access labels, scope and mode, is answered first with the newest earlier answer to it that reviewers
verified, saying so, when every sentence it cites is unchanged. When one changed since, the question is answered
afresh, and the verified answer is named as outdated with the sentence that changed.

A reuse never crosses labels: the earlier answer must have been asked under exactly the asker's labels, and every
document version, route and seed it shows must be visible to them now (``sees_answer``, the one rule for showing an
answer), so a public reader is never shown an answer verified on internal documents. Nothing is written: the reused
answer is the stored one, read again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from graphrag.model import Answer, AnswerStatus, AskSettings
from graphrag.store import Store
from graphrag.verify.carry import claim_words
from graphrag.verify.policy import ANYONE, ReviewViewer
from graphrag.verify.standing import Standing, StandingKind, answer_standing


@dataclass(frozen=True)
class Reuse:
    """An earlier verified answer to the question: reused (``outdated`` False: it is the answer given), or named as
    outdated beside a fresh answer because a sentence it cites changed since."""

    answer: Answer
    standing: Standing

    @property
    def outdated(self) -> bool:
        """Whether a cited sentence changed since it was verified (it is then not the answer given)."""
        return self.standing.kind is StandingKind.SOURCE_CHANGED

    @property
    def words(self) -> str:
        """What the asker is told, the same on every surface."""
        if not self.outdated:
            return f"Answered before and verified: answer #{self.answer.id}, {self.standing.words}."
        changed = "; ".join(c.words for c in self.standing.changes)
        return (f"An earlier answer to this question, #{self.answer.id}, was verified but is outdated: its sources "
                f"changed since ({changed}). This is a fresh answer.")

    def to_json(self) -> dict[str, Any]:
        """The reuse as JSON-ready data (``ask --json``)."""
        return {"answer_id": self.answer.id, "reused": not self.outdated, "outdated": self.outdated,
                "words": self.words, "standing": self.standing.to_json()}


def same_question(a: AskSettings, b: AskSettings) -> bool:
    """Whether two asks are the same ask but for their words: the same labels, scope, mode and versions."""
    return (tuple(sorted(a.access)), tuple(a.documents), a.mode, a.include_superseded) == \
        (tuple(sorted(b.access)), tuple(b.documents), b.mode, b.include_superseded)


def verified_before(store: Store, question: str, settings: AskSettings, labels: Iterable[str],
                    viewer: ReviewViewer = ANYONE) -> Reuse | None:
    """The newest earlier answer to ``question`` (normalised), asked with ``settings``' labels, scope and mode, that
    a holder of ``labels`` may see and that reviewers verified: to reuse when its sources are unchanged, to name as
    outdated when they changed; None when there is none."""
    from graphrag.verify.sight import sees_answer
    from graphrag.verify.status import review_policy

    labels = tuple(sorted(labels))
    if tuple(sorted(settings.access)) != labels:
        return None
    words = claim_words(question)
    if not words:
        return None
    # the answers to this question first (one row an answer, each distinct question's words normalised once),
    # then whether the asker may see each, newest first: not every answer's visibility on every ask
    by_question: dict[str, list[int]] = {}
    for aid, q in store.answer_questions():
        by_question.setdefault(q, []).append(aid)
    asked = sorted((aid for q, ids in by_question.items() if claim_words(q) == words for aid in ids), reverse=True)
    policy = review_policy(store)
    for aid in asked:
        answer = store.answer(aid)
        if answer is None or not same_question(answer.settings, settings) or not sees_answer(answer, labels, store):
            continue
        standing = answer_standing(store, answer, viewer, policy=policy)
        if standing.kind in (StandingKind.VERIFIED, StandingKind.SOURCE_CHANGED):
            # its status as a reader sees it (a verified standing is a verified status: every claim settled supported)
            return Reuse(replace(answer, status=AnswerStatus.VERIFIED) if standing.verified else answer, standing)
    return None
