"""Ask: retrieve -> read -> generate -> attribute -> check support -> persist.

The one entry point the CLI and the pages share. Every citation leaves here with a measured
support (or explicitly "not checked" when the checker could not run), and every answer is
stored with its settings, context items and routes, claims and citations. The reader
(``graphrag.answer.reader``) decides before any generator runs whether the documents answer and
which sentence answers: when they do not, the answer says so in words, makes no claim, and keeps
the closest passages as its context (``Answer.answered`` False); no model is called. When they
do, the generator composes the answer from the reader's ``Reading``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from graphrag.answer.generate import Generator, make_generator
from graphrag.answer.generate.abstention import closest_statements, not_answered_text
from graphrag.answer.generate.extractive import ExtractiveGenerator
from graphrag.answer.generate.facts import graph_facts
from graphrag.answer.generate.ollama import OllamaGenerator
from graphrag.answer.global_question import is_global
from graphrag.answer.reader.read import Reader, Reading, Why, stored_scorer
from graphrag.answer.reader.scorer import Passage
from graphrag.answer.reader.second_view import stored_vectors
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.load import load_graph
from graphrag.answer.retrieval.retrieve import Retrieval, clean_question, retrieve
from graphrag.answer.retrieval.server import search_note
from graphrag.answer.themes import CHANGES, LOCAL, MODES, THEMES, changes_draft, theme_draft
from graphrag.config import Config
from graphrag.errors import BackendFailed, InputError, ModelUnavailable
from graphrag.language.embed import get_embedder
from graphrag.language.encoding import Embedder
from graphrag.model import (
    Answer,
    AnswerStatus,
    AskSettings,
    Claim,
    ContextItem,
)
from graphrag.store import Store
from graphrag.verify.attribution import attribute, in_reading_order
from graphrag.verify.disagreement import find_disagreements
from graphrag.verify.held import Held
from graphrag.verify.reuse import Reuse
from graphrag.verify.support import SupportChecker, checker_for_store
from graphrag.verify.support.claims import check_claims

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AskOutcome:
    """A saved answer and the warnings to show beside it (nothing relevant found, support not checked)."""

    answer: Answer
    warnings: tuple[str, ...] = ()
    # how the question was searched, when not as usual (the database's index still building): for the asker,
    # not part of the answer
    search_note: str | None = None
    # the reader's reading of the context the answer was read from (each quote's answer probability, its typed short
    # answer, why the documents answer or not): for ``ask --json``, not stored with the answer; None for a theme or
    # change answer
    reading: Reading | None = None
    read_from: tuple[ContextItem, ...] = ()  # the context as the reader read it, numbered as its scores are
    # an earlier answer to the same question that reviewers verified (graphrag.verify.reuse): the answer given, reused
    # (``answer`` is it); or, outdated because a sentence it cites changed since, named beside a fresh ``answer``
    earlier: Reuse | None = None
    # the team holds this answer back from the asker until reviewers verify it (graphrag.verify.held): ``answer``
    # then keeps only its question and id
    held: Held | None = None


def _backend_options(name: str, model: str | None, config: Config) -> dict[str, object]:
    """The options a generator or checker named ``name`` is built with: its model, if named, and for an Ollama
    backend the configured server (OLLAMA_HOST)."""
    host = {"host": config.ollama_host} if name == "ollama" and config.ollama_host else {}
    return {**({"model": model} if model else {}), **host}


def _cited(claims: list[Claim]) -> list[ContextItem]:
    """The context items the claims cite, in marker order, each once."""
    items = {c.item.n: c.item for cl in claims for c in cl.citations if c.item is not None}
    return [items[n] for n in sorted(items)]


def _titles(graph: KnowledgeGraph) -> Callable[[str, int], str | None]:
    """A document version's title through the graph's own index (nothing built per ask, whatever the store's size)."""
    def title(doc: str, version: int) -> str | None:
        i = graph.doc_index.get((doc, version))
        return None if i is None else graph.docs[i].title
    return title


class Asker:
    """Holds the backends for a series of questions against one store. The models it loads (the sentence embedder,
    the reader) are those ``config`` describes, the caller's (default: the defaults, ``Config()``), as are the Ollama
    server of a backend named "ollama" and the reader's second view (GRAPHRAG_PASSAGE_VECTORS)."""

    def __init__(self, store: Store, *, embedder: Embedder | None = None, generator: Generator | None = None,
                 checker: SupportChecker | None = None, reader: Reader | None = None,
                 config: Config | None = None) -> None:
        self.store = store
        self.config = config or Config()
        self._embedder = embedder
        self._generator = generator
        self._checker = checker
        self._reader = reader
        self._reader_lock = threading.Lock()  # two threads asking first load the reader once

    def using(self, generator: Generator | None = None, checker: SupportChecker | None = None) -> Asker:
        """This asker with other backends (None: its own), sharing its store, configuration and the models it has
        loaded so far."""
        return Asker(self.store, embedder=self._embedder,
                     generator=self._generator if generator is None else generator,
                     checker=self._checker if checker is None else checker, reader=self._reader, config=self.config)

    @property
    def reader(self) -> Reader:
        """The reader (answer scorer and abstention model), loaded on first use or by ``warm``."""
        with self._reader_lock:
            if self._reader is None:
                self._reader = Reader.load(self.config.passage_vectors)
            return self._reader

    def warm(self) -> Asker:
        """Load now (at start), not on the first question, all a question loads: the sentence encoder and the reader,
        each encoder the reader queries run once (its first query builds its session) and the English pipeline that
        finds the question's phrases. The first question after a restart waited about 5 s for the last two."""
        from graphrag.answer.reader.read import stored_scorer
        from graphrag.answer.retrieval.anchors import question_phrases

        sample = "How long are exports kept?"
        reader = self.reader
        self.embedder.encode([sample])
        try:
            question_phrases(sample)
        except ModelUnavailable:  # no English pipeline: the question says so, as it did
            pass
        for encoder in (getattr(reader, "second", None), stored_scorer(getattr(reader, "scorer", None))):
            if encoder is not None:
                encoder.query(sample)
        return self

    @property
    def embedder(self) -> Embedder:
        """The sentence embedder, loaded on first use."""
        if self._embedder is None:
            self._embedder = get_embedder(self.config)
        return self._embedder

    def passages(self, graph: KnowledgeGraph, title: Callable[[str, int], str | None] | None = None
                 ) -> Callable[[ContextItem], Passage]:
        """Each context item as the reader's scorer reads it in an ask: the sentence, its title (``title``: the
        graph's titles, if already looked up) and, when the scorer reads them, the sentences before and after it (two
        store reads per item; the shipped scorer reads "title. sentence" alone)."""
        neighbours = stored_scorer(self.reader.scorer) is None
        title = title or _titles(graph)

        def passage(item: ContextItem) -> Passage:
            sp = item.span

            def near(i: int) -> str:
                got = self.store.span(sp.document_id, sp.version, i) if neighbours and i >= 0 else None
                return " ".join(got.text.split()) if got is not None else ""
            return Passage(" ".join(sp.text.split()), near(sp.sentence_index - 1), near(sp.sentence_index + 1),
                           title(sp.document_id, sp.version) or "")
        return passage

    def read(self, question: str, context: Sequence[ContextItem], graph: KnowledgeGraph,
             min_relevance: float | None = None) -> Reading:
        """The reader on ``context``: each item with its title (and its neighbours if the scorer reads them), the
        second view from the stored vectors, the ranker with each document version's length; nothing is read when
        no item is at least ``min_relevance`` similar to the question."""
        title = _titles(graph)
        return self.reader.read(question, context, self.passages(graph, title),
                                encoder=getattr(self.embedder, "name", None),
                                vectors_of=stored_vectors(self.store, title), min_relevance=min_relevance,
                                sentence_count=graph_facts(graph).sentence_count, before_of=self.sentence_before)

    def sentence_before(self, item: ContextItem) -> str:
        """The sentence before the item's in its document version ("" for the first)."""
        sp = item.span
        got = self.store.span(sp.document_id, sp.version, sp.sentence_index - 1) if sp.sentence_index > 0 else None
        return " ".join(got.text.split()) if got is not None else ""

    def graph(self) -> KnowledgeGraph:
        """The knowledge graph as the store holds it now."""
        return load_graph(self.store)

    def retrieve(self, question: str, settings: AskSettings) -> Retrieval:
        """Anchors, walk and context for ``question`` under ``settings``, without generating an answer."""
        return retrieve(self.store, self.graph(), self.embedder, question, settings)

    def _checked(self, claims: list[Claim], settings: AskSettings,
                 warnings: list[str]) -> tuple[list[Claim], AnswerStatus]:
        """The claims with their support checked, and the answer's status; a claim the checker could not score
        stays "not checked", with a warning."""
        status = AnswerStatus.CITED
        if claims:
            try:
                checker = self._checker or checker_for_store(
                    settings.checker, self.store, self.config,
                    **_backend_options(settings.checker, settings.checker_model, self.config))
                claims = check_claims(self.store, claims, checker)
                if all(c.support is not None for c in claims):
                    status = AnswerStatus.AUTO_CHECKED
                else:
                    warnings.append("The support checker could not score every claim; those stay 'not checked'.")
            except (ModelUnavailable, BackendFailed) as exc:
                warnings.append(f"Support not checked: {exc}")
        return claims, status

    def _save(self, answer: Answer, warnings: list[str], graph: KnowledgeGraph) -> AskOutcome:
        stored = self.store.answer(self.store.save_answer(answer))
        assert stored is not None
        return AskOutcome(stored, tuple(warnings), search_note(self.store, graph))

    def ask_global(self, question: str, settings: AskSettings, routed: bool = False) -> AskOutcome:
        """Answer a global question from the graph's communities (``settings.mode`` "themes"), or say what two
        documents or versions state differently ("changes"): every statement cited, checked and saved like any
        answer (``graphrag.answer.themes``). ``routed``: a question asked in the default mode that asks about the
        documents as a whole (``global_question.is_global``); its answer says it was answered by themes."""
        graph = self.graph()
        if settings.mode == CHANGES:
            draft = changes_draft(self.store, graph, settings)
        else:
            draft = theme_draft(self.store, graph, self.embedder, question, settings, routed=routed)
        settings = draft.settings or settings
        warnings = list(draft.warnings)
        text, context = in_reading_order(draft.text, draft.context) if draft.answered else (draft.text, draft.context)
        # the themes' names (and a routed answer's opening) are no claims: each quote under them is one
        claims, status = self._checked(attribute(text, context, draft.headings) if draft.answered else [], settings,
                                       warnings)
        return self._save(Answer(question, settings, text, draft.seeds, tuple(c.route for c in context),
                                 context, tuple(claims), status,
                                 disagreements=tuple(find_disagreements(_cited(claims), _titles(graph))),
                                 answered=draft.answered and bool(claims)), warnings, graph)

    def ask(self, question: str, settings: AskSettings = AskSettings()) -> AskOutcome:
        """Answer ``question``: retrieve, generate, attribute claims, check their support, save; the answer is
        empty (with a warning) when nothing visible is relevant enough. A theme or change question (``settings.mode``)
        is answered by ``ask_global``."""
        question = clean_question(question)
        if settings.mode not in MODES:
            raise InputError(f"unknown answer mode {settings.mode!r}: choose one of {', '.join(MODES)}")
        if settings.mode != LOCAL:
            return self.ask_global(question, settings)
        if is_global(question):
            # "What are these documents about?": the nearest sentences would give one stray quote; themes answer it
            return self.ask_global(question, replace(settings, mode=THEMES), routed=True)
        found = self.retrieve(question, settings)
        warnings: list[str] = []
        generator = self._generator or make_generator(
            settings.generator, **_backend_options(settings.generator, settings.generator_model, self.config))
        graph = self.graph()
        if isinstance(generator, (ExtractiveGenerator, OllamaGenerator)):
            # hub entities kept out of quoted chains; document titles to name sources that disagree
            generator = generator.for_graph(graph)
        reading = self.read(question, found.context, graph, settings.min_relevance)
        if reading.answered:
            generation = generator.generate(question, found.context, reading)
            text, model = generation.text, generation.model
        elif reading.why is Why.NO_CANDIDATE:
            text, model = "", None
            warnings.append("No evidence found among the documents you can see: nothing to answer from.")
        else:
            # The documents are about the question but do not answer it (or nothing is close enough to be about
            # it: quoting the least unrelated sentences would look like an answer, and each quote would check as
            # "supported" by itself): said in words, no claim is made, and the closest passages stay as the
            # context (shown as passages, never queued for review). What the closest of them say is said beside what
            # they lack, where a pattern is sure of both; nothing is said of passages that are not about the question.
            about = reading.why is not Why.BELOW_RELEVANCE
            text, model = not_answered_text(question, closest_statements(found.context) if about else ()), None
            if reading.why is Why.BELOW_RELEVANCE:
                warnings.append(f"Nothing you can see is about this question: {reading.reason}.")
        answered = bool(text) and reading.answered
        # one numbering, decided here: [1] is the first source the text cites, on every surface and in the record
        text, context = in_reading_order(text, found.context) if answered else (text, tuple(found.context))
        claims, status = self._checked(attribute(text, context) if answered else [], settings, warnings)
        answer = Answer(question, settings, text, found.seeds, found.reached, context, tuple(claims), status,
                        generator_model=model, disagreements=tuple(find_disagreements(_cited(claims), _titles(graph))),
                        answered=answered, answerable=reading.probability)
        return replace(self._save(answer, warnings, graph), reading=reading, read_from=tuple(found.context))
