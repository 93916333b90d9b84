"""An answer's standing, in words: what its team's review found of it, and whether its sources still say the same.

One function, ``answer_standing``, says it for every surface (the Ask page, ``graphrag ask`` and its JSON, the exports,
the pack), so they never word it apart. It is derived from the record when read, like carry-over: nothing is copied
or stored. The kinds, first that applies:

- *withdrawn*: a document it drew on was removed; *not answered*: the documents do not answer (nothing to verify);
- *contradicted by a reviewer*: a claim was settled as not (or only partly) backed, or as not answering;
- *disputed*: a claim's reviewers disagree and no adjudicator has settled it;
- *source changed*: every claim was judged supported as the review policy asks, but a sentence a claim cites is
  no longer in the current version of its document with the same words (edited, or gone);
- *verified*: every claim judged supported as the review policy asks, and every cited sentence unchanged since;
- *partly verified*: some claims verified, the others wait (named);
- *not yet reviewed*.

"Sources unchanged" compares each cited sentence's words with the sentences of its document's current version, by
their SHA-256 (the digest a verdict keeps as ``span_sha256``): a newer version that keeps the sentence byte for byte
leaves it unchanged, one that edits or drops it changes it. Blind review applies (``visible_verdicts``): a viewer is
told only what the verdicts they may see say.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from typing import Any

from graphrag.model import Answer, AnswerStatus, Claim, Verdict, VerdictLabel, asked_kind
from graphrag.store import Store, sha256_text
from graphrag.verify.policy import ANYONE, ClaimState, ClaimStatus, ReviewPolicy, ReviewViewer, claim_state


class StandingKind(str, Enum):
    """Where an answer stands with its reviewers (see the module's docstring for the order they are told in)."""

    VERIFIED = "verified"
    PARTLY_VERIFIED = "partly verified"
    DISPUTED = "disputed"
    CONTRADICTED = "contradicted by a reviewer"
    SOURCE_CHANGED = "source changed"
    NOT_REVIEWED = "not yet reviewed"
    NOT_ANSWERED = "not answered"
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True)
class SourceChange:
    """A cited sentence that the current version of its document no longer holds with the same words."""

    claim_index: int
    document_id: str
    cited_version: int
    current_version: int | None  # None: the document has no current version (removed)
    old: str  # the sentence as cited
    new: str | None  # the current version's sentence most like it; None: dropped (nothing alike)
    changed_in: int | None = None  # the first version after the cited one without the sentence
    changed_at: str | None = None  # when that version was ingested (ISO time)

    @property
    def words(self) -> str:
        """"refunds v1 → v2: "old" became "new"", or "... was removed"."""
        where = (f"{self.document_id} v{self.cited_version} → v{self.current_version}"
                 if self.current_version is not None else f"{self.document_id} v{self.cited_version} (removed)")
        old = " ".join(self.old.split())
        if self.new is None:
            return f"{where}: “{old}” is no longer there"
        return f"{where}: “{old}” now reads “{' '.join(self.new.split())}”"

    def to_json(self) -> dict[str, Any]:
        """The change as JSON-ready data."""
        return {"claim_index": self.claim_index, "document": self.document_id, "cited_version": self.cited_version,
                "current_version": self.current_version, "changed_in_version": self.changed_in,
                "changed_at": self.changed_at, "old": self.old, "new": self.new, "removed": self.new is None}


@dataclass(frozen=True)
class Standing:
    """An answer's standing: its ``kind`` and ``words`` (what every surface shows), with the facts behind them."""

    kind: StandingKind
    words: str
    reviewers: tuple[str, ...] = ()  # who gave the verdicts that verify its claims
    verified_on: str | None = None  # ISO time of the last of those verdicts
    verified_claims: tuple[int, ...] = ()  # claim indices verified now
    waiting: tuple[int, ...] = ()  # claim indices waiting for review (none, too few, or stale verdicts)
    disputed: tuple[int, ...] = ()
    contradicted: tuple[int, ...] = ()
    changes: tuple[SourceChange, ...] = ()  # cited sentences changed since (for a verified answer)
    required: int = 1  # verdicts a claim needs under the review policy

    @property
    def verified(self) -> bool:
        """Whether the answer is verified and its sources unchanged: the one standing that may be reused."""
        return self.kind is StandingKind.VERIFIED

    def to_json(self) -> dict[str, Any]:
        """The standing as JSON-ready data (``ask --json``, the exports, the pack)."""
        return {"kind": self.kind.value, "words": self.words, "reviewers": list(self.reviewers),
                "verified_on": self.verified_on, "verified_claims": list(self.verified_claims),
                "waiting": list(self.waiting), "disputed": list(self.disputed),
                "contradicted": list(self.contradicted), "required_verdicts": self.required,
                "source_changes": [c.to_json() for c in self.changes]}


