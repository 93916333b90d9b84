"""Sentence splitting keeps exact offsets on any input; names normalise so mentions meet."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrag.language.sentences import MAX_SENTENCE_CHARS, normalise, split_sentences

pytestmark = pytest.mark.unit

PIECES = st.sampled_from([
    "Exports use snapshots.", "Dr. Smith approved it", "e.g. billing", "v1.2 ships", "# Heading", "## Sub",
    "- item", "* star item", "1. first", "> quote", "\n", "\n\n", "  ", "Ünïcödé façade!", "日本語の文。", "😀 ok?",
    "[1]", "3.5 days.", "U.S. law", "…", "\t", "\r\n", "'quoted.' Next", "**bold**", "`code`", "a", ".", "?!",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(PIECES, st.text(max_size=30)), max_size=30).map(" ".join))
def test_every_sentence_indexes_the_original_text_exactly(text: str) -> None:
    sentences = split_sentences(text)
    prev_end = 0
    for i, s in enumerate(sentences):
        assert s.index == i
        assert text[s.start:s.end] == s.text
        assert s.text == s.text.strip() and s.text
        assert s.start >= prev_end  # ordered, non-overlapping
        assert len(s.text) <= MAX_SENTENCE_CHARS
        prev_end = s.end


def test_abbreviations_numbers_and_initials_do_not_split() -> None:
    text = "Dr. Smith set the limit to 3.5 GB, e.g. for exports. J. Doe agreed. Next one!"
    assert [s.text for s in split_sentences(text)] == [
        "Dr. Smith set the limit to 3.5 GB, e.g. for exports.", "J. Doe agreed.", "Next one!"]


def test_markdown_headings_and_list_items_are_their_own_sentences() -> None:
    text = "# Exports\n\nExports use snapshots. They last 30 days.\n- first item\n- second item\n  wraps here\n1. step"
    assert [s.text for s in split_sentences(text)] == [
        "Exports", "Exports use snapshots.", "They last 30 days.", "first item", "second item\n  wraps here", "step"]


def test_blank_lines_and_unicode() -> None:
    text = "\n\n  Café façade opens.  \n\n\n日本語の文。 Next?\n"
    out = split_sentences(text)
    assert out[0].text == "Café façade opens."
    assert all(text[s.start:s.end] == s.text for s in out)


def test_a_200k_character_sentence_is_cut_at_whitespace() -> None:
    text = ("word " * 40_000).strip()
    out = split_sentences(text)
    assert len(out) > 100 and all(len(s.text) <= MAX_SENTENCE_CHARS for s in out)
    assert "".join(s.text for s in out).replace(" ", "") == text.replace(" ", "")


def test_names_normalise_case_articles_possessives_and_plurals() -> None:
    assert normalise("Exports") == normalise("the export") == normalise("Export's") == "export"
    assert normalise("Retention Policies") == "retention policy"
    assert normalise("status") == "status" and normalise("  The   Snapshots ") == "snapshot"
    assert normalise("the") == "the"  # a lone determiner stays a name rather than vanishing


def test_counted_reads_as_english() -> None:
    from graphrag.language.sentences import counted

    assert [counted(n, "relation") for n in (0, 1, 2)] == ["0 relations", "1 relation", "2 relations"]
    assert counted(1, "entity", "entities") == "1 entity" and counted(3, "entity", "entities") == "3 entities"


def test_a_marker_after_an_abbreviation_ends_the_sentence_there() -> None:
    text = "The bar stays open until 3 a.m. [4] It opens at noon. Ask Dr. [2] Smith. Fruit, nuts etc. [5]"
    assert [s.text for s in split_sentences(text)] == [
        "The bar stays open until 3 a.m. [4]", "It opens at noon.", "Ask Dr. [2] Smith.", "Fruit, nuts etc. [5]"]


# Real case names and citations as articles print them: an abbreviation inside never ends the sentence.
LEGAL_CASES = [
    "The Court's power of judicial review was settled in Marbury v. Madison, 5 U.S. 137 (1803).",
    "In United States v. Nixon, 418 U.S. 683 (1974), the Court rejected an absolute privilege.",
    "Brown v. Board of Education, 347 U.S. 483 (1954), overruled the doctrine of Plessy v. Ferguson.",
    "McGirt v. Oklahoma, 591 U.S. 894 (2020), held that the reservation was never disestablished.",
    "The petition was docketed as No. 18-9526 and argued in May.",
    "Congress acts under Art. I, Sec. 8 of the Constitution.",
    "The pool of clerks is described by Ward et al. in their study of the Court.",
    "Some justices, e.g. Justice Stevens, left the pool; i.e. they read petitions themselves.",
    "The plaintiff, Acme Inc. of Tulsa, and Smith Jr. appealed to the Tenth Circuit.",
    "The results are shown in Fig. 2 and discussed on pp. 14-19 of the report.",
]


@pytest.mark.parametrize("sentence", LEGAL_CASES)
def test_legal_and_scholarly_abbreviations_never_end_a_sentence(sentence: str) -> None:
    text = f"The first sentence stands alone. {sentence} The last sentence stands alone too."
    got = [s.text for s in split_sentences(text)]
    assert got == ["The first sentence stands alone.", sentence, "The last sentence stands alone too."]


def test_a_word_that_is_also_a_legal_abbreviation_ends_a_sentence_in_lower_case() -> None:
    got = [s.text for s in split_sentences("The method is the state of the art. Art. I, Sec. 8 says more.")]
    assert got == ["The method is the state of the art.", "Art. I, Sec. 8 says more."]
