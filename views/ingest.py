"""Ingest: upload files or name a folder, choose the extractor, see the per-document report."""

from __future__ import annotations

import streamlit as st

from dashboard import actor, first_start, jobs, removal, render, resources, session
from graphrag.errors import GraphRAGError
from graphrag.ingest import (
    DOCUMENT_MAX_BYTES,
    DONE,
    FAILED,
    Extractor,
    Upload,
    assign_ids,
    default_labels,
    folder_work,
    store_extractor,
    upload_label_choices,
    upload_work,
)
from graphrag.language.sentences import counted
from graphrag.present import has_documents
from graphrag.store import Store

st.title("Ingest documents")
# checked by the page itself, whatever the navigation shows; who acts, once for this run (the ingest is submitted on
# the page's run, not in a callback)
who = actor.require_actor("admin", "ingest documents")
roots = resources.server_ingest_roots()  # none in team mode unless configured: the disk option is then off
st.caption(f"Text, Markdown, PDF, HTML and DOCX files of up to {DOCUMENT_MAX_BYTES:,} bytes, each holding at most "
           f"{resources.config().max_document_chars:,} characters of text (about 500 pages of a manual). The nearest "
           "`manifest.toml` (in a file's folder or above it) sets titles, dates and access labels; uploads get the "
           "labels chosen below. Re-ingesting a changed document adds a new version; the old one is kept, marked "
           "superseded. New labels, title or date on an unchanged file are applied to the stored version (a narrowing "
           "to every version) and written to the audit log.")

store = resources.store()
left, right = st.columns([3, 2], gap="large")
with left:
    source = st.segmented_control("Source", ["Upload files", "Folder on this machine"] if roots else ["Upload files"],
                                  default="Upload files", key="ingest_source")
    uploads = []
    folder = ""
    upload_labels: list[str] = []
    confirmed: list[str] = []
    if source == "Folder on this machine":
        folder = st.text_input("Folder or file path", placeholder=str(first_start.SAMPLE_CORPUS), key="ingest_folder",
                               help="Only under: " + ", ".join(str(r) for r in roots))
    else:
        # A new key after each ingest empties the uploader: a second click must not store the files again.
        upload_round = st.session_state.get(session.INGEST_UPLOAD_ROUND, 0)
        uploads = st.file_uploader("Text, Markdown, PDF, HTML, Word (.docx) or scanned page (PNG, JPEG, TIFF) files",
                                   type=["md", "txt", "pdf", "html", "htm", "docx", "png", "jpg", "jpeg", "tif", "tiff"],
                                   accept_multiple_files=True,
                                   key="ingest_uploads" if not upload_round else f"ingest_uploads_{upload_round}") or []
        held = tuple(sorted(who.principal.labels))
        # in team mode only the labels the policy grants you: nobody gives a label they do not hold
        label_options = upload_label_choices(store, who.principal, resources.config())
        upload_labels = st.multiselect("Access labels for the uploaded files", label_options,
                                       default=[lab for lab in default_labels(held) if lab in label_options],
                                       key="ingest_labels",
                                       help="Who may see them: labels you hold. The default is the most restrictive "
                                            "of them.")
        # An upload named like a document you can see becomes its new version only if you say so here;
        # otherwise (and always for a document you cannot see) it gets an id of its own.
        confirmed = []
        for i, a in enumerate(assign_ids([u.name for u in uploads], store, held)):
            if a.clash is None:
                continue
            c = a.clash
            st.warning(render.plain(
                f"{c.name} is named like the existing document {c.id}: \u201c{c.title}\u201d, version {c.version}, "
                f"labels {', '.join(c.access)}. Unticked below, it is stored as a new document {c.own_id}."))
            if st.checkbox(render.plain(f"Ingest {c.name} as version {c.version + 1} of {c.id}"),
                           key=f"ingest_new_version_{i}_{c.id}"):
                confirmed.append(c.id)
