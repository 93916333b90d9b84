"""Review: one claim at a time, its route and its source side by side, a verdict, then the next."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from dashboard import actor, render, resources, session
from dashboard.cited_pages import show_cited_pages
from dashboard.document_viewer import open_document_button
from graphrag.errors import GraphRAGError
from graphrag.language.sentences import counted
from graphrag.model import VERDICT_WORDS, Answer, Citation, Claim, ClaimFlag, VerdictKind, VerdictLabel
from graphrag.present import (
    ClaimReview,
    cited_source,
    claim_review,
    renumbered,
    review_board,
    review_items,
    route_height,
    route_html,
    route_list_html,
    route_text,
)
from graphrag.verify import (
    UNDO_SECONDS,
    QueueItem,
    export_record,
    mark_verdict,
    undo_verdict,
    undoable,
    visible_answer,
    work_queue,
)

store = resources.store()
# who acts, once for this run: the principal, their reviewer name, their blind-review stance (whose verdicts this run
# may show, graphrag.verify.policy); a callback builds its own, with who is signed in when it runs
person = actor.require_actor("viewer", "read the review queue")
viewer, me, onlooker = person.principal, person.reviewer, person.onlooker
config = resources.config()  # read on the script's run: the downloads' callables run outside it
board = review_board(store, viewer, config, onlooker)  # what this viewer may filter, see and do here
may_judge, may_export = board.may_judge, board.may_export

# "Review this answer" on the ask page leaves the answer here; the filter widget takes it once. "Review the sample" on
# the Record page likewise turns the estimate sample's filter on.
if session.PENDING_REVIEW_ANSWER in st.session_state:
    st.session_state[session.REVIEW_ANSWER] = st.session_state.pop(session.PENDING_REVIEW_ANSWER)
if st.session_state.pop(session.PENDING_REVIEW_SAMPLE, False):
    st.session_state[session.REVIEW_SAMPLE] = True

# never list what the viewer cannot see, nor answers withdrawn with a removed document (nothing to judge)
answers = board.answers
# Only a choice that is gone is reset: a widget's value set by the script on every run is pushed to the browser
# on every run too, where it overrode the first pick made in the dropdown after a verdict's rerun.
if st.session_state.get(session.REVIEW_ANSWER) is not None and st.session_state[session.REVIEW_ANSWER] not in answers:
    st.session_state[session.REVIEW_ANSWER] = None

policy = board.policy
# Two rows, so every label is whole on a 1280-pixel screen: the answer and the exports, then the filters.
top = st.columns([4.0, 0.8, 0.8], vertical_alignment="bottom")
top[0].selectbox("Answer", [None, *answers], key=session.REVIEW_ANSWER,
                 format_func=lambda a: "All answers" if a is None else f"#{a}: {answers[a][:70]}")
filters = st.columns(4)
flagged = filters[0].toggle("Flagged only", key=session.REVIEW_FLAGGED, help="Claims the checker flagged")
mine = filters[1].toggle("Reviewed by me", key=session.REVIEW_MINE, help="Claims you have judged")
disputes = filters[2].toggle("Disputes", key=session.REVIEW_DISPUTES,
                         help="Claims whose required reviewers disagree: your verdict settles one you took no part "
                              "in, as its adjudicator" + (" (needs the adjudicator role)" if board.team else ""))
sample = filters[3].toggle("Estimate sample", key=session.REVIEW_SAMPLE,
                           help="The random sample of unreviewed claims the Record page's estimate of what nobody "
                                "reviewed waits for (its claims come first in the queue anyway)")
st.caption(f"Review policy: {counted(policy.required, 'independent verdict')} per claim"
           + (" · blind: other reviewers' verdicts on a claim show once you have given yours" if policy.blind else ""))


def queue() -> list[QueueItem]:
    return review_items(store, viewer, config, board, onlooker, answer_id=st.session_state.get(session.REVIEW_ANSWER),
                        flagged_only=st.session_state.get(session.REVIEW_FLAGGED, False),
                        mine_only=st.session_state.get(session.REVIEW_MINE, False),
                        disputed_only=st.session_state.get(session.REVIEW_DISPUTES, False),
                        sample_only=st.session_state.get(session.REVIEW_SAMPLE, False))




def export(fmt: str) -> str:
    """The verification record for download, built when the button is clicked (outside the script
    run): the role is checked here against the policy as it is now, and the export is audited."""
    return export_record(store, person.refreshed().principal, config, fmt, me=me).text


# Deferred downloads: the record is built when the button is clicked, not on every rerun. No
# rerun on the click (on_click="ignore"): each run registers the generator under a new id and
# drops the old one, so a click's rerun raced its own download request and lost it now and then.
if may_export:
    # the store's total only where it says nothing blind review hides
    n_rows = f"; {board.total_verdicts} in all" if board.total_verdicts is not None else ""
    top[1].download_button("CSV", lambda: export("csv"), "verification.csv", "text/csv",
                           icon=":material/download:", key="export_csv", on_click="ignore",
                           help=f"Export the verification record (the verdicts on answers you can see{n_rows})")
    top[2].download_button("JSON", lambda: export("json"), "verification.json",
                           "application/json", icon=":material/download:", key="export_json", on_click="ignore")

items = queue()
END = session.REVIEW_END
# Set by a verdict button's callback. A button that reports a press its callback never saw was pressed on a page
# drawn by an earlier session (the dashboard restarted): that press recorded nothing, and the page says so.
judged_now = st.session_state.pop(session.REVIEW_JUDGED, False)



def unanswered_note() -> None:
    """Questions the documents did not answer make no claim: nothing of them is queued, and the page says so, each
    question once, the newest few, folded (under the claim, so the verdict buttons stay on the first screen)."""
    if not (unanswered := board.unanswered):
        return
    more = board.unanswered_more
    with st.expander(f"Not in the queue: {counted(len(unanswered) + more, 'question')} the documents did not answer",
                     icon=":material/block:"):
        st.caption("No claim was made for them: their closest passages are passages, not claims.")
        st.markdown("\n".join(f"- #{a.id} “{render.plain(a.question)}”: {render.plain(a.text)}" for a in unanswered)
                    + (f"\n\n…and {counted(more, 'earlier question')}." if more else ""))


def keys_text(kind: VerdictKind) -> str:
    words = VERDICT_WORDS[kind]
    return (f"Keys: S {words[VerdictLabel.SUPPORTED]} · P {words[VerdictLabel.PARTIAL]} · "
            f"U {words[VerdictLabel.UNSUPPORTED]} · N next · B previous · Z undo a verdict just given")


KEYS = "Keys: S yes · P partly · U no · N next · B previous · Z undo a verdict just given"


def undo_last() -> None:
    """Undo the verdict just given (a correction appended to the record, by the verify use case) and go back to
    its claim."""
    vid, aid, ci, _text, _at = st.session_state.pop(session.REVIEW_UNDO)
    now = actor.acting()  # who acts when the button is pressed
    try:
        undo_verdict(store, now.principal, config, visible_answer(store, aid, now.principal), vid, now.reviewer)
    except GraphRAGError as exc:
        st.session_state[session.REVIEW_ERROR] = str(exc)
        return
    st.session_state[session.REVIEW_CURRENT] = (aid, ci)
    st.session_state[session.REVIEW_TOAST] = (f"Verdict on claim {ci + 1} of answer #{aid} undone: recorded as a "
                                        "correction, the claim is back in your queue.")


def feedback() -> None:
    """What the last action did: the verdict just given with its Undo (while it can be undone), or an error."""
    if msg := st.session_state.pop(session.REVIEW_TOAST, None):
        st.toast(msg, icon=":material/check:")
    if err := st.session_state.pop(session.REVIEW_ERROR, None):
        st.error(render.plain(err))
    undo = st.session_state.get(session.REVIEW_UNDO)
    # Offered only while the store would honour it: the verdict is still this reviewer's latest on its claim, and
    # young enough (a margin for the click's way to the server). The offer lives in the session, which a restarted
    # dashboard does not have: after a restart there is none.
    if undo and not undoable(store, undo[1], undo[2], undo[0], me, by=viewer, margin_s=2):
        st.session_state.pop(session.REVIEW_UNDO)
        undo = None
    if undo:
        bar = st.columns([5, 1], vertical_alignment="center")
        bar[0].success(render.plain(undo[3]), icon=":material/check:")
        bar[1].button("Undo", on_click=undo_last, key="rv_undo", icon=":material/undo:", shortcut="Z",
                      width="stretch", help=f"Take this verdict back (within {UNDO_SECONDS} seconds of giving it): "
                                            "recorded as a correction, the record keeps both rows")


if not items:
    unanswered_note()
    if not board.any_answers:
        st.info("Nothing to review yet: ask a question on the Ask page; its claims will appear here.")
    else:
        st.info("No disputed claims: every disagreement is settled." if disputes else
                "No claim of the estimate sample is left to show: draw a sample on the Record page, or switch "
                "“Estimate sample” off." if sample else
                "No claims match these filters (or the answers use documents outside your access labels).")
    st.stop()

# The reviewer's work order (graphrag.verify.worklist): what they judged, then what is left for them, then the rest;
# past the last claim, the queue's end.
# The order shown stays while the reviewer works with these filters: a claim keeps its number after its verdict.
shown_for = (st.session_state.get(session.REVIEW_ANSWER), flagged, mine, disputes, sample, me)
kept = st.session_state.get(session.REVIEW_ORDER)
work = work_queue(items, onlooker, disputes=disputes, order=kept[1] if kept and kept[0] == shown_for else ())
keys = work.keys
st.session_state[session.REVIEW_ORDER] = (shown_for, keys)
current = st.session_state.get(session.REVIEW_CURRENT)
if current == END and work.left and not st.session_state.get(session.REVIEW_AT_END):
    current = work.left[0]  # claims came in (or a verdict was undone) since the end was reached
if current != END and current not in keys:
    current = work.left[0] if work.left else keys[0] if (mine or disputes) else END
st.session_state[session.REVIEW_CURRENT] = current
st.session_state.pop(session.REVIEW_AT_END, None)


def go(step: int) -> None:
    """Move in the work order; past the last claim is the queue's end, and past the end the first claim."""
    here = st.session_state.get(session.REVIEW_CURRENT)
    ring = [*keys, END]
    i = ring.index(here) if here in ring else len(keys)
    st.session_state[session.REVIEW_CURRENT] = ring[(i + step) % len(ring)]
    st.session_state[session.REVIEW_AT_END] = ring[(i + step) % len(ring)] == END  # stay at the end the user asked for


