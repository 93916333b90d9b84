"""Graph: find an entity, see every visible mention and relation, and its neighbourhood."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import actor, render, resources
from graphrag.answer import load_graph, visible_entity
from graphrag.present import neighbourhood, neighbourhood_html
from graphrag.text import counted

WIDE = {"sentence": st.column_config.TextColumn(width="large")}

st.title("Graph")
store = resources.store()
actor.require_role("viewer", "browse the graph")
access = actor.access()
kg = load_graph(store)
_, visible_entities = kg.visibility(access, include_superseded=True)
visible = sorted((kg.names[i], kg.keys[i]) for i in range(len(kg.keys)) if visible_entities[i])
if not visible:
    st.info("No entities visible: the store is empty or your access labels match no document. "
            "Ingest documents, or add labels in the sidebar.")
    st.stop()

c = st.columns([2, 3])
query = c[0].text_input("Find an entity", key="graph_query", placeholder="e.g. export")
q = query.strip().lower()
matches = [(n, k) for n, k in visible if q in n.lower() or q in k] if q else visible
if not matches:
    st.warning(f"No visible entity matches “{render.plain(query)}”.")
    st.stop()
key = c[1].selectbox(f"Entity ({len(matches)} match{'es' if len(matches) != 1 else ''})", [k for _, k in matches],
                     format_func=lambda k: kg.names[kg.index[k]], key="graph_entity")
view = visible_entity(store, key, access)  # superseded mentions and relations are listed, marked
if view is None:
    st.stop()
entity, mentions, relations = view.entity, list(view.entity.mentions), list(view.relations)
st.subheader(render.plain(entity.name), anchor=False)
st.caption(f"type {render.plain(entity.type)} · {counted(len(mentions), 'mention')} · "
           f"{counted(len(relations), 'relation')} (superseded versions marked)")

left, right = st.columns([1, 1], gap="large")
with left:
    tab_m, tab_r = st.tabs([f"Mentions ({len(mentions)})", f"Relations ({len(relations)})"])
    with tab_m:
        st.dataframe(pd.DataFrame([{
            "document": m.span.document_id, "version": m.span.version,
            "superseded": m.superseded, "sentence": m.span.text, "description": m.description,
            "implied": m.implied, "extractor": m.extractor,
        } for m in mentions]), hide_index=True, width="stretch", column_config=WIDE)
    with tab_r:
        names = {k: kg.names[i] for k, i in kg.index.items()}
        st.dataframe(pd.DataFrame([{
            "source": names.get(r.source, r.source), "relation": r.type, "target": names.get(r.target, r.target),
            "document": r.span.document_id, "version": r.span.version, "superseded": r.superseded,
            "sentence": r.span.text,
        } for r in relations]), hide_index=True, width="stretch", column_config=WIDE)

with right:
    f = st.columns([1.2, 2, 2])
    below = st.container()  # shown under the filters, read before them: the filters' choices depend on it
    hops = f[0].radio("Hops", [1, 2], horizontal=True, key="graph_hops")
    old = below.checkbox("Include superseded versions", key="graph_superseded",
                         help="Also follow relations from superseded document versions")
    around = neighbourhood(kg, key, access, hops=hops, include_superseded=old)
    types = sorted({e[3] for e in around.edges})
    doc_ids = sorted({e[4] for e in around.edges})
    for k, opts in (("graph_types", types), ("graph_docs", doc_ids)):  # drop picks the new hop count lacks
        st.session_state[k] = [x for x in st.session_state.get(k, []) if x in opts]
    want_types = f[1].multiselect("Relation types", types, key="graph_types", placeholder="all")
    want_docs = f[2].multiselect("Documents", doc_ids, key="graph_docs", placeholder="all")
    nb = neighbourhood(kg, key, access, hops=hops, relation_types=want_types or None, documents=want_docs or None,
                       include_superseded=old)
    st.iframe(neighbourhood_html(nb, {k: kg.names[kg.index[k]] for k in nb.depth}, height=400), height=435,
              alt="Neighbourhood graph")
