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
from collections.abc import Sequence
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
                "current_version": self.current_version, "old": self.old, "new": self.new,
                "removed": self.new is None}


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
                    policy: ReviewPolicy | None = None, current: Sequence[Verdict] | None = None) -> Standing:
    """``answer``'s standing for ``viewer`` (blind review: only the verdicts they may see count; ``ANYONE``, who
    judged nothing, sees the verdicts of settled claims). The caller has checked that the viewer may see the
    answer. ``policy``, ``current``: the review policy and the answer's current verdicts ``viewer`` may see
    (``visible_current``), when the caller already has them."""
    from graphrag.verify.review import visible_current
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
    return _standing(store, answer, asked, now, judged, policy)


def _standing(store: Store, answer: Answer, asked: dict[int, list[Verdict]], now: dict[int, ClaimState],
              judged: dict[int, ClaimState], policy: ReviewPolicy) -> Standing:
    claims = [c.index for c in answer.claims]
    n = len(claims)
    contradicted = tuple(i for i in claims if now[i].status == ClaimStatus.REVIEWED
                         and now[i].verdict != VerdictLabel.SUPPORTED)
    disputed = tuple(i for i in claims if now[i].status == ClaimStatus.DISPUTED)
    verified = tuple(i for i in claims if _supported(now[i]))
    waiting = tuple(i for i in claims if i not in verified and i not in contradicted and i not in disputed)
    def standing(kind: StandingKind, words: str, who: tuple[str, ...] = (), when: str | None = None,
                 changes: tuple[SourceChange, ...] = ()) -> Standing:
        return Standing(kind, words, who, when, verified, waiting, disputed, contradicted, changes, policy.required)

    if contradicted:
        said = "; ".join(f"claim {i + 1} judged {_said(asked[i], now[i])}" for i in contradicted)
        return standing(StandingKind.CONTRADICTED, f"contradicted by a reviewer: {said}")
    if disputed:
        return standing(StandingKind.DISPUTED,
                        f"disputed: reviewers disagree on {_claims(disputed)}; awaiting an adjudicator")
    if all(_supported(judged[i]) for i in claims):
        who, when = _who_when(asked, claims)
        by = f"verified by {_names(who)} on {_day(when)}"
        changes = source_changes(store, answer.claims)
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
    settling = [v for v in verdicts if v.verdict == state.verdict and not v.stale and not v.tampered]
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


def source_changes(store: Store, claims: Sequence[Claim]) -> tuple[SourceChange, ...]:
    """Each cited sentence of ``claims`` that the current version of its document does not hold with the same
    words: once per claim and sentence, in claim order."""
    current: dict[str, tuple[int, dict[str, str], list[str]] | None] = {}
    before: dict[tuple[str, int], set[str]] = {}
    out: list[SourceChange] = []
    for claim in claims:
        seen: set[tuple[str, int, int]] = set()
        for cit in claim.citations:
            sp = cit.item.span if cit.item is not None else None
            if sp is None or (sp.document_id, sp.version, sp.sentence_index) in seen:
                continue
            seen.add((sp.document_id, sp.version, sp.sentence_index))
            if sp.document_id not in current:
                doc = store.current_document(sp.document_id)
                if doc is None:
                    current[sp.document_id] = None
                else:
                    texts = [s.text for s in store.sentences(sp.document_id, doc.version)]
                    current[sp.document_id] = (doc.version, {sha256_text(t): t for t in texts}, texts)
            now = current[sp.document_id]
            if now is not None and sha256_text(sp.text) in now[1]:
                continue
            new = None
            if now is not None:
                # what the sentence became: the most alike of the sentences the cited version did not hold already
                if (sp.document_id, sp.version) not in before:
                    before[(sp.document_id, sp.version)] = {s.text for s in store.sentences(sp.document_id,
                                                                                            sp.version)}
                fresh = [t for t in now[2] if t not in before[(sp.document_id, sp.version)]]
                best = difflib.get_close_matches(sp.text, fresh, n=1, cutoff=0.6)
                new = best[0] if best else None
            out.append(SourceChange(claim.index, sp.document_id, sp.version, now[0] if now else None, sp.text, new))
    return tuple(out)
