"""What the dashboard is configured with, and the heavy things it opens once per server process.

One ``Workspace`` per server process (``st.cache_resource``: shared by every session) holds the configuration, the
store and the models; ``config``, ``store``, ``embedder`` and ``asker`` hand out what it holds. Also the secrets and
the deployment they describe, and the Ollama status, cached for 30 s so a server that is down costs one short timeout
per half minute, not one per rerun. Nothing here reads the session: the session's keys, who acts and the pages build
on this module.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import streamlit as st

from graphrag.access import Deployment, deployment_for, ingest_roots
from graphrag.answer import Asker
from graphrag.config import Config
from graphrag.language.encoding import Embedder
from graphrag.ollama_util import OllamaStatus, ollama_status, resolve_host
from graphrag.store import Store
from graphrag.workspace import Workspace

log = logging.getLogger(__name__)


@st.cache_resource(show_spinner=False)
def workspace() -> Workspace:
    """This server's workspace, made once per process: its configuration read once, from the environment, then
    .streamlit/secrets.toml (the place for a PostgreSQL URL with a password), then the defaults (see
    graphrag/config.py); its store opened on first use and its models loaded on first use. A bad setting raises
    ``ConfigError``, which is not cached: the next run reads again."""
    return Workspace(Config.from_env(secrets=secrets()))


def config() -> Config:
    """This server's configuration (its workspace's)."""
    return workspace().config


def secrets() -> dict[str, object]:
    """Streamlit's secrets as a dict; empty when there is no readable secrets file."""
    try:
        return st.secrets.to_dict()
    except Exception:  # noqa: BLE001 - no secrets file, or one that does not parse: local defaults apply
        return {}


def current_deployment() -> Deployment:
    """This server's deployment (mode, policy, problems), from the configuration and the secrets' [auth]."""
    return deployment_for(config(), secrets().get("auth"))


def server_ingest_roots() -> tuple[Path, ...]:
    """The folders this deployment lets the Ingest page read from the server."""
    return ingest_roots(config())


def store_path() -> str:
    """The store to open (GRAPHRAG_STORE, see ``config``)."""
    return config().store


def ollama_host() -> str:
    """The Ollama server's URL (OLLAMA_HOST, else Ollama's default)."""
    return resolve_host(config().ollama_host)


def store() -> Store:
    """The store this deployment is configured to use, opened once per server process (the handle is thread-safe: a
    connection pool); one that cannot be opened raises ``StoreError`` and is tried again on the next run."""
    return workspace().store


def embedder() -> Embedder:
    """The sentence embedder, loaded once per server process."""
    return workspace().embedder


def asker() -> Asker:
    """The asker of this deployment's store, shared by every session; its reader (answer scorer and abstention
    model) loads here with the encoder, not on the first question, and a question asked while the background load
    runs waits for that load (``Workspace.warm``)."""
    return workspace().warm().asker


def warm_models() -> None:
    """Load the embedding model and the reader in the background, once per server process, as the first page is
    drawn: the first question after a (re)start found them unloaded and waited about 5 s for them. A question asked
    meanwhile waits for the same load, never for a second one. GRAPHRAG_WARM=0 leaves them to the first question
    (the tests' pages load no model they are not asked for)."""
    if config().warm:
        _warming()


@st.cache_resource(show_spinner=False)
def _warming() -> threading.Thread:
    thread = threading.Thread(target=_warm, name="graphrag-warm-models", daemon=True)
    thread.start()
    return thread


def _warm() -> None:
    try:
        asker()
    except Exception:  # noqa: BLE001 - not loaded now: the first question loads it and says why it cannot
        log.warning("the models could not be loaded in the background; the first question will load them",
                    exc_info=True)


@st.cache_data(ttl=30, show_spinner=False)
def ollama_status_cached(host: str) -> OllamaStatus:
    """The Ollama server's status, cached for 30 s so each rerun does not probe it."""
    return ollama_status(host, timeout=1.0)