if current == END:
    nav = st.columns([4, 1.4, 1.1], vertical_alignment="center")  # labels whole at 1280 px
    nav[0].markdown(f"**End of the queue** · {counted(len(keys), 'claim')} in the queue")
    nav[1].button("Previous", on_click=go, args=(-1,), width="stretch", key="rv_prev", icon=":material/arrow_back:",
                  shortcut="B")
    nav[2].button("Next", on_click=go, args=(1,), width="stretch", key="rv_next", icon=":material/arrow_forward:",
                  shortcut="N")
    feedback()
    st.success(f"Nothing left for you; {work.judged_today} judged today."
               + (" Previous goes back to the claims you judged." if keys else ""), icon=":material/done_all:")
    st.caption(KEYS)
    st.stop()
pos = next(i for i, k in enumerate(keys) if k == current)
item = work.items[pos]
shown = claim_review(store, viewer, config, item, onlooker, policy, me)  # only the claim on screen is read whole
if shown is None:
    st.error(f"Answer #{item.answer_id} could not be read from the store; reload the page.")
    st.stop()
review: ClaimReview = shown  # named apart so the functions below see it as present
answer: Answer = review.answer  # named apart so the functions below see them as present
claim: Claim = review.claim
valid = review.citations
# Markers in reading order, as the Ask page shows them: the answer, the citation choice, the route and the source
# all write one citation with one number (the store keeps retrieval's).
numbers = review.numbers


