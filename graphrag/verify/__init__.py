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
    from graphrag.language.names import reviewer_key as reviewer_key
    from graphrag.verify.actions import answer_for as answer_for
    from graphrag.verify.actions import draw_estimate_sample as draw_estimate_sample
    from graphrag.verify.actions import export_audit_log as export_audit_log
    from graphrag.verify.actions import export_pack as export_pack
    from graphrag.verify.actions import export_record as export_record
    from graphrag.verify.actions import export_source_changes as export_source_changes
    from graphrag.verify.actions import mark_verdict as mark_verdict
    from graphrag.verify.actions import record_sign_in as record_sign_in
    from graphrag.verify.actions import refit_checker as refit_checker
    from graphrag.verify.actions import rollback_checker as rollback_checker
    from graphrag.verify.actions import set_review_policy as set_review_policy
    from graphrag.verify.actions import signing_key as signing_key
    from graphrag.verify.actions import source_changed_answers as source_changed_answers
    from graphrag.verify.actions import undo_verdict as undo_verdict
    from graphrag.verify.actions import unreviewed_estimate as unreviewed_estimate
    from graphrag.verify.disagreement import DISAGREE_OPENING as DISAGREE_OPENING
    from graphrag.verify.estimate import Estimate as Estimate
    from graphrag.verify.exports import Export as Export
    from graphrag.verify.held import Held as Held
    from graphrag.verify.pack import PackCheck as PackCheck
    from graphrag.verify.pack import PackError as PackError
    from graphrag.verify.pack import read_key_argument as read_key_argument
    from graphrag.verify.pack import read_pack_file as read_pack_file
    from graphrag.verify.pack import verify_pack as verify_pack
    from graphrag.verify.policy import MAX_REQUIRED as MAX_REQUIRED
    from graphrag.verify.policy import ClaimState as ClaimState
    from graphrag.verify.policy import ClaimStatus as ClaimStatus
    from graphrag.verify.policy import ReviewPolicy as ReviewPolicy
    from graphrag.verify.policy import ReviewViewer as ReviewViewer
    from graphrag.verify.policy import answer_status as answer_status
    from graphrag.verify.policy import claim_state as claim_state
    from graphrag.verify.policy import latest as latest
    from graphrag.verify.policy import parties as parties
    from graphrag.verify.record import MIN_PAIR_CLAIMS as MIN_PAIR_CLAIMS
    from graphrag.verify.record import CarryCheck as CarryCheck
    from graphrag.verify.record import RecordFilter as RecordFilter
    from graphrag.verify.record import RecordStats as RecordStats
    from graphrag.verify.record import carry_check as carry_check
    from graphrag.verify.record import record_by_kind as record_by_kind
    from graphrag.verify.record import record_stats as record_stats
    from graphrag.verify.review import QueueItem as QueueItem
    from graphrag.verify.review import clean_reviewer as clean_reviewer
    from graphrag.verify.review import record_verdict as record_verdict
    from graphrag.verify.review import review_queue as review_queue
    from graphrag.verify.review import review_viewer as review_viewer
    from graphrag.verify.review import reviewable as reviewable
    from graphrag.verify.review import visible_answer as visible_answer
    from graphrag.verify.review import visible_answer_questions as visible_answer_questions
    from graphrag.verify.review import visible_unanswered as visible_unanswered
    from graphrag.verify.sight import visible_claims as visible_claims
    from graphrag.verify.sight import visible_current as visible_current
    from graphrag.verify.sight import visible_history as visible_history
    from graphrag.verify.sight import visible_to as visible_to
    from graphrag.verify.standing import CHANGES_FIELDS as CHANGES_FIELDS
    from graphrag.verify.standing import ChangedAnswer as ChangedAnswer
    from graphrag.verify.standing import SourceChange as SourceChange
    from graphrag.verify.standing import Standing as Standing
    from graphrag.verify.standing import StandingKind as StandingKind
    from graphrag.verify.standing import answer_standing as answer_standing
    from graphrag.verify.status import current_verdicts as current_verdicts
    from graphrag.verify.status import held_until_verified as held_until_verified
    from graphrag.verify.status import load_answer as load_answer
    from graphrag.verify.status import review_policy as review_policy
    from graphrag.verify.support import CHECKERS as CHECKERS
    from graphrag.verify.support import SupportChecker as SupportChecker
    from graphrag.verify.support import checker_for_store as checker_for_store
    from graphrag.verify.support import make_checker as make_checker
    from graphrag.verify.support.learn import RefitRefused as RefitRefused
    from graphrag.verify.support.team import FitOutcome as FitOutcome
    from graphrag.verify.undo import UNDO_SECONDS as UNDO_SECONDS
    from graphrag.verify.undo import undoable as undoable
    from graphrag.verify.worklist import WorkQueue as WorkQueue
    from graphrag.verify.worklist import work_queue as work_queue

__getattr__ = lazy_exports(__name__)
