"""Record: how far the verification record, its reviewers and the automatic check can be trusted."""

from __future__ import annotations

from datetime import date, timedelta

import altair as alt
import pandas as pd
import streamlit as st

from dashboard import actor, render, resources, session
from graphrag.language.sentences import counted
from graphrag.model import VERDICT_WORDS, VerdictKind, VerdictLabel
from graphrag.present import checker_in_use
from graphrag.verify import (
    MAX_REQUIRED,
    MIN_PAIR_CLAIMS,
    RecordFilter,
    RecordStats,
    RefitRefused,
    draw_estimate_sample,
    export_audit_log,
    export_pack,
    export_source_changes,
    held_until_verified,
    record_by_kind,
    record_stats,
    refit_checker,
    review_policy,
    rollback_checker,
    set_review_policy,
    source_changed_answers,
    unreviewed_estimate,
)

st.title("Verification record")
store = resources.store()
viewer = actor.require_role("viewer", "read the verification record")
onlooker = actor.viewer_for_review()  # blind review: every figure below comes from verdicts this viewer may see

c = st.columns([1, 1, 1.3, 1.3, 1.6])
since = c[0].date_input("From", value=None, key="record_since")
until = c[1].date_input("To", value=None, key="record_until")
everyone = record_stats(store, viewer, viewer=onlooker)
reviewer = c[2].selectbox("Reviewer", [None, *everyone.reviewers], key="record_reviewer",
                          format_func=lambda r: "everyone" if r is None else r)
document = c[3].selectbox("Cited document", [None, *sorted({s.document for s in everyone.sources})],
                          key="record_document", format_func=lambda d: "any" if d is None else d)
question = c[4].text_input("Question contains", key="record_question")
flt = RecordFilter(since.isoformat() if isinstance(since, date) else None,
                   (until + timedelta(days=1)).isoformat() if isinstance(until, date) else None,
                   reviewer, document, question.strip() or None)
stats = record_stats(store, viewer, flt, onlooker) if flt != RecordFilter() else everyone
# The two judgements are counted, agreed on and set against their automatic check apart (graphrag.verify.record).
by_kind = {k: s for k, s in record_by_kind(store, viewer, flt, onlooker).items() if s.claims}
# what each kind's claims are, for its heading
KIND_CLAIMS = {VerdictKind.ANSWERS: ("verbatim quote", "verbatim quotes"),
               VerdictKind.BACKS: ("claim in other words", "claims in other words")}


