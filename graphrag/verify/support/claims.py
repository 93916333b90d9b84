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
from graphrag.verify.disagreement import DISAGREE_OPENING
from graphrag.verify.quotations import ONLY_OPENING, THEME_OPENING
from graphrag.verify.support.base import SupportChecker, SupportQuery

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


def _phrase_of(claim: str, sentence: str) -> bool:
    """The claim is a few words found as they stand in the sentence (not the whole sentence)."""
    phrase = " ".join(claim.split()).rstrip(" .").casefold()
    text = " ".join(sentence.split()).casefold()
    return bool(phrase) and phrase in text and len(phrase) < len(text.rstrip(" ."))


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
        # A phrase taken from its one cited sentence ("30 days", the short answer) is read against that
        # sentence alone: the neighbours could only add what the phrase was not taken from, and cost
        # half the encoding of an ask.
        alone = len(cited) == 1 and not _phrase_of(claim.text, _text(cited[0]))
        self.joined = SupportQuery(claim.text, " ".join(_text(c) for c in cited),
                                   neighbour_texts(store, cited[0]) if alone else ())
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


VERBATIM_CHECKER = "verbatim"


def quoted_support() -> Support:
    """The support of a quote, given without running the checker: the claim is its one cited
    sentence word for word (or names what each cited sentence says in its own words), so a score
    would only measure the copy (and the pages show none). Scored 1.0 so the review queue keeps
    quotes after written claims, as before."""
    return Support(1.0, SupportLabel.SUPPORTED, VERBATIM_CHECKER,
                   "quoted word for word from the cited sentence(s): not scored")


def _only_a_quote(claim: Claim) -> bool:
    checked = [c for c in claim.citations if _checked(c)]
    return ClaimFlag.VERBATIM_QUOTE in claim.flags and len(checked) == 1 and len(claim.citations) == 1


def _quoted_sides(text: str) -> str | None:
    """The "A says X; B says Y" part of a statement made of named quotes: a disagreement, a theme (after its name
    and documents) or a change ("Only A says X"); None for any other claim."""
    if text.startswith(DISAGREE_OPENING):
        return text[len(DISAGREE_OPENING):]
    if text.startswith(ONLY_OPENING):
        return text[len(ONLY_OPENING):]
    if text.startswith(THEME_OPENING) and "): " in text:
        return text.split("): ", 1)[1]
    return None


def _quotes_each_side(claim: Claim) -> bool:
    """A "Sources disagree: A says X; B says Y." sentence (or a theme's or a change's statement of named quotes)
    whose every value is found word for word in the sentence its side cites (graphrag.verify.disagreement and
    graphrag.answer.themes write them so): nothing to score beyond that."""
    body = _quoted_sides(claim.text)
    if body is None:
        return False
    body = body.rstrip(" .")
    # a quote may hold "; " itself: split after closing quotation marks first
    sides = [s + "”" for s in body[:-1].split("”; ")] if body.endswith("”") else []
    if len(sides) != len(claim.citations):
        sides = body.split("; ")
    if len(sides) != len(claim.citations) or not all(_checked(c) for c in claim.citations):
        return False
    for side, cite in zip(sides, claim.citations):
        _, says, value = side.rpartition(" says ")
        value = value.strip().strip("“”").rstrip(" .")
        if not says or not value or value.casefold() not in " ".join(_text(cite).split()).casefold().replace("[", "(").replace("]", ")"):
            return False
    return True


def check_claims(store: Spans, claims: Sequence[Claim], checker: SupportChecker) -> list[Claim]:
    """Score each claim against its cited spans together, and each citation alone and left out,
    in one batch; return the claims with their supports and flags.

    A verbatim quote of its one cited sentence is not sent to the checker: encoding it cost 97%
    of an ask's time for a score nobody is shown (it checks as supported by construction)."""
    out: list[Claim | None] = [None] * len(claims)
    checks: list[tuple[int, ClaimCheck]] = []
    for i, claim in enumerate(claims):
        if _only_a_quote(claim) or _quotes_each_side(claim):
            support = quoted_support()
            out[i] = replace(claim, support=support,
                             citations=tuple(replace(c, support=support) for c in claim.citations))
        else:
            checks.append((i, ClaimCheck(store, claim)))
    queries = [q for _, check in checks for q in check.queries]
    results = checker.check(queries) if queries else []
    for i, check in checks:
        taken, results = results[:len(check.queries)], results[len(check.queries):]
        out[i] = check.conclude(taken, checker)
    return [c for c in out if c is not None]
