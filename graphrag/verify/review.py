"""The review workflow: a queue of claims, verdicts appended, the verification record exported.

Visibility is graphrag.access.rule's one rule: a reviewer sees an answer only when every document it
drew context from, every relation on its routes and every seed it names are visible to them, so
a restricted document never reaches a queue, a route graph or an export through someone else's
answer.

Blind review is graphrag.verify.policy's one rule, ``visible_verdicts``: every function here that
returns verdicts or anything computed from them (queue items and their states, a claim's history,
the export) takes the ``ReviewViewer`` it runs for and filters through it first. ``review_viewer``
says who that is: the signed-in identity in team mode (an admin oversees every verdict), the typed
reviewer name locally.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from graphrag.access.identity import ADJUDICATOR as ROLE_ADJUDICATOR
from graphrag.access.identity import ADMIN as ROLE_ADMIN
from graphrag.access.identity import Forbidden, Viewer, library_viewer
from graphrag.errors import InputError
from graphrag.language.names import reviewer_key
from graphrag.language.sentences import spreadsheet_csv
from graphrag.model import (
    Answer,
    AnswerStatus,
    Citation,
    Claim,
    ClaimFlag,
    SpanLayout,
    Support,
    Verdict,
    VerdictKind,
    VerdictLabel,
    asked_kind,
)
from graphrag.store import Store, now, sha256_text
from graphrag.store.audit import AuditKind
from graphrag.store.audit import event as audit_event
from graphrag.store.verdicts import SPAN_TAMPERED
from graphrag.verify.attribution import display_numbers, shown_marker
from graphrag.verify.policy import (
    ADJUDICATOR,
    ANYONE,
    REVIEWER,
    ClaimState,
    ClaimStatus,
    ReviewPolicy,
    ReviewViewer,
    claim_state,
    latest,
    parties,
    visible_verdicts,
)
from graphrag.verify.sight import claims_seen as claims_seen
from graphrag.verify.sight import sees_answer as sees_answer
from graphrag.verify.sight import visible_claims as visible_claims
from graphrag.verify.sight import visible_current as visible_current
from graphrag.verify.sight import visible_history as visible_history
from graphrag.verify.sight import visible_to as visible_to
from graphrag.verify.status import load_answer, review_policy

VERDICT_CHOICES = {"supported": VerdictLabel.SUPPORTED, "partial": VerdictLabel.PARTIAL,
                   "partially_supported": VerdictLabel.PARTIAL, "unsupported": VerdictLabel.UNSUPPORTED}
# A verdict in a kind's own words names its kind too ("partly" is either kind's middle answer).
KIND_WORDS: dict[str, tuple[VerdictLabel, VerdictKind | None]] = {
    "backed": (VerdictLabel.SUPPORTED, VerdictKind.BACKS), "not_backed": (VerdictLabel.UNSUPPORTED, VerdictKind.BACKS),
    "answers": (VerdictLabel.SUPPORTED, VerdictKind.ANSWERS),
    "does_not": (VerdictLabel.UNSUPPORTED, VerdictKind.ANSWERS), "partly": (VerdictLabel.PARTIAL, None),
}
EXPORT_FIELDS = ("verdict_id", "answer_id", "question", "claim_index", "claim", "citation", "citation_retrieval",
                 "document", "version",
                 "page", "page_label", "start", "end", "span", "span_sha256", "verdict", "reviewer", "role", "time",
                 "note", "stale", "claim_kind", "source", "reviewer_subject", "reviewer_email", "tampered",
                 "retracted_by", "retracted_verdict", "retracts", "kind", "question_asked", "judgement",
                 "carried_from", "carried_from_answer", "kept_in_version", "sentence_now", "span_kind",
                 "answer_standing")
# An undo appends a correction whose note names the verdict it takes back (graphrag.verify.undo).
UNDO_NOTE = "undo of verdict #{}"
_UNDO_NOTE = re.compile(r"undo of verdict #(\d+)")
# The "verdict" cell of a verdict taken back by an undo: a count of the column never adds it as a judgement.
RETRACTED = "retracted"
# The "source" column: what became of the judged span's document version.
SOURCE_CURRENT, SOURCE_SUPERSEDED, SOURCE_REMOVED = "current", "superseded", "source removed"


@dataclass(frozen=True)
class QueueItem:
    """One claim in the queue: what sorting, filtering and listing need, without the whole answer.

    ``store.answer(item.answer_id)`` gives the answer with its citations when the claim is shown.
    """

    answer_id: int
    question: str
    claim_index: int
    text: str
    flags: tuple[ClaimFlag, ...]
    support: Support | None
    verdicts: tuple[Verdict, ...]  # current verdicts this viewer may see (blind review hides others')
    state: ClaimState = ClaimState(ClaimStatus.UNREVIEWED, None, 0, 1)  # from those verdicts only
    mine: bool = False  # the viewer has given their own verdict
    kind: VerdictKind = VerdictKind.BACKS  # the judgement asked of this claim; ``verdicts`` and ``state`` are of it
    sample: bool = False  # drawn for the estimate of what nobody reviewed (graphrag.verify.sampling): judged first
    # Its answer was verified and a sentence it cites has changed since (graphrag.verify.standing): to judge again,
    # before anything else, by every reviewer who has not judged it since the change (``mine`` says whether they have).
    changed: bool = False

    @property
    def key(self) -> tuple[int, int]:
        """(answer id, claim index): the claim's identity."""
        return (self.answer_id, self.claim_index)

    @property
    def reviewed(self) -> bool:
        """Judged as far as the policy asks (verified, disputed or stale), or by this viewer; a claim whose source
        changed since its answer was verified, only by this viewer since the change."""
        if self.changed:
            return self.mine
        return self.mine or self.state.status not in (ClaimStatus.UNREVIEWED, ClaimStatus.IN_REVIEW)

    @property
    def score(self) -> float | None:
        """The checker's score, or None when support was not checked."""
        return self.support.score if self.support else None

    @property
    def flagged(self) -> bool:
        """Whether the claim carries any flag."""
        return bool(self.flags)