def answer_standing(store: Store, answer: Answer, viewer: ReviewViewer = ANYONE, *,
                    policy: ReviewPolicy | None = None, current: Sequence[Verdict] | None = None,
                    docs: Documents | None = None) -> Standing:
    """``answer``'s standing for ``viewer`` (blind review: only the verdicts they may see count; ``ANYONE``, who
    judged nothing, sees the verdicts of settled claims). The caller has checked that the viewer may see the
    answer. ``policy``, ``current``: the review policy and the answer's current verdicts ``viewer`` may see
    (``visible_current``), when the caller already has them; ``docs``: the document versions read so far, to share
    between the answers of one listing."""
    from graphrag.verify.sight import visible_current
    from graphrag.verify.status import review_policy

    if answer.status == AnswerStatus.WITHDRAWN:
        return Standing(StandingKind.WITHDRAWN, "withdrawn: a document it drew on was removed")
    if not answer.claims:
        return Standing(StandingKind.NOT_ANSWERED, "not answered: nothing to verify")
    policy = review_policy(store) if policy is None else policy
    if current is None:
        current = visible_current(store, viewer, answer.id, policy) if answer.id is not None else []
    asked = {c.index: [v for v in current if v.claim_index == c.index and v.kind == asked_kind(c.flags)]
             for c in answer.claims}
    now = {i: claim_state(vs, policy) for i, vs in asked.items()}
    # As judged, whatever became of the sources since: a stale verdict counted as given (not a tampered one).
    judged = {i: claim_state([replace(v, stale=False) if v.stale and not v.source_removed else v for v in vs],
                             policy) for i, vs in asked.items()}
    return _standing(docs or Documents(store), answer, asked, now, judged, policy)


def _standing(docs: Documents, answer: Answer, asked: dict[int, list[Verdict]], now: dict[int, ClaimState],
              judged: dict[int, ClaimState], policy: ReviewPolicy) -> Standing:
    claims = [c.index for c in answer.claims]
    n = len(claims)
    # A verdict against a claim, or a dispute, stands whatever became of the source since: it judged the words the
    # answer still cites.
    contradicted = tuple(i for i in claims if judged[i].status == ClaimStatus.REVIEWED
                         and judged[i].verdict != VerdictLabel.SUPPORTED)
    disputed = tuple(i for i in claims if judged[i].status == ClaimStatus.DISPUTED)
    verified = tuple(i for i in claims if _supported(now[i]))
    waiting = tuple(i for i in claims if i not in verified and i not in contradicted and i not in disputed)

    def standing(kind: StandingKind, words: str, who: tuple[str, ...] = (), when: str | None = None,
                 changes: tuple[SourceChange, ...] = ()) -> Standing:
        return Standing(kind, words, who, when, verified, waiting, disputed, contradicted, changes, policy.required)

    if contradicted:
        said = "; ".join(f"claim {i + 1} judged {_said(asked[i], judged[i])}" for i in contradicted)
        return standing(StandingKind.CONTRADICTED, f"contradicted by a reviewer: {said}")
    if disputed:
        return standing(StandingKind.DISPUTED,
                        f"disputed: reviewers disagree on {_claims(disputed)}; awaiting an adjudicator")
    if all(_supported(judged[i]) for i in claims):
        who, when = _who_when(asked, claims)
        by = f"verified by {_names(who)} on {_day(when)}"
        changes = source_changes(docs.store, answer.claims, docs)
        if changes:
            changed = tuple(sorted({c.claim_index for c in changes}))
            return standing(StandingKind.SOURCE_CHANGED, f"source changed: {by}, but a sentence {_claims(changed)} "
                            "cites has changed since: to review again", who, when, changes)
        each = ("each claim by one reviewer" if policy.required == 1
                else f"each claim by {policy.required} reviewers who agree")
        return standing(StandingKind.VERIFIED, f"{by} ({each}, as the review policy asks); sources unchanged",
                        who, when)
    if verified:
        who, when = _who_when(asked, verified)
        wait = "waits" if len(waiting) == 1 else "wait"
        return standing(StandingKind.PARTLY_VERIFIED, f"partly verified: {len(verified)} of {n} claims verified by "
                        f"{_names(who)} on {_day(when)}; {_claims(waiting)} {wait} for review", who, when)
    return standing(StandingKind.NOT_REVIEWED, "not yet reviewed")


def _supported(s: ClaimState) -> bool:
    return s.status == ClaimStatus.REVIEWED and s.verdict == VerdictLabel.SUPPORTED


