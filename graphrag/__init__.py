"""Local GraphRAG with source attribution: the core package (no UI code).

For notebooks and scripts, four functions cover the loop the dashboard and the CLI run (named apart from the
domain package ``graphrag.ingest``, which importing would shadow)::

    import graphrag

    store = graphrag.open_store("handbook.db")        # or a postgresql+psycopg:// URL
    graphrag.ingest_paths(store, ["sample_corpus/"])
    outcome = graphrag.ask_question(store, "How long do exports stay available after cancellation?")
    graphrag.review_claim(store, outcome.answer.id, 0, "supported", reviewer="ana")

They go through the same use cases as the command line and the dashboard (``graphrag.ingest.ingest_paths``,
``graphrag.answer.answer_question``, ``graphrag.verify.mark_verdict``), acting as a local ``Viewer`` through Python
(``via: python`` in the audit log), so an ingest and a verdict leave their audit row. ``Store``, ``Ingestor`` and
``Asker`` remain the way to hold backends across many calls. Their defaults (the store, its retry time, the ingest's threads) come from a
``Config`` read from the environment at each call unless one is given (``graphrag.Config.from_env()``; every
setting is listed in ``graphrag/config.py``). The code is grouped by domain: ``access``, ``store``, ``ingest``,
``answer``, ``verify`` and ``present``, each importable from its package (``from graphrag.answer import Asker``),
around a small kernel (config, errors, text, model, embed, ollama_util, registry, serve). Everything heavy is
imported on first use: ``import graphrag`` loads neither torch nor spaCy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphrag.config import Config

# ONNX Runtime (1.29 on) sends telemetry from Linux unless told not to, and its process-info event parses the whole
# command line with a recursive pattern when the runtime loads: a command line over about 32 KB (`graphrag ask` with
# a 40,000-character question) overflowed the stack and killed the process (segmentation fault, onnxruntime 1.30). A
# local product sends nothing: off before any model loads, unless the person running it set it otherwise.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

if TYPE_CHECKING:
    from graphrag.access import Viewer
    from graphrag.answer.ask import AskOutcome
    from graphrag.answer.generate.base import Generator
    from graphrag.ingest.extract.base import Extractor
    from graphrag.ingest.pipeline import IngestReport
    from graphrag.language.encoding import Embedder
    from graphrag.model import Verdict, VerdictKind, VerdictLabel
    from graphrag.store import Store, StoreURL
    from graphrag.verify.support.base import SupportChecker

__version__ = "0.1.0"
__all__ = ["Config", "ask_question", "ingest_paths", "open_store", "review_claim"]

PUBLIC = ("public",)


def open_store(where: str | os.PathLike[str] | StoreURL | None = None, *, config: Config | None = None) -> Store:
    """Open a store, creating and migrating it if needed.

    ``where`` is a SQLite file (``"data/graphrag.db"``, ``"sqlite:///x.db"``) or a PostgreSQL URL
    (``"postgresql+psycopg://user:password@host:5432/db"``); by default the configured one (GRAPHRAG_STORE, else
    data/graphrag.db). Close it with ``store.close()``, or use it as a context manager.
    """
    from graphrag.store import Store

    cfg = config or Config.from_env()
    return Store(cfg.store if where is None else where, retry_s=cfg.store_retry_s)


def ingest_paths(store: Store, paths: Iterable[str | os.PathLike[str]], *, extractor: str | Extractor = "rules",
           embedder: Embedder | None = None, config: Config | None = None, access: Sequence[str] | None = None,
           **extractor_options: object) -> IngestReport:
    """Ingest files and folders (Markdown, text, PDF, HTML, DOCX; a folder's ``manifest.toml`` gives
    titles, dates and access labels) and return what happened to each document.

    ``extractor`` is a backend name (``"rules"``, ``"ollama"``; options such as ``model`` or ``host``
    go to it) or an extractor object. ``embedder`` defaults to all-MiniLM-L6-v2; ``config`` (default: the
    environment's) sets the ingest's threads (GRAPHRAG_INGEST_OVERLAP, GRAPHRAG_TORCH_THREADS). A document that
    failed writes nothing and is retried by the next ingest; an unchanged one is not re-extracted. ``access``: ingest
    as someone holding these labels (a document is then ``refused`` unless it gets only labels among them and, for a
    new version or new labels, its current version is visible to them); by default the store's own access.
    """
    from graphrag.ingest import ingest_paths as ingest_use_case
    from graphrag.ingest.extract import store_extractor

    if isinstance(extractor, str):
        extractor = store_extractor(extractor, store, **extractor_options)
    elif extractor_options:
        raise TypeError("extractor options go with an extractor name, not an extractor object")
    viewer = _library_viewer(PUBLIC if access is None else access)
    return ingest_use_case(store, viewer, config or Config.from_env(), [Path(p) for p in paths], extractor,
                           bound=access is not None, embedder=embedder)


def ask_question(store: Store, question: str, *, access: Sequence[str] = PUBLIC, embedder: Embedder | None = None,
        generator: str | Generator = "extractive", checker: str | SupportChecker = "embedded", fresh: bool = False,
        **settings: Any) -> AskOutcome:
    """Answer ``question`` from the documents ``access`` may see, store the answer and return it.

    The outcome's ``answer`` has ``text``, ``claims`` (each with its citations and checked support) and
    ``id`` (for :func:`review_claim`); ``warnings`` say when nothing relevant was found or a claim could not be
    checked. ``generator`` and ``checker`` are backend names or objects; other keywords are
    ``AskSettings`` fields (``k``, ``hops``, ``direction``, ``min_relevance``, ``generator_model`` ...);
    ``mode="themes"`` answers a global question theme by theme from the graph's communities, and
    ``mode="changes"`` with ``documents=(A, B)`` (or one id with two versions) says what they state differently.
    A question asked before under the same labels, scope and mode whose answer reviewers verified, its sources
    unchanged, is answered with that answer (the outcome's ``earlier`` says so); ``fresh=True`` answers anew.
    """
    from graphrag.answer import answer_question
    from graphrag.answer.ask import Asker
    from graphrag.model import AskSettings

    # The settings record the backends by name, whether they were named or given.
    ask_settings = AskSettings(generator=generator if isinstance(generator, str) else generator.name,
                               checker=checker if isinstance(checker, str) else checker.name, **settings)
    asker = Asker(store, embedder=embedder, generator=None if isinstance(generator, str) else generator,
                  checker=None if isinstance(checker, str) else checker)
    return answer_question(store, _library_viewer(access), Config.from_env(), question, ask_settings, asker=asker,
                           fresh=fresh)


def review_claim(store: Store, answer_id: int, claim_index: int, verdict: str | VerdictLabel, reviewer: str, *,
           note: str = "", access: Sequence[str] = PUBLIC, citation: str | None = None,
           adjudicate: bool = False, kind: str | VerdictKind | None = None) -> Verdict:
    """Append a reviewer's verdict (``"supported"``, ``"partial"`` or ``"unsupported"``) on one claim.

    ``kind`` is the question answered: ``"backs"`` (does the source back the claim?) or ``"answers"`` (does the
    quote answer the question?); by default the one the claim is asked (a verbatim quote: answers). The verdict
    may also be said in a kind's words (``"backed"``, ``"not_backed"``, ``"answers"``, ``"does_not"``, ``"partly"``).

    The claim is judged against its citation marked ``citation`` (default: its first valid one); the
    hash of that sentence is kept, so the verdict goes stale if the source changes. The answer must be
    visible to ``access``. ``adjudicate`` settles a claim whose reviewers disagree (blind review).
    """
    from graphrag.verify import mark_verdict

    return mark_verdict(store, _library_viewer(access), Config.from_env(), answer_id, claim_index, verdict, reviewer,
                        note=note, citation=citation, adjudicate=adjudicate, kind=kind)


def _library_viewer(access: Sequence[str]) -> Viewer:
    """Who acts through the facade: a local viewer with these labels, through Python (every action allowed, as on
    the command line; the labels limit what is seen)."""
    from graphrag.access import library_viewer

    return library_viewer(access)