def reviewable(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims a reviewer can still judge: not those of answers withdrawn because a document they
    drew on was removed (no text is left to judge; their verdicts stay in the record)."""
    return [c for c in claims if ClaimFlag.SOURCE_REMOVED not in c["flags"]]


def visible_answer_questions(store: Store, by: Viewer, claims: list[dict[str, Any]] | None = None) -> dict[int, str]:
    """Answer id -> question for every answer with claims that ``by`` may see, newest first.

    ``claims``: ``visible_claims(store, by)`` when the caller already has it."""
    return _questions(claims_seen(store, by.labels) if claims is None else claims)


def _questions(claims: list[dict[str, Any]]) -> dict[int, str]:
    return {c["answer_id"]: c["question"] for c in claims}


def visible_unanswered(store: Store, by: Viewer, limit: int = 20) -> list[Answer]:
    """The newest answers the viewer may see that say the documents do not answer: they make no claim, so the
    review queue never holds them (the review page names them so a reviewer knows why)."""
    out = []
    for aid in store.unanswered_ids(limit):
        a = store.answer(aid)
        if a is not None and visible_to(a, by, store):
            out.append(a)
    return out


def visible_answers(store: Store, labels: Iterable[str],
                    verdicts: Mapping[int, Sequence[Verdict]] | None = None) -> list[Answer]:
    """Whole answers with claims that a holder of ``labels`` may see, newest first (loads each: for exports, not
    reruns). ``verdicts``: every answer's verdict rows (``verdict_rows(store)`` by answer) when the caller read them
    already; each answer's are read otherwise."""
    labels = tuple(labels)
    out = []
    for aid in _questions(claims_seen(store, labels)):
        # verified or not, as exports and ``record --json`` show it
        a = load_answer(store, aid) if verdicts is None else load_answer(store, aid, verdicts.get(aid, ()))
        if a is not None and sees_answer(a, labels, store):  # checked again: a source may have gone meanwhile
            out.append(a)
    return out


def review_viewer(by: Viewer, name: str | None = None) -> ReviewViewer:
    """Who a surface runs for, for blind review. Team mode: the signed-in identity (whatever name
    is passed); an adjudicator sees disputed claims, an admin every verdict (admins export the
    whole record). Local mode: the typed reviewer ``name``, who may adjudicate (None, or a name
    that is not valid: nobody in particular, who sees only verified claims' verdicts); a local
    name is self-declared, see docs/team.md and docs/limits.md."""
    if by.team:
        if by.identity is None:
            return ANYONE
        return ReviewViewer(by.identity.display, by.identity.subject, adjudicates=by.may(ROLE_ADJUDICATOR),
                            oversees=by.may(ROLE_ADMIN))
    try:
        return ReviewViewer(clean_reviewer(name), adjudicates=True) if name else ANYONE
    except InputError:
        return ANYONE


def review_queue(store: Store, by: Viewer, *, reviewer: str | None = None,
                 viewer: ReviewViewer | None = None, answer_id: int | None = None,
                 flagged_only: bool = False, mine_only: bool = False, disputed_only: bool = False,
                 claims: list[dict[str, Any]] | None = None, policy: ReviewPolicy | None = None) -> list[QueueItem]:
    """Every claim ``by`` may see to review, in the order a reviewer should take them: first the claims
    that still need a verdict and that this reviewer has not judged: those of verified answers whose cited sentence
    has changed since first (``graphrag.verify.standing.changed_claims``), then the estimate sample's, then lowest
    support first (the checker's triage); then the rest.

    ``viewer`` (or just a local ``reviewer``'s name): who the queue is for. Each item carries
    only the verdicts they may see and its state computed from those alone (blind review, see
    ``visible_verdicts``). ``disputed_only`` is the dispute queue: claims whose required reviewers
    disagree. Built from claim summaries, so its cost grows with the number of claims, not with
    whole answers loaded.
    """
    from graphrag.verify.sample_in_force import sample_keys
    from graphrag.verify.standing import changed_claims

    policy = review_policy(store) if policy is None else policy
    viewer = viewer if viewer is not None else ReviewViewer(reviewer, adjudicates=True) if reviewer else ANYONE
    sampled = sample_keys(store, by.labels)
    current: dict[tuple[int, int], list[Verdict]] = {}
    for v in visible_current(store, viewer, answer_id, policy):
        current.setdefault((v.answer_id, v.claim_index), []).append(v)
    items: list[QueueItem] = []
    pool = reviewable(claims_seen(store, by.labels) if claims is None else claims)
    changed = changed_claims(store, by.labels, viewer, seen={c["answer_id"] for c in pool})
    for c in pool:
        if answer_id is not None and c["answer_id"] != answer_id:
            continue
        kind = asked_kind(c["flags"])
        vs = [v for v in current.get((c["answer_id"], c["index"]), []) if v.kind == kind]
        state = claim_state(vs, policy)
        since = changed.get((c["answer_id"], c["index"]))
        # a claim whose source changed is theirs again only once they judged it after the change
        mine = viewer.judged(vs) if since is None else any(
            viewer.owns(v) and v.role != ADJUDICATOR and (v.created_at or "") > since for v in vs)
        if flagged_only and not c["flags"]:
            continue
        if mine_only and not mine:
            continue
        if disputed_only and state.status != ClaimStatus.DISPUTED:
            continue
        items.append(QueueItem(c["answer_id"], c["question"], c["index"], c["text"], c["flags"], c["support"],
                               tuple(vs), state, mine, kind, (c["answer_id"], c["index"]) in sampled,
                               since is not None))
    items.sort(key=lambda q: (q.reviewed, not q.changed, not q.sample, q.score if q.score is not None else -1.0, -q.answer_id,
                              q.claim_index))
    return items


MAX_REVIEWER_CHARS = 200


def clean_reviewer(name: str) -> str:
    """A reviewer name as stored: NFKC-normalised, whitespace collapsed.

    Control and format characters (zero-width spaces, bidi overrides, ANSI escapes) are refused:
    they would let two names that look the same count as different reviewers.
    """
    text = unicodedata.normalize("NFKC", name)
    bad = sorted({f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) in ("Cc", "Cf")
                  and ch not in " \t\n"})
    if bad:
        raise InputError(f"a reviewer name cannot contain control or invisible characters ({', '.join(bad)})")
    text = " ".join(text.split())
    if not text:
        raise InputError("a verdict needs a reviewer name")
    if len(text) > MAX_REVIEWER_CHARS:
        raise InputError(f"a reviewer name has at most {MAX_REVIEWER_CHARS} characters")
    return text


