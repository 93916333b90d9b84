"""Local GraphRAG with source attribution: the core package (no UI code).

For notebooks and scripts, ``graphrag.open`` returns a ``Workspace``: the settings (read from the environment once,
unless a ``Config`` is given), the store and the models, with the command line's verbs::

    import graphrag

    with graphrag.open("handbook.db") as ws:           # or a postgresql+psycopg:// URL; default: GRAPHRAG_STORE
        ws.ingest(["sample_corpus/"])
        outcome = ws.ask("How long do exports stay available after cancellation?")
        ws.review(outcome.answer.id, 0, "supported", reviewer="ana")

They go through the same use cases as the command line and the dashboard (``graphrag.ingest.ingest_paths``,
``graphrag.answer.answer_question``, ``graphrag.verify.mark_verdict``), acting as a local ``Viewer`` through Python
(``via: python`` in the audit log), so an ingest and a verdict leave their audit row. The workspace opens the store
at once and loads each model on first use, once (``ws.warm()`` loads them now); the command line builds one per
command and the dashboard one per server process. Every setting is listed in ``graphrag/config.py``. The functions of
the release before (``open_store``, ``ingest_paths``, ``ask_question``, ``review_claim``) still work, through a
workspace around the store they are given; they read the environment at each call. The code is grouped by domain:
``access``, ``store``, ``ingest``, ``answer``, ``verify`` and ``present``, each importable from its package (``from
graphrag.answer import Asker``), around a small kernel (config, errors, text, model, embed, ollama_util, registry,
serve). Everything heavy is imported on first use: ``import graphrag`` loads neither torch nor spaCy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from graphrag.config import Config
from graphrag.workspace import PUBLIC, Workspace

# ONNX Runtime (1.29 on) sends telemetry from Linux unless told not to, and its process-info event parses the whole
# command line with a recursive pattern when the runtime loads: a command line over about 32 KB (`graphrag ask` with
# a 40,000-character question) overflowed the stack and killed the process (segmentation fault, onnxruntime 1.30). A
# local product sends nothing: off before any model loads, unless the person running it set it otherwise.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

if TYPE_CHECKING:
    from graphrag.answer.ask import AskOutcome
    from graphrag.answer.generate.base import Generator
    from graphrag.ingest.extract.base import Extractor
    from graphrag.ingest.pipeline import IngestReport
    from graphrag.language.encoding import Embedder
    from graphrag.model import Verdict, VerdictKind, VerdictLabel
    from graphrag.store import Store, StoreURL
    from graphrag.verify.support.base import SupportChecker

__version__ = "0.1.0"
__all__ = ["Config", "Workspace", "ask_question", "ingest_paths", "open", "open_store", "review_claim"]


def open(where: str | os.PathLike[str] | StoreURL | None = None, *, config: Config | None = None,
         embedder: Embedder | None = None) -> Workspace:
    """The workspace of this script: ``config`` (default: read from the environment now, once), the store at
    ``where`` opened and migrated now (a SQLite file, ``"sqlite:///x.db"``, or
    ``"postgresql+psycopg://user:password@host:5432/db"``; default: the configured one, GRAPHRAG_STORE, else
    data/graphrag.db), and the models, loaded on first use. ``embedder``: one to use instead of MiniLM. Close it with
    ``ws.close()``, or use it as a context manager."""
    workspace = Workspace(config or Config.from_env(), where=where, embedder=embedder)
    workspace.store  # noqa: B018 - opened now: a store that cannot be opened is said here, not at the first use
    return workspace


def open_store(where: str | os.PathLike[str] | StoreURL | None = None, *, config: Config | None = None) -> Store:
    """Open a store, creating and migrating it if needed: ``graphrag.open(where, config=config).store`` (kept for a
    release; use ``graphrag.open``).

    ``where`` is a SQLite file (``"data/graphrag.db"``, ``"sqlite:///x.db"``) or a PostgreSQL URL
    (``"postgresql+psycopg://user:password@host:5432/db"``); by default the configured one (GRAPHRAG_STORE, else
    data/graphrag.db). Close it with ``store.close()``, or use it as a context manager.
    """
    return open(where, config=config).store


def ingest_paths(store: Store, paths: Iterable[str | os.PathLike[str]], *, extractor: str | Extractor = "rules",
           embedder: Embedder | None = None, config: Config | None = None, access: Sequence[str] | None = None,
           **extractor_options: object) -> IngestReport:
    """Ingest files and folders into ``store``: ``Workspace.ingest`` on a workspace around it (kept for a release;
    use ``graphrag.open(...).ingest``). ``config``: default, the environment's, read at this call."""
    return _around(store, config, embedder).ingest(paths, extractor=extractor, access=access, **extractor_options)


def ask_question(store: Store, question: str, *, access: Sequence[str] = PUBLIC, embedder: Embedder | None = None,
        generator: str | Generator = "extractive", checker: str | SupportChecker = "embedded", fresh: bool = False,
        **settings: Any) -> AskOutcome:
    """Answer ``question`` from ``store`` and store the answer: ``Workspace.ask`` on a workspace around it, with the
    environment's configuration read at this call (kept for a release; use ``graphrag.open(...).ask``)."""
    return _around(store, None, embedder).ask(question, access=access, generator=generator, checker=checker,
                                              fresh=fresh, **settings)


def review_claim(store: Store, answer_id: int, claim_index: int, verdict: str | VerdictLabel, reviewer: str, *,
           note: str = "", access: Sequence[str] = PUBLIC, citation: str | None = None,
           adjudicate: bool = False, kind: str | VerdictKind | None = None) -> Verdict:
    """Append a reviewer's verdict on one claim of an answer in ``store``: ``Workspace.review`` on a workspace around
    it (kept for a release; use ``graphrag.open(...).review``)."""
    return _around(store, None).review(answer_id, claim_index, verdict, reviewer, note=note, access=access,
                                       citation=citation, adjudicate=adjudicate, kind=kind)


def _around(store: Store, config: Config | None, embedder: Embedder | None = None) -> Workspace:
    """A workspace around a store the caller opened (and closes), with ``config`` or the environment's, read now."""
    return Workspace(config or Config.from_env(), store=store, embedder=embedder)
