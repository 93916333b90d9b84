"""The Ingest page's administrator action: remove a document (every version, or some).

``removal_section`` is one function so an access gate (an administrator role) can wrap it
whole. It lists only documents the viewer's labels can see (a hidden document's id or title is
never shown), asks for a preview first (the exact figures, from the removal itself rolled back),
then for an explicit confirmation; the role check, the choice of what the viewer may see and the audit row are
the ingest door's use cases' (``removal_choices``, ``remove_document``).
"""

from __future__ import annotations

import streamlit as st

from dashboard import render, resources
from dashboard.actor import principal  # by name: `actor` is also this module's parameter
from dashboard.session import LAST_REPORT
from graphrag.errors import GraphRAGError
from graphrag.ingest import RemovalTarget, describe, preview_removal, removal_choices, remove_document
from graphrag.store import Store

DOC = "remove_doc"
VERSIONS = "remove_versions"
REASON = "remove_reason"
ACTOR = "remove_actor"
CONFIRM = "remove_confirm"
PLAN = "remove_plan"  # (doc id, versions) -> the preview's lines, for the choice it was made for
DONE = "remove_done"


def _choice(t: RemovalTarget) -> tuple[str, tuple[int, ...]]:
    return t.document_id, tuple(sorted(st.session_state.get(VERSIONS) or ()))


def _preview(store: Store, t: RemovalTarget) -> None:
    doc_id, versions = _choice(t)
    try:
        plan = preview_removal(store, doc_id, versions if len(versions) < len(t.versions) else None)
        st.session_state[PLAN] = ((doc_id, versions), describe(plan, done=False))
    except GraphRAGError as exc:
        st.session_state[PLAN] = ((doc_id, versions), [f"cannot remove: {exc}"])


def _remove(store: Store, t: RemovalTarget) -> None:
    doc_id, versions = _choice(t)
    # A callback runs before the page script and its role check: the use case checks, with who is signed in now
    # (in team mode the removal names that identity, whatever "Removed by" says).
    try:
        done = remove_document(store, principal(), resources.config(), doc_id,
                               versions if len(versions) < len(t.versions) else None,
                               actor=st.session_state.get(ACTOR, ""), reason=st.session_state.get(REASON, ""))
    except GraphRAGError as exc:
        st.session_state[DONE] = (False, [str(exc)])
        return
    st.session_state[DONE] = (True, describe(done))
    # the last ingest's table may name the removed document: not shown again
    for key in (DOC, VERSIONS, REASON, CONFIRM, PLAN, LAST_REPORT):
        st.session_state.pop(key, None)


def removal_section(store: Store, actor: str = "") -> None:
    """Remove a document the viewer can see: choose it and its versions, preview, confirm. ``actor`` prefills who."""
    st.subheader("Remove a document", anchor=False)
    st.caption("For administrators. The document's spans stop being citable at once; mentions, relations and "
               "entities that came only from it leave the graph; answers that drew on it are withdrawn. Verdicts "
               "given on it are never deleted: they stay in the record, marked \u201csource removed\u201d.")
    if done := st.session_state.pop(DONE, None):
        ok, lines = done
        (st.success if ok else st.error)("\n".join(f"- {render.plain(line)}" for line in lines))
    targets = removal_choices(store, principal(), resources.config())  # only documents the viewer can see
    if not targets:
        st.caption("No document you can see to remove.")
        return
    by_id = {t.document_id: t for t in targets}
    if st.session_state.get(DOC) not in by_id:
        st.session_state[DOC] = None
    doc_id = st.selectbox("Document", [None, *by_id], key=DOC, placeholder="Choose a document",
                          format_func=lambda i: "Choose a document" if i is None else
                          f"{i}: {by_id[i].title} ({len(by_id[i].versions)} version"
                          f"{'' if len(by_id[i].versions) == 1 else 's'})")
    if doc_id is None:
        return
    t = by_id[doc_id]
    all_versions = [v.version for v in t.versions]
    if not set(st.session_state.get(VERSIONS) or ()) <= set(all_versions):
        st.session_state[VERSIONS] = all_versions
    st.multiselect("Versions", all_versions, default=all_versions, key=VERSIONS,
                   format_func=lambda v: f"v{v}" + (" (current)" if v == t.current.version else ""),
                   help="Every version removes the document; removing the current version of several makes the "
                        "newest one left current again")
    cols = st.columns(2)
    if not st.session_state.get(ACTOR):
        st.session_state[ACTOR] = actor
    if principal().team:
        st.session_state[ACTOR] = actor  # the signed-in identity, not a typed name
    cols[0].text_input("Removed by", key=ACTOR, help="Kept in the removal record", disabled=principal().team)
    cols[1].text_input("Reason", key=REASON, help="Kept in the removal record")
    if not st.session_state.get(VERSIONS):
        st.caption("Choose at least one version.")
        return
    st.button("Preview the removal", key="remove_preview", on_click=_preview, args=(store, t))
    plan = st.session_state.get(PLAN)
    if plan is None or plan[0] != _choice(t):
        return
    st.warning("\n".join(f"- {render.plain(line)}" for line in plan[1]), icon=":material/delete:")
    st.checkbox(render.plain(f"Remove {doc_id} as previewed: this cannot be undone"), key=CONFIRM)
    named = bool(st.session_state.get(ACTOR, "").strip())
    st.button("Remove", type="primary", key="remove_go", on_click=_remove, args=(store, t),
              disabled=not (st.session_state.get(CONFIRM) and named), icon=":material/delete_forever:")
    if not named:
        st.caption("Fill in “Removed by”: the removal record keeps who removed the document.")