def acting_reviewer(store: Store, answer: Answer, reviewer: str, by: Viewer | None,
                    action: str) -> tuple[str, str | None, str | None]:
    """Who a verdict (or its undo) is by: ``(reviewer name, subject, email)``. With ``by`` (who acts; the use case
    has checked their role), they need to see ``answer``; in team mode the name is their signed-in identity's,
    whatever ``reviewer`` says. The name is cleaned either way."""
    subject = email = None
    if by is not None:
        if not visible_to(answer, by, store):
            raise InputError(f"no answer {answer.id} among the answers your access labels can see")
        if by.team:
            if by.identity is None:
                raise Forbidden(f"to {action} in team mode needs a signed-in reviewer")
            reviewer, subject, email = by.identity.display, by.identity.subject, by.identity.email
    return clean_reviewer(reviewer), subject, email


def library_caller(by: Viewer | None) -> Viewer:
    """Who a change is audited as: ``by``, or, for a direct call of the library that names no one, a local caller
    through Python (every change of the record has its audit row)."""
    return by if by is not None else library_viewer()


def verdict_of(verdict: str | VerdictLabel, kind: str | VerdictKind | None, claim: Claim
               ) -> tuple[VerdictLabel, VerdictKind]:
    """The label and kind of a verdict as given: ``verdict`` is a label ("supported", "partial", "unsupported") or
    a kind's own word ("backed", "not_backed", "answers", "does_not", "partly"); the kind is ``kind``, else the one
    the word names, else the one the claim is asked (``asked_kind``)."""
    try:
        want = VerdictKind(kind) if kind is not None else None
    except ValueError:
        raise InputError(f"a verdict's kind is one of {', '.join(k.value for k in VerdictKind)}, got {kind!r}") \
            from None
    if isinstance(verdict, VerdictLabel):
        return verdict, want or asked_kind(claim.flags)
    word = verdict.strip().lower().replace(" ", "_").replace("-", "_")
    if word in VERDICT_CHOICES:
        return VERDICT_CHOICES[word], want or asked_kind(claim.flags)
    if word in KIND_WORDS:
        label, named = KIND_WORDS[word]
        if want is not None and named is not None and named != want:
            raise InputError(f"{verdict!r} answers the question of kind {named.value!r} ({named.question}), "
                             f"not {want.value!r} ({want.question})")
        return label, want or named or asked_kind(claim.flags)
    raise InputError(f"verdict must be one of {', '.join(sorted({*VERDICT_CHOICES, *KIND_WORDS}))}, got {verdict!r}")


