"""The models, loaded ahead of use by the server: the sentence encoder (exported to ONNX on a machine's first
start), the reader and spaCy, on a thread of their own, once per server process.

``start`` is called where `streamlit run app.py` imports app.py (a real server only: AppTest never does), and the
thread then waits for ``go``, which the page's script calls when loading no longer competes with drawing a page:
on a first start just before the sample ingest (the job loads spaCy and parses while this loads the encoder), on
a later start after the first page is drawn (the models then load while the question is typed). Each model is
cached per process behind a lock, so whoever needs one first waits for this load rather than loading it again.
No Streamlit cache here: the server imports this before Streamlit's runtime exists.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphrag.store import Store

log = logging.getLogger(__name__)
_GO = threading.Event()
_STARTED = threading.Event()
_STORE: list[Store] = []  # the store ``go`` was given, for the loaders that are built on one


def _load_after_go() -> None:
    _GO.wait()
    from graphrag.answer import Asker
    from graphrag.ingest import store_extractor
    from graphrag.language.embed import get_embedder

    try:
        get_embedder()  # first: with its ONNX export on a machine's first start, the longest of the three
        # The reader's answer scorer is loaded once per process: the dashboard's Asker then builds on it at once.
        Asker(_STORE[0], embedder=get_embedder()).warm()
        load = getattr(store_extractor("rules", _STORE[0]), "load", None)  # spaCy's English pipeline
        if callable(load):
            load()
    except Exception as exc:  # noqa: BLE001 - a model that fails here fails again where it is needed, saying why
        log.warning("loading the models ahead of use failed (%s: %s)", type(exc).__name__, exc)


def start() -> None:
    """Start the loading thread (once per process); it loads nothing until ``go``."""
    if not _STARTED.is_set():
        _STARTED.set()
        threading.Thread(target=_load_after_go, name="graphrag-load-models", daemon=True).start()


def go(store: Store) -> None:
    """Let the loading thread begin, for ``store`` (no effect without ``start``, or after the first call)."""
    if not _GO.is_set():
        _STORE.append(store)
        _GO.set()
