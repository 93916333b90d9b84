"""Attribution: claims are the answer's sentences; markers resolve or are flagged, never dropped."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrag.model import ClaimFlag, ContextItem, Route, Span
from graphrag.verify.attribution import attribute, parse_markers, strip_markers

pytestmark = pytest.mark.unit


def items(n: int) -> list[ContextItem]:
    return [ContextItem(i, Span("d", 1, i, 0, 5, f"sentence {i}"), Route("e"), 0.5, "mention") for i in range(1, n + 1)]


def test_marker_past_the_context_is_flagged_not_dropped() -> None:
    """Fault 2, the reference case: [9] over three context items."""
    answer = "Exports use the latest snapshot [1]. Snapshots last 30 days [3]. Billing ends at once [9]."
    claims = attribute(answer, items(3))
    assert [c.text for c in claims] == [
        "Exports use the latest snapshot.", "Snapshots last 30 days.", "Billing ends at once."]
    assert [[(x.marker, x.valid) for x in c.citations] for c in claims] == [[("1", True)], [("3", True)], [("9", False)]]
    assert claims[2].flags == (ClaimFlag.INVALID_MARKER,)
    assert claims[0].citations[0].item is not None and claims[0].citations[0].item.n == 1
    for c in claims:
        assert c.citations[0].support is None  # "not checked" until a checker runs, never a constant
        assert strip_markers(answer[c.start:c.end]) == c.text


def test_marker_forms_and_uncited_claims() -> None:
    answer = "A holds [1, 2]. B holds [1][2]. C holds [2-3]. D holds. E holds [citation needed]. F holds [x](http://l)."
    claims = attribute(answer, items(3))
    markers = [[x.marker for x in c.citations] for c in claims]
    assert markers[:3] == [["1", "2"], ["1", "2"], ["2", "3"]]
    assert claims[3].flags == (ClaimFlag.UNCITED,) and claims[3].citations == ()
    assert claims[4].flags == (ClaimFlag.MALFORMED_MARKER,) and claims[4].citations[0].marker == "citation needed"
    assert claims[5].flags == (ClaimFlag.UNCITED,)  # a Markdown link is not a marker


def test_marker_after_the_full_stop_stays_with_its_sentence() -> None:
    claims = attribute("Exports use snapshots. [1] Retention is 30 days. [2]", items(2))
    assert [(c.text, [x.marker for x in c.citations]) for c in claims] == [
        ("Exports use snapshots.", ["1"]), ("Retention is 30 days.", ["2"])]


def test_zero_and_repeated_markers() -> None:
    claims = attribute("Zero is not a source [0]. Twice [1][1]. Odd [1. 2] marker.", items(1))
    assert claims[2].citations[0].marker == "1. 2" and ClaimFlag.MALFORMED_MARKER in claims[2].flags
    assert claims[0].citations[0].valid is False and ClaimFlag.INVALID_MARKER in claims[0].flags
    assert len(claims[1].citations) == 1



@pytest.mark.parametrize("quoted", ["“Refunds are not given. Ask support.”", '"Refunds are not given. Ask support."'])
def test_a_quotation_with_its_own_full_stops_stays_one_claim(quoted: str) -> None:
    answer = f"The FAQ says {quoted} for annual plans [1]. Monthly plans renew [2]."
    claims = attribute(answer, items(2))
    assert [c.text for c in claims] == [f"The FAQ says {quoted} for annual plans.", "Monthly plans renew."]
    assert [[x.marker for x in c.citations] for c in claims] == [["1"], ["2"]]


def test_a_quotation_that_ends_the_sentence_does_not_join_the_next_one() -> None:
    claims = attribute("Support wrote “No refunds. Ask us.” [1] Plans renew monthly [2].", items(2))
    assert [c.text for c in claims] == ["Support wrote “No refunds. Ask us.”", "Plans renew monthly."]


@pytest.mark.parametrize("mark", ["“", '"'])
def test_an_unclosed_quotation_does_not_swallow_the_rest_of_the_answer(mark: str) -> None:
    answer = f"The FAQ says {mark}Refunds are not given [1]. Ask support [2]. Plans renew [1]."
    assert [c.text for c in attribute(answer, items(2))] == [
        f"The FAQ says {mark}Refunds are not given.", "Ask support.", "Plans renew."]


def test_a_quotation_left_open_before_a_closed_one_is_ignored() -> None:
    answer = 'He wrote "Refunds end [1]. Ask support [2]. She said "Go. Now." to him [1].'
    assert [c.text for c in attribute(answer, items(2))] == [
        'He wrote "Refunds end.', "Ask support.", 'She said "Go. Now." to him.']


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .[]0123456789,-\n!?")), max_size=120), st.integers(0, 5))
def test_any_answer_attributes_without_crashing_and_every_marker_is_accounted_for(answer: str, n: int) -> None:
    claims = attribute(answer, items(n))
    for c in claims:
        assert 0 <= c.start <= c.end <= len(answer)
        assert c.text == strip_markers(answer[c.start:c.end])
        for x in c.citations:
            assert x.valid == (x.item is not None)
            if not x.valid:
                assert {ClaimFlag.INVALID_MARKER, ClaimFlag.MALFORMED_MARKER} & set(c.flags)
        if not parse_markers(answer[c.start:c.end]):
            assert ClaimFlag.UNCITED in c.flags
    # every marker in the answer lands on a claim whose range holds it: none vanishes
    for m in parse_markers(answer):
        assert any(c.start <= m.start and m.end <= c.end for c in claims), m


def test_a_claim_that_is_its_cited_sentence_word_for_word_is_a_verbatim_quote() -> None:
    src = Span("d", 1, 1, 0, 40, "Exports  stay [available] for 30 days.")
    ctx = [ContextItem(1, src, Route("e"), 0.5, "mention"), *items(3)[1:]]
    quote, reworded, other = attribute("Exports stay (available) for 30 days [1]. Exports stay 30 days [1]. "
                                       "Exports stay (available) for 30 days [2].", ctx)
    assert ClaimFlag.VERBATIM_QUOTE in quote.flags  # whitespace and the generator's bracket swap aside, the same
    assert ClaimFlag.VERBATIM_QUOTE not in reworded.flags  # words changed: a written claim, scored as usual
    assert ClaimFlag.VERBATIM_QUOTE not in other.flags  # the same words citing another sentence are not its quote