def shown_marker(c: Citation) -> str:
    return f"[{numbers[c.item.n]}]" if c.item is not None and c.item.n in numbers else render.marker_label(c.marker)


def cite_key() -> str:
    return session.review_citation_key(answer.id, claim.index)


def chosen() -> Citation | None:
    i = st.session_state.get(cite_key())
    return valid[i] if valid and isinstance(i, int) and i < len(valid) else (valid[0] if valid else None)


def judge(label: VerdictLabel) -> None:
    """Append the verdict, then move on to the next claim nobody has judged yet."""
    st.session_state[session.REVIEW_JUDGED] = True
    # the note as typed: its widget's value is current before any callback runs (its own commit may run after)
    note = str(st.session_state.get(f"_w_{session.REVIEW_NOTE}", st.session_state.get(session.REVIEW_NOTE, "")))
    # The role is checked by the use case, with who is signed in now (not when the button was drawn): the one the
    # command line's `graphrag review` calls, so both check alike and leave the same audit row.
    now = actor.acting()
    cit = chosen()
    try:
        v = mark_verdict(store, now.principal, config, item.answer_id, claim.index, label, now.reviewer, note=note,
                         citation=cit.marker if cit is not None else None, adjudicate=disputes, kind=item.kind)
    except GraphRAGError as exc:
        st.session_state[session.REVIEW_ERROR] = str(exc)
        return
    st.session_state[session.REVIEW_NOTE] = st.session_state[f"_w_{session.REVIEW_NOTE}"] = ""
    here = item.key
    st.session_state[session.REVIEW_UNDO] = (
        v.id, answer.id, claim.index, f"Recorded “{v.words}” for claim {claim.index + 1} "
                                      f"of answer #{answer.id}.", time.time())
    try:
        fresh = work_queue(queue(), now.onlooker, disputes=disputes, order=keys)
    except GraphRAGError:
        return  # the verdict is stored; the page's own run reads the queue again, or says why it cannot
    st.session_state[session.REVIEW_CURRENT] = fresh.next_left(here) or END
    st.session_state[session.REVIEW_AT_END] = st.session_state[session.REVIEW_CURRENT] == END