def num(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def show_stats(stats: RecordStats) -> None:
    kind = stats.kind or VerdictKind.BACKS
    words = VERDICT_WORDS[kind]
    yes, no = words[VerdictLabel.SUPPORTED], words[VerdictLabel.UNSUPPORTED]
    st.subheader("Progress", anchor=False)
    m = st.columns(5)
    m[0].metric("Claims", stats.claims)
    m[1].metric("Unreviewed", stats.unreviewed)
    m[2].metric("Reviewed", stats.reviewed_claims,
                help="Claims whose required verdicts agree (or an adjudicator settled them) on a current version, "
                     f"whatever the verdict: the table below says how many were judged {yes} (only these are "
                     "verified)")
    m[3].metric("Disputed", stats.disputed, help="Reviewers' current verdicts on the claim differ")
    m[4].metric("Stale", stats.stale, help="Every verdict judged a version that has since been superseded or removed")
    if stats.tampered:
        st.error(f"{counted(stats.tampered, 'verdict')} tampered: the claim's or its cited sentence's words changed "
                 "after the verdict. They count for nothing here; the export names them (column “tampered”).")
    if stats.source_removed:
        st.caption(f"{counted(stats.source_removed, 'claim')} of answers withdrawn because a document they drew on "
                   "was removed: their verdicts stay in the record, marked “source removed” in the export.")

    if stats.verdicts:
        show_judged(stats)
    if not stats.verdicts:
        st.info("No verdicts yet: judge claims on the Review page. Reviewer agreement, the automatic check against "
                "the reviewers and the sources of bad citations are measured from verdicts.")
        return
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("Reviewer agreement", anchor=False)
        if len(stats.reviewers) < 2:
            st.caption(render.plain(f"One reviewer so far ({stats.reviewers[0]}): agreement needs two who judge the "
                                    "same claims."))
        else:
            st.metric("Krippendorff's alpha (nominal)", num(stats.alpha),
                      help=f"Over {stats.alpha_units} claims judged by two or more reviewers; copes with claims some "
                           "reviewers skipped. 1 is full agreement, 0 what chance gives.")
            render.table(pd.DataFrame([{"reviewers": " / ".join(p.reviewers), "shared claims": p.n,
                                        "Cohen's kappa": num(p.kappa) if p.kappa is not None
                                        else f"needs {MIN_PAIR_CLAIMS} shared" if p.n < MIN_PAIR_CLAIMS else "—"}
                                       for p in stats.pairs]), hide_index=True, width="stretch")
        show_bad_citations(stats)

    with right:
        st.subheader("The automatic check against the reviewers", anchor=False)
        if kind is VerdictKind.ANSWERS:
            show_reader_check(stats)
        elif not stats.checker_n:
            st.caption("Nothing to compare yet: the reviewers have judged no claim the checker scored (verbatim "
                       "quotes are left out: they check as supported by construction).")
        else:
            st.caption(render.plain(f"These figures rest on {counted(stats.checker_n, 'claim')} the reviewers "
                                    "judged and the checker scored (verbatim quotes left out)."))
            k = st.columns(3)
            k[0].metric("AUROC", num(stats.auroc), help=f"Checker score vs judged {yes}, over {stats.checker_n} "
                                                        "claims (verbatim quotes left out: they check as supported "
                                                        "by construction)")
            k[1].metric("Balanced accuracy", num(stats.balanced_accuracy), help="At the checker's current threshold")
            k[2].metric("Triage, first 20%", num(stats.triage_found),
                        help=f"Share of claims judged {no} that the queue's first 20% holds (random: "
                             f"{stats.triage_random:.2f})")
            if stats.auroc is None:
                st.caption(f"AUROC and balanced accuracy need claims judged {yes} and claims judged not.")
            bins = pd.DataFrame([{"checker score": f"{b.low:.1f}–{b.high:.1f}",
                                  f"judged {yes}": b.judged_supported, "claims": b.n}
                                 for b in stats.calibration if b.n])  # a bin with no claims has no bar
            st.caption(f"Reliability: the share of claims reviewers judged {yes}, per checker score bin "
                       "(a well-calibrated checker rises from left to right).")
            st.bar_chart(bins, x="checker score", y=f"judged {yes}", height=230)
            render.table(bins, hide_index=True, width="stretch")
    st.caption(render.plain(f"{counted(stats.verdicts, 'current verdict')} (the latest per reviewer and claim) by "
                            f"{counted(len(stats.reviewers), 'reviewer')} on answers your access labels can see"
                            + (" (blind review: others' verdicts on a claim still judged blind count once you "
                               "have given yours)" if review_policy(store).blind and not onlooker.oversees
                               else "") + "."))


def show_reader_check(stats: RecordStats) -> None:
    """Whether a quote answers, set against the reader's probability that the documents answer (it answered each
    of these: it said yes)."""
    if not stats.checker_n:
        st.caption("Nothing to compare yet: no judged quote has the reader's probability that the documents answer "
                   "(answers from before the reader kept it have none).")
        return
    st.caption(render.plain(f"These figures rest on {counted(stats.checker_n, 'quote')} the reviewers judged, set "
                            "against the reader's probability that the documents answer (the reader answered each: "
                            "every quote shown was its yes)."))
    k = st.columns(2)
    k[0].metric("AUROC", num(stats.auroc), help=f"Reader's probability vs judged answers, over {stats.checker_n} "
                                                "quotes")
    share_yes = stats.reviewed.supported
    k[1].metric("Reader's yes confirmed", str(share_yes) if share_yes.n else "—",
                help="Of the reviewed quotes, how many the reviewers settled as answering the question")
    if stats.auroc is None:
        st.caption("AUROC needs quotes judged to answer and quotes judged not to.")


def show_judged(stats: RecordStats) -> None:
    kind = stats.kind or VerdictKind.BACKS
    words = VERDICT_WORDS[kind]
    st.subheader("What the reviewed claims were judged", anchor=False,
                 help="Each share with its 95% Wilson interval. The first row: the settled verdict of each reviewed "
                      "claim; the others: each reviewer's current verdicts")
    rows = [("reviewed claims (settled verdict)", stats.reviewed),
            *((f"by {c.who}", c) for c in stats.by_reviewer)]
    render.table(pd.DataFrame([{"whose": who, "judged": c.n, words[VerdictLabel.SUPPORTED]: str(c.supported),
                                words[VerdictLabel.PARTIAL]: str(c.partial),
                                words[VerdictLabel.UNSUPPORTED]: str(c.unsupported)}
                               for who, c in rows]), hide_index=True, width="stretch")


def show_bad_citations(stats: RecordStats) -> None:
    st.subheader("Bad citations, by what picked them", anchor=False,
                 help="A citation judged unsupported is put down to retrieval when the claim quotes the cited "
                      "sentence word for word (the generator added nothing: the sentence does not answer), to the "
                      "generator when the claim is in its own words, and to the document when the cited version "
                      "was superseded (then or since)")
    bad = [s for s in stats.sources if s.unsupported]
    if not bad:
        st.caption("No citation judged unsupported so far.")
        return
    totals = {"retrieval": sum(s.retrieval for s in bad), "the generator": sum(s.generator for s in bad),
              "the document": sum(s.by_document for s in bad)}
    st.caption(render.plain(f"{counted(sum(totals.values()), 'unsupported verdict')}: "
                            + ", ".join(f"{n} picked by {who}" for who, n in totals.items() if n) + "."))
    render.table(pd.DataFrame([{"document": s.document, "version": s.version, "judged": s.judged,
                                "unsupported": s.unsupported, "retrieval": s.retrieval, "generator": s.generator,
                                "document itself": s.by_document, "unsupported rate": round(s.unsupported_rate, 3)}
                               for s in bad]), hide_index=True, width="stretch")


def show_estimate() -> None:
    st.subheader("What nobody reviewed", anchor=False,
                 help="Reviewers judge a random sample of the claims that had no verdict (stratified by cited "
                      "document and automatic-check band; its claims come first in the queue, marked \"estimate "
                      "sample\"); the share they judge unsupported, weighted by stratum, estimates the rest. 95% "
                      "interval: Wilson's on the design's effective sample size")
    est = unreviewed_estimate(store, viewer, resources.config())
    # one sample per set of labels: say whose claims this one covers
    st.caption(render.plain(f"Sample for the labels {', '.join(est.labels) or '(none)'}"
                            + (f", drawn {est.drawn_at}" if est.drawn_at else "")
                            + ": it covers the claims these labels show; each set of labels has its own sample."))
    if est.drawn_at is None and not est.sampled:  # the CLI's reason names the command; here the button is below
        st.caption("No estimate sample has been drawn for these labels yet: "
                   + ("draw one with the button below." if viewer.may("admin") else
                      "an admin draws one on this page or with `graphrag record estimate --draw`."))
    elif est.unsupported_share is None or est.ci_low is None or est.ci_high is None:
        st.caption(render.plain(est.reason))
    else:
        st.caption(render.plain(f"Of {est.population} claims without a verdict when the sample was drawn, an estimated "
                                f"{est.unsupported_share:.0%} would be judged unsupported (95% interval "
                                f"{est.ci_low:.0%} to {est.ci_high:.0%}; {est.judged} of {est.sampled} sampled claims "
                                "settled)."))
        point = pd.DataFrame([{"claims without a verdict": "estimated unsupported", "share": est.unsupported_share,
                               "low": est.ci_low, "high": est.ci_high}])
        y = alt.Y("claims without a verdict:N", title=None)
        scale = alt.Scale(domain=[0, 1])
        chart = (alt.Chart(point).mark_rule(strokeWidth=3).encode(
                     x=alt.X("low:Q", scale=scale, axis=alt.Axis(format="%"), title="share judged unsupported"),
                     x2="high:Q", y=y)
                 + alt.Chart(point).mark_point(size=120, filled=True).encode(x=alt.X("share:Q", scale=scale), y=y))
        st.altair_chart(chart.properties(height=90), width="stretch")
    # where the sample is judged: the Review page, its claims alone (the figures above wait for them)
    if est.sampled > est.judged and st.button(
            f"Review the sample: {counted(est.sampled - est.judged, 'claim')} to settle", key="record_to_sample",
            icon=":material/fact_check:", help="The Review page with only the estimate sample's claims"):
        st.session_state[session.PENDING_REVIEW_SAMPLE] = True  # the Review page turns its filter on once
        st.session_state.pop(session.REVIEW_CURRENT, None)
        st.switch_page("views/review.py")
    if est.strata:
        render.table(pd.DataFrame([{"stratum": x.name, "claims when drawn": x.population, "sampled": x.sampled,
                                    "settled": x.judged, "unsupported": x.unsupported} for x in est.strata]),
                     hide_index=True, width="stretch")
    if viewer.may("admin") and st.button("Draw an estimate sample", key="record_draw_sample",
                                         help="Draws a new sample of the claims that have no verdict now"):
        with render.stop_if_forbidden():  # the use case checks the role and audits the draw
            draw_estimate_sample(store, actor.principal(), resources.config())
        st.rerun()


if not stats.claims and flt == RecordFilter():
    st.info("No claims yet: ask a question on the Ask page, then judge its claims on the Review page.")
elif not stats.claims:
    st.info("No claims match these filters: widen them.")
else:
    st.caption("Two judgements are counted apart: a verbatim quote is asked “Does this answer the question?”, a "
               "claim in other words “Does the source back it?”.")
    sections = list(by_kind.values())
    titles = [f"{k.question} ({counted(s.claims, *KIND_CLAIMS[k])})" for k, s in by_kind.items()]
    # open on the judgement that has verdicts: a first verdict on a claim in other words once opened the page on the
    # verbatim quotes' tab, saying "No verdicts yet" beside a sidebar counting one
    judged = next((t for t, s in zip(titles, sections, strict=True) if s.verdicts), None)
    for title, tab, kind_stats in zip(titles, st.tabs(titles, default=judged) if len(sections) > 1
                                      else [st.container()], sections, strict=True):
        with tab:
            if len(sections) == 1:
                st.markdown(f"**{title}**")
            show_stats(kind_stats)
    show_estimate()



def show_source_changes() -> None:
    """The verified answers whose cited sentences a newer version changed or dropped since (graphrag.verify.standing),
    as `graphrag record changes` lists them; an admin downloads the list (audited)."""
    st.subheader("Verified answers whose sources changed", anchor=False,
                 help="An answer stays verified only while every sentence it cites is in its document's current "
                      "version with the same words. Their changed claims come first in the review queue.")
    changed = source_changed_answers(store, viewer, resources.config(), me=onlooker.name)
    if not changed:
        st.caption("None: every verified answer's cited sentences read as they did when it was verified.")
    else:
        st.caption(render.plain(f"{counted(len(changed), 'verified answer')} now rest on words that changed: judge "
                                "the changed claims again (they lead the Review page's queue), or ask the question "
                                "afresh."))
        render.table(pd.DataFrame([{
            "answer": r["answer_id"], "question": r["question"], "claim": r["claim_index"] + 1,
            "document": r["document"], "version": f"v{r['cited_version']} → "
            + (f"v{r['changed_in_version']}" if r["changed_in_version"] is not None else "removed"),
            "changed on": (r["changed_at"] or "")[:10], "cited words": r["old_words"],
            "now": r["new_words"] if r["new_words"] is not None else "(no longer there)",
            "verified by": r["verified_by"], "verified on": (r["verified_on"] or "")[:10],
        } for c in changed for r in c.rows()]), hide_index=True, width="stretch")
    if viewer.may("admin"):  # the list as it is now, empty or not, for a spreadsheet or an auditor
        cfg = resources.config()  # read on the script's run: the download's callable runs outside it

        def changes_csv() -> str:
            """The list for download, built when clicked; the role is checked here and the export audited."""
            return export_source_changes(store, actor.refreshed(viewer), cfg, "csv", me=onlooker.name).text

        st.download_button("Changed sources (CSV)", changes_csv, "changed-sources.csv", "text/csv",
                           icon=":material/download:", key="record_changes_csv", on_click="ignore")


show_source_changes()

if not viewer.may("admin"):
    st.caption(render.plain(f"The review policy, the checker and the audit log are for admins (your role: "
                            f"{viewer.role})."))
    st.stop()

st.subheader("Review policy and the checker", anchor=False)
pol, chk = st.columns(2, gap="large")
with pol:
    policy = review_policy(store)
    required = st.number_input("Independent verdicts each claim needs", 1, MAX_REQUIRED, policy.required,
                               key="record_required",
                               help="With two or more, review is blind and disagreements go to the dispute queue")
    holds = held_until_verified(store)
    hold = st.toggle("Hold answers until verified", holds, key="record_held",
                     help="Readers (signed in, below reviewer) see an answer only once reviewers verify it; until "
                          "then they see that it waits for review and where it stands in the queue. Reviewers and "
                          "admins see every answer.")
    if not viewer.team:
        st.caption("Holding applies to readers signed in to a team dashboard: in local mode nobody signs in and every "
                   "answer is shown.")
    if st.button("Save the policy", key="record_save_policy",
                 disabled=required == policy.required and hold == holds):
        with render.stop_if_forbidden():  # the use case checks the role with who is signed in now, and audits
            set_review_policy(store, actor.principal(), resources.config(), int(required), held_until_verified=hold)
        st.rerun()
with chk:
    active = checker_in_use(store, viewer, resources.config())
    st.caption(f"Support checker in use: embedded@{active or 'shipped'}. A refit learns the "
               "team's standard from its verdicts; it is adopted only with enough verdicts and a measured gain.")
    b = st.columns(2)
    if b[0].button("Refit from the verdicts", key="record_refit"):
        try:
            with render.stop_if_forbidden(), st.spinner("Fitting and cross-validating by answer…"):
                outcome = refit_checker(store, actor.principal(), resources.config())  # audited, adopted or not
            st.success(f"Adopted embedded@{outcome.version}: new support scores use it.")
        except RefitRefused as exc:
            st.warning(render.plain(f"Not adopted: {exc}"))
    if b[1].button("Roll back", key="record_rollback", disabled=active is None):
        with render.stop_if_forbidden():
            now_active = rollback_checker(store, actor.principal(), resources.config())
        st.success(f"Support checker in use: embedded@{now_active or 'shipped'}.")


def audit_csv() -> str:
    """The audit log for download, built when clicked; the role is checked here and the export audited."""
    return export_audit_log(store, actor.refreshed(viewer), cfg, "csv").text  # the policy as it is now


cfg = resources.config()  # read on the script's run: the download's callable runs outside it
st.subheader("Audit log", anchor=False)
st.caption("Sign-ins, ingests, exports, verdicts and settings, with who and when (append-only). Rows that name a "
           "document or an answer your labels do not show (an ingest's folder, a relabel, a removal, a verdict) are "
           "left out of your download.")
st.download_button("Audit log (CSV)", audit_csv, "audit.csv", "text/csv", icon=":material/download:",
                   key="record_audit_csv", on_click="ignore")


st.caption("The evidence pack: the answers, claims, cited sentences, every verdict, audit log, policy and estimate "
           "your labels can see, with a report that opens on the oversight report (who may review, the policy over "
           "time, answers shown before verification, verified answers whose sources changed), signed with this "
           "store's key (`graphrag pack verify` checks it).")
# A pack is never narrowed by blind review (graphrag.verify.pack): in local mode, where nobody signs in, the
# exporter says they will read every verdict; a team admin sees the whole record anyway.
whole = False
if policy.blind and not viewer.team:
    whole = st.checkbox("Every verdict, those still judged blind and disputes included", key="record_pack_whole",
                        help="Blind review is on: the pack shows you verdicts on claims you may not have judged yet. "
                             "Tick this once you are done reviewing them (or let someone who does not review export)")


def evidence_pack() -> bytes:
    """The signed evidence pack for download, built when clicked; the role is checked and the export audited."""
    return export_pack(store, actor.refreshed(viewer), cfg, whole_record=whole).data


st.download_button("Evidence pack (signed zip)", evidence_pack, "evidence-pack.zip", "application/zip",
                   icon=":material/download:", key="record_pack", on_click="ignore",
                   disabled=policy.blind and not viewer.team and not whole)
