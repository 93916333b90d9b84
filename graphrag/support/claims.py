"""Checking an answer's claims against their citations (ALCE-style).

Each claim is scored against its cited sentences joined; with several citations, also against
each one alone and against the others without it, so a citation that adds nothing is named. A
``ClaimCheck`` owns one claim's queries and turns the checker's results back into the claim:
every answer's queries go to the checker in one batch, and no index lists are kept by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from graphrag.model import Citation, Claim, ClaimFlag, Span, Support, SupportLabel
from graphrag.support.base import SupportChecker, SupportQuery

# Removing a citation that costs less than this much joined support means it added nothing.
IRRELEVANCE_MARGIN = 0.05


class Spans(Protocol):
    """Where a cited sentence's neighbours are read (the store)."""

    def span(self, document_id: str, version: int, sentence_index: int, /) -> Span | None:
        """The stored sentence at this position, or None when it is not there."""


def is_irrelevant(joined: Support | None, alone: Support | None, without: Support | None,
                  margin: float = IRRELEVANCE_MARGIN) -> bool:
    """Whether a citation, one of several, adds nothing: it does not support the claim alone, and
    the other citations ``without`` it support the claim about as well as all of them ``joined``.
    Unscored (None) results never make a citation irrelevant."""
    if joined is None or alone is None or without is None:
        return False
    return alone.label != SupportLabel.SUPPORTED and without.score >= joined.score - margin


def neighbour_texts(store: Spans, citation: Citation) -> tuple[str, ...]:
    """The sentences before and after a cited one: support may be spread over them."""
    assert citation.item is not None
    s = citation.item.span
    around = (store.span(s.document_id, s.version, s.sentence_index + d) for d in (-1, 1))
    return tuple(x.text for x in around if x is not None)


def _text(c: Citation) -> str:
    assert c.item is not None
    return c.item.span.text


def _checked(c: Citation) -> bool:
    return c.valid and c.item is not None


@dataclass(frozen=True)
class _CitationQueries:
    alone: SupportQuery  # the claim against this citation (and its neighbours)
    without: SupportQuery  # ... against the claim's other citations


class ClaimCheck:
    """One claim's support queries, and the claim rebuilt from the checker's answers to them."""

    def __init__(self, store: Spans, claim: Claim) -> None:
        self.claim = claim
        cited = [c for c in claim.citations if _checked(c)]
        self.joined: SupportQuery | None = None
        self.each: list[_CitationQueries] = []  # one per checked citation, when there are several
        if not cited:
            return
        self.joined = SupportQuery(claim.text, " ".join(_text(c) for c in cited),
                                   neighbour_texts(store, cited[0]) if len(cited) == 1 else ())
        if len(cited) > 1:
            self.each = [_CitationQueries(SupportQuery(claim.text, _text(c), neighbour_texts(store, c)),
                                          SupportQuery(claim.text, " ".join(_text(o) for o in cited if o is not c)))
                         for c in cited]

    @property
    def queries(self) -> list[SupportQuery]:
        """What to ask the checker, in the order ``conclude`` reads the answers."""
        if self.joined is None:
            return []
        return [self.joined, *(q for each in self.each for q in (each.alone, each.without))]

    def conclude(self, results: Sequence[Support | None], checker: SupportChecker) -> Claim:
        """The claim with its support, each citation's support and the flags they call for, from
        the checker's ``results`` for ``self.queries`` (in that order)."""
        if len(results) != len(self.queries):
            raise ValueError(f"{len(self.queries)} support queries, {len(results)} results")
        claim = self.claim
        flags = list(claim.flags)
        if self.joined is None:
            support: Support | None = Support(0.0, SupportLabel.NOT_SUPPORTED, checker.name, "cites no source")
            citations = list(claim.citations)
        else:
            answers = iter(results)
            support = next(answers)
            citations = []
            for c in claim.citations:
                if not _checked(c):
                    citations.append(c)
                elif not self.each:  # the only citation: its support is the claim's
                    citations.append(replace(c, support=support))
                else:
                    alone, without = next(answers), next(answers)
                    irrelevant = is_irrelevant(support, alone, without)
                    citations.append(replace(c, support=alone, irrelevant=irrelevant))
                    if irrelevant:
                        flags.append(ClaimFlag.IRRELEVANT_CITATION)
        scored = [s for s in [support, *(c.support for c in citations)] if s is not None]
        if support is not None and max(s.score for s in scored) < checker.threshold:
            flags.append(ClaimFlag.LOW_SUPPORT)
        return replace(claim, citations=tuple(citations), support=support, flags=tuple(dict.fromkeys(flags)))


def check_claims(store: Spans, claims: Sequence[Claim], checker: SupportChecker) -> list[Claim]:
    """Score each claim against its cited spans together, and each citation alone and left out,
    in one batch; return the claims with their supports and flags."""
    checks = [ClaimCheck(store, claim) for claim in claims]
    queries = [q for check in checks for q in check.queries]
    results = checker.check(queries) if queries else []
    out: list[Claim] = []
    for check in checks:
        taken, results = results[:len(check.queries)], results[len(check.queries):]
        out.append(check.conclude(taken, checker))
    return out