def record_verdict(store: Store, answer: Answer, claim: Claim, citation: Citation | None, verdict: str | VerdictLabel,
                   reviewer: str, note: str = "", *, adjudicate: bool = False, by: Viewer | None = None,
                   kind: str | VerdictKind | None = None) -> Verdict:
    """Append one verdict. The hash of the judged span's text is kept with it.

    ``kind``: the question it answers (``verdict_of``; default: the one the claim is asked, *answers* for a
    verbatim quote and *backs* otherwise). Each kind has its own current verdicts, state and disputes.

    ``adjudicate``: the verdict settles a disputed claim, and is stored as an adjudicator's; a
    claim that is not disputed cannot be adjudicated, and never by one of its own reviewers (a
    party to the dispute); in team mode the use case (``verify.actions``) also requires the
    adjudicator role. ``by``: who acts (every use case passes it): they must see the answer; in team
    mode the verdict names their signed-in identity, whatever ``reviewer`` says. The audit log
    records it (without ``by``: as a direct call of the library, ``library_caller``).
    """
    label, judged_kind = verdict_of(verdict, kind, claim)
    reviewer, subject, email = acting_reviewer(store, answer, reviewer, by, "record a verdict")
    if answer.id is None:
        raise InputError("only a stored answer can be reviewed")
    if answer.status == AnswerStatus.WITHDRAWN:
        raise InputError(f"answer {answer.id} was withdrawn: a document it drew on was removed, so there is nothing "
                         "left to judge (its verdicts stay in the record)")
    if adjudicate:
        from graphrag.verify.carry import verdict_rows

        current = [v for v in latest(verdict_rows(store, answer.id, claim.index)) if v.kind == judged_kind]
        state = claim_state(current, review_policy(store))
        if state.status != ClaimStatus.DISPUTED:  # its state unsaid: under blind review it is not the caller's to see
            raise InputError(f"claim {claim.index + 1} of answer {answer.id} is not disputed: only a disagreement among "
                             "the verdicts the review policy requires is adjudicated")
        if reviewer_key(reviewer) in parties(current) or (subject is not None and subject in parties(current)):
            raise Forbidden(f"{reviewer} gave a verdict on claim {claim.index + 1} of answer {answer.id}: a dispute is "
                            "settled by an adjudicator who took no part in it")
    span = citation.item.span if citation and citation.item else None
    v = Verdict(answer.id, claim.index, label, reviewer, sha256_text(span.text if span else ""),
                citation.marker if citation else None, span.document_id if span else None,
                span.version if span else None, span.start if span else None, span.end if span else None,
                note[:5000], role=ADJUDICATOR if adjudicate else REVIEWER, subject=subject, email=email,
                claim_sha256=sha256_text(claim.text), kind=judged_kind)
    v = replace(v, created_at=now())
    # the verdict and its audit row in one transaction: both or neither
    event = audit_event(library_caller(by), AuditKind.VERDICT, answer_id=answer.id, claim_index=claim.index,
                        verdict=label.value, verdict_kind=judged_kind.value, reviewer=reviewer, role=v.role)
    vid = store.add_verdict(v, event)
    # Returned as the store will report it, without re-reading the claim's whole history.
    meta = store.access_of(span.document_id, span.version) if span else None
    return replace(v, id=vid, stale=bool(meta and meta[1]))


