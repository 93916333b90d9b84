"""Shared state for the pages: cached resources, session defaults, the sidebar, first start.

Heavy things (the store handle, the embedding model, spaCy, the Asker) are created once per
process with ``st.cache_resource``; the Ollama status is cached for 30 s so a server that is
down costs one short timeout per half minute, not one per rerun.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

import streamlit as st

import graphrag
from dashboard.render import plain
from graphrag.access import (
    VIA_DASHBOARD,
    Deployment,
    Forbidden,
    Principal,
    cached_policy,
    deployment_for,
    ingest_roots,
    local_principal,
    provider_name,
    require,
)
from graphrag.answer import Asker
from graphrag.config import Config
from graphrag.embed import MODEL_NAME, Embedder, get_embedder
from graphrag.errors import GraphRAGError, InputError
from graphrag.ingest import (
    DONE,
    FAILED,
    QUEUED,
    RUNNING,
    IngestJob,
    Ingestor,
    IngestReport,
    JobRunner,
    JobStatus,
    ProgressFn,
    Work,
    format_eta,
)
from graphrag.model import PUBLIC
from graphrag.ollama_util import (
    DEFAULT_EXTRACT_MODEL,
    DEFAULT_GENERATE_MODEL,
    OllamaStatus,
    ollama_status,
    pull_hint,
    resolve_host,
)
from graphrag.store import Store
from graphrag.text import counted
from graphrag.verify import ReviewViewer, clean_reviewer, record_sign_in, review_viewer, viewer_overview

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
SAMPLE_CORPUS = ROOT / "sample_corpus"

# session_state keys shared by the pages
ACCESS = "access"
REVIEWER = "reviewer"
EXTRACTOR = "extractor"
EXTRACT_MODEL = "extract_model"
GENERATOR = "generator"
GENERATE_MODEL = "generate_model"
ANSWER_ID = "answer_id"  # the answer shown on the ask page
ANSWER_WARNINGS = "answer_warnings"
REVIEW_ANSWER = "review_answer_filter"  # the review page's answer filter (a widget key)
PENDING_REVIEW_ANSWER = "pending_review_answer"  # set by "review this answer", read once by the review page
REVIEW_CURRENT = "review_current"  # (answer id, claim index) under review
LAST_REPORT = "last_report"
QUESTION = "question"


@st.cache_resource(show_spinner=False)
def config() -> Config:
    """This server's configuration, read once per process: the environment, then .streamlit/secrets.toml (the
    place for a PostgreSQL URL with a password), then the defaults (see graphrag/config.py). A bad value raises
    ``ConfigError``, which is not cached: the next run reads again."""
    return Config.from_env(secrets=secrets())


def store_path() -> str:
    """The store to open (GRAPHRAG_STORE, see ``config``)."""
    return config().store


def ollama_host() -> str:
    """The Ollama server's URL (OLLAMA_HOST, else Ollama's default)."""
    return resolve_host(config().ollama_host)


@st.cache_resource(show_spinner=False)
def open_store(path: str) -> Store:
    """The store at ``path``, opened once per server process (the handle is thread-safe)."""
    # One handle per store for the whole server: Store is thread-safe (a connection pool).
    return graphrag.open_store(path, config=config())


@st.cache_resource(show_spinner="Loading the embedding model…")
def embedder() -> Embedder:
    """The sentence embedder, loaded once per server process."""
    return get_embedder()


@st.cache_resource(show_spinner=False)
def asker(path: str) -> Asker:
    """The asker for the store at ``path``, shared by every session."""
    return Asker(open_store(path), embedder=embedder())


@st.cache_data(ttl=30, show_spinner=False)
def ollama_status_cached(host: str) -> OllamaStatus:
    """The Ollama server's status, cached for 30 s so each rerun does not probe it."""
    return ollama_status(host, timeout=1.0)


def store() -> Store:
    """The store this deployment is configured to use."""
    return open_store(store_path())


def init_session() -> None:
    """Defaults for the keys every page reads, set once per session before any widget uses them."""
    defaults = {
        ACCESS: [PUBLIC],
        # No default from the OS account: the verdict names whoever types their name here.
        REVIEWER: config().reviewer,
        EXTRACTOR: "rules",
        EXTRACT_MODEL: DEFAULT_EXTRACT_MODEL,
        GENERATOR: "extractive",
        GENERATE_MODEL: DEFAULT_GENERATE_MODEL,
        QUESTION: "",
    }
    for k, v in defaults.items():
        st.session_state.setdefault(k, v)


