"""Ask: a question (retrieval settings folded away), and an answer with one status in words, its markers numbered
in reading order, and under each claim the sentences it cites, the words it takes from them marked."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import actor, render, resources, session
from dashboard.document_viewer import open_document_button
from graphrag.answer import answer_question
from graphrag.errors import GraphRAGError
from graphrag.model import (
    Answer,
    AnswerStatus,
    AskSettings,
    Claim,
    ClaimFlag,
    Verdict,
    VerdictLabel,
    asked_kind,
)
from graphrag.present import (
    AnswerSources,
    answer_html,
    answer_sources,
    ask_scope,
    changes_scope,
    cited_words,
    citing_claims,
    closest_passages,
    display_numbers,
    has_documents,
    offers_scope,
    offers_themes,
    quoted_documents,
    renumbered,
    route_text,
)
from graphrag.verify import (
    ClaimState,
    ClaimStatus,
    StandingKind,
    answer_for,
    answer_standing,
    claim_state,
    load_answer,
    review_policy,
    visible_current,
    visible_to,
)

MODES = {"local": "From the nearest sentences", "themes": "Themes", "changes": "What changed"}
# An answer's standing with its reviewers (graphrag.verify.standing), coloured as the page colours what review found.
STANDING_COLOURS: dict[StandingKind, render.BadgeColour] = {
    StandingKind.VERIFIED: "green", StandingKind.PARTLY_VERIFIED: "orange", StandingKind.DISPUTED: "red",
    StandingKind.CONTRADICTED: "red", StandingKind.SOURCE_CHANGED: "orange", StandingKind.NOT_REVIEWED: "blue"}
ASK_FRESH = "ask_fresh"  # set by "Ask afresh": the next ask answers anew instead of reusing a verified answer
ASK_EARLIER = "ask_earlier"  # the ask's earlier verified answer (reused, or outdated): (answer shown, words, outdated)

st.title("Ask")
store = resources.store()
viewer = actor.require_role("viewer", "ask questions")

# How the question is answered and from which documents come first, outside the form: the page says at once what
# a choice needs ("what changed" a scope of two), never only in red after the click.
# A global question is answered theme by theme from the graph's communities; "what changed" compares the two
# documents (or one document's two newest versions) chosen below.
mode = st.radio("Answer", list(MODES), key="ask_mode", horizontal=True, format_func=MODES.__getitem__,
                help="From the nearest sentences: a question about something the documents say. Themes: a "
                     "question about the documents as a whole (“What are these documents about?”), one cited "
                     "statement per theme. What changed: choose two documents, or one with an older version, "
                     "below")
# Scope: only these documents are read (inside retrieval, like the access labels); none chosen: all.
scope_docs = ask_scope(store, viewer, resources.config())  # id -> title, the documents this viewer sees
scope = st.multiselect("Only these documents", list(scope_docs), key=session.ASK_DOCUMENTS,
                       format_func=lambda i: f"{scope_docs.get(i, i)} ({i})", placeholder="All documents you can see",
                       help="Answer only from the chosen documents; leave empty to use every document you can see")
needs = (changes_scope(store, viewer, resources.config(), [d for d in scope if d in scope_docs])
         if mode == "changes" else None)
if needs:
    st.info(render.plain(needs), icon=":material/compare_arrows:")

with st.form("ask_form", border=False):
    # the hint reads as a hint, not as a question already typed
    st.text_area("Question", height=68, **session.persist(session.QUESTION, callback=False),
                 placeholder="Type your question here, for example: How long are exports kept after cancellation?")
    # How retrieval walks the graph and which model writes: the defaults answer well, so they stay folded.
    with st.expander("Retrieval settings", expanded=False):
        c = st.columns([1, 1, 1.2, 1.4, 1.8, 1.6])
        k = c[0].number_input("Seeds (k)", 1, 20, 3, key="ask_k",
                              help="Routes start at the entities the question names; k similarity seeds are used "
                                   "only when it names none the graph knows")
        hops = c[1].number_input("Hops", 0, 4, 2, key="ask_hops")
        direction = c[2].selectbox("Direction", ["both", "out"], key="ask_direction",
                                   help="both: follow relations either way; out: only as extracted")
        c[3].selectbox("Generator", ["extractive", "ollama"], **session.persist(session.GENERATOR, callback=False))
        c[4].text_input("Ollama model", help="Used when the generator is ollama",
                        **session.persist(session.GENERATE_MODEL, callback=False))
        superseded = c[5].checkbox("Use superseded versions", key="ask_superseded")
    asked = st.form_submit_button("Ask", type="primary", disabled=needs is not None,
                                  help=needs or None)
# Folded settings still act: any that differ from their defaults are named beside the labels.
changed = [f"{name} {value}" for name, value, default in (
    ("seeds", k, 3), ("hops", hops, 2), ("direction", direction, "both"),
    ("generator", st.session_state[session.GENERATOR], "extractive"),
    ("superseded versions", "used" if superseded else "not used", "not used")) if value != default]
st.caption("Access labels: " + render.plain(", ".join(actor.access()) or "none")
           + (" (from the access policy)" if viewer.team else " (change them in the sidebar)")
           + (" · retrieval settings: " + render.plain(", ".join(changed)) if changed else ""))

# "Ask only in <document>" (under an answer whose quotes come from several documents) set the scope: ask again.
asked = st.session_state.pop(session.ASK_SCOPED, False) or asked
if asked:
    session.commit(session.QUESTION, session.GENERATOR, session.GENERATE_MODEL)
question = str(st.session_state[session.QUESTION])
# An empty box is not asked, and is no error either (it is also what the form submits when the browser's text was
# lost): the page says what is needed.
if asked and not question.strip():
    st.info("Nothing was asked: the question box is empty. Type a question, then press Ask.", icon=":material/edit:")
elif asked:
    if not has_documents(store, viewer, resources.config()):
        st.warning("The store is empty: ingest documents first (Ingest page).")
    elif not actor.access():
        st.warning("Choose at least one access label in the sidebar: with none, no document is visible.")
    else:
        generator = st.session_state[session.GENERATOR]
        settings = AskSettings(k=int(k), hops=int(hops), direction=direction, access=actor.access(),
                               include_superseded=superseded, generator=generator,
                               documents=tuple(d for d in scope if d in scope_docs), mode=mode,
                               generator_model=(st.session_state[session.GENERATE_MODEL] or None)
                               if generator == "ollama" else None)
        try:
            with st.spinner("Retrieving, answering and checking support…"):
                outcome = answer_question(store, actor.principal(), resources.config(), question, settings,
                                          asker=resources.asker(),
                                          fresh=st.session_state.pop(ASK_FRESH, False))
            st.session_state[session.ANSWER_ID] = outcome.answer.id
            # a verified answer given again, or named as outdated beside a fresh one: said above the answer
            st.session_state[ASK_EARLIER] = None if outcome.earlier is None else (
                outcome.answer.id, outcome.earlier.words, outcome.earlier.outdated)
            st.session_state[session.ANSWER_WARNINGS] = list(outcome.warnings)
            st.session_state[session.ANSWER_SEARCH_NOTE] = outcome.search_note
        except GraphRAGError as exc:
            st.error(render.plain(exc))
            # the answer shown before is not this question's: it would read as the answer under the error
            for key in (session.ANSWER_ID, session.ANSWER_WARNINGS, session.ANSWER_SEARCH_NOTE):
                st.session_state.pop(key, None)
        else:
            st.rerun()  # so the sidebar's counts, drawn before this page, include the new answer


def scope_to(document: str) -> None:
    """Ask the same question again, only in ``document`` (a button's callback: it runs before the widgets)."""
    st.session_state[session.ASK_DOCUMENTS] = [document]
    st.session_state[session.ASK_SCOPED] = True


def show_unanswered(answer: Answer, sources: AnswerSources) -> None:
    """An answer saying the documents do not answer: the words, and the closest passages as passages (no claim,
    nothing to review)."""
    st.badge("not answered · the documents do not say" if answer.settings.mode == "local" else "nothing to compare",
             color="gray", icon=":material/block:")
    render.box(render.esc(answer.text), meta=f"Question: {render.esc(answer.question)}"
               + (f" · only from: {render.esc(', '.join(answer.settings.documents))}" if answer.settings.documents
                  else ""))
    passages = closest_passages(answer)
    if passages:
        st.caption("The closest passages, for you to read: they do not answer the question, so they are not claims "
                   "and nothing goes to the review queue.")
        for c in passages:
            title = sources.title(c.span.document_id, c.span.version)
            render.box(render.esc(" ".join(c.span.text.split())),
                       meta=f"<b>{render.esc(title)}</b> · v{c.span.version}")


def by_themes() -> None:
    """Ask the same question again, answered by themes (a button's callback: it runs before the widgets)."""
    st.session_state["ask_mode"] = "themes"
    st.session_state[session.ASK_SCOPED] = True


def offer_themes(answer: Answer) -> None:
    """Under an answer from the nearest sentences to a question that may be about the documents as a whole: the
    themes answer, one click away."""
    if not offers_themes(answer):
        return
    st.caption("This question may be about the documents as a whole: the themes answer quotes what each theme of "
               "them says.")
    st.button("Answer by themes", key="ask_by_themes", on_click=by_themes, icon=":material/hub:")


def offer_scope(answer: Answer, sources: AnswerSources) -> None:
    """When the quotes come from several documents: which ones, and a button to ask only in each."""
    docs = list(dict.fromkeys(d for d, _ in quoted_documents(answer)))
    titles = {d: sources.title(d, v) for d, v in quoted_documents(answer)}
    st.caption(render.plain(f"The quotes come from {len(docs)} documents: " + ", ".join(titles[d] for d in docs)
                            + ". Each quote names its document below; to answer from one of them only:"))
    with st.container(horizontal=True, gap="small"):
        for d in docs:
            st.button(f"Ask only in {titles[d]}", key=f"scope_{d}", on_click=scope_to, args=(d,),
                      icon=":material/filter_alt:")


def ask_afresh() -> None:
    """Ask the same question again, answered anew (a button's callback: it runs before the widgets)."""
    st.session_state[ASK_FRESH] = True
    st.session_state[session.ASK_SCOPED] = True


def show_earlier(answer: Answer) -> None:
    """Above an answer given again because reviewers verified it: so it says, with a way to ask afresh; above a fresh
    answer whose question had a verified answer since outdated: that answer and the sentence that changed."""
    earlier = st.session_state.get(ASK_EARLIER)
    if not earlier or earlier[0] != answer.id:
        return
    _, words, outdated = earlier
    if outdated:
        st.warning(render.plain(words), icon=":material/update:")
        return
    st.success(render.plain(words), icon=":material/verified:")
    st.button("Ask afresh", key="ask_afresh", on_click=ask_afresh, icon=":material/refresh:",
              help="Answer the question anew from the documents, instead of giving the verified answer again")


def show(answer: Answer, warnings: list[str]) -> None:
    sources = answer_sources(store, viewer, resources.config(), answer)
    names = sources.names
    numbers = display_numbers(answer)  # [1], [2], ... in reading order; the store keeps retrieval's numbers
    policy = review_policy(store)
    current = visible_current(store, actor.viewer_for_review(), answer.id, policy)  # blind review applies
    # each claim with the verdicts of the judgement it is asked (whether a quote answers; whether a source backs)
    judged = {c.index: [v for v in current if v.claim_index == c.index and v.kind == asked_kind(c.flags)]
              for c in answer.claims}
    states = {i: claim_state(vs, policy) for i, vs in judged.items()}
    head = st.columns([3, 1])  # wide enough for "Review this answer" at 1280 with the sidebar open
    head[0].subheader(f"Answer #{answer.id}")
    if answer.claims and head[1].button("Review this answer", type="primary", icon=":material/fact_check:",
                                        key="to_review"):
        st.session_state[session.PENDING_REVIEW_ANSWER] = answer.id
        st.session_state.pop(session.REVIEW_CURRENT, None)
        st.switch_page("views/review.py")
    note = st.session_state.get(session.ANSWER_SEARCH_NOTE)
    if not answer.answered and answer.text:
        for w in warnings:
            st.warning(render.plain(w))
        if note:  # the database's index still building: the search was exact, only slower
            st.caption(render.plain(note))
        show_unanswered(answer, sources)
        offer_themes(answer)
        return
    show_earlier(answer)
    if answer.claims:
        # what the automatic check did, then the answer's standing with its reviewers, in the words every surface uses
        standing = answer_standing(store, answer, actor.viewer_for_review(), policy=policy, current=current)
        flagged = any(f in render.PROBLEM_FLAGS for c in answer.claims for f in c.flags)
        colour = STANDING_COLOURS.get(standing.kind, "gray")
        st.badge(render.plain(f"{render.automatic_check(answer.claims)}; {standing.words}"),
                 color="orange" if flagged and standing.kind is StandingKind.NOT_REVIEWED else colour)
    else:
        st.badge("no answer", color="gray")
    for w in warnings:
        st.warning(render.plain(w))
    if note:
        st.caption(render.plain(note))
    if not answer.text:
        st.info("No answer: nothing visible to you is about this question. Rephrase it, add access labels in the "
                "sidebar, or ingest the documents that answer it.")
        return
    # a theme answer's blocks as blocks, its quotes as a list under each theme's name
    render.box(answer_html(renumbered(answer.text, numbers)), meta=f"Question: {render.esc(answer.question)}"
               + (f" · only from: {render.esc(', '.join(answer.settings.documents))}" if answer.settings.documents
                  else ""))
    for d in answer.disagreements:
        render.disagreement_box(d, numbers=numbers)
    if offers_scope(answer):
        offer_scope(answer, sources)
    offer_themes(answer)
    anchors = ", ".join(names.get(s.entity, s.entity) for s in answer.seeds)
    if answer.seeding.value == "theme":
        st.caption(render.plain(f"Each theme quotes the sentences that best represent it (a community of the "
                                f"graph's entities, named by the key phrases of its sentences): {anchors}"))
    else:
        st.caption(render.plain(f"Routes start at entities the question names: {anchors}"
                                if answer.seeding.value == "question"
                                else f"The question names nothing the graph knows: routes start from the entities of "
                                     f"the most similar sentences ({anchors})"))
    for claim in answer.claims:
        with st.container(border=True):
            show_claim(claim, numbers, states[claim.index], judged[claim.index], sources)
    citing = citing_claims(answer)  # by the numbers written above the claims: a route is found by its claim
    with st.expander("Context items and seeds"):
        st.caption("Every sentence retrieval gave the generator, numbered as in the answer (the ones it cites first), "
                   "with the claims that cite it and the route that reached it.")
        render.table(pd.DataFrame([{
            "n": numbers[c.n], "claims": ", ".join(map(str, citing.get(c.n, []))),
            "document": c.span.document_id, "version": c.span.version, "superseded": c.superseded,
            "sentence": c.span.text, "score": c.score, "via": c.via, "route": route_text(c.route, names),
        } for c in sorted(answer.context, key=lambda c: numbers[c.n])]), hide_index=True, width="stretch")
        render.table(pd.DataFrame([{"start": names.get(s.entity, s.entity), "score": s.score, "how": s.how or "similarity",
                                    "question words": s.mention} for s in answer.seeds]), hide_index=True)


def show_claim(claim: Claim, numbers: dict[int, int], state: ClaimState, verdicts: list[Verdict],
               sources: AnswerSources) -> None:
    """A claim, what review and the automatic check say of it, then each cited sentence under it: the
    document, where in it, and the sentence with the words the claim takes from it marked."""
    render.box(render.esc(claim.text), meta=f"Claim {claim.index + 1}")
    problems = [f for f in claim.flags if f in render.PROBLEM_FLAGS]
    review = render.claim_review(state, verdicts)
    if problems or review:
        with st.container(horizontal=True, gap="small"):
            if review:
                st.badge(render.plain(review), color="red" if state.status == ClaimStatus.DISPUTED or any(
                    v.verdict == VerdictLabel.UNSUPPORTED for v in verdicts) else "green")
            for f in problems:
                st.badge(render.FLAG_TEXT.get(f, f.value), icon=":material/flag:",
                         color="orange" if f == ClaimFlag.LOW_SUPPORT else "red")
    if not claim.citations:
        st.caption("Cites no source.")
    for j, cit in enumerate(claim.citations):
        if cit.item is None:
            st.caption(f"Marker {render.marker_label(cit.marker)} points at no source the answer was given.")
            continue
        sp = cit.item.span
        layout = sources.layout(sp)
        title = sources.title(sp.document_id, sp.version)
        meta = (f"[{numbers[cit.item.n]}] <b>{render.esc(title)}</b> · v{sp.version}"
                + (f" · {render.esc(layout.source_text)}" if layout is not None and layout.source_text else "")
                + (" · <b>superseded</b>" if cit.item.superseded else "")
                + (" · adds nothing beyond the other citations" if cit.irrelevant else ""))
        render.box(render.marked_html(sp.text, cited_words(sp.text, claim.text)), meta=meta)
        open_document_button(sp, f"ask_{claim.index}_{j}")


answer_id = st.session_state.get(session.ANSWER_ID)
answer = load_answer(store, answer_id) if answer_id is not None else None  # its badge: verified or not
# the team may hold unverified answers back from readers (graphrag.verify.held): asked again at every rerun
held = answer_for(store, viewer, resources.config(), answer) if answer is not None else None
if answer is not None and not visible_to(answer, viewer, store):
    st.info("This answer drew on documents outside your current access labels; it is hidden.")
elif held is not None:
    st.subheader(f"Answer #{held.answer_id}")
    st.badge(held.badge, color="orange", icon=":material/hourglass_top:")
    st.info(render.plain(f"Q: {held.question}"))
    st.info(render.plain(held.words), icon=":material/lock_clock:")
    st.button("Check again", key="ask_held_check", icon=":material/refresh:")
elif answer is not None and answer.status == AnswerStatus.WITHDRAWN:
    # Nothing of a removed document is shown: not its sentences, nor claims that may quote them.
    st.subheader(f"Answer #{answer.id}")
    st.badge("withdrawn · source removed", color="gray")
    st.info(render.plain(f"Q: {answer.question}"))
    st.warning("A document this answer drew on was removed, so the answer was withdrawn: its text, claims and "
               "routes are no longer kept. The verdicts given on it stay in the verification record (the export "
               "marks them “source removed”). Ask again to answer from the documents that remain.",
               icon=":material/delete:")
elif answer is not None:
    show(answer, st.session_state.get(session.ANSWER_WARNINGS, []))
elif not has_documents(store, viewer, resources.config()):
    st.info("The store is empty: ingest documents on the Ingest page first.")