def _said(verdicts: list[Verdict], state: ClaimState) -> str:
    """What settled a claim, in its kind's words, and by whom: "not backed by ana"."""
    settling = [v for v in verdicts if v.verdict == state.verdict and not v.tampered]
    if state.adjudicated:
        settling = [v for v in settling if v.role == "adjudicator"][-1:]
    words = settling[0].words if settling else (state.verdict.value if state.verdict else "")
    return f"{words} by {_names(tuple(dict.fromkeys(v.reviewer for v in settling)))}"


def _who_when(asked: dict[int, list[Verdict]], claims: Sequence[int]) -> tuple[tuple[str, ...], str | None]:
    """The reviewers whose verdicts count on ``claims`` (supported ones, as given), and the time of the last."""
    used = [v for i in claims for v in asked[i] if v.verdict == VerdictLabel.SUPPORTED and not v.tampered]
    who = tuple(sorted(dict.fromkeys(v.reviewer for v in used), key=str.casefold))
    return who, max((v.created_at for v in used if v.created_at), default=None)


def _names(names: Sequence[str]) -> str:
    if not names:
        return "a reviewer"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _claims(indices: Sequence[int]) -> str:
    """"claim 2", "claims 2 and 3": numbered from 1, as the pages number them."""
    shown = [str(i + 1) for i in indices]
    if len(shown) == 1:
        return f"claim {shown[0]}"
    return f"claims {', '.join(shown[:-1])} and {shown[-1]}"


def _day(when: str | None) -> str:
    """"3 Dec 2026" from an ISO time."""
    if not when:
        return "an unknown day"
    try:
        t = datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError:
        return when[:10]
    return f"{t.day} {t:%b %Y}"


def source_changes(store: Store, claims: Sequence[Claim], docs: Documents | None = None) -> tuple[SourceChange, ...]:
    """Each cited sentence of ``claims`` that the current version of its document does not hold with the same
    words: once per claim and sentence, in claim order, with the first version that did not hold it."""
    docs = docs or Documents(store)
    out: list[SourceChange] = []
    for claim in claims:
        seen: set[tuple[str, int, int]] = set()
        for cit in claim.citations:
            sp = cit.item.span if cit.item is not None else None
            if sp is None or (sp.document_id, sp.version, sp.sentence_index) in seen:
                continue
            seen.add((sp.document_id, sp.version, sp.sentence_index))
            now = docs.current(sp.document_id)
            digest = sha256_text(sp.text)
            if now is not None and digest in docs.digests(sp.document_id, now):
                continue
            # the first later version without the sentence: where it changed, and when that version came in
            later = [v for v in docs.versions(sp.document_id) if v > sp.version]
            first = next((v for v in later if digest not in docs.digests(sp.document_id, v)), None)
            new = None
            if now is not None:
                # what the sentence became: the most alike of the sentences the cited version did not hold already
                old_texts = set(docs.texts(sp.document_id, sp.version))
                fresh = [t for t in docs.texts(sp.document_id, now) if t not in old_texts]
                best = difflib.get_close_matches(sp.text, fresh, n=1, cutoff=0.6)
                new = best[0] if best else None
            out.append(SourceChange(claim.index, sp.document_id, sp.version, now, sp.text, new, first,
                                    docs.ingested(sp.document_id, first)))
    return tuple(out)


class Documents:
    """Document versions and their sentences, each read once (for one read of the record: not kept longer)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._rows: dict[tuple[str, int], Any] | None = None
        self._texts: dict[tuple[str, int], list[str]] = {}
        self._digests: dict[tuple[str, int], set[str]] = {}

    def _all(self) -> dict[tuple[str, int], Any]:
        if self._rows is None:
            self._rows = {(r["doc_id"], int(r["version"])): r for r in self.store.graph_documents()}
        return self._rows

    def versions(self, doc_id: str) -> list[int]:
        """The document's version numbers, oldest first."""
        return sorted(v for d, v in self._all() if d == doc_id)

    def current(self, doc_id: str) -> int | None:
        """Its current version's number; None when it has none (removed)."""
        return next((v for (d, v), r in self._all().items() if d == doc_id and not r["superseded"]), None)

    def ingested(self, doc_id: str, version: int | None) -> str | None:
        """When that version was ingested (ISO time); None for no version."""
        row = self._all().get((doc_id, version)) if version is not None else None
        return None if row is None else str(row["ingested_at"])

    def texts(self, doc_id: str, version: int) -> list[str]:
        """The version's sentences, in order."""
        if (doc_id, version) not in self._texts:
            self._texts[(doc_id, version)] = [s.text for s in self.store.sentences(doc_id, version)]
        return self._texts[(doc_id, version)]

    def digests(self, doc_id: str, version: int) -> set[str]:
        """The SHA-256 of each of the version's sentences."""
        if (doc_id, version) not in self._digests:
            self._digests[(doc_id, version)] = {sha256_text(t) for t in self.texts(doc_id, version)}
        return self._digests[(doc_id, version)]


