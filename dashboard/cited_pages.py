"""The Review page's pictures of a cited PDF sentence: a few drawn at once, the rest on demand.

A sentence may run over hundreds of pages. Its first and last page are drawn (cropped to the cited
lines, rewrapped to the column's width so a laptop screen reads them); a page between is drawn when picked from a list, and a whole page when its toggle is on (with,
on a second toggle, each printed line outlined by the kind the reader gave it), so a rerun draws at most a
few images whatever the citation spans. A page that cannot be drawn is a
warning with the reason, never a traceback.
"""

from __future__ import annotations

import streamlit as st

from dashboard import render
from graphrag.errors import GraphRAGError
from graphrag.language.sentences import counted
from graphrag.model import SpanLayout
from graphrag.present import KIND_COLOURS, WRAP_LINES, pages_to_show, render_kinds, render_page


def show_cited_pages(data: bytes, file_sha256: str | None, layout: SpanLayout, key: str) -> None:
    """Draw the pages ``layout``'s boxes lie on, as described above; ``key`` tells citations apart. A sentence read
    by OCR says so first, with its confidence: the picture below is what it was read from."""
    if layout.ocr_confidence is not None:
        st.caption(f"Read by OCR from the scanned page below, confidence {layout.ocr_confidence:.2f} (its least sure "
                   "line): compare the quoted words with the picture.")
    shown, between = pages_to_show([int(b[0]) for b in layout.boxes])
    if between:
        picked = st.selectbox(f"The sentence runs over {counted(len(between), 'more page')}", between, index=None,
                              placeholder="Show a page between…", key=f"between_{key}")
        if picked is not None:
            shown = sorted([*shown, picked])
    for pg in shown:
        try:
            # the cited lines and their neighbours rewrapped to the column, legible at a laptop's width
            st.image(render_page(data, pg, layout.boxes, around=40, file_sha256=file_sha256, wrap=WRAP_LINES),
                     width="stretch", caption=f"Page {pg}: the printed lines rewrapped to fit; the whole page below")
            printed = f" (printed {layout.page_label})" if layout.page_label and pg == layout.page else ""
            if st.toggle(render.plain(f"Whole page {pg}{printed}"), key=f"whole_{key}_{pg}"):  # label: from the PDF
                st.image(render_page(data, pg, layout.boxes, file_sha256=file_sha256), width="stretch")
                if st.toggle("Outline what the reader found on this page", key=f"kinds_{key}_{pg}",
                             help="Each printed line outlined by its kind: only body text is quoted as a claim"):
                    _show_kinds(data, pg, file_sha256)
        except GraphRAGError as exc:
            message = str(exc)
            st.warning(render.plain(message[:1].upper() + message[1:]))


def _show_kinds(data: bytes, page: int, file_sha256: str | None) -> None:
    """The page with each line outlined in its kind's colour, and a legend counting the kinds."""
    with st.spinner("Reading the page's lines…"):
        png, counts = render_kinds(data, page, file_sha256)
    st.image(png, width="stretch")
    legend = " ".join(
        f'<span style="border:2px solid rgb{KIND_COLOURS.get(kind, (0, 0, 0))};padding:0 4px;margin-right:6px">'
        f"{render.esc(kind.replace('_', ' '))} {n}</span>" for kind, n in counts.most_common())
    st.html(f"<div>{legend}</div>")  # escaped: shown as HTML, never through Markdown
