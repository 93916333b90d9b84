"""The short answer: what kind of phrase a question asks for, and the phrase found in a sentence."""

from __future__ import annotations

import pytest

from graphrag.answer.reader.short_answer import (
    AnswerType,
    answer_type,
    find_short_answers,
    names_a_role,
    typed_phrase,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("question", "kind"), [
    ("How long do exports stay available after cancellation?", AnswerType.DURATION),
    ("How quickly are customers told about a security incident?", AnswerType.DURATION),
    ("Within how many hours are affected customers notified?", AnswerType.QUANTITY),
    ("When did the US join World War 1?", AnswerType.DATE),
    ("Who can set up single sign-on?", AnswerType.PERSON),
    ("Where was the director of Quiet Harbour born?", AnswerType.PLACE),
    ("In which city are workspaces created in Europe hosted?", AnswerType.PLACE),
    ("Which standard is the data centre audited against?", AnswerType.ENTITY),
    ("Does Larkspur keep backups, and for how long?", AnswerType.DURATION),
    # yes/no questions ask no phrase, whatever "when" or "who" they contain (before: "when I cancel" asked a date)
    ("Is unused time refunded when I cancel?", AnswerType.NONE),
    ("Can annual plans be refunded?", AnswerType.NONE),
    ("What is a snapshot?", AnswerType.NONE),
    # a verb after "what" asks what something holds or does, not for a named thing (the "Snapshot" opening an
    # unrelated sentence was taken as its answer)
    ("What does the final export contain when an account is cancelled?", AnswerType.NONE),
    ("What did the court decide?", AnswerType.NONE),
])
def test_the_kind_of_answer_a_question_asks_for(question: str, kind: AnswerType) -> None:
    assert answer_type(question) is kind


def test_phrases_found_by_pattern_are_taken_as_written_and_not_from_the_question() -> None:
    sentences = ["Snapshot exports remain available for 30 days after an account is cancelled.",
                 "Exports are built every night.", "Failed payments are retried three times over ten days."]
    got = find_short_answers("How long do exports stay available after cancellation?", sentences, ner=False)
    assert [a.text if a else None for a in got] == ["30 days", None, "Ten days"]
    got = find_short_answers("How many times are failed payments retried?", sentences[2:], ner=False)
    assert got[0] is not None and got[0].text == "Three times"  # what is counted, not the other number
    got = find_short_answers("Within how many hours are customers notified?",
                             ["Larkspur notifies affected customers within 72 hours of an incident."], ner=False)
    assert got[0] is not None and got[0].text == "72 hours"
    assert find_short_answers("When was the 2019 report written?", ["The 2019 report was written in May 2020."],
                              ner=False)[0].text == "May 2020"  # not the question's own "2019"


# The reader's typed short answer: the span must be of the kind asked for, never a stray phrase. Each case is one
# a user got on a real PDF ("Seven Supreme.", "Cases.", "QA.").

def test_a_number_keeps_no_name_after_it():
    assert typed_phrase(AnswerType.QUANTITY, "seven Supreme") == "seven"
    assert typed_phrase(AnswerType.QUANTITY, "Supreme Court") is None
    assert typed_phrase(AnswerType.QUANTITY, "a Supreme Court") is None
    assert typed_phrase(AnswerType.DURATION, "30 days") == "30 days"
    assert typed_phrase(AnswerType.DATE, "the same year") is None


def test_who_is_answered_by_a_role_never_by_a_thing():
    assert not names_a_role("cases") and not names_a_role("size")
    assert names_a_role("owner") and names_a_role("administrators") and names_a_role("Congress")


def test_what_metrics_asks_for_no_named_thing():
    assert answer_type("What metrics are used?") is AnswerType.NONE
    assert find_short_answers("What metrics are used?", ["QA teams track the defect rate."]) == [None]
    assert answer_type("Which film won the award in 1998?") is AnswerType.ENTITY
