"""Ask: a question, the settings, and an answer whose every claim shows its citations and status."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import actor, render, resources, session
from graphrag.access import Access
from graphrag.answer import answer_question, load_graph
from graphrag.errors import GraphRAGError
from graphrag.model import Answer, AnswerStatus, AskSettings, Claim, ClaimFlag
from graphrag.present import route_text
from graphrag.verify import claim_state, load_answer, review_policy, visible_current, visible_to

st.title("Ask")
store = resources.store()
viewer = actor.require_role("viewer", "ask questions")

with st.form("ask_form", border=False):
    st.text_area("Question", height=68, **session.persist(session.QUESTION, callback=False), placeholder="How long are exports kept after cancellation?")
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
    # Scope: only these documents are read (inside retrieval, like the access labels); none chosen: all.
    viewer_access = Access.of(actor.access())
    scope_docs = {d.id: d.title for d in load_graph(store).docs if viewer_access.sees(d.access, d.superseded)}
    scope = st.multiselect("Only these documents", list(scope_docs), key="ask_documents",
                           format_func=lambda i: f"{scope_docs.get(i, i)} ({i})", placeholder="All documents you can see",
                           help="Answer only from the chosen documents; leave empty to use every document you can see")
    asked = st.form_submit_button("Ask", type="primary")
st.caption("Access labels: " + render.plain(", ".join(actor.access()) or "none")
           + (" (from the access policy)" if viewer.team else " (change them in the sidebar)"))

if asked:
    session.commit(session.QUESTION, session.GENERATOR, session.GENERATE_MODEL)
    question = st.session_state[session.QUESTION]
    if not store.counts()["versions"]:
        st.warning("The store is empty: ingest documents first (Ingest page).")
    elif not actor.access():
        st.warning("Choose at least one access label in the sidebar: with none, no document is visible.")
    else:
        generator = st.session_state[session.GENERATOR]
        settings = AskSettings(k=int(k), hops=int(hops), direction=direction, access=actor.access(),
                               include_superseded=superseded, generator=generator,
                               documents=tuple(d for d in scope if d in scope_docs),
                               generator_model=(st.session_state[session.GENERATE_MODEL] or None)
                               if generator == "ollama" else None)
        try:
            with st.spinner("Retrieving, answering and checking support…"):
                outcome = answer_question(store, actor.principal(), resources.config(), question, settings,
                                          asker=resources.asker(resources.store_path()))
            st.session_state[session.ANSWER_ID] = outcome.answer.id
            st.session_state[session.ANSWER_WARNINGS] = list(outcome.warnings)
        except GraphRAGError as exc:
            st.error(render.plain(exc))
        else:
            st.rerun()  # so the sidebar's counts, drawn before this page, include the new answer


def show(answer: Answer, warnings: list[str]) -> None:
    names = store.entity_names()
    head = st.columns([4, 1])
    head[0].subheader(f"Answer #{answer.id}")
    if answer.claims and head[1].button("Review this answer", type="primary", icon=":material/fact_check:",
                                        key="to_review"):
        st.session_state[session.PENDING_REVIEW_ANSWER] = answer.id
        st.session_state.pop(session.REVIEW_CURRENT, None)
        st.switch_page("views/review.py")
    if answer.claims:
        st.badge(answer.status.value,
                 color=render.STATUS_COLOURS.get(answer.status.value, "gray"))
    else:
        st.badge("no answer", color="gray")
    for w in warnings:
        st.warning(render.plain(w))
    if not answer.text:
        st.info("No answer: nothing visible to you is about this question. Rephrase it, add access labels in the "
                "sidebar, or ingest the documents that answer it.")
        return
    render.box(render.answer_html(answer.text), meta=f"Question: {render.esc(answer.question)}"
               + (f" · only from: {render.esc(', '.join(answer.settings.documents))}" if answer.settings.documents
                  else ""))
    for d in answer.disagreements:
        render.disagreement_box(d)
    anchors = ", ".join(names.get(s.entity, s.entity) for s in answer.seeds)
    st.caption(render.plain(f"Routes start at entities the question names: {anchors}" if answer.seeding.value == "question"
                            else f"The question names nothing the graph knows: routes start from the entities of the "
                                 f"most similar sentences ({anchors})"))
    policy = review_policy(store)
    current = visible_current(store, actor.viewer_for_review(), answer.id, policy)  # blind review applies
    for claim in answer.claims:
        with st.container(border=True):
            left, right = st.columns([3, 2])
            with left:
                render.box(render.esc(claim.text))
                mine = [v for v in current if v.claim_index == claim.index]
                # Blind review: badge and state come from the verdicts this viewer may see, nothing else.
                render.badges(claim, mine, claim_state(mine, policy))
            with right:
                options = list(range(len(claim.citations)))
                if not options:
                    st.caption("No citation.")
                    continue
                def marker(i: int, cl: Claim = claim) -> str:
                    return render.marker_label(cl.citations[i].marker)

                pick = st.pills("Citations", options, key=f"cite_{answer.id}_{claim.index}", format_func=marker)
                if pick is None:
                    st.caption("Click a marker to see the sentence it cites.")
                    continue
                cit = claim.citations[pick]
                if cit.item is None:
                    st.error(f"Marker {render.marker_label(cit.marker)} does not point at any context item.")
                    continue
                sp = cit.item.span
                doc = store.document(sp.document_id, sp.version)
                layout = store.layout(sp.document_id, sp.version, sp.sentence_index)
                meta = (f"{render.esc(doc.title if doc else sp.document_id)} · v{sp.version}"
                        + (f" · {render.esc(layout.location_text)}" if layout is not None and layout.location_text
                           else "")
                        + (" · <b>superseded</b>" if cit.item.superseded else "")
                        + f" · chars {sp.start}–{sp.end}")
                render.box(f"<mark>{render.esc(sp.text)}</mark>", meta=meta)
                st.caption((render.plain(render.VERBATIM_NOTE) if ClaimFlag.VERBATIM_QUOTE in claim.flags
                            else f"Support: {render.support_text(cit.support)}")
                           + (" · irrelevant citation" if cit.irrelevant else ""))
    with st.expander("Context items and seeds"):
        st.dataframe(pd.DataFrame([{
            "n": c.n, "document": c.span.document_id, "version": c.span.version, "superseded": c.superseded,
            "sentence": c.span.text, "score": c.score, "via": c.via, "route": route_text(c.route, names),
        } for c in answer.context]), hide_index=True, width="stretch")
        st.dataframe(pd.DataFrame([{"start": names.get(s.entity, s.entity), "score": s.score, "how": s.how or "similarity",
                                    "question words": s.mention} for s in answer.seeds]), hide_index=True)


answer_id = st.session_state.get(session.ANSWER_ID)
answer = load_answer(store, answer_id) if answer_id is not None else None  # its badge: verified or not
if answer is not None and not visible_to(answer, actor.access(), store):
    st.info("This answer drew on documents outside your current access labels; it is hidden.")
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
elif not store.counts()["versions"]:
    st.info("The store is empty: ingest documents on the Ingest page first.")