with right:
    st.selectbox("Extractor", ["rules", "ollama"], **session.persist(session.EXTRACTOR),
                 help="rules: spaCy, embedded, no server. ollama: a local model server.")
    use_ollama = st.session_state[session.EXTRACTOR] == "ollama"
    st.text_input("Ollama model", disabled=not use_ollama, **session.persist(session.EXTRACT_MODEL))
    if use_ollama:
        server = resources.ollama_status_cached(resources.ollama_host())
        if not server.reachable:
            st.warning(f"{render.plain(server.error)}. Documents will be reported *model unavailable*.")

ready = (uploads and upload_labels) or folder.strip()
go = st.button("Ingest", type="primary", disabled=not ready, key="ingest_go")


def extractor(s: Store) -> Extractor:
    if not use_ollama:
        return store_extractor("rules", s)
    return store_extractor("ollama", s, model=st.session_state[session.EXTRACT_MODEL] or None, host=resources.ollama_host())


if go:
    try:
        # The ingest door's use cases check the role (with who is signed in now, read on the page's run: the
        # job's thread has no session), check the folder against the configured roots before anything is read, and
        # write the ingest's audit row; the job reads the files (a scan's OCR page by page in its progress), and the
        # relabels it applies are audited as theirs.
        me, cfg = who.principal, resources.config()
        if uploads:
            # Read from memory, in the job, with the same checks (binary, empty, encoding, size) as a file
            # on disk; the upload's name never becomes a path on the server.
            work = upload_work(store, me, cfg, extractor(store), [Upload(u.name, u.getvalue()) for u in uploads],
                               upload_labels, confirmed)
            label = f"Upload of {counted(len(uploads), 'file')}"
            # A new key empties the uploader: a second click must not store the files again.
            st.session_state[session.INGEST_UPLOAD_ROUND] = st.session_state.get(session.INGEST_UPLOAD_ROUND, 0) + 1
        else:
            work = folder_work(store, me, cfg, extractor(store), folder)
            label = "Folder ingest"
        # The job belongs to the server: leaving this page, a rerun or closing the tab does not stop it.
        submitted = jobs.runner().submit(label, work, owner=session.session_token())
        st.session_state[session.INGEST_JOB] = submitted.id
    except GraphRAGError as exc:
        st.error(render.plain(exc))

job = jobs.runner().get(st.session_state.get(session.INGEST_JOB, 0))
if job is not None:
    status = job.status()
    if status.active:
        status = jobs.watch_job(job, "Ingesting… (you can leave this page: the ingest goes on, and the sidebar "
                                      "shows its progress)")
    if status.state == DONE and st.session_state.get(session.INGEST_JOB_SHOWN) != job.id:
        st.session_state[session.INGEST_JOB_SHOWN] = job.id
        report = status.report
        assert report is not None
        session.set_report(report)
        bad = sum(d.not_ingested for d in report.documents)
        st.session_state[session.INGEST_DONE] = (f"Ingested {counted(len(report.documents), 'document')}"
                                           + (f", {bad} with problems (see the message column)" if bad else "."), bad)
        st.rerun()  # so the sidebar's counts include what was just stored
    elif status.state == FAILED:
        st.error(render.plain(f"The ingest failed: {status.error}"))
        if st.button("Retry", key="ingest_retry", help="Documents already stored are reported unchanged."):
            st.session_state[session.INGEST_JOB] = jobs.runner().retry(job.id).id
            st.rerun()

if done := st.session_state.pop(session.INGEST_DONE, None):
    (st.warning if done[1] else st.success)(done[0])

report = st.session_state.get(session.LAST_REPORT)
if report is not None:
    st.subheader("Last ingest")
    render.report_table(report)
    for line in report.skipped:
        st.info(render.plain(line))
elif not has_documents(store, who.principal, resources.config()):
    st.info("The store is empty: upload files or name a folder to begin.")

# --- administration: kept apart so an access gate can wrap it whole ------------------------------
st.divider()
removal.removal_section(store, actor=who.reviewer)