def persist(key: str, *, callback: bool = True) -> dict[str, Any]:
    """Widget kwargs that keep ``key`` in session_state across pages.

    Streamlit drops a widget's state when a run does not draw it (another page, or a
    st.switch_page), so the value lives under ``key`` and the widget under ``_w_<key>`` is
    refilled from it on every run. Widgets in a form cannot have callbacks: call ``commit``
    after the form is submitted instead.
    """
    wkey = f"_w_{key}"
    if callback or wkey not in st.session_state:
        # (a form widget keeps its own state until submit: refill it only after it was dropped)
        st.session_state[wkey] = st.session_state[key]
    return {"key": wkey, "on_change": commit, "args": (key,)} if callback else {"key": wkey}


def commit(*keys: str) -> None:
    """Copy each widget's value (``_w_<key>``) to ``key``: a widget's ``on_change``, or called after a form is
    submitted."""
    for key in keys:
        if f"_w_{key}" in st.session_state:
            st.session_state[key] = st.session_state[f"_w_{key}"]


def access() -> tuple[str, ...]:
    """The labels this viewer sees with: the policy's grant in team mode, the sidebar's filter locally."""
    return tuple(sorted(principal().labels))


def reviewer() -> str:
    """The reviewer name as it will be stored, or "" when none (or an invalid one) is set. In team
    mode it is the signed-in identity (and "" for someone who may not record verdicts)."""
    me = principal()
    if me.team:
        return me.name if me.may("reviewer") else ""
    try:
        return clean_reviewer(str(st.session_state.get(REVIEWER, "")))
    except InputError:
        return ""


def viewer_for_review(p: Principal | None = None) -> ReviewViewer:
    """Who this run shows verdicts to, for blind review (graphrag.verify.review.review_viewer): the signed-in
    identity in team mode (an admin sees every verdict), the sidebar's reviewer name locally.
    ``p``: a principal already refreshed (deferred downloads); default: who acts now."""
    who = principal() if p is None else p
    return review_viewer(who, None if who.team else str(st.session_state.get(REVIEWER, "")))


# --- deployment, sign-in and roles ----------------------------------------------------------------

def secrets() -> dict[str, object]:
    """Streamlit's secrets as a dict; empty when there is no readable secrets file."""
    try:
        return st.secrets.to_dict()
    except Exception:  # noqa: BLE001 - no secrets file, or one that does not parse: local defaults apply
        return {}


def current_deployment() -> Deployment:
    """This server's deployment (mode, policy, problems), from the configuration and the secrets' [auth]."""
    return deployment_for(config(), secrets().get("auth"))


def principal() -> Principal:
    """Who acts on this run, computed afresh on every call: the policy file is re-read when it
    changes, so a user removed from it loses access on their next rerun (button callbacks too,
    which run before the page script)."""
    dep = current_deployment()
    if not dep.team:
        return local_principal(st.session_state.get(ACCESS) or [], via=VIA_DASHBOARD)
    if dep.problems or not st.user.is_logged_in:
        return Principal(None, frozenset(), None, team=True)
    policy = cached_policy(dep.policy_path)
    who = policy.identity(st.user.to_dict())
    grant = policy.grant(who)
    return Principal(who, grant.labels, grant.role, team=True)


def refreshed(p: Principal) -> Principal:
    """``p`` with its grant read again from the policy file now: for code that runs outside the
    script run (a deferred download's callable), where the identity is the one that drew it."""
    if not p.team or p.identity is None:
        return p
    grant = cached_policy(current_deployment().policy_path).grant(p.identity)
    return Principal(p.identity, grant.labels, grant.role, team=True)


def require_role(role: str, action: str) -> Principal:
    """For a page or an action: stop the run with the reason unless the viewer holds ``role``."""
    me = principal()
    try:
        require(me, role, action)
    except Forbidden as exc:
        st.error(plain(exc))
        st.stop()
    return me


def server_ingest_roots() -> tuple[Path, ...]:
    """The folders this deployment lets the Ingest page read from the server."""
    return ingest_roots(config())


def refuse_misconfigured_team_mode(dep: Deployment) -> None:
    """Team mode serves nothing until its sign-in and policy are complete: say exactly what is missing."""
    if not dep.problems:
        return
    if "team_refused" not in (seen := _warned_once()):
        seen.add("team_refused")
        log.error("team mode cannot serve: %s", "; ".join(dep.problems))
    st.error("Team mode is not configured, so this dashboard serves nothing. Missing or wrong:\n\n"
             + "\n".join(f"- {plain(p)}" for p in dep.problems))
    st.stop()


