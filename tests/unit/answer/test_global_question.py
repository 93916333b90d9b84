"""Which questions ask about the documents as a whole (graphrag.answer.global_question): answered by themes, or
offered them; a question about something the documents say is never one of them."""

from __future__ import annotations

import pytest

from graphrag.answer.global_question import is_global, may_be_global

pytestmark = pytest.mark.unit

GLOBAL = [
    "What are these documents about?",  # the README's own example
    "what are the documents about",
    "What is this collection mostly about?",
    "What’s all this about?",
    "What is this about?",
    "Summarize the documents",
    "Summarise the collection.",
    "Can you summarize these files, please?",
    "Give me an overview of the documents",
    "Overview of the corpus",
    "What topics do these documents cover?",
    "What are the main topics?",
    "What themes are covered?",
    "What is in the documents?",
    "What do the documents say?",
    "Tell me about these documents",
    "Please tell me what these documents are about",
    "What are the key points of the documents?",
    "What are these documents about in short?",
    "What are the documents I uploaded about?",
]

LOCAL = [
    "How long do exports stay available after cancellation?",
    "Where was Hannah John-Kamen born?",
    "When was Hannah John-Kamen born?",
    "What do the documents say about refunds?",  # names a thing: the nearest sentences answer it
    "What is the retention policy about?",
    "Summarize the retention policy",
    "What topics does the billing page cover?",
    "Which documents mention refunds?",
    "What documents do I need to cancel?",
    "What are the documents needed for a refund?",
    "What is Halley's Comet about?",
    "Who is the store manager?",
    "What are these documents about? Also, how long are exports kept?",  # a second question: not only global
    "When was the document about exports changed?",
    "",
    "?",
]


@pytest.mark.parametrize("question", GLOBAL)
def test_a_question_about_the_whole_collection_is_global(question: str) -> None:
    assert is_global(question)
    assert not may_be_global(question)  # surely global, so no offer: it is answered by themes


@pytest.mark.parametrize("question", LOCAL)
def test_a_question_about_something_the_documents_say_is_never_global(question: str) -> None:
    assert not is_global(question)


@pytest.mark.parametrize("question", [
    "What topics about billing do these documents cover?",
    "Give me a summary of what the documents say on exports",
])
def test_a_question_that_names_the_collection_and_asks_its_gist_may_be_global(question: str) -> None:
    assert not is_global(question) and may_be_global(question)


@pytest.mark.parametrize("question", LOCAL)
def test_a_factual_question_is_not_even_offered_themes(question: str) -> None:
    assert not may_be_global(question)


def test_a_long_question_is_not_global_and_is_read_in_bounded_time() -> None:
    import time

    start = time.perf_counter()
    for question in ("What is the " + "in general, " * 500 + "?", "what are " + "all of these " * 400 + "about",
                     "please " * 2000 + "summarize the documents"):
        assert not is_global(question) and not may_be_global(question)
    assert time.perf_counter() - start < 0.5
