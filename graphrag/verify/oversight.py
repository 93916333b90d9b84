"""The oversight report: what an auditor asks of a team's human oversight, from the record as it stands, in a pack.

Five questions, each answered from rows the pack holds or the store keeps (nothing here is stored):

- **who may review**: the access policy's grants of a reviewing role (reviewer, adjudicator, admin) when the exporter
  has the policy file; the people who signed in with such a role (the ``sign-in`` audit rows); and who did give
  verdicts on these answers, how many, first and last;
- **the review policy in force over time**: one period per ``review-policy`` audit row (verdicts required, hence blind
  review, and whether answers were held from readers until verified), from the store's start (one verdict, nothing
  held) on; changes refused for want of the admin role are listed apart;
- **answers shown before verification**: each answer with claims, read against the policy in force when it was asked
  and the verdicts given by then (carried ones at their own time): shown to its asker unverified when nothing was
  held then; held from team readers when the hold was on (a reviewer or admin who asked saw it at once: the store
  does not record who asked, since asking writes no audit row); verified when asked (every claim carried a verdict).
  Times are the database's, to the second: a verdict or a policy row of the same second as the answer counts as
  given after it, so a tie counts the answer as shown unverified, never as held or verified;
- **verified answers that later lost their sources**: verified answers whose cited sentence a newer version changed
  or dropped (``standing.changed_answers``), and answers withdrawn, after they were verified, because a document they
  cited was removed;
- **the estimate** of what nobody reviewed, with its interval (``estimate.json``).

It describes; it does not judge whether that oversight is enough for any rule (docs/record.md says how the report
relates to record keeping and human oversight duties, without claiming compliance).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from html import escape
from pathlib import Path
from typing import Any

from graphrag.access.identity import ADJUDICATOR, ADMIN, REVIEWER, PolicyError, load_policy, role_at_least
from graphrag.model import Answer, AnswerStatus, AuditEvent, Verdict
from graphrag.store import Store
from graphrag.store.audit import AuditKind
from graphrag.verify.policy import ReviewPolicy, ReviewViewer, answer_status, latest

REVIEWING = (REVIEWER, ADJUDICATOR, ADMIN)
START = "the store's start"


def _reviews(role: str | None) -> bool:
    return role is not None and role_at_least(role, REVIEWER)


def who_may_review(access_policy: Path | None, team: bool, audit: Sequence[AuditEvent],
                   verdicts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The grants of a reviewing role in the access policy (when its file is at hand), who signed in with one, and
    who gave the verdicts (their own rows, not the ones carried to other answers)."""
    grants: list[dict[str, Any]] = []
    policy: dict[str, Any] = {"mode": "team" if team else "local", "file": str(access_policy) if access_policy else None}
    if access_policy is not None and access_policy.is_file():
        try:
            parsed = load_policy(access_policy)
            policy["sha256"] = hashlib.sha256(access_policy.read_bytes()).hexdigest()
        except (PolicyError, OSError) as exc:
            policy["error"] = str(exc)
        else:
            grants = [{"who": f"{r.kind} {r.value}", "role": r.role, "labels": sorted(r.labels)}
                      for r in parsed.rules if _reviews(r.role)]
            if _reviews(parsed.unknown.role):
                grants.append({"who": "anyone signed in whom no rule names", "role": parsed.unknown.role,
                               "labels": sorted(parsed.unknown.labels)})
    elif access_policy is not None and team:
        policy["error"] = f"no access policy file at {access_policy}"
    signed: dict[str, dict[str, Any]] = {}
    for e in audit:
        if e.event == str(AuditKind.SIGN_IN) and _reviews(e.detail.get("role")):
            who = e.email or e.subject or "?"
            signed[who] = {"who": who, "role": e.detail.get("role"), "labels": e.detail.get("labels"), "last": e.at}
    judged: dict[str, dict[str, Any]] = {}
    for v in verdicts:
        if v.get("carried_from") or not v.get("verdict"):  # a carried verdict is its source row's; an undo row
            continue
        who = str(v.get("reviewer_email") or v.get("reviewer") or "?")
        row = judged.setdefault(who, {"who": who, "verdicts": 0, "roles": [], "first": v.get("time"),
                                      "last": v.get("time"), "identity": bool(v.get("reviewer_subject"))})
        row["verdicts"] += 1
        if v.get("role") not in row["roles"]:
            row["roles"].append(v.get("role"))
        row["first"] = min(str(row["first"] or ""), str(v.get("time") or "")) or None
        row["last"] = max(str(row["last"] or ""), str(v.get("time") or "")) or None
    return {"access_policy": policy, "grants": grants, "signed_in": sorted(signed.values(), key=lambda r: r["who"]),
            "reviewers": sorted(judged.values(), key=lambda r: (-r["verdicts"], r["who"]))}