def sign_in_gate(s: Store, dep: Deployment) -> Principal:
    """Team mode: the sign-in page until the visitor is signed in and the policy grants them access."""
    if not st.user.is_logged_in:
        st.title("Sign in")
        st.write("This dashboard is shared by a team: sign in with your organisation's account to see the "
                 "documents your access grants.")
        if st.button("Sign in", type="primary", key="sign_in"):
            auth = cast(dict[str, object], secrets().get("auth") or {})  # the [auth] table of the secrets
            problem = provider_problem(auth)
            if problem:
                st.error(plain(problem))
            else:
                st.login(provider_name(auth))
        st.stop()
    me = principal()
    if not me.may("viewer"):
        st.title("No access")
        st.error(plain(f"You are signed in as {me.name or 'an unknown user'}, but this dashboard's access policy "
                       "grants you nothing. Ask its administrator to add you."))
        if st.button("Sign out", key="sign_out_denied"):
            st.logout()
        st.stop()
    assert me.identity is not None
    if st.session_state.get("_signed_in_as") != me.identity.subject:
        st.session_state["_signed_in_as"] = me.identity.subject
        # One event per sign-in, not per tab or reload: the ID token's issue time names the sign-in.
        key = (me.identity.subject, str(st.user.get("iat") or ""), str(st.user.get("nonce") or ""))
        seen = _signins_seen()
        if key not in seen:
            seen.add(key)
            record_sign_in(s, me, config(), issued_at=st.user.get("iat"))
    return me


@st.cache_resource(show_spinner=False)
def _signins_seen() -> set[tuple[str, str, str]]:
    return set()


def provider_problem(auth: dict[str, object]) -> str | None:
    """Why the identity provider cannot be used right now (down, not answering), or None.

    Checked before sending the browser there: otherwise a provider that is down ends the
    sign-in on a bare "Authentication error" page of the server."""
    import json
    import urllib.request
    from urllib.parse import urlparse

    name = provider_name(auth)
    cfg = auth.get(name) if name else auth
    url = str(cast(Mapping[str, object], cfg or {}).get("server_metadata_url") or "")
    host = urlparse(url).netloc or url
    try:
        with urllib.request.urlopen(url, timeout=5) as r:  # the URL is the deployment's own setting
            meta = json.loads(r.read(1_000_000))
        if not isinstance(meta, dict) or "authorization_endpoint" not in meta:
            return f"The identity provider at {host} sent no OpenID configuration: sign-in is not possible now."
    except (OSError, ValueError) as exc:
        return (f"The identity provider at {host} does not answer ({type(exc).__name__}): sign-in is not "
                "possible now. Try again in a minute; if it persists, tell this dashboard's administrator.")
    return None


# --- background ingest jobs ---------------------------------------------------------------------

FIRST_START = "First start: the sample corpus"
INGEST_JOB = "ingest_job"  # the id of the job this session submitted on the Ingest page
SESSION_TOKEN = "_session_token"


@st.cache_resource(show_spinner=False)
def job_runner(path: str) -> JobRunner:
    """The ingest job runner for the store at ``path``, one per server process."""
    # One runner per store for the whole server: jobs outlive the script run, the session and the tab
    # that started them, and run one at a time.
    return JobRunner()


def jobs() -> JobRunner:
    """The job runner of this deployment's store."""
    return job_runner(store_path())


def session_token() -> str:
    """Who submitted a job: only that session sees its report's rows (other sessions see counts)."""
    return st.session_state.setdefault(SESSION_TOKEN, uuid.uuid4().hex)


def job_text(s: JobStatus) -> str:
    """One line about a job, built from counts and our own labels only (never a document's name)."""
    if s.state == QUEUED:
        return f"{s.label}: queued behind another ingest"
    if s.state == RUNNING:
        if not s.total:
            return f"{s.label}: starting (loading the models)…"
        return f"{s.label}: {s.done:,} of {counted(s.total, 'document')}, {format_eta(s.eta_s)}"
    if s.state == FAILED:
        return f"{s.label}: failed"
    return f"{s.label}: done"