nav = st.columns([4, 1.4, 1.1], vertical_alignment="center")  # labels whole at 1280 px
# one numbering in the line: the queue's (the claim's place in its answer heads the claim column)
nav[0].markdown(f"**Claim {pos + 1} of {len(keys)}** in the queue · {len(work.left)} left for you · "
                f"from answer #{answer.id}" + (" · in the estimate sample" if item.sample else "")
                + (" · **its cited sentence changed since the answer was verified**: judge it again"
                   if item.changed else ""))
nav[1].button("Previous", on_click=go, args=(-1,), width="stretch", key="rv_prev", icon=":material/arrow_back:",
              shortcut="B")
nav[2].button("Next", on_click=go, args=(1,), width="stretch", key="rv_next", icon=":material/arrow_forward:",
              shortcut="N")
feedback()



def name(key: str) -> str:
    return review.names.get(key, key)


def verdict_controls() -> None:
    """The three verdict buttons (in the words of the claim's kind), the note, and why the buttons may be disabled."""
    # An adjudicator holds the role for it (team mode) and gave no verdict on the claim (a party cannot settle it).
    party = disputes and review.party
    may_settle = not disputes or (board.may_adjudicate and not party)
    disabled = not me or not may_judge or not may_settle
    # No verdict is styled as the default: a highlighted "Supported" invites a click before reading the source.
    if may_judge:
        pressed = [
            st.button(kind_words[VerdictLabel.SUPPORTED].capitalize(), on_click=judge, args=(VerdictLabel.SUPPORTED,),
                      disabled=disabled, width="stretch", icon=":material/check_circle:", key="rv_supported",
                      shortcut="S"),
            st.button(kind_words[VerdictLabel.PARTIAL].capitalize(), on_click=judge, args=(VerdictLabel.PARTIAL,),
                      disabled=disabled, width="stretch", icon=":material/contrast:", key="rv_partial", shortcut="P"),
            st.button(kind_words[VerdictLabel.UNSUPPORTED].capitalize(), on_click=judge, args=(VerdictLabel.UNSUPPORTED,),
                      disabled=disabled, width="stretch", icon=":material/cancel:", key="rv_unsupported",
                      shortcut="U")]
        if any(pressed) and not judged_now:
            st.warning("That verdict was not recorded: the dashboard had restarted and drew this page again. "
                       "Judge this claim now.", icon=":material/restart_alt:")
        st.caption(keys_text(kind))
        # under the buttons, so they stay on a laptop's first screen; typed before the verdict it goes with
        st.text_input("Note (optional)", placeholder=f"Verdict by {me or '(set your name)'}",
                      help="Kept while you move in the queue or visit another page; saved with your next verdict",
                      **session.persist(session.REVIEW_NOTE))
    if not may_judge:
        st.caption(render.plain(f"Your role ({board.role}) reads the record; recording verdicts needs the "
                                "reviewer role in the access policy."))
    elif disputes and not board.may_adjudicate:
        st.caption(render.plain(f"Settling a dispute needs the adjudicator role (yours: {board.role})."))
    elif party:
        st.caption("You gave a verdict on this claim: its dispute is settled by an adjudicator who took no part.")
    elif disabled:
        st.caption("Enter your name in the sidebar to record verdicts.")
    elif disputes:
        st.caption("You are adjudicating: your verdict settles this disputed claim and is recorded as such.")