def policy_over_time(audit: Sequence[AuditEvent]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the periods of the review policy, oldest first: from when, verdicts required, blind, held until verified,
    set by whom and through which surface; the changes refused), from the ``review-policy`` audit rows."""
    periods = [{"from": START, "required_verdicts": 1, "blind": False, "held_until_verified": False, "set_by": None,
                "via": None}]
    refused = []
    for e in audit:
        if e.event != str(AuditKind.REVIEW_POLICY):
            continue
        who = e.email or e.subject or f"local ({e.detail.get('via', '?')})"
        if "refused" in e.detail:
            refused.append({"at": e.at, "by": who, "asked": e.detail.get("asked"), "refused": e.detail["refused"]})
            continue
        required = int(e.detail.get("required", periods[-1]["required_verdicts"]))
        # a row from before issue 62 says nothing of the hold: nothing was held then
        periods.append({"from": e.at, "required_verdicts": required, "blind": ReviewPolicy(required).blind,
                        "held_until_verified": e.detail.get("held_until_verified") is True, "set_by": who,
                        "via": e.detail.get("via")})
    return periods, refused


def _in_force(periods: Sequence[Mapping[str, Any]], at: str | None) -> Mapping[str, Any]:
    """The period in force at ``at``. Times are the database's, to the second: a policy row of the same second as the
    answer counts as set after it (as a verdict does), so a tie never makes an answer look held or verified."""
    found = periods[0]
    for p in periods[1:]:
        if at is not None and str(p["from"]) < at:
            found = p
    return found


def shown_before_verification(answers: Sequence[Answer], rows: Sequence[Verdict],
                              periods: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """How the answers with claims stood when they were asked: verified then, shown unverified (nothing held), or
    held from team readers (the hold on)."""
    by_answer: dict[int | None, list[Verdict]] = {}
    for v in rows:
        by_answer.setdefault(v.answer_id, []).append(v)
    with_claims = [a for a in answers if a.claims]
    verified: list[int | None] = []
    held: list[int | None] = []
    shown: list[int | None] = []
    for a in with_claims:
        period = _in_force(periods, a.created_at)
        then = latest(v for v in by_answer.get(a.id, []) if (v.created_at or "") < (a.created_at or ""))
        status = answer_status(replace(a, status=AnswerStatus.CITED), then, ReviewPolicy(int(period["required_verdicts"])))
        (verified if status == AnswerStatus.VERIFIED else held if period["held_until_verified"] else shown).append(a.id)
    return {"answers_with_claims": len(with_claims), "verified_when_asked": len(verified),
            "shown_unverified": len(shown), "held_from_readers": len(held), "shown_unverified_ids": shown,
            "held_from_readers_ids": held}


def sources_lost(store: Store, labels: Sequence[str], answers: Sequence[Answer], rows: Sequence[Verdict],
                 policy: ReviewPolicy) -> dict[str, Any]:
    """Verified answers now shown as *source changed* (a cited sentence a newer version changed or dropped), and
    answers withdrawn (a cited document removed) whose every claim had been verified."""
    from graphrag.verify.standing import changed_answers

    changed = changed_answers(store, labels, ReviewViewer(oversees=True), seen=[a.id for a in answers if a.id])
    current = latest(rows)
    withdrawn = [a.id for a in answers if a.status == AnswerStatus.WITHDRAWN and a.claims
                 and answer_status(replace(a, status=AnswerStatus.CITED), [v for v in current if v.answer_id == a.id],
                                   policy) == AnswerStatus.VERIFIED]
    verified = sum(1 for a in answers if a.status == AnswerStatus.VERIFIED)
    return {"verified_now": verified, "source_changed": len(changed),
            "source_changed_ids": [c.answer.id for c in changed], "withdrawn_after_verification": len(withdrawn),
            "withdrawn_after_verification_ids": withdrawn}


def oversight(store: Store, labels: Sequence[str], answers: Sequence[Answer], verdicts: Sequence[Mapping[str, Any]],
              audit: Sequence[AuditEvent], estimate: Mapping[str, Any], *, access_policy: Path | None = None,
              team: bool = False) -> dict[str, Any]:
    """The oversight report's data (``oversight.json`` in a pack), over the answers ``labels`` show."""
    from graphrag.verify.carry import verdict_rows
    from graphrag.verify.status import review_policy

    shown = {a.id for a in answers}
    rows = [v for v in verdict_rows(store) if v.answer_id in shown]
    periods, refused = policy_over_time(audit)
    return {"who_may_review": who_may_review(access_policy, team, audit, verdicts),
            "policy_over_time": periods, "policy_changes_refused": refused,
            "shown_before_verification": shown_before_verification(answers, rows, periods),
            "sources_lost": sources_lost(store, labels, answers, rows, review_policy(store)),
            "estimate": {k: estimate.get(k) for k in ("unsupported_share", "ci_low", "ci_high", "confidence",
                                                      "population", "sampled", "judged", "too_small", "reason",
                                                      "drawn_at", "labels")}}


# --- the readable section of report.html -------------------------------------------------------------------------

def _e(x: object) -> str:
    return escape("" if x is None else str(x))