CHANGES_FIELDS = ("answer_id", "question", "verified_by", "verified_on", "claim_index", "claim", "document",
                  "cited_version", "changed_in_version", "changed_at", "current_version", "old_words", "new_words")


@dataclass(frozen=True)
class ChangedAnswer:
    """A verified answer whose sources changed since: its standing says which sentences, and what they now read."""

    answer: Answer
    standing: Standing

    def rows(self) -> list[dict[str, Any]]:
        """One row per changed sentence (``CHANGES_FIELDS``): the listing, the page's table and the export."""
        claims = {c.index: c.text for c in self.answer.claims}
        return [{"answer_id": self.answer.id, "question": self.answer.question,
                 "verified_by": ", ".join(self.standing.reviewers), "verified_on": self.standing.verified_on,
                 "claim_index": c.claim_index, "claim": claims.get(c.claim_index, ""), "document": c.document_id,
                 "cited_version": c.cited_version, "changed_in_version": c.changed_in, "changed_at": c.changed_at,
                 "current_version": c.current_version, "old_words": c.old, "new_words": c.new}
                for c in self.standing.changes]


def changed_answers(store: Store, labels: Iterable[str], viewer: ReviewViewer = ANYONE, *,
                    seen: Iterable[int] | None = None) -> list[ChangedAnswer]:
    """The verified answers a holder of ``labels`` may see whose cited sentences changed since (*source changed*),
    newest first. Only answers with a verdict on a since-superseded version are read again: none other can be.
    ``seen``: the ids of the answers ``labels`` see, when the caller has them (``claims_seen``)."""
    from graphrag.verify.sight import claims_seen
    from graphrag.verify.status import review_policy

    # A verdict carried to another answer is stale only where its own row is: none stale, none to list.
    if not any(v.stale and not v.source_removed for v in store.verdicts()):
        return []
    shown = set(seen) if seen is not None else {c["answer_id"] for c in claims_seen(store, labels)}
    policy = review_policy(store)
    by_answer = current_by_answer(store, viewer, policy)
    judged_old = {aid for aid, now in by_answer.items() if any(v.stale and not v.source_removed for v in now)}
    docs = Documents(store)
    out = []
    for aid in sorted(judged_old & shown, reverse=True):
        answer = store.answer(aid)
        if answer is None:
            continue
        standing = answer_standing(store, answer, viewer, policy=policy, current=by_answer.get(aid, []), docs=docs)
        if standing.kind is StandingKind.SOURCE_CHANGED:
            out.append(ChangedAnswer(answer, standing))
    return out


def current_by_answer(store: Store, viewer: ReviewViewer, policy: ReviewPolicy) -> dict[int, list[Verdict]]:
    """Every answer's current verdicts ``viewer`` may see, read in one pass: for a listing of many answers' standings.
    Read answer by answer, each read pulls in the verdicts of every answer citing its sentences, and a listing cost
    the square of their number (16 s for 100 answers citing one document, against 0.4 s)."""
    from graphrag.verify.carry import verdict_rows
    from graphrag.verify.policy import latest, visible_verdicts

    by_answer: dict[int, list[Verdict]] = {}
    for v in latest(visible_verdicts(verdict_rows(store), policy, viewer)):
        by_answer.setdefault(v.answer_id, []).append(v)
    return by_answer


def changed_claims(store: Store, labels: Iterable[str], viewer: ReviewViewer = ANYONE, *,
                   seen: Iterable[int] | None = None) -> dict[tuple[int, int], str]:
    """(answer id, claim index) -> when its cited sentence changed (ISO time), for each claim of a verified answer
    whose source changed: the review queue puts them first, for a reviewer who has not judged them since."""
    out: dict[tuple[int, int], str] = {}
    for changed in changed_answers(store, labels, viewer, seen=seen):
        assert changed.answer.id is not None
        for c in changed.standing.changes:
            key = (changed.answer.id, c.claim_index)
            out[key] = max(out.get(key, ""), c.changed_at or "")
    return out


def changes_export(rows: Sequence[dict[str, Any]], fmt: str) -> str:
    """Rows of ``ChangedAnswer.rows`` as CSV (a cell a spreadsheet would run as a formula defused, as in the
    record's export) or JSON."""
    import json

    from graphrag.language.sentences import spreadsheet_csv

    if fmt == "json":
        return json.dumps(list(rows), indent=2, ensure_ascii=False)
    return spreadsheet_csv(rows, CHANGES_FIELDS)