# The source is the widest column: its page picture is read there, at a legible size on a 1280-pixel screen.
col_claim, col_route, col_source = st.columns([1.0, 0.85, 1.35], gap="medium")
kind = item.kind  # the judgement asked: whether a quote answers, or whether the source backs a claim
kind_words = VERDICT_WORDS[kind]

with col_claim:
    # The claim and the verdict come first, so the buttons are on screen whatever the answer's length.
    st.markdown(f"**Claim {claim.index + 1} in its answer** · Q: {render.plain(answer.question)}")
    st.html(f'<blockquote style="margin:0 0 .4rem 0">{render.esc(renumbered(claim.text, numbers))}</blockquote>')
    st.markdown(f"**{kind.question}**", help="A verbatim quote backs itself: what a person judges is whether it "
                                             "answers the question. A claim in other words is judged on whether its "
                                             "source backs it.")
    verdict_controls()
    render.box(render.answer_html(answer.text, claim, lambda t: renumbered(t, numbers)),
               meta=f"The whole answer · Q: {render.esc(answer.question)}")
    render.badges(claim, item.verdicts, item.state)
    s = claim.support
    if ClaimFlag.VERBATIM_QUOTE in claim.flags:
        st.caption(render.plain(render.VERBATIM_NOTE))
    else:
        st.caption("Automatic check: " + render.plain(render.support_text(s)) + (f" — {render.plain(s.reason)}" if s else ""))
    # A disagreement the answer found among its cited sources, beside each claim that cites one of its sides.
    disagreements = review.disagreements
    for d in disagreements:
        render.disagreement_box(d, numbers=numbers)

cit = chosen()  # the citation the route and the source columns show; its source read once, for this viewer
source = cited_source(store, viewer, config, cit, around=render.CONTEXT_AROUND,
                      look_for_conflicts=not disagreements) if cit is not None else None

with col_route:
    st.markdown("**Route**", help="How retrieval reached the cited sentence: the entity the question names, the "
                                  "relations (or co-mentions) followed, each with the sentence that states it, "
                                  "and the cited sentence")
    if valid:
        if len(valid) > 1:
            st.segmented_control("Citation", list(range(len(valid))), key=cite_key(), default=0,
                                 format_func=lambda i: shown_marker(valid[i]),
                                 label_visibility="collapsed")
        cit = chosen()
        assert cit is not None and cit.item is not None and source is not None
        route = cit.item.route
        # Each step's sentence, read once for graph and list; a step from a document this viewer
        # may not see is a placeholder, its sentence never read.
        route_steps = source.steps
        route_names = {k: name(k) for k in route.entities()}
        words = next((s.mention for s in answer.seeds if s.entity == route.seed), "")
        drawing_height = route_height(route_steps)  # its boxes as wide as the column, its labels legible
        # The route names its claim and marker with the numbers the claim column shows.
        tag = {"marker": numbers.get(cit.item.n, cit.item.n), "claim": claim.index + 1}
        st.iframe(route_html(cit.item, route_names, route_steps, height=drawing_height, **tag),
                  height=drawing_height + 84, alt="Route graph")  # the legend: five lines in the column
        st.html(route_list_html(cit.item, route_names, route_steps, words, **tag))
        st.caption(render.plain(route_text(route, route_names)) + f" · found via {cit.item.via}")
    else:
        st.warning("This claim cites no valid source: there is no route to show.")

