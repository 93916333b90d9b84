"""GraphRAG review dashboard: `streamlit run app.py`.

Mode: local (default; no sign-in, labels are a filter) or team (GRAPHRAG_MODE=team: OpenID Connect
sign-in through st.login, labels and roles from the access policy), see graphrag/access/deployment.py.
Store: env GRAPHRAG_STORE, else GRAPHRAG_STORE in .streamlit/secrets.toml, else data/graphrag.db
(a file path, sqlite:///path or postgresql+psycopg://user:password@host:port/db). On an empty store the sample corpus is
ingested once with the embedded defaults (set GRAPHRAG_SAMPLE=0 to start empty). Every setting, its default and
where it may be set: graphrag/config.py (read once per server process; the sidebar's Backends panel shows it).

`streamlit run app.py` imports this file as a module (not as ``__main__``) and serves the ``st.App`` below,
so every HTTP request and websocket upgrade passes dashboard.host_guard first; each session then runs this
file as its script (``__main__``), which draws the pages.
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from dashboard.host_guard import HostGuard


def _pages() -> None:
    """Every page's gate, sidebar and navigation: one run of the script. Imported here, not above: the server's
    import of this file must not define the pages' caches before Streamlit's runtime exists."""
    from dashboard import actor, first_start, reconnect, resources, session, sidebar, signin
    from dashboard.render import plain
    from graphrag.config import ConfigError
    from graphrag.errors import GraphRAGError, StoreError

    # No page_icon and no st.Page icons: Streamlit fetches a Material-icon favicon from fonts.gstatic.com,
    # and the browser must ask nothing of any host but this one.
    st.set_page_config(page_title="GraphRAG review", layout="wide")

    # Less empty space above the content: the review page must fit a laptop screen.
    st.html("<style>[data-testid='stMainBlockContainer'] { padding-top: 2rem; padding-bottom: 2rem; }</style>")
    try:
        resources.config()
    except ConfigError as exc:  # a wrong value (a typo in GRAPHRAG_MODE too) serves nothing: fail closed, say what
        st.error("This dashboard's configuration has a value it cannot use, so it serves nothing. Fix it and "
                 "restart:\n\n" + "\n".join(f"- {plain(p)}" for p in exc.problems))
        st.stop()
    session.init_session()
    reconnected = reconnect.restarted()  # on the session's first run, before anything may stop it
    reconnect.watch()
    deployment = resources.current_deployment()
    if deployment.team:
        signin.refuse_misconfigured_team_mode(deployment)  # says what is missing, and serves nothing
    else:
        signin.warn_if_exposed()
    try:
        store = resources.store()
    except GraphRAGError as exc:
        st.error(f"Cannot open the store: {plain(exc)}. Set GRAPHRAG_STORE to a writable file or a "
                 "postgresql+psycopg:// URL and restart.")
        st.stop()
    me = signin.sign_in_gate(store, deployment) if deployment.team else actor.principal()
    pages = [
        st.Page("views/ask.py", title="Ask", default=True),
        st.Page("views/review.py", title="Review"),
        st.Page("views/graph.py", title="Graph"),
        st.Page("views/record.py", title="Record"),
    ]
    if me.may("admin"):  # a convenience only: the Ingest page checks the role itself
        pages.append(st.Page("views/ingest.py", title="Ingest"))
    page = st.navigation(pages)
    if reconnected:
        st.warning("This dashboard restarted while the page was open, so the page is drawn again from the store: a "
                   "verdict key or a button pressed while it was reconnecting was not recorded. Only what the pages "
                   "show now is recorded.", icon=":material/restart_alt:")
    try:
        first_start.first_start(store)
        # the reader, its encoders and spaCy load while the page is read, not on the first question; after a first
        # start's ingest, never beside it (docs/figures.md: loading beside it made the first start slower)
        resources.warm_models()
        sidebar.sidebar(store)
        page.run()
    except StoreError as exc:  # e.g. the database server is down: retried already, nothing confirmed is lost
        st.error(f"{plain(exc)}. Your last confirmed action is stored; reload the page to try again.")


if __name__ == "__main__":  # a session's run of the script
    _pages()
else:  # `streamlit run app.py` serving (st.App is what it looks for in this file)
    app = st.App(__file__, middleware=[Middleware(HostGuard)])
