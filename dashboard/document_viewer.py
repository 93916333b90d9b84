"""The cited document, opened in the browser from a citation on Ask and on Review.

A button under the citation opens a dialog: a PDF in PDF.js (the ``streamlit-pdf-viewer`` component, whose assets
the dashboard serves itself) at the cited page with each line of the sentence outlined, its own zoom control, and a
page box to go to another page; any other document as its stored text with the sentence marked and scrolled into
view. What is shown comes only from ``graphrag.present.open_cited_document``, which checks the viewer's labels.
"""

from __future__ import annotations

import streamlit as st
from streamlit_pdf_viewer import pdf_viewer

from dashboard import actor, render, resources
from graphrag.errors import GraphRAGError
from graphrag.model import Span
from graphrag.present import CitedDocument, open_cited_document, text_html

VIEWER_HEIGHT = 680  # pixels: the dialog's document pane, scrolled inside
PAGES_AROUND = 10  # a long PDF renders this many pages each side of the one shown, not all of them
HIGHLIGHT = "rgba(230, 120, 0, 0.95)"


def open_document_button(span: Span, key: str) -> None:
    """The button under a citation that opens its document at the cited sentence (``key`` tells citations apart)."""
    if st.button("Open the document", key=f"open_doc_{key}", icon=":material/menu_book:",
                 help="The original document in the browser, at the cited sentence, highlighted"):
        _document_dialog(span.document_id, span.version, span.sentence_index)


@st.dialog("Cited document", width="large")
def _document_dialog(document_id: str, version: int, sentence_index: int) -> None:
    try:
        doc = open_cited_document(resources.store(), actor.principal(), resources.config(), document_id, version,
                                  sentence_index)
    except GraphRAGError as exc:
        message = str(exc)
        st.error(render.plain(message[:1].upper() + message[1:]))
        return
    where = doc.layout.source_text if doc.layout is not None else None
    st.markdown(f"**{render.plain(doc.title)}** · version {doc.version}" + (f" · {render.plain(where)}" if where else "")
                + f" · sentence {doc.sentence_index + 1}")
    if doc.pdf is not None:
        _show_pdf(doc)
    else:
        st.iframe(text_html(doc), height=VIEWER_HEIGHT)


def _show_pdf(doc: CitedDocument) -> None:
    """The PDF at the cited sentence, or at the page asked for; only the pages near it are rendered."""
    cited = doc.page or 1
    last = max(doc.pages, cited, *(h.page for h in doc.highlights))
    label = doc.layout.page_label if doc.layout is not None else None
    printed = f" (printed {label})" if label and label != str(cited) else ""  # sheets count from 1, labels may not
    asked = st.number_input(f"Page (of {last})", min_value=1, max_value=last, value=None, step=1,
                            placeholder=f"{cited}{printed}: the cited sentence",
                            key=f"doc_page_{doc.document_id}_{doc.version}_{doc.sentence_index}",
                            help="Go to another page; clear the box to return to the cited sentence")
    target = int(asked) if asked is not None else cited
    pages = list(range(max(1, target - PAGES_AROUND), min(last, target + PAGES_AROUND) + 1))
    if asked is None and cited not in pages:
        pages.append(cited)
    annotations = [{"page": h.page, "x": h.x, "y": h.y, "width": h.width, "height": h.height, "color": HIGHLIGHT,
                    "id": f"cited-{i}"} for i, h in enumerate(doc.highlights)]
    at_sentence = asked is None and bool(annotations)
    st.caption("The cited sentence is outlined. Zoom with the percentage at the viewer's top; scroll for the "
               "pages around it.")
    pdf_viewer(doc.pdf or b"", height=VIEWER_HEIGHT, annotations=annotations, annotation_outline_size=2,
               pages_to_render=pages if last > 2 * PAGES_AROUND + 1 else [], render_text=True,
               scroll_to_annotation=1 if at_sentence else None,
               scroll_to_page=None if at_sentence else target, scroll_behavior="instant",
               # a new target is a new viewer: the component scrolls only when it first renders
               key=f"pdf_{doc.document_id}_{doc.version}_{doc.sentence_index}_{target if asked else 0}")
