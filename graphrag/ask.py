"""Ask: retrieve -> generate -> attribute -> check support -> persist.

The one entry point the CLI and the pages share. Every citation leaves here with a measured
support (or explicitly "not checked" when the checker could not run), and every answer is
stored with its settings, context items and routes, claims and citations.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from graphrag.attribution import attribute
from graphrag.embed import Embedder, get_embedder
from graphrag.errors import BackendFailed, ModelUnavailable
from graphrag.generate import Generator, make_generator
from graphrag.graph import KnowledgeGraph, load_graph
from graphrag.model import (
    Answer,
    AnswerStatus,
    AskSettings,
    Citation,
    Claim,
    ClaimFlag,
    Support,
    SupportLabel,
)
from graphrag.retrieve import Retrieval, clean_question, retrieve
from graphrag.store import Store
from graphrag.support import SupportChecker, SupportQuery, checker_for_store

log = logging.getLogger(__name__)
# Removing a citation that costs less than this much joined support means it added nothing.
IRRELEVANCE_MARGIN = 0.05


@dataclass(frozen=True)
class AskOutcome:
    answer: Answer
    warnings: tuple[str, ...] = ()


def _neighbours(store: Store, c: Citation) -> tuple[str, ...]:
    assert c.item is not None
    s = c.item.span
    around = (store.span(s.document_id, s.version, s.sentence_index + d) for d in (-1, 1))
    return tuple(x.text for x in around if x is not None)


def check_claims(store: Store, claims: Sequence[Claim], checker: SupportChecker) -> list[Claim]:
    """Score each claim against its cited spans together, and each citation alone (ALCE-style).

    A citation is irrelevant when, among several, it does not support the claim alone and
    the others without it support the claim as well as all of them together.
    """
    queries: list[SupportQuery] = []
    plan: list[tuple[int | None, list[int], list[int]]] = []  # per claim: joined, singles, leave-one-out
    for claim in claims:
        valid = [c for c in claim.citations if c.valid and c.item is not None]
        if not valid:
            plan.append((None, [], []))
            continue
        joined = len(queries)
        queries.append(SupportQuery(claim.text, " ".join(c.item.span.text for c in valid),  # type: ignore[union-attr]
                                    _neighbours(store, valid[0]) if len(valid) == 1 else ()))
        singles, loo = [], []
        if len(valid) > 1:
            for i, c in enumerate(valid):
                singles.append(len(queries))
                queries.append(SupportQuery(claim.text, c.item.span.text, _neighbours(store, c)))  # type: ignore[union-attr]
                loo.append(len(queries))
                queries.append(SupportQuery(claim.text, " ".join(o.item.span.text for j, o in enumerate(valid)  # type: ignore[union-attr]
                                                                 if j != i)))
        plan.append((joined, singles, loo))
    results = checker.check(queries) if queries else []
    out = []
    for claim, (joined, singles, loo) in zip(claims, plan):
        flags = list(claim.flags)
        if joined is None:
            support: Support | None = Support(0.0, SupportLabel.NOT_SUPPORTED, checker.name, "cites no source")
            citations = list(claim.citations)
        else:
            support = results[joined]
            valid_iter = iter(range(len(singles)))
            citations = []
            for c in claim.citations:
                if not (c.valid and c.item is not None):
                    citations.append(c)
                    continue
                if not singles:
                    citations.append(replace(c, support=support))
                    continue
                i = next(valid_iter)
                alone, others = results[singles[i]], results[loo[i]]
                irrelevant = bool(
                    support and alone and others and alone.label != SupportLabel.SUPPORTED
                    and others.score >= support.score - IRRELEVANCE_MARGIN
                )
                citations.append(replace(c, support=alone, irrelevant=irrelevant))
                if irrelevant:
                    flags.append(ClaimFlag.IRRELEVANT_CITATION)
        scored = [s for s in [support, *(c.support for c in citations)] if s is not None]
        if support is not None and max(s.score for s in scored) < checker.threshold:
            flags.append(ClaimFlag.LOW_SUPPORT)
        out.append(replace(claim, citations=tuple(citations), support=support, flags=tuple(dict.fromkeys(flags))))
    return out


def _model_option(model: str | None) -> dict[str, str]:
    return {"model": model} if model else {}


class Asker:
    """Holds the backends for a series of questions against one store."""

    def __init__(self, store: Store, *, embedder: Embedder | None = None, generator: Generator | None = None,
                 checker: SupportChecker | None = None) -> None:
        self.store = store
        self._embedder = embedder
        self._generator = generator
        self._checker = checker

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    def graph(self) -> KnowledgeGraph:
        return load_graph(self.store)

    def retrieve(self, question: str, settings: AskSettings) -> Retrieval:
        return retrieve(self.store, self.graph(), self.embedder, question, settings)

    def ask(self, question: str, settings: AskSettings = AskSettings()) -> AskOutcome:
        question = clean_question(question)
        found = self.retrieve(question, settings)
        warnings: list[str] = []
        generator = self._generator or make_generator(settings.generator, **_model_option(settings.generator_model))
        best = max((c.score for c in found.context), default=None)
        if best is not None and best >= settings.min_relevance:
            generation = generator.generate(question, found.context)
            text, model = generation.text, generation.model
        elif best is not None:
            # Quoting the least unrelated sentences would look like an answer, and each quote
            # would check as "supported" by itself: say there is no answer instead.
            text, model = "", None
            warnings.append(f"Nothing you can see is about this question: the closest sentence has similarity "
                            f"{best:.2f}, below the {settings.min_relevance:.2f} needed to answer from it.")
        else:
            text, model = "", None
            warnings.append("No evidence found among the documents you can see: nothing to answer from.")
        claims = attribute(text, found.context)
        status = AnswerStatus.CITED
        if claims:
            try:
                checker = self._checker or checker_for_store(settings.checker, self.store,
                                                             **_model_option(settings.checker_model))
                claims = check_claims(self.store, claims, checker)
                if all(c.support is not None for c in claims):
                    status = AnswerStatus.AUTO_CHECKED
                else:
                    warnings.append("The support checker could not score every claim; those stay 'not checked'.")
            except (ModelUnavailable, BackendFailed) as exc:
                warnings.append(f"Support not checked: {exc}")
        answer = Answer(question, settings, text, found.seeds, found.reached, found.context, tuple(claims), status,
                        generator_model=model)
        answer_id = self.store.save_answer(answer)
        stored = self.store.answer(answer_id)
        assert stored is not None
        return AskOutcome(stored, tuple(warnings))
