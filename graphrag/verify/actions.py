"""What a viewer does to the verification record: the verify door's use cases.

Each takes ``(store, viewer, config)`` and its own arguments, checks the viewer's role, limits what it reads to
what the viewer may see, and has the audit row written once: by the store method that makes the change, in the
change's own transaction (a verdict, the review policy, a checker version, a rollback), or here for a refused
refit, an export and a sign-in. The CLI and the pages call these and nothing below them, so both surfaces act
alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.access.identity import ADJUDICATOR, ADMIN, REVIEWER, Viewer, require
from graphrag.config import Config
from graphrag.errors import InputError
from graphrag.store.audit import AuditKind, event
from graphrag.verify import exports
from graphrag.verify.estimate import DEFAULT_SAMPLE
from graphrag.verify.policy import ReviewPolicy

if TYPE_CHECKING:
    from graphrag.model import Answer, Verdict, VerdictKind, VerdictLabel
    from graphrag.store import Store
    from graphrag.verify.estimate import Estimate
    from graphrag.verify.held import Held
    from graphrag.verify.standing import ChangedAnswer
    from graphrag.verify.support.team import FitOutcome


def mark_verdict(store: Store, viewer: Viewer, config: Config, answer_id: int, claim_index: int,
                 verdict: str | VerdictLabel, reviewer: str, *, note: str = "", citation: str | None = None,
                 adjudicate: bool = False, kind: str | VerdictKind | None = None) -> Verdict:
    """Record ``viewer``'s verdict on a claim of a stored answer their labels can see, judged against the citation
    with marker ``citation`` (default: the claim's first valid one). ``kind``: the question answered, *backs* or
    *answers* (default: the one the claim is asked). Needs the reviewer role (and, to settle a dispute in team
    mode, the adjudicator's); audited as ``verdict``. The one use case of a verdict: the command line, the Review
    page and the Python facade all call it."""
    from graphrag.verify.review import mark_claim

    _may_judge(viewer, adjudicate)
    return mark_claim(store, answer_id, claim_index, verdict, reviewer, sorted(viewer.labels), note=note,
                      citation=citation, adjudicate=adjudicate, by=viewer, kind=kind)


def _may_judge(viewer: Viewer, adjudicate: bool) -> None:
    # A verdict needs the reviewer role; settling a dispute in team mode the adjudicator's (locally anyone may, as
    # long as they took no part in it: graphrag.verify.review.record_verdict).
    require(viewer, REVIEWER, "record a verdict")
    if adjudicate and viewer.team:
        require(viewer, ADJUDICATOR, "settle a disputed claim")


def undo_verdict(store: Store, viewer: Viewer, config: Config, answer: Answer, verdict_id: int, reviewer: str
                 ) -> Verdict:
    """Undo the viewer's own latest verdict ``verdict_id`` on a claim of ``answer`` within a few seconds of
    giving it, as a correction appended to the record (graphrag.verify.undo). Needs the reviewer role; audited
    as ``verdict`` (naming the row it corrects)."""
    from graphrag.verify.undo import undo_verdict as append_correction

    require(viewer, REVIEWER, "undo a verdict")
    return append_correction(store, answer, verdict_id, reviewer, by=viewer)


def set_review_policy(store: Store, viewer: Viewer, config: Config, required: int | None = None, *,
                      held_until_verified: bool | None = None) -> ReviewPolicy:
    """Set how many independent verdicts each claim needs (two or more: blind review) and whether team readers wait
    for verified answers (``held_until_verified``, graphrag.verify.held); None keeps a setting as it is. Needs the
    admin role: audited as ``review-policy`` (one row stating the whole policy), and a change refused for want of
    the role is audited too, as a ``review-policy`` row saying ``refused`` (it sets nothing). Returns the policy now
    in force."""
    from graphrag.verify.status import keep_review_policy, review_policy

    asked = {k: v for k, v in (("required", required), ("held_until_verified", held_until_verified)) if v is not None}
    if not viewer.may(ADMIN):
        store.add_audit(event(viewer, AuditKind.REVIEW_POLICY, asked=asked,
                              refused=f"needs the admin role (theirs: {viewer.role or 'none'})"))
    require(viewer, ADMIN, "set the review policy")
    keep_review_policy(store, ReviewPolicy(review_policy(store).required if required is None else required),
                       by=viewer, held=held_until_verified)
    return review_policy(store)


def answer_for(store: Store, viewer: Viewer, config: Config, answer: Answer) -> Held | None:
    """Whether ``viewer`` may read ``answer`` now (one their labels show): None when they may, else ``Held`` (the
    team holds unverified answers back from readers below reviewer: graphrag.verify.held). Every surface that shows a
    stored answer to a viewer asks here first."""
    from graphrag.verify.held import held_answer

    return held_answer(store, viewer, answer)


def refit_checker(store: Store, viewer: Viewer, config: Config) -> FitOutcome:
    """Refit the embedded support checker from the team's verdicts; adopted only with enough verdicts and a
    measured gain, else ``RefitRefused`` (nothing changed). Needs the admin role; audited as ``checker-refit``
    either way."""
    from graphrag.verify.support.team import checker_features, fit_from_verdicts

    require(viewer, ADMIN, "refit the checker")
    return fit_from_verdicts(store, lambda queries: checker_features(queries, config), by=viewer)


def rollback_checker(store: Store, viewer: Viewer, config: Config, to: int | None = None) -> int:
    """Make checker version ``to`` active (0: the shipped parameters; default: the one before the active one);
    the version now active. Needs the admin role; audited as ``checker-rollback``."""
    require(viewer, ADMIN, "roll the checker back")
    return store.rollback_checker(to, by=viewer)


def export_record(store: Store, viewer: Viewer, config: Config, fmt: str, *, me: str | None = None
                  ) -> exports.Export:
    """The verification record the viewer's labels can see, as CSV or JSON (blind review applies: ``me`` is the
    name a local user judges under). Needs the admin role; audited as ``export``."""
    require(viewer, ADMIN, "export the verification record")
    return exports.export_record(store, fmt, by=viewer, me=me)


def export_pack(store: Store, viewer: Viewer, config: Config, *, whole_record: bool = False
                ) -> exports.PackExport:
    """The verification record the viewer's labels can see, every verdict on it included, as a signed evidence pack
    (graphrag.verify.pack). Needs the admin role; under blind review, a team admin or, in local mode, ``whole_record``
    (else ``PackRefused``); audited as ``export``."""
    require(viewer, ADMIN, "export the verification record")
    return exports.export_pack(store, by=viewer, whole_record=whole_record, access_policy=config.access_policy)


def source_changed_answers(store: Store, viewer: Viewer, config: Config, *, me: str | None = None
                           ) -> list[ChangedAnswer]:
    """The verified answers the viewer's labels see whose cited sentences changed since (graphrag.verify.standing),
    newest first; ``me``: the name a local user judges under, for blind review. A read, like the record's
    statistics: no role beyond seeing the answers, no audit row."""
    from graphrag.verify.review import review_viewer
    from graphrag.verify.standing import changed_answers

    return changed_answers(store, viewer.labels, review_viewer(viewer, me))


def export_source_changes(store: Store, viewer: Viewer, config: Config, fmt: str, *, me: str | None = None
                          ) -> exports.Export:
    """``source_changed_answers`` as CSV or JSON, one row per changed sentence (which answer and claim, the
    document, the version cited and the one that changed it, the old and new words). Needs the admin role, like every
    export of the record; audited as ``export``."""
    from graphrag.verify.standing import changes_export

    require(viewer, ADMIN, "export the verified answers whose sources changed")
    if fmt not in exports.FORMATS:
        raise InputError(f"export format must be one of {', '.join(exports.FORMATS)}, got {fmt!r}")
    rows = [r for c in source_changed_answers(store, viewer, config, me=me) for r in c.rows()]
    store.add_audit(event(viewer, AuditKind.EXPORT, what="verified answers whose sources changed", format=fmt,
                          rows=len(rows)))
    return exports.Export(changes_export(rows, fmt), len(rows))


def signing_key(store: Store, viewer: Viewer, config: Config) -> str:
    """The store's public signing key, which checks its evidence packs (made on first use: needs the admin role,
    who exports packs)."""
    require(viewer, ADMIN, "read the store's signing key")
    return exports.public_key(store)


def draw_estimate_sample(store: Store, viewer: Viewer, config: Config, size: int | None = None,
                         seed: int | None = None) -> int:
    """Draw the sample of claims without a verdict that the estimate rests on; the number drawn. Needs the admin
    role; audited as ``estimate-sample``."""
    from graphrag.verify.sampling import draw_sample

    require(viewer, ADMIN, "draw the estimate sample")
    return draw_sample(store, viewer, DEFAULT_SAMPLE if size is None else size, seed)


def unreviewed_estimate(store: Store, viewer: Viewer, config: Config) -> Estimate:
    """The estimated share of claims without a verdict that reviewers would judge unsupported, from the sample in
    force for the viewer's label set (graphrag.verify.estimate; its ``labels`` name the set)."""
    from graphrag.verify.sampling import record_estimate

    return record_estimate(store, viewer.labels)


def export_audit_log(store: Store, viewer: Viewer, config: Config, fmt: str, *, since: str | None = None
                     ) -> exports.Export:
    """The audit log (from ``since`` on), as CSV or JSON; the export is its own last row. Needs the admin role."""
    require(viewer, ADMIN, "export the audit log")
    return exports.export_audit_log(store, fmt, by=viewer, since=since)


def record_sign_in(store: Store, viewer: Viewer, config: Config, *, issued_at: object = None) -> None:
    """A team member's sign-in, in the audit log with the role and labels the policy granted them then;
    ``issued_at``: the ID token's issue time, which names the sign-in."""
    store.add_audit(event(viewer, AuditKind.SIGN_IN, role=viewer.role, labels=sorted(viewer.labels), issued_at=issued_at))

