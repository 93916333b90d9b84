"""Beside the claim on the Review page: the route retrieval took to the chosen citation, the cited source (its page,
the sentences around, a newer version, a possible conflict), and the claim's verdict history."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import render, session
from dashboard.cited_pages import show_cited_pages
from dashboard.document_viewer import open_document_button
from dashboard.review_desk import OnScreen
from graphrag.model import ClaimFlag
from graphrag.present import CitedSource, route_height, route_html, route_list_html, route_text


def route_column(on: OnScreen, source: CitedSource | None) -> None:
    """How retrieval reached the chosen citation's sentence, as a graph and as a list, and the choice of citation
    where the claim has several."""
    st.markdown("**Route**", help="How retrieval reached the cited sentence: the entity the question names, the "
                                  "relations (or co-mentions) followed, each with the sentence that states it, "
                                  "and the cited sentence")
    valid, numbers = on.review.citations, on.review.numbers
    if not valid:
        st.warning("This claim cites no valid source: there is no route to show.")
        return
    if len(valid) > 1:
        st.segmented_control("Citation", list(range(len(valid))),
                             key=session.review_citation_key(on.answer.id, on.claim.index), default=0,
                             format_func=lambda i: on.shown_marker(valid[i]), label_visibility="collapsed")
    cit = on.chosen()
    assert cit is not None and cit.item is not None and source is not None
    route = cit.item.route
    # Each step's sentence, read once for graph and list; a step from a document this viewer
    # may not see is a placeholder, its sentence never read.
    route_steps = source.steps
    route_names = {k: on.review.names.get(k, k) for k in route.entities()}
    words = next((s.mention for s in on.answer.seeds if s.entity == route.seed), "")
    drawing_height = route_height(route_steps)  # its boxes as wide as the column, its labels legible
    # The route names its claim and marker with the numbers the claim column shows.
    tag = {"marker": numbers.get(cit.item.n, cit.item.n), "claim": on.claim.index + 1}
    st.iframe(route_html(cit.item, route_names, route_steps, height=drawing_height, **tag),
              height=drawing_height + 84, alt="Route graph")  # the legend: five lines in the column
    st.html(route_list_html(cit.item, route_names, route_steps, words, **tag))
    st.caption(render.plain(route_text(route, route_names)) + f" · found via {cit.item.via}")


def source_column(on: OnScreen, source: CitedSource | None) -> None:
    """The chosen citation's source: its document, page picture, sentences around, check, newer version and any
    possible conflict."""
    st.markdown("**Source**")
    claim, cit = on.claim, on.chosen()
    if cit is None or cit.item is None or source is None:
        bad = [render.marker_label(c.marker) for c in claim.citations if not c.valid]
        st.warning("No source: " + (f"marker(s) {' '.join(bad)} point past the context." if bad
                                     else "the claim has no citation marker."))
        return
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
    render.box(render.context_html(window, sp, text=doc.text if doc is not None else None),
               meta=f"{on.shown_marker(cit)} <b>{render.esc(title)}</b> · version {sp.version}"
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
        cited_side = (f"{on.shown_marker(cit)} {title} v{sp.version}" + (f", in effect from {date}" if date else "")
                      + (" (superseded)" if doc is not None and doc.superseded else " (current)") + ", cited")
        render.warn_box(
            "Possible conflict — another current document mentions the same entities with a different number:",
            [(cited_side, sp.text)] + [
                (f"{c.document.title} v{c.document.version}, effective {c.document.effective_date or 'no date'}"
                 " (current)", c.span.text) for c in conflicts])


def verdict_history(on: OnScreen) -> None:
    """The verdicts on the claim this viewer may see (blind review: the core's one rule), folded."""
    history = on.review.history
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