def visible_answer(store: Store, answer_id: int, by: Viewer) -> Answer:
    """A stored answer ``by`` may see (``answer_seen`` with their labels)."""
    return answer_seen(store, answer_id, by.labels)


def answer_seen(store: Store, answer_id: int, labels: Iterable[str]) -> Answer:
    """A stored answer a holder of ``labels`` may see. A hidden answer and a missing one get the same
    message, so the error tells nothing about answers the viewer cannot see."""
    answer = load_answer(store, answer_id)
    if answer is None or not sees_answer(answer, labels, store):
        raise InputError(f"no answer {answer_id} among the answers your access labels can see")
    return answer


def mark_claim(store: Store, answer_id: int, claim_index: int, verdict: str | VerdictLabel, reviewer: str,
               access: Iterable[str], *, note: str = "", citation: str | None = None,
               adjudicate: bool = False, by: Viewer | None = None,
               kind: str | VerdictKind | None = None) -> Verdict:
    """Record a verdict on claim ``claim_index`` of a stored answer the viewer may see, judged against
    the citation with marker ``citation`` (default: the claim's first valid citation, if any). ``by``: who
    acts (``record_verdict``); ``kind``: the question judged (default: the one the claim is asked). The command
    line and the Python facade both come through here."""
    answer = answer_seen(store, answer_id, access)
    claim = next((c for c in answer.claims if c.index == claim_index), None)
    if claim is None:
        raise InputError(f"answer {answer_id} has no claim {claim_index + 1} (its claims are numbered 1 to "
                         f"{len(answer.claims)})" if answer.claims else f"answer {answer_id} has no claims to judge")
    cites = [c for c in claim.citations if c.valid]
    cited = next((c for c in cites if c.marker == citation), None) if citation else (cites[0] if cites else None)
    return record_verdict(store, answer, claim, cited, verdict, reviewer, note, adjudicate=adjudicate, by=by,
                          kind=kind)