def watch_job(job: IngestJob, label: str, done_label: Callable[[JobStatus], str] | None = None) -> JobStatus:
    """Show a job's progress until it ends. A rerun or a closed tab stops the watching, not the job."""
    with st.status(label, expanded=True) as box:
        bar = st.progress(0.0, text="Starting…")
        while not job.wait(0.5):
            s = job.status()
            bar.progress(s.fraction, text=job_text(s))
        s = job.status()
        if s.state == FAILED:
            box.update(label=plain(f"{label} Failed: {s.error}"), state="error")
        else:
            box.update(label=done_label(s) if done_label else f"{label} Done.", state="complete", expanded=False)
    return s


@st.cache_resource(show_spinner=False)
def _first_start_lock(path: str) -> threading.Lock:
    return threading.Lock()


def _sample_work(s: Store) -> Work:
    cfg = config()  # read here, on the script's thread

    def work(progress: ProgressFn) -> IngestReport:
        from graphrag.ingest import store_extractor

        # Models load here, on the job's thread: a page never waits for them to start the job.
        return Ingestor(s, store_extractor("rules", s), config=cfg).ingest_paths([SAMPLE_CORPUS], progress)

    return work


def _first_start_done(status: JobStatus) -> str:
    t = status.report.totals() if status.report else {}
    return (f"First start: ingested the sample corpus ({counted(t.get('ok', 0), 'document')}, "
            f"{counted(t.get('entities', 0), 'entity', 'entities')}, {counted(t.get('relations', 0), 'relation')}). "
            "Ask a question on the Ask page.")


def first_start(s: Store) -> None:
    """On an empty store, ingest the sample corpus with the embedded defaults, as a background job.

    The job belongs to the server: clicking elsewhere while it runs (a rerun) does not cancel it,
    and the next run, in any session, watches the same job. A failed first start offers a retry.
    """
    if not config().sample or not SAMPLE_CORPUS.is_dir():
        return
    runner = jobs()
    job = runner.find(FIRST_START)
    if job is None:
        if s.counts()["versions"]:
            return
        with _first_start_lock(s.url.key):
            job = runner.find(FIRST_START)
            if job is None and not s.counts()["versions"]:
                job = runner.submit(FIRST_START, _sample_work(s))
        if job is None:
            return
    status = job.status()
    if status.state == DONE:
        return  # finished before this run: nothing to watch
    if status.state == FAILED:
        if not s.counts()["versions"]:
            st.error(plain(f"First start failed: {status.error}"))
            if st.button("Retry the first start", key="first_start_retry"):
                runner.retry(job.id)
                st.rerun()
        return
    status = watch_job(job, "First start: the store is empty, so the sample corpus (the Larkspur handbook) is "
                            "being ingested with the embedded rules extractor…", _first_start_done)
    if status.state == DONE and status.report is not None:
        st.session_state[LAST_REPORT] = status.report
    elif status.state == FAILED:
        st.rerun()  # show the failure with its retry button


def job_panel() -> None:
    """The sidebar's line about ingests: live progress while one runs (on every page)."""
    if shown_jobs():
        with st.sidebar:
            _live_jobs()


def shown_jobs() -> list[JobStatus]:
    """The running ingests this viewer may know of: every one locally; in team mode only this session's and
    the first start's (the sample corpus), since another's upload count is activity their labels may not show."""
    active = jobs().active()
    if not principal().team:
        return active
    mine = session_token()
    return [j for j in active if j.owner in (None, mine)]


@st.fragment(run_every=1.0)
def _live_jobs() -> None:
    active = shown_jobs()
    if not active:
        st.rerun()  # the ingest ended: redraw the whole page so counts and lists include it
    for s in active:
        st.progress(s.fraction, text=job_text(s))


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def served_beyond_this_machine() -> str | None:
    """The address when the server listens beyond loopback (no address means every interface)."""
    address = str(st.get_option("server.address") or "")
    return None if address in LOOPBACK or address.startswith("127.") else (address or "every interface")


@st.cache_resource(show_spinner=False)
def _warned_once() -> set[str]:
    return set()


def warn_if_exposed() -> None:
    """Local mode has no sign-in: say so loudly when the server is reachable from other machines."""
    where = served_beyond_this_machine()
    if where is None:
        return
    msg = (f"This dashboard listens on {where}, and local mode has no sign-in: anyone who can reach this port "
           "can read every document (by choosing access labels), record verdicts under any name and ingest "
           "files this server can read. Serve it on 127.0.0.1 (the default in .streamlit/config.toml).")
    if where not in (seen := _warned_once()):
        seen.add(where)
        log.warning(msg)
    st.warning(plain(msg), icon=":material/warning:")


