"""Ingest: upload files or name a folder, choose the extractor, see the per-document report."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from dashboard import render, state
from graphrag.errors import GraphRAGError
from graphrag.extract import make_extractor
from graphrag.extract.base import Extractor
from graphrag.ingest import Ingestor
from graphrag.ollama_util import resolve_host
from graphrag.store import Store
from graphrag.text import counted

st.title("Ingest documents")
st.caption("Text, Markdown, PDF, HTML and DOCX files. A `manifest.toml` beside a folder's files sets titles, dates "
           "and access labels. Re-ingesting a changed document adds a new version; the old one is kept, marked superseded.")

store = state.store()
left, right = st.columns([3, 2], gap="large")
with left:
    source = st.segmented_control("Source", ["Upload files", "Folder on this machine"], default="Upload files",
                                  key="ingest_source")
    uploads = []
    folder = ""
    if source == "Folder on this machine":
        folder = st.text_input("Folder or file path", placeholder=str(state.SAMPLE_CORPUS), key="ingest_folder")
    else:
        uploads = st.file_uploader("Text, Markdown, PDF, HTML or Word (.docx) files",
                                   type=["md", "txt", "pdf", "html", "htm", "docx"], accept_multiple_files=True,
                                   key="ingest_uploads") or []
with right:
    st.selectbox("Extractor", ["rules", "ollama"], **state.persist(state.EXTRACTOR),
                 help="rules: spaCy, embedded, no server. ollama: a local model server.")
    use_ollama = st.session_state[state.EXTRACTOR] == "ollama"
    st.text_input("Ollama model", disabled=not use_ollama, **state.persist(state.EXTRACT_MODEL))
    if use_ollama:
        status = state.ollama_status_cached(resolve_host())
        if not status.reachable:
            st.warning(f"{render.plain(status.error)}. Documents will be reported *model unavailable*.")

go = st.button("Ingest", type="primary", disabled=not (uploads or folder.strip()), key="ingest_go")


def extractor(s: Store) -> Extractor:
    if not use_ollama:
        return state.rules_extractor()
    return make_extractor("ollama", model=st.session_state[state.EXTRACT_MODEL] or None, host=resolve_host(),
                          cache=s.reply_cache())


if go:
    try:
        ingestor = Ingestor(store, extractor(store), state.embedder())
        with st.status("Ingesting…", expanded=True) as box:
            if uploads:
                # Uploads go to a private temporary folder and are ingested from there, so a
                # file gets the same checks (binary, empty, encoding, size) as one on disk.
                with tempfile.TemporaryDirectory(prefix="graphrag-upload-") as tmp:
                    for up in uploads:
                        (Path(tmp) / Path(up.name).name).write_bytes(up.getvalue())
                    report = ingestor.ingest_paths([tmp], state.progress_bar("Documents"))
            else:
                report = ingestor.ingest_paths([folder.strip()], state.progress_bar("Documents"))
            bad = sum(d.status in ("failed", "model_unavailable", "rejected") for d in report.documents)
            box.update(label="Done", state="complete", expanded=False)
        state.set_report(report)
        st.session_state["ingest_done"] = (f"Ingested {counted(len(report.documents), 'document')}"
                                           + (f", {bad} with problems (see the message column)" if bad else "."), bad)
        st.rerun()  # so the sidebar's counts include what was just stored
    except GraphRAGError as exc:
        st.error(str(exc))

if done := st.session_state.pop("ingest_done", None):
    (st.warning if done[1] else st.success)(done[0])

report = st.session_state.get(state.LAST_REPORT)
if report is not None:
    st.subheader("Last ingest")
    render.report_table(report)
elif not store.counts()["versions"]:
    st.info("The store is empty: upload files or name a folder to begin.")