def _ids(ids: Sequence[object]) -> str:
    return f" (answers {_e(', '.join(map(str, ids[:20])))}{', …' if len(ids) > 20 else ''})" if ids else ""


def oversight_html(o: Mapping[str, Any]) -> str:
    """The oversight report as a section of the pack's report (every value escaped)."""
    w = o["who_may_review"]
    pol = w["access_policy"]
    parts = ["<h2>Oversight report</h2>",
             "<p>What the record says of human oversight over the answers in this pack. It describes; it says "
             "nothing of whether that oversight meets any rule.</p>", "<h3>Who may review</h3>"]
    if w["grants"]:
        parts.append(f"<p>The access policy <code>{_e(pol['file'])}</code> (sha256 {_e(str(pol.get('sha256'))[:16])}…) "
                     "grants a reviewing role to:</p><table><tr><th>who</th><th>role</th><th>labels</th></tr>"
                     + "".join(f"<tr><td>{_e(g['who'])}</td><td>{_e(g['role'])}</td><td>{_e(', '.join(g['labels']))}"
                               "</td></tr>" for g in w["grants"]) + "</table>")
    elif pol["mode"] == "local" and not pol.get("sha256"):
        parts.append("<p>Exported in local mode, with no access policy at hand: nobody signs in, and anyone using "
                     "this store may record verdicts under a name they type (a self-declared name)"
                     + (f"; {_e(pol['error'])}" if pol.get("error") else "") + ".</p>")
    else:
        parts.append("<p>The access policy grants no reviewing role"
                     + (f" ({_e(pol['error'])})" if pol.get("error") else "") + ".</p>")
    if w["signed_in"]:
        parts.append("<p>Signed in with a reviewing role (the latest sign-in each): "
                     + _e("; ".join(f"{s['who']} as {s['role']} ({s['last']})" for s in w["signed_in"])) + ".</p>")
    parts.append("<p>Gave verdicts on these answers: "
                 + (_e("; ".join(f"{r['who']}: {r['verdicts']} ({', '.join(map(str, r['roles']))}; {r['first']} to "
                                 f"{r['last']}{'' if r['identity'] else '; a typed name'})" for r in w["reviewers"]))
                    if w["reviewers"] else "nobody yet") + ".</p>")
    parts.append("<h3>The review policy in force over time</h3><table><tr><th>from</th><th>verdicts per claim</th>"
                 "<th>blind review</th><th>held until verified</th><th>set by</th></tr>"
                 + "".join(f"<tr><td>{_e(p['from'])}</td><td>{_e(p['required_verdicts'])}</td>"
                           f"<td>{'yes' if p['blind'] else 'no'}</td><td>{'yes' if p['held_until_verified'] else 'no'}"
                           f"</td><td>{_e(p['set_by'] or '(the default)')}"
                           f"{' via ' + _e(p['via']) if p['via'] else ''}</td></tr>" for p in o["policy_over_time"])
                 + "</table>")
    if o["policy_changes_refused"]:
        parts.append("<p>Changes refused (no admin role): " + _e("; ".join(
            f"{r['at']} {r['by']} asked {r['asked']}" for r in o["policy_changes_refused"])) + ".</p>")
    s = o["shown_before_verification"]
    parts.append(f"<h3>Answers shown before verification</h3><p>Of {s['answers_with_claims']} answers with claims: "
                 f"<b>{s['shown_unverified']}</b> were shown to whoever asked before any reviewer verified them (no "
                 f"hold in force when asked){_ids(s['shown_unverified_ids'])}; {s['held_from_readers']} were asked "
                 f"while answers were held until verified{_ids(s['held_from_readers_ids'])}: held from readers, shown "
                 "at once only to a reviewer or admin who asked (asking is not audited, so the store does not say "
                 f"who asked); {s['verified_when_asked']} were verified when asked (every claim carried a verdict "
                 "given before).</p>")
    lost = o["sources_lost"]
    parts.append(f"<h3>Verified answers that later lost their sources</h3><p>{lost['verified_now']} answers are "
                 f"verified now. <b>{lost['source_changed']}</b> verified answers cite a sentence that a newer version "
                 f"of its document changed or dropped{_ids(lost['source_changed_ids'])}; "
                 f"{lost['withdrawn_after_verification']} were withdrawn after they were verified, a document they "
                 f"cited having been removed{_ids(lost['withdrawn_after_verification_ids'])}.</p>")
    e = o["estimate"]
    parts.append("<h3>What nobody reviewed</h3><p>"
                 + (f"An estimated <b>{e['unsupported_share']:.1%}</b> of the {_e(e['population'])} claims that had no "
                    f"verdict when the sample was drawn would be judged unsupported (95% interval {e['ci_low']:.1%} to "
                    f"{e['ci_high']:.1%}; {_e(e['judged'])} of {_e(e['sampled'])} sampled claims settled)."
                    if e.get("unsupported_share") is not None else f"No estimate: {_e(e.get('reason'))}.")
                 + " Details under “What nobody reviewed” below.</p>")
    return "\n".join(parts)
