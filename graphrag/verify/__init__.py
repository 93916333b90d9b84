"""Verifying answers: reviewers' verdicts on claims (``review``), the rules for when a claim counts as verified
under single or blind review (``policy``), what the store's rows mean under it: the policy it keeps, the
current verdicts and an answer's verified status (``status``), the verification record and its statistics (``record``), the
audit log as a file (``audit``), exports of the record and the log (``exports``), what a viewer's sidebar
counts (``overview``) and the automatic support checkers that score a citation before a human does
(``support``). The use cases a surface calls (``actions``) take ``(store, viewer, config)``, check the role and
have the audit row written once: marking a verdict, setting the review policy, refitting and rolling back the
checker, exporting the record and the audit log.

Import the names below from ``graphrag.verify``; each is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.registry import lazy_exports

if TYPE_CHECKING:
    from graphrag.language.names import reviewer_key
    from graphrag.verify.actions import (
        answer_for,
        draw_estimate_sample,
        export_audit_log,
        export_pack,
        export_record,
        export_source_changes,
        judge_claim,
        mark_verdict,
        record_sign_in,
        refit_checker,
        rollback_checker,
        set_review_policy,
        signing_key,
        source_changed_answers,
        undo_verdict,
        unreviewed_estimate,
    )
    from graphrag.verify.disagreement import DISAGREE_OPENING
    from graphrag.verify.estimate import Estimate
    from graphrag.verify.exports import Export
    from graphrag.verify.held import Held
    from graphrag.verify.pack import PackCheck, PackError, read_key_argument, read_pack_file, verify_pack
    from graphrag.verify.policy import (
        MAX_REQUIRED,
        ClaimState,
        ClaimStatus,
        ReviewPolicy,
        ReviewViewer,
        answer_status,
        claim_state,
        latest,
        parties,
    )
    from graphrag.verify.record import (
        MIN_PAIR_CLAIMS,
        CarryCheck,
        RecordFilter,
        RecordStats,
        carry_check,
        record_by_kind,
        record_stats,
    )
    from graphrag.verify.review import (
        QueueItem,
        clean_reviewer,
        review_queue,
        review_viewer,
        reviewable,
        visible_answer,
        visible_answer_questions,
        visible_claims,
        visible_current,
        visible_history,
        visible_to,
        visible_unanswered,
    )
    from graphrag.verify.standing import (
        CHANGES_FIELDS,
        ChangedAnswer,
        SourceChange,
        Standing,
        StandingKind,
        answer_standing,
    )
    from graphrag.verify.status import current_verdicts, held_until_verified, load_answer, review_policy
    from graphrag.verify.support import CHECKERS, SupportChecker, checker_for_store, make_checker
    from graphrag.verify.support.learn import RefitRefused
    from graphrag.verify.support.team import FitOutcome
    from graphrag.verify.undo import UNDO_SECONDS, undoable
    from graphrag.verify.worklist import WorkQueue, work_queue

# Name -> the module that defines it. Imported on first use, so importing the package (or one of its
# modules) loads nothing else and no import cycle can run through this door.
_EXPORTS = {
    "answer_for": "graphrag.verify.actions",
    "Held": "graphrag.verify.held",
    "held_until_verified": "graphrag.verify.status",
    "draw_estimate_sample": "graphrag.verify.actions",
    "export_pack": "graphrag.verify.actions",
    "signing_key": "graphrag.verify.actions",
    "unreviewed_estimate": "graphrag.verify.actions",
    "Estimate": "graphrag.verify.estimate",
    "PackCheck": "graphrag.verify.pack",
    "PackError": "graphrag.verify.pack",
    "read_key_argument": "graphrag.verify.pack",
    "read_pack_file": "graphrag.verify.pack",
    "verify_pack": "graphrag.verify.pack",
    "CHECKERS": "graphrag.verify.support",
    "ClaimState": "graphrag.verify.policy",
    "ClaimStatus": "graphrag.verify.policy",
    "Export": "graphrag.verify.exports",
    "FitOutcome": "graphrag.verify.support.team",
    "MAX_REQUIRED": "graphrag.verify.policy",
    "MIN_PAIR_CLAIMS": "graphrag.verify.record",
    "DISAGREE_OPENING": "graphrag.verify.disagreement",
    "QueueItem": "graphrag.verify.review",
    "CarryCheck": "graphrag.verify.record",
    "RecordFilter": "graphrag.verify.record",
    "RecordStats": "graphrag.verify.record",
    "carry_check": "graphrag.verify.record",
    "RefitRefused": "graphrag.verify.support.learn",
    "ReviewPolicy": "graphrag.verify.policy",
    "ReviewViewer": "graphrag.verify.policy",
    "SupportChecker": "graphrag.verify.support",
    "UNDO_SECONDS": "graphrag.verify.undo",
    "WorkQueue": "graphrag.verify.worklist",
    "answer_status": "graphrag.verify.policy",
    "checker_for_store": "graphrag.verify.support",
    "claim_state": "graphrag.verify.policy",
    "clean_reviewer": "graphrag.verify.review",
    "CHANGES_FIELDS": "graphrag.verify.standing",
    "ChangedAnswer": "graphrag.verify.standing",
    "SourceChange": "graphrag.verify.standing",
    "Standing": "graphrag.verify.standing",
    "StandingKind": "graphrag.verify.standing",
    "answer_standing": "graphrag.verify.standing",
    "export_source_changes": "graphrag.verify.actions",
    "source_changed_answers": "graphrag.verify.actions",
    "current_verdicts": "graphrag.verify.status",
    "export_audit_log": "graphrag.verify.actions",
    "export_record": "graphrag.verify.actions",
    "judge_claim": "graphrag.verify.actions",
    "latest": "graphrag.verify.policy",
    "load_answer": "graphrag.verify.status",
    "make_checker": "graphrag.verify.support",
    "mark_verdict": "graphrag.verify.actions",
    "parties": "graphrag.verify.policy",
    "record_sign_in": "graphrag.verify.actions",
    "record_by_kind": "graphrag.verify.record",
    "record_stats": "graphrag.verify.record",
    "record_verdict": "graphrag.verify.review",
    "review_policy": "graphrag.verify.status",
    "review_queue": "graphrag.verify.review",
    "review_viewer": "graphrag.verify.review",
    "reviewer_key": "graphrag.language.names",
    "reviewable": "graphrag.verify.review",
    "set_review_policy": "graphrag.verify.actions",
    "refit_checker": "graphrag.verify.actions",
    "rollback_checker": "graphrag.verify.actions",
    "undo_verdict": "graphrag.verify.actions",
    "undoable": "graphrag.verify.undo",
    "visible_answer": "graphrag.verify.review",
    "visible_answer_questions": "graphrag.verify.review",
    "visible_claims": "graphrag.verify.review",
    "visible_current": "graphrag.verify.review",
    "visible_history": "graphrag.verify.review",
    "visible_to": "graphrag.verify.review",
    "visible_unanswered": "graphrag.verify.review",
    "work_queue": "graphrag.verify.worklist",
}

__all__ = [
    "CHANGES_FIELDS",
    "CHECKERS",
    "DISAGREE_OPENING",
    "MAX_REQUIRED",
    "MIN_PAIR_CLAIMS",
    "UNDO_SECONDS",
    "CarryCheck",
    "ChangedAnswer",
    "ClaimState",
    "ClaimStatus",
    "Estimate",
    "Export",
    "FitOutcome",
    "Held",
    "PackCheck",
    "PackError",
    "QueueItem",
    "RecordFilter",
    "RecordStats",
    "RefitRefused",
    "ReviewPolicy",
    "ReviewViewer",
    "SourceChange",
    "Standing",
    "StandingKind",
    "SupportChecker",
    "WorkQueue",
    "answer_for",
    "answer_standing",
    "answer_status",
    "carry_check",
    "checker_for_store",
    "claim_state",
    "clean_reviewer",
    "current_verdicts",
    "draw_estimate_sample",
    "export_audit_log",
    "export_pack",
    "export_record",
    "export_source_changes",
    "held_until_verified",
    "judge_claim",
    "latest",
    "load_answer",
    "make_checker",
    "mark_verdict",
    "parties",
    "read_key_argument",
    "read_pack_file",
    "record_by_kind",
    "record_sign_in",
    "record_stats",
    "record_verdict",
    "refit_checker",
    "review_policy",
    "review_queue",
    "review_viewer",
    "reviewable",
    "reviewer_key",
    "rollback_checker",
    "set_review_policy",
    "signing_key",
    "source_changed_answers",
    "undo_verdict",
    "undoable",
    "unreviewed_estimate",
    "verify_pack",
    "visible_answer",
    "visible_answer_questions",
    "visible_claims",
    "visible_current",
    "visible_history",
    "visible_to",
    "visible_unanswered",
    "work_queue",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)