def export_rows(store: Store, access: Iterable[str], viewer: ReviewViewer = ANYONE) -> list[dict[str, object]]:
    """The verification record: one row per verdict (history included) that ``viewer`` may see,
    oldest first."""
    from graphrag.verify.carry import ChangedSentences, carried_json, verdict_rows
    from graphrag.verify.standing import Documents, answer_standing

    rows: list[dict[str, object]] = []
    texts: dict[tuple[str, int], str | None] = {}  # each document version read once, not once per verdict
    policy = review_policy(store)
    by_answer: dict[int, list[Verdict]] = {}
    for v in verdict_rows(store):  # read once (carry-over included), not once per answer
        by_answer.setdefault(v.answer_id, []).append(v)
    versions = Documents(store)  # each document version read once for every answer's standing
    became = ChangedSentences(store)
    for a in sorted(visible_answers(store, access, by_answer), key=lambda a: a.id or 0):
        claims = {c.index: c for c in a.claims}
        assert a.id is not None  # a stored answer
        history = visible_verdicts(by_answer.get(a.id, []), policy, viewer)
        retracts = undo_links(history)
        shown = display_numbers(a)  # the reviewer saw [1], [2] in reading order, not retrieval's numbers
        retracted_by = {undone: fix for fix, undone in retracts.items()}
        # the answer's standing, as every surface words it, from the verdicts this viewer may see
        standing = answer_standing(store, a, viewer, policy=policy, current=latest(history), docs=versions).words
        for v in history:
            cl = claims.get(v.claim_index)
            span_text, span_read = "", False
            if v.document_id is not None and v.version is not None:
                key = (v.document_id, v.version)
                if key not in texts:
                    doc = store.document(*key)
                    texts[key] = doc.text if doc is not None else None
                text = texts[key]
                if text is not None and v.start is not None and v.end is not None:
                    span_text, span_read = text[v.start:v.end], True
            layout = _verdict_layout(store, v, cl)
            rows.append({
                "verdict_id": v.id, "answer_id": a.id, "question": a.question, "claim_index": v.claim_index,
                "claim": cl.text if cl else "", "citation": shown_marker(v.marker, shown),
                "citation_retrieval": v.marker, "document": v.document_id,
                "version": v.version, "page": layout.page if layout else None,
                "page_label": layout.page_label if layout else None, "start": v.start, "end": v.end, "span": span_text,
                "span_sha256": v.span_sha256, "verdict": v.verdict.value, "reviewer": v.reviewer, "role": v.role,
                "time": v.created_at, "note": v.note, "stale": v.stale,
                # A verbatim quote was judged on whether it answers and is current, not on a score.
                "claim_kind": ("verbatim quote" if cl and ClaimFlag.VERBATIM_QUOTE in cl.flags else "written"),
                "source": source_status(v),
                # team mode: the signed-in identity that gave the verdict (empty for a typed local name)
                "reviewer_subject": v.subject, "reviewer_email": v.email,
                "tampered": tampered(v, span_text if span_read else None),
                # An undo is an event, not a judgement: the verdict taken back reads "retracted" (what it said
                # is kept beside), and the correction names it with an empty verdict, whatever it restored.
                "retracted_by": retracted_by.get(v.id or 0), "retracts": retracts.get(v.id or 0),
                "retracted_verdict": v.verdict.value if (v.id or 0) in retracted_by else None,
                # the question the verdict answered, and its answer in that question's words
                "kind": v.kind.value, "question_asked": v.kind.question, "judgement": v.words,
                # carry-over (graphrag.verify.carry): a verdict given on another claim with the same words and
                # cited sentence (no verdict_id: it is that row's), or one whose sentence a newer version keeps;
                # for a stale verdict, what its sentence became in the current version
                **carried_json(v), "sentence_now": became.of(v),
                # what the judged sentence is ("caption", "table row", "body text"; empty where not known)
                "span_kind": layout.kind_words if layout else None,
                "answer_standing": standing,
            })
            if (v.id or 0) in retracted_by:
                rows[-1]["verdict"] = rows[-1]["judgement"] = RETRACTED
            elif (v.id or 0) in retracts:
                rows[-1]["verdict"] = rows[-1]["judgement"] = ""
    return rows


