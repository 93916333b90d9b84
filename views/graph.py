"""Graph: find an entity, see every visible mention and relation, and its neighbourhood."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import actor, render, resources, session
from graphrag.answer import load_graph, opening_entity, relation_counts, search_entities, visible_themes
from graphrag.language.sentences import counted
from graphrag.present import (
    cited_in_order,
    display_numbers,
    graph_entity,
    neighbourhood,
    neighbourhood_html,
    route_height,
    route_html,
    route_list_html,
    route_steps,
    route_text,
)
from graphrag.verify import load_answer, visible_to

WIDE = {"sentence": st.column_config.TextColumn(width="large")}
GRAPH_HEIGHT = 620  # pixels of the neighbourhood canvas
# How many entities the neighbourhood draws: 25 keeps every label readable; more on request.
NODE_LIMITS = (25, 60, 150)

st.title("Graph")
store = resources.store()
viewer = actor.require_role("viewer", "browse the graph")
kg = load_graph(store)
counts = relation_counts(kg, viewer)  # the visible entities, each with its visible relations
if not counts:
    st.info("No entities visible: the store is empty or your access labels match no document. "
            "Ingest documents, or add labels in the sidebar.")
    st.stop()

# Open on the most connected entity of the last answer (else of the whole graph), not the first by name: a
# fresh visit, or a new answer since the last one, moves the picker there.
answer_id = st.session_state.get(session.ANSWER_ID)
answer = load_answer(store, answer_id) if answer_id is not None else None
if answer is not None and not visible_to(answer, viewer, store):
    answer = None
if session.GRAPH_ENTITY not in st.session_state or st.session_state.get(session.GRAPH_OPENED_FOR) != answer_id:
    st.session_state[session.GRAPH_OPENED_FOR] = answer_id
    st.session_state[session.GRAPH_ENTITY] = opening_entity(counts, answer)
    st.session_state[session.GRAPH_QUERY] = ""

c = st.columns([2, 3])
query = c[0].text_input("Find an entity", key=session.GRAPH_QUERY, placeholder="e.g. export",
                        help="The exact name comes first, then names that start with it, then names that contain "
                             "it; the most connected first within each")
names = ((kg.names[kg.index[k]], k) for k in counts)
matches = search_entities(names, query, counts)
if not matches:
    st.warning(f"No visible entity matches “{render.plain(query)}”.")
    st.stop()
if st.session_state.get(session.GRAPH_LAST_QUERY) != query or st.session_state.get(session.GRAPH_ENTITY) not in matches:
    st.session_state[session.GRAPH_LAST_QUERY] = query
    if query.strip() or st.session_state.get(session.GRAPH_ENTITY) not in matches:
        st.session_state[session.GRAPH_ENTITY] = matches[0]  # a new search opens on its best match
key = c[1].selectbox(f"Entity ({len(matches)} match{'es' if len(matches) != 1 else ''})", matches,
                     format_func=lambda k: f"{kg.names[kg.index[k]]} · {counted(counts[k], 'relation')}",
                     key=session.GRAPH_ENTITY)
shown = graph_entity(store, viewer, resources.config(), key)  # superseded mentions and relations listed, marked
if shown is None:
    st.stop()
entity, mentions, relations = shown.view.entity, list(shown.view.entity.mentions), list(shown.view.relations)
st.subheader(render.plain(entity.name), anchor=False)
# "unknown": the extractor's labels for this name disagreed or were a guess (one mention), so none is shown as fact.
kind = "type not known" if entity.type == "unknown" else f"type {render.plain(entity.type)}"
st.caption(f"{kind} · {counted(len(mentions), 'mention')} · "
           f"{counted(len(relations), 'relation')} (superseded versions marked)")

# The last answer's routes come first: how retrieval went from the question's entity to each cited sentence, [1]
# first, numbered as the Ask page numbers them.
cited = cited_in_order(answer) if answer is not None else []
titles = ["Neighbourhood", f"Mentions ({len(mentions)})", f"Relations ({len(relations)})"]
tabs = st.tabs(([f"Route of answer #{answer_id}"] if cited else []) + titles)
tab_g, tab_m, tab_r = tabs[-3:]
if cited and answer is not None:
    with tabs[0]:
        numbers = display_numbers(answer)  # the numbers the Ask page showed
        pick = st.selectbox("Cited sentence", range(len(cited)), key=f"graph_route_{answer_id}",
                            format_func=lambda i: f"[{numbers.get(cited[i].n, cited[i].n)}] "
                                                  f"{cited[i].span.text[:90]}")
        item = cited[pick]
        steps = route_steps(store, viewer, resources.config(), item.route)
        route_names = {k: kg.names[kg.index[k]] if k in kg.index else k for k in item.route.entities()}
        words = next((sd.mention for sd in answer.seeds if sd.entity == item.route.seed), "")
        height = route_height(steps)
        st.caption(render.plain(f"Q: {answer.question}"))
        st.iframe(route_html(item, route_names, steps, height=height, marker=numbers.get(item.n, item.n)),
                  height=height + 56, alt="Route graph")
        st.html(route_list_html(item, route_names, steps, words, marker=numbers.get(item.n, item.n)))
        st.caption(render.plain(route_text(item.route, route_names)) + f" · found via {item.via}")
with tab_m:
    render.table(pd.DataFrame([{
        "document": m.span.document_id, "version": m.span.version,
        "superseded": m.superseded, "sentence": m.span.text, "description": m.description,
        "implied": m.implied, "extractor": m.extractor,
    } for m in mentions]), hide_index=True, width="stretch", column_config=WIDE)
with tab_r:
    names_of = shown.names
    render.table(pd.DataFrame([{
        "source": names_of.get(r.source, r.source), "relation": r.type, "target": names_of.get(r.target, r.target),
        "document": r.span.document_id, "version": r.span.version, "superseded": r.superseded,
        "sentence": r.span.text,
    } for r in relations]), hide_index=True, width="stretch", column_config=WIDE)

with tab_g:  # the drawing takes the page's whole width: a neighbourhood needs room to spread its labels
    f = st.columns([1, 2, 2, 1.5, 1])
    hops = f[0].radio("Hops", [1, 2], horizontal=True, key="graph_hops")
    limit = f[4].selectbox("Show up to", NODE_LIMITS, key="graph_limit", format_func=lambda n: f"{n} entities",
                           help="More entities draw a wider neighbourhood; past about 25 the labels crowd")
    old = f[3].checkbox("Include superseded versions", key="graph_superseded",
                        help="Also follow relations from superseded document versions")
    by_theme = f[3].checkbox("Colour by theme", key="graph_by_theme",
                             help="Fill each entity with the colour of its theme (the Themes list below)")
    around = neighbourhood(kg, key, viewer, hops=hops, include_superseded=old)
    types = sorted({e[3] for e in around.edges})
    doc_ids = sorted({e[4] for e in around.edges})
    for k, opts in ((session.GRAPH_TYPES, types), (session.GRAPH_DOCS, doc_ids)):  # drop picks the new hop count lacks
        st.session_state[k] = [x for x in st.session_state.get(k, []) if x in opts]
    want_types = f[1].multiselect("Relation types", types, key=session.GRAPH_TYPES, placeholder="all")
    want_docs = f[2].multiselect("Documents", doc_ids, key=session.GRAPH_DOCS, placeholder="all")
    nb = neighbourhood(kg, key, viewer, hops=hops, relation_types=want_types or None, documents=want_docs or None,
                       include_superseded=old, max_nodes=limit)
    if nb.truncated:
        st.caption(f"Showing the {limit} nearest entities: more with “Show up to”.")
    if not nb.edges:
        st.caption("No visible relation touches this entity: it is only mentioned. Its mentions are listed in the "
                   "next tab.")
    theme_of = visible_themes(store, kg, viewer)[1] if by_theme else None
    st.iframe(neighbourhood_html(nb, {k: kg.names[kg.index[k]] for k in nb.depth}, height=GRAPH_HEIGHT,
                                 themes=theme_of),
              height=GRAPH_HEIGHT + 35, alt="Neighbourhood graph")

# Themes: communities of the entities you can see, the largest first; open one for its most representative sentences.
st.subheader("Themes", anchor=False)
themes, _ = visible_themes(store, kg, viewer)
if not themes:
    st.caption("The documents you can see name too few things together to group into themes.")
for t in themes:
    theme_names = render.plain(", ".join(t.label))  # entity names come from the documents: never live Markdown
    with st.expander(f"Theme {t.number + 1}: {theme_names} · {counted(len(t.entities), 'entity', 'entities')} · "
                     f"{counted(len(t.documents), 'document')}"):
        st.caption(render.plain("Documents: " + ", ".join(t.documents)))
        st.caption(render.plain("Entities: " + ", ".join(kg.names[kg.index[k]] for k in t.entities[:30])
                                + (" …" if len(t.entities) > 30 else "")))
        render.table(pd.DataFrame([{"document": sp.document_id, "version": sp.version, "sentence": sp.text}
                                   for sp in t.sentences]), hide_index=True, width="stretch", column_config=WIDE)
