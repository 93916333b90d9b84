"""``Workspace``: the product in one process, holding its settings, its store and its loaded models.

One is built per process (``graphrag.open()`` in a script, one per command by the command line, one per server by
the dashboard's ``dashboard.resources``), from a ``Config`` read once; everything below it takes its settings from
there, never from the environment. The store opens on first use (``graphrag.open`` opens it at once); the sentence
embedder and the asker's reader load on first use, each once even when two threads ask first. Its verbs are the
command line's (``ingest``, ``ask``, ``review``) and go through the same use cases (``graphrag.ingest.ingest_paths``,
``graphrag.answer.answer_question``, ``graphrag.verify.mark_verdict``), acting as a local viewer through Python
(``via: python`` in the audit log). Everything heavy is imported on first use: importing this loads no model.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphrag.config import Config

if TYPE_CHECKING:
    from graphrag.access import Viewer
    from graphrag.answer.ask import Asker, AskOutcome
    from graphrag.answer.generate.base import Generator
    from graphrag.ingest.extract.base import Extractor
    from graphrag.ingest.pipeline import IngestReport
    from graphrag.language.encoding import Embedder
    from graphrag.model import Verdict, VerdictKind, VerdictLabel
    from graphrag.store import Store, StoreURL
    from graphrag.verify.support.base import SupportChecker

PUBLIC = ("public",)


class Workspace:
    """The configuration, the store and the models of one process, each made once.

    ``where``: the store (a SQLite file, ``sqlite:///x.db`` or a ``postgresql+psycopg://`` URL; default: the
    configuration's, GRAPHRAG_STORE), or ``store``, one already open, which closing the workspace leaves open.
    ``embedder``: a sentence embedder to use instead of the shared MiniLM the configuration describes. Close it with
    ``close()``, or use it as a context manager.
    """

    def __init__(self, config: Config, *, where: str | os.PathLike[str] | StoreURL | None = None,
                 store: Store | None = None, embedder: Embedder | None = None) -> None:
        self.config = config
        self._where = config.store if where is None else where
        self._store = store
        self._owns_store = store is None
        self._embedder = embedder
        self._asker: Asker | None = None
        self._warmed = False
        self._lock = threading.Lock()  # the store and the asker are made once, whichever thread asks first
        self._warm_lock = threading.Lock()  # held while the models load: a second caller waits for that load

    # --- what it holds --------------------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        """The store, opened (and migrated) on first use, retried for GRAPHRAG_STORE_RETRY_S when busy or
        unreachable. A store that cannot be opened raises ``StoreError`` and is tried again on the next use."""
        with self._lock:
            if self._store is None:
                from graphrag.store import Store

                self._store = Store(self._where, retry_s=self.config.store_retry_s)
            return self._store

    @property
    def embedder(self) -> Embedder:
        """The sentence embedder: the one given, else the process's MiniLM for this configuration, loaded on first use
        (``graphrag.language.embed.get_embedder``, which loads it once per process)."""
        if self._embedder is None:
            from graphrag.language.embed import get_embedder

            self._embedder = get_embedder(self.config)
        return self._embedder

    @property
    def asker(self) -> Asker:
        """The asker every question goes through: the store, the embedder and the reader, each loaded on first use
        (or by ``warm``), and the backends named in each question's settings."""
        store = self.store
        with self._lock:
            if self._asker is None:
                from graphrag.answer.ask import Asker

                self._asker = Asker(store, embedder=self._embedder, config=self.config)
            return self._asker

    def warm(self) -> Workspace:
        """Load now, once, what a question loads (the embedder, the reader and its encoders, the English pipeline):
        a caller arriving while another loads them waits for that load, never starts a second one. A load that fails
        raises, and the next call tries again."""
        with self._warm_lock:
            if not self._warmed:
                self.asker.warm()
                self._warmed = True
        return self

    # --- the command line's verbs ---------------------------------------------------------------------------

    def ingest(self, paths: Iterable[str | os.PathLike[str]], *, extractor: str | Extractor = "rules",
               access: Sequence[str] | None = None, **extractor_options: object) -> IngestReport:
        """Ingest files and folders (Markdown, text, PDF, HTML, DOCX; a folder's ``manifest.toml`` gives
        titles, dates and access labels) and return what happened to each document.

        ``extractor`` is a backend name (``"rules"``, ``"ollama"``; options such as ``model`` or ``host`` go to it;
        Ollama's server is the configuration's unless ``host`` is given) or an extractor object. A document that
        failed writes nothing and is retried by the next ingest; an unchanged one is not re-extracted. ``access``:
        ingest as someone holding these labels (a document is then ``refused`` unless it gets only labels among them
        and, for a new version or new labels, its current version is visible to them); by default the store's own
        access.
        """
        from graphrag.ingest import ingest_paths
        from graphrag.ingest.extract import store_extractor

        store = self.store
        if isinstance(extractor, str):
            if extractor == "ollama":
                extractor_options.setdefault("host", self.config.ollama_host)
            extractor = store_extractor(extractor, store, **extractor_options)
        elif extractor_options:
            raise TypeError("extractor options go with an extractor name, not an extractor object")
        viewer = library_viewer(PUBLIC if access is None else access)
        return ingest_paths(store, viewer, self.config, [Path(p) for p in paths], extractor,
                            bound=access is not None, embedder=self._embedder)

    def ask(self, question: str, *, access: Sequence[str] = PUBLIC, generator: str | Generator = "extractive",
            checker: str | SupportChecker = "embedded", fresh: bool = False, **settings: Any) -> AskOutcome:
        """Answer ``question`` from the documents ``access`` may see, store the answer and return it.

        The outcome's ``answer`` has ``text``, ``claims`` (each with its citations and checked support) and
        ``id`` (for :meth:`review`); ``warnings`` say when nothing relevant was found or a claim could not be
        checked. ``generator`` and ``checker`` are backend names or objects; other keywords are
        ``AskSettings`` fields (``k``, ``hops``, ``direction``, ``min_relevance``, ``generator_model`` ...);
        ``mode="themes"`` answers a global question theme by theme from the graph's communities, and
        ``mode="changes"`` with ``documents=(A, B)`` (or one id with two versions) says what they state differently.
        A question asked before under the same labels, scope and mode whose answer reviewers verified, its sources
        unchanged, is answered with that answer (the outcome's ``earlier`` says so); ``fresh=True`` answers anew.
        """
        from graphrag.answer import answer_question
        from graphrag.model import AskSettings

        # The settings record the backends by name, whether they were named or given.
        ask_settings = AskSettings(generator=generator if isinstance(generator, str) else generator.name,
                                   checker=checker if isinstance(checker, str) else checker.name, **settings)
        asker = self.asker
        if not (isinstance(generator, str) and isinstance(checker, str)):  # backends given for this question only
            asker = asker.using(None if isinstance(generator, str) else generator,
                                None if isinstance(checker, str) else checker)
        return answer_question(self.store, library_viewer(access), self.config, question, ask_settings, asker=asker,
                               fresh=fresh)

    def review(self, answer_id: int, claim_index: int, verdict: str | VerdictLabel, reviewer: str, *,
               note: str = "", access: Sequence[str] = PUBLIC, citation: str | None = None,
               adjudicate: bool = False, kind: str | VerdictKind | None = None) -> Verdict:
        """Append a reviewer's verdict (``"supported"``, ``"partial"`` or ``"unsupported"``) on one claim.

        ``kind`` is the question answered: ``"backs"`` (does the source back the claim?) or ``"answers"`` (does the
        quote answer the question?); by default the one the claim is asked (a verbatim quote: answers). The verdict
        may also be said in a kind's words (``"backed"``, ``"not_backed"``, ``"answers"``, ``"does_not"``,
        ``"partly"``).

        The claim is judged against its citation marked ``citation`` (default: its first valid one); the
        hash of that sentence is kept, so the verdict goes stale if the source changes. The answer must be
        visible to ``access``. ``adjudicate`` settles a claim whose reviewers disagree (blind review).
        """
        from graphrag.verify import mark_verdict

        return mark_verdict(self.store, library_viewer(access), self.config, answer_id, claim_index, verdict,
                            reviewer, note=note, citation=citation, adjudicate=adjudicate, kind=kind)

    # --- its end ----------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the store's connections (a store given to the workspace stays open; one it opened is opened again by
        a later use); the models stay loaded for the rest of the process, shared."""
        if not self._owns_store:
            return
        with self._lock:
            store, self._store, self._asker, self._warmed = self._store, None, None, False
        if store is not None:
            store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def library_viewer(access: Sequence[str]) -> Viewer:
    """Who acts through Python: a local viewer with these labels (every action allowed, as on the command line; the
    labels limit what is seen)."""
    from graphrag.access import library_viewer as local_python_viewer

    return local_python_viewer(access)