def set_report(report: IngestReport) -> None:
    """Keep ``report`` as the session's last ingest report."""
    st.session_state[LAST_REPORT] = report


def sidebar(s: Store) -> None:
    """Draw the sidebar: the store and its counts, who is signed in (or the local access labels and reviewer
    name), and the backends."""
    sb = st.sidebar
    me = principal()
    sb.markdown("**Store**")
    sb.caption(plain(f"{s.url.label}: {s.url.display}"))  # never the password
    seen = viewer_overview(s, me, config(), viewer_for_review(me))  # what this viewer may see, never the whole store
    sb.caption(f"{counted(seen.documents, 'document')} ({counted(seen.versions, 'version')}) · "
               f"{counted(seen.entities, 'entity', 'entities')} · {counted(seen.relations, 'relation')} · "
               f"{counted(seen.answers, 'answer')} · {counted(seen.verdicts, 'verdict')} that your labels show")
    job_panel()
    if me.team:
        _identity_panel(me)
    else:
        _local_panel(s)
    with sb.expander("Backends", expanded=False):
        _backends()
        _configuration()


def _identity_panel(me: Principal) -> None:
    sb = st.sidebar
    sb.markdown("**Signed in**")
    sb.caption(plain(f"{me.name} · role {me.role} · labels {', '.join(sorted(me.labels))}"))
    sb.caption("Team mode: your labels and role come from the access policy; verdicts carry your identity.")
    if sb.button("Sign out", key="sign_out"):
        st.logout()


def _local_panel(s: Store) -> None:
    sb = st.sidebar
    labels = sorted({lab for d in s.documents() for lab in d.access} | {PUBLIC} | set(access()))
    sb.multiselect("Access labels (what the asker may see)", labels, **persist(ACCESS),
                   help="Documents are visible when they share a label with these. Used on every page.")
    sb.caption("Local mode: these labels are a filter for you on this machine, not a permission.")
    sb.text_input("Reviewer name", help="Recorded with every verdict.", **persist(REVIEWER))
    if st.session_state.get(REVIEWER, "").strip():
        try:
            clean_reviewer(st.session_state[REVIEWER])
        except InputError as exc:
            sb.warning(plain(str(exc)))


def _backends() -> None:
    # Model names are typed by the user and host names come from the environment or the
    # server: every one is shown as plain text, never as Markdown.
    extractor, generator = st.session_state[EXTRACTOR], st.session_state[GENERATOR]
    st.markdown(f"- Extractor: **{plain(extractor)}**" + (f" ({plain(st.session_state[EXTRACT_MODEL])})"
                                                           if extractor == "ollama" else " (spaCy, embedded)"))
    st.markdown(f"- Generator: **{plain(generator)}**" + (f" ({plain(st.session_state[GENERATE_MODEL])})"
                                                           if generator == "ollama" else " (embedded)"))
    st.markdown(f"- Embeddings: {plain(MODEL_NAME)} (local)")
    st.markdown(f"- Support checker: embedded — {plain(_checker_status())}")
    host = ollama_host()
    status = ollama_status_cached(host)
    if status.reachable:
        st.markdown(f"- Ollama at {plain(host)}: reachable; pulled: "
                    + (", ".join(plain(m) for m in status.models) or "no models"))
    else:
        st.markdown(f"- Ollama at {plain(host)}: **not reachable** (start it with `ollama serve`)")
    for used, model in ((extractor == "ollama", st.session_state[EXTRACT_MODEL]),
                        (generator == "ollama", st.session_state[GENERATE_MODEL])):
        if used and status.reachable and not status.has(model):
            st.warning(f"Model {plain(model)} is not pulled. Run:")
            st.code(pull_hint(model), language="bash")


def _configuration() -> None:
    # Every setting with where it came from; values are shown as plain text (a path or host is not Markdown)
    # and a URL's password as ***.
    st.markdown("**Configuration** (read when the server started; see `graphrag/config.py`)")
    st.caption("\n\n".join(f"`{name}` · *{source}*  \n{plain(value) or '(empty)'}"
                             for name, value, source in config().describe()))


@st.cache_data(ttl=30, show_spinner=False)
def _checker_status() -> str:
    from graphrag.verify import make_checker

    try:
        make_checker("embedded")
    except GraphRAGError as exc:
        return f"not available ({exc})"
    return "ready"
