"""Claim checking: each claim's support queries, the irrelevance rule, and the claim rebuilt from the
checker's results. No model: the checker's answers are given."""

from __future__ import annotations

import pytest

from graphrag.model import Citation, Claim, ClaimFlag, ContextItem, Route, Span, Support, SupportLabel
from graphrag.verify.attribution import attribute
from graphrag.verify.support.base import SupportQuery
from graphrag.verify.support.claims import IRRELEVANCE_MARGIN, ClaimCheck, check_claims, is_irrelevant

pytestmark = pytest.mark.unit

YES, NO = SupportLabel.SUPPORTED, SupportLabel.NOT_SUPPORTED


def s(score: float, label: SupportLabel = NO) -> Support:
    return Support(score, label, "given", "")


class Sentences:
    """A store of one document whose sentences are "sentence 0" ... "sentence 9"."""

    def span(self, document_id: str, version: int, sentence_index: int) -> Span | None:
        i = sentence_index
        return Span(document_id, version, i, 0, 10, f"sentence {i}") if 0 <= i < 10 else None


class Given:
    """A checker whose answers the test gives to ``conclude`` itself."""

    name: str = "given"
    threshold: float = 0.5

    def check(self, queries: object) -> list[Support | None]:
        raise AssertionError("the test gives the results")


def cite(marker: str, index: int) -> Citation:
    return Citation(marker, True, ContextItem(index, Span("d", 1, index, 0, 10, f"sentence {index}"), Route("e"),
                                              0.5, "mention"))


def test_a_citation_is_irrelevant_when_it_fails_alone_and_the_others_do_as_well_without_it() -> None:
    assert is_irrelevant(s(0.8, YES), s(0.2), s(0.8, YES))
    assert is_irrelevant(s(0.8, YES), s(0.2), s(0.8 - IRRELEVANCE_MARGIN, YES))  # within the margin
    assert not is_irrelevant(s(0.8, YES), s(0.2), s(0.7, YES))  # leaving it out costs support
    assert not is_irrelevant(s(0.8, YES), s(0.9, YES), s(0.8, YES))  # it supports the claim by itself
    assert not is_irrelevant(None, s(0.2), s(0.8)) and not is_irrelevant(s(0.8), None, s(0.8))
    assert not is_irrelevant(s(0.8), s(0.2), None)  # an unscored result proves nothing


def test_several_citations_are_scored_joined_alone_and_left_out_in_one_batch() -> None:
    claim = Claim(0, "Exports last 30 days.", 0, 30, (cite("1", 1), Citation("7", False), cite("2", 5)))
    check = ClaimCheck(Sentences(), claim)
    assert [(q.evidence, q.neighbours) for q in check.queries] == [
        ("sentence 1 sentence 5", ()),
        ("sentence 1", ("sentence 0", "sentence 2")), ("sentence 5", ()),
        ("sentence 5", ("sentence 4", "sentence 6")), ("sentence 1", ()),
    ]
    out = check.conclude([s(0.9, YES), s(0.95, YES), s(0.3), s(0.2), s(0.9, YES)], Given())
    assert out.support == s(0.9, YES)
    assert [(c.marker, c.support, c.irrelevant) for c in out.citations] == [
        ("1", s(0.95, YES), False), ("7", None, False), ("2", s(0.2), True)]
    assert out.flags == (ClaimFlag.IRRELEVANT_CITATION,)
    with pytest.raises(ValueError, match="5 support queries, 4 results"):
        check.conclude([s(0.9)] * 4, Given())


def test_one_citation_is_read_with_its_neighbours_and_carries_the_claims_support() -> None:
    claim = Claim(0, "Exports last 30 days.", 0, 30, (cite("1", 0),))
    check = ClaimCheck(Sentences(), claim)
    assert [(q.evidence, q.neighbours) for q in check.queries] == [("sentence 0", ("sentence 1",))]
    out = check.conclude([s(0.4)], Given())
    assert out.citations[0].support == out.support == s(0.4)
    assert out.flags == (ClaimFlag.LOW_SUPPORT,)


def test_a_claim_citing_nothing_valid_asks_nothing_and_is_not_supported() -> None:
    claim = Claim(0, "Exports last 30 days.", 0, 30, (Citation("9", False),), (ClaimFlag.INVALID_MARKER,))
    check = ClaimCheck(Sentences(), claim)
    assert check.queries == []
    out = check.conclude([], Given())
    assert out.support is not None and (out.support.score, out.support.reason) == (0.0, "cites no source")
    assert out.flags == (ClaimFlag.INVALID_MARKER, ClaimFlag.LOW_SUPPORT)


class Counting:
    """A checker that records what it was asked and calls every pair partial."""

    name: str = "counting"
    threshold: float = 0.5

    def __init__(self) -> None:
        self.asked: list[str] = []

    def check(self, queries: list[SupportQuery]) -> list[Support | None]:
        self.asked += [q.claim for q in queries]
        return [s(0.6, SupportLabel.PARTIAL) for _ in queries]


def _quoted(text: str, n: int) -> ContextItem:
    return ContextItem(n, Span("d", 1, n, 0, len(text), text), Route("e"), 0.5, "mention")


def test_only_written_claims_go_to_the_checker_not_verbatim_quotes_or_the_sides_of_a_disagreement() -> None:
    """Before: every quote was encoded with its neighbours for a score no page shows (97% of an ask's
    time on an articles store). Now a verbatim quote and a disagreement naming each side's own words
    are supported by construction; the short answer, a written claim, is still checked."""
    ctx = [_quoted("Nightly snapshots are kept for 35 days.", 1), _quoted("Larkspur keeps nightly snapshots for 14 days.", 2)]
    text = ("35 days [1]. Nightly snapshots are kept for 35 days [1]. Sources disagree: Retention (2025) says 35 days [1]; "
            "FAQ (2023) says 14 days [2]. Snapshots are kept for a year [2].")
    checker = Counting()
    claims = check_claims(Sentences(), attribute(text, ctx), checker)
    assert checker.asked == ["35 days.", "Snapshots are kept for a year."]
    assert [c.support.checker for c in claims if c.support] == ["given", "verbatim", "verbatim", "given"]
    assert claims[1].citations[0].support is not None


def test_a_disagreement_whose_value_is_not_in_its_source_is_checked() -> None:
    ctx = [_quoted("Nightly snapshots are kept for 35 days.", 1), _quoted("Larkspur keeps nightly snapshots for 14 days.", 2)]
    checker = Counting()
    check_claims(Sentences(), attribute("Sources disagree: A says 30 days [1]; B says 14 days [2].", ctx), checker)
    assert checker.asked  # "30 days" is not what [1] says: a written claim, scored
