"""Undoing a verdict just given: a correction appended to the record, never a change to it.

The record is append-only (the database refuses UPDATE and DELETE), so an undo is a new row: the reviewer's verdict
before the one undone, given again, or, when there was none, a retraction (``policy.RETRACTION``) that leaves them
with no current verdict (of the undone one's kind) on the claim. Both are audited as a ``verdict`` that names the row it corrects. Only the
reviewer's own latest verdict on a claim can be undone, and only for ``UNDO_SECONDS`` after it was given: later, a
changed mind is a new verdict like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from graphrag.access.identity import Viewer
from graphrag.errors import InputError
from graphrag.model import Answer, Verdict
from graphrag.store import Store, now
from graphrag.store.audit import AuditKind
from graphrag.store.audit import event as audit_event
from graphrag.verify.policy import RETRACTION, REVIEWER, ReviewViewer, latest
from graphrag.verify.review import UNDO_NOTE, acting_reviewer, clean_reviewer, library_caller

UNDO_SECONDS = 30


def _age_seconds(created_at: str | None, at: str) -> float:
    if not created_at:
        return float("inf")
    return (datetime.fromisoformat(at) - datetime.fromisoformat(created_at)).total_seconds()


def _refusal(rows: Sequence[Verdict], answer_id: int, verdict_id: int, me: ReviewViewer, subject: str | None,
             at: str, window_s: float = UNDO_SECONDS) -> str | None:
    """Why verdict ``verdict_id`` cannot be undone by ``me`` at ``at`` (``rows``: the answer's verdicts, as the
    store holds them now), or None when it can."""
    undone = next((v for v in rows if v.id == verdict_id), None)
    if undone is None or not me.owns(undone) or (subject is not None and undone.subject != subject):
        return f"verdict {verdict_id} is not one of yours on answer {answer_id}"
    if undone.role != REVIEWER:
        return (f"verdict {verdict_id} is {'a retraction' if undone.role == RETRACTION else 'an adjudication'}"
                ": only a reviewer's verdict can be undone (record a new verdict instead)")
    own = [v for v in rows if v.claim_index == undone.claim_index and v.kind == undone.kind and me.owns(v)]
    if own[-1].id != verdict_id:
        return (f"verdict {verdict_id} is no longer your latest on claim {undone.claim_index + 1}: record a new verdict "
                "instead")
    if _age_seconds(undone.created_at, at) > window_s:
        return (f"verdict {verdict_id} was given more than {UNDO_SECONDS} seconds ago: it can no longer be undone; "
                "record a new verdict instead (the history keeps both)")
    return None


def undoable(store: Store, answer_id: int, claim_index: int, verdict_id: int, reviewer: str, *,
             by: Viewer | None = None, margin_s: float = 0.0, at: str | None = None) -> bool:
    """Whether ``undo_verdict`` would take verdict ``verdict_id`` (on claim ``claim_index``) back now, by the record
    as the store holds it (and ``margin_s`` before the undo window closes, for a click's way to the server). A page
    offers Undo only then: an offer kept beside the record (in a browser's session) is never one the record no longer
    honours."""
    subject = None
    if by is not None and by.team:  # in team mode the verdict is the signed-in identity's, as in undo_verdict
        if by.identity is None:
            return False
        reviewer, subject = by.identity.display, by.identity.subject
    try:
        me = ReviewViewer(clean_reviewer(reviewer), subject)
    except InputError:
        return False
    return _refusal(store.verdicts(answer_id, claim_index), answer_id, verdict_id, me, subject, at or now(),
                    UNDO_SECONDS - margin_s) is None


def undo_verdict(store: Store, answer: Answer, verdict_id: int, reviewer: str, *, by: Viewer | None = None,
                 at: str | None = None) -> Verdict:
    """Undo ``reviewer``'s verdict ``verdict_id`` on a claim of ``answer``: append the correction (see the
    module's docstring) and return it. ``by``: who acts (their role checked by the use case; they need to see the answer; in team
    mode the verdict must be their signed-in identity's, whatever ``reviewer`` says). ``at``: now (tests)."""
    reviewer, subject, _ = acting_reviewer(store, answer, reviewer, by, "undo a verdict")
    if answer.id is None:
        raise InputError("only a stored answer's verdicts can be undone")
    rows = store.verdicts(answer.id)
    me = ReviewViewer(reviewer, subject)
    at = at or now()
    refused = _refusal(rows, answer.id, verdict_id, me, subject, at)
    if refused is not None:
        raise InputError(refused)
    undone = next(v for v in rows if v.id == verdict_id)
    own = [v for v in rows if v.claim_index == undone.claim_index and v.kind == undone.kind and me.owns(v)]
    before = [v for v in latest(v for v in own if (v.id or 0) < verdict_id) if v.role == REVIEWER]
    note = UNDO_NOTE.format(verdict_id)
    correction = (replace(before[-1], note=note) if before else replace(undone, role=RETRACTION, note=note))
    correction = replace(correction, id=None, created_at=at, stale=False, source_removed=False, tampered="")
    # the correction and its audit row in one transaction: both or neither
    event = audit_event(library_caller(by), AuditKind.VERDICT, answer_id=answer.id, claim_index=undone.claim_index,
                        verdict=correction.verdict.value, reviewer=reviewer, role=correction.role,
                        corrects=verdict_id)
    vid = store.add_verdict(correction, event)
    return replace(correction, id=vid)