with col_source:
    st.markdown("**Source**")
    if cit is None or cit.item is None or source is None:
        bad = [render.marker_label(c.marker) for c in claim.citations if not c.valid]
        st.warning("No source: " + (f"marker(s) {' '.join(bad)} point past the context." if bad
                                     else "the claim has no citation marker."))
    else:
        sp = source.span
        doc, title, date, layout = source.document, source.title, source.date, source.layout
        where = f"{layout.source_text} · " if layout is not None and layout.source_text else ""
        open_document_button(sp, f"review_{sp.document_id}_{sp.version}_{sp.sentence_index}")
        if note := render.kind_note(layout):  # a caption's words are judged as a caption's
            st.caption(note)
        # The cited page, rendered on the server with the sentence boxed: first the lines around it
        # (legible in this column; the image's fullscreen button zooms), then the whole page.
        if source.pdf is not None and layout is not None:
            show_cited_pages(source.pdf, doc.sha256 if doc is not None else None, layout,
                             f"{sp.document_id}_{sp.version}_{sp.sentence_index}")
        window = source.window  # its neighbours only, and one more to tell whether the text goes on
        render.box(render.context_html(window, sp,
                                       text=doc.text if doc is not None else None),
                   meta=f"{shown_marker(cit)} <b>{render.esc(title)}</b> · version {sp.version}"
                        + (f" (in effect from {render.esc(date)})" if date else "") + f" · {render.esc(where)}"
                        f"sentence {sp.sentence_index + 1} of the document")
        st.caption(("Citation: quoted word for word" if ClaimFlag.VERBATIM_QUOTE in claim.flags
                    else f"Citation check: {render.plain(render.support_text(cit.support))}")
                   + (" · adds nothing beyond the other citations" if cit.irrelevant else ""))
        if doc is not None and doc.superseded:
            cur = source.current
            st.warning(f"Version {sp.version} is superseded"
                       + (f" by version {cur.version} (effective {render.plain(cur.effective_date or 'no date')})"
                          if cur else "") + ".", icon=":material/history:")
        # One box per disagreement: the answer's own "Sources disagree" (beside the claim) when it found one,
        # else this heuristic's, which likewise names both sides and which one is current.
        conflicts = source.conflicts
        if conflicts:
            cited_side = (f"{shown_marker(cit)} {title} v{sp.version}" + (f", in effect from {date}" if date else "")
                          + (" (superseded)" if doc is not None and doc.superseded else " (current)") + ", cited")
            render.warn_box(
                "Possible conflict — another current document mentions the same entities with a different number:",
                [(cited_side, sp.text)] + [
                    (f"{c.document.title} v{c.document.version}, effective {c.document.effective_date or 'no date'}"
                     " (current)", c.span.text) for c in conflicts])

history = review.history  # blind review: the core's one rule
with st.expander(f"Verdict history for this claim ({len(history)})", expanded=False):
    if history:
        render.table(pd.DataFrame([{
            "time": h.created_at, "reviewer": h.reviewer, "role": h.role, "question": h.kind.question,
            "verdict": h.words,
            "citation": h.marker, "document": f"{h.document_id} v{h.version}" if h.document_id else "",
            "note": h.note, "stale": "source removed" if h.source_removed else
            "stale: document superseded" if h.stale else "", "tampered": h.tampered,
            # carry-over: judged on another answer with the same words and sentence, or kept by a newer version
            "from": f"answer {h.carried_answer}" if h.carried_from else
            f"kept in v{h.kept_in_version}" if h.kept_in_version else "",
        } for h in history]), hide_index=True, width="stretch")
    else:
        st.caption("No verdicts yet.")

unanswered_note()
with st.expander(f"Queue ({counted(len(items), 'claim')})"):
    render.table(pd.DataFrame([{
        "answer": q.answer_id, "claim": q.claim_index + 1, "text": q.text,
        "score": q.score, "flags": ", ".join(render.FLAG_TEXT.get(f, f.value) for f in q.flags),
        "verdicts": ", ".join(f"{x.reviewer}: {x.words}" + (" (stale)" if x.stale else "")
                              + (f" ({x.tampered})" if x.tampered else "") for x in q.verdicts),
    } for q in items]), hide_index=True, width="stretch")