def undo_links(history: Sequence[Verdict]) -> dict[int, int]:
    """Which verdict each undo correction in ``history`` takes back: {correction id: undone id}. A correction is a
    later row of the same reviewer on the same claim whose note names an earlier verdict of theirs as undone."""
    by_id = {v.id: v for v in history if v.id is not None}
    links: dict[int, int] = {}
    for v in history:
        m = _UNDO_NOTE.fullmatch(v.note)
        undone = by_id.get(int(m.group(1))) if m else None
        if (v.id is not None and undone is not None and undone.id is not None and undone.id < v.id
                and (undone.reviewer, undone.subject, undone.claim_index, undone.kind)
                == (v.reviewer, v.subject, v.claim_index, v.kind)):
            links[v.id] = undone.id
    return links


def tampered(v: Verdict, span_now: str | None) -> str:
    """Why the words a verdict judged are not the stored ones any more: the claim's (the store checks its
    digest) or the cited sentence's (``span_now``: its stored words, None when not read); "" when intact."""
    if v.tampered:
        return v.tampered
    if span_now is not None and v.document_id is not None and sha256_text(span_now) != v.span_sha256:
        return SPAN_TAMPERED
    return ""


def source_status(v: Verdict) -> str:
    """What became of the document version a verdict judged ("" when it judged no span)."""
    if v.document_id is None:
        return ""
    return SOURCE_REMOVED if v.source_removed else SOURCE_SUPERSEDED if v.stale else SOURCE_CURRENT


def _verdict_layout(store: Store, v: Verdict, claim: Claim | None) -> SpanLayout | None:
    """The page of the span a verdict judged (PDF documents), found through the claim's citation."""
    if claim is None or v.document_id is None or v.version is None:
        return None
    for c in claim.citations:
        sp = c.item.span if c.item else None
        if sp is not None and (sp.document_id, sp.version, sp.start, sp.end) == (v.document_id, v.version, v.start,
                                                                                 v.end):
            return store.layout(sp.document_id, sp.version, sp.sentence_index)
    return None


def rows_to_csv(rows: Sequence[dict[str, object]]) -> str:
    """Export rows as CSV, cells that a spreadsheet would run as formulas defused."""
    # Cells starting with = + - @ (or a tab / carriage return, which spreadsheets skip before reading a formula)
    # are neutralised so a spreadsheet never runs them (OWASP CSV injection).
    return spreadsheet_csv(rows, EXPORT_FIELDS)


def rows_to_json(rows: Sequence[dict[str, object]]) -> str:
    """Export rows as a JSON array."""
    return json.dumps(rows, indent=2, ensure_ascii=False)
