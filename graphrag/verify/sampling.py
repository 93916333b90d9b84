"""The estimate sample in the store: drawn from the claims with no verdict, kept in the audit log, queued first.

Drawing writes one ``estimate-sample`` audit row holding the strata (name, how many claims each held, the claims
drawn) and the labels of whoever drew it: the log is append-only, so the sample cannot be redrawn quietly, and the
latest such row drawn with a set of labels is that set's sample in force (graphrag.verify.sample_in_force): one
sample per label set, so an admin's estimate always describes the claims their own labels show. Reviewers judge the sampled claims in their ordinary queue (they come first
among the claims still to judge, marked "estimate sample"); ``record_estimate`` reads their settled verdicts.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from graphrag.access.identity import Viewer
from graphrag.errors import InputError
from graphrag.model import VerdictLabel
from graphrag.store import Store
from graphrag.store.audit import AuditKind, event
from graphrag.verify.carry import verdict_rows
from graphrag.verify.estimate import DEFAULT_SAMPLE, Estimate, StratumCount, band, draw, stratified
from graphrag.verify.policy import ClaimStatus, claim_state, latest
from graphrag.verify.review import reviewable, visible_claims
from graphrag.verify.sample_in_force import Key, label_set, sample_row
from graphrag.verify.status import review_policy

MIN_DOCUMENT_STRATUM = 10  # a document with fewer claims to estimate joins "other documents"
MAX_SAMPLE = 2000


def _current(store: Store) -> dict[Key, list[Any]]:
    by_claim: dict[Key, list[Any]] = {}
    for v in latest(verdict_rows(store)):
        by_claim.setdefault((v.answer_id, v.claim_index), []).append(v)
    return by_claim


def _strata(store: Store, claims: Iterable[dict[str, Any]]) -> dict[str, list[Key]]:
    """Claims by stratum: the document of the claim's first valid citation, by the checker's band."""
    docs: dict[Key, str] = {}
    for aid in sorted({c["answer_id"] for c in claims}):
        answer = store.answer(aid)
        for cl in answer.claims if answer else ():
            cited = next((ct.item.span.document_id for ct in cl.citations if ct.valid and ct.item), "no citation")
            docs[(aid, cl.index)] = cited
    keyed = [((c["answer_id"], c["index"]), c) for c in claims]
    per_doc = Counter(docs.get(k, "no citation") for k, _ in keyed)
    out: dict[str, list[Key]] = {}
    for k, c in keyed:
        doc = docs.get(k, "no citation")
        doc = doc if per_doc[doc] >= MIN_DOCUMENT_STRATUM else "other documents"
        score = c["support"].score if c["support"] else None
        out.setdefault(f"{doc} / {band(score)}", []).append(k)
    return out


def draw_sample(store: Store, by: Viewer, size: int = DEFAULT_SAMPLE, seed: int | None = None) -> int:
    """Draw a new estimate sample of about ``size`` claims among those ``by`` may see that have no verdict; the
    number drawn. It becomes the sample in force of ``by``'s label set (others' samples stay theirs). The use case checks the role (admin: it sets what reviewers are asked to judge first); audited."""
    if not 1 <= size <= MAX_SAMPLE:
        raise InputError(f"an estimate sample holds from 1 to {MAX_SAMPLE} claims, got {size}")
    policy = review_policy(store)
    current = _current(store)
    open_claims = [c for c in reviewable(visible_claims(store, by))
                   if claim_state(current.get((c["answer_id"], c["index"]), []), policy).status
                   == ClaimStatus.UNREVIEWED]
    units = _strata(store, open_claims)
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    sample = draw(units, size, rng)
    strata = [{"stratum": h, "population": len(units[h]), "claims": [list(k) for k in sorted(sample[h])]}
              for h in sorted(units)]
    store.add_audit(event(by, AuditKind.ESTIMATE_SAMPLE, labels=list(label_set(by.labels)), size=size,
                          drawn=sum(len(s) for s in sample.values()), strata=strata))
    return sum(len(s) for s in sample.values())


def record_estimate(store: Store, labels: Iterable[str]) -> Estimate:
    """The estimate from the sample in force for the label set ``labels`` (one drawn with exactly these labels)
    and the verdicts that settled its claims (verified claims: the team's outcome, which blind review shows to
    everyone). ``labels`` of the estimate names the set either way."""
    labels = label_set(labels)
    row = sample_row(store, labels)
    if row is None:
        return Estimate(None, None, None, 0, 0, 0, (), labels=labels,
                        reason=f"no estimate sample drawn for the labels {', '.join(labels) or '(none)'} yet: run "
                               "`graphrag record estimate --draw`, or draw one on the Record page")
    policy = review_policy(store)
    current = _current(store)
    strata = []
    for s in row["strata"]:
        labels_of = [claim_state(current.get((int(a), int(i)), []), policy) for a, i in s["claims"]]
        settled = [st.verdict for st in labels_of if st.status == ClaimStatus.VERIFIED]
        strata.append(StratumCount(s["stratum"], int(s["population"]), len(s["claims"]), len(settled),
                                   sum(1 for x in settled if x == VerdictLabel.UNSUPPORTED)))
    return replace(stratified(strata, drawn_at=row["at"]), labels=labels)
