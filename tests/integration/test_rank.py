"""The answer ranker: which sentence answers a question (features without a model; ranking with MiniLM)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag.answer.reader.rank import (
    ANSWER_THRESHOLD,
    FEATURES,
    Candidate,
    SentenceKind,
    cue_type,
    cues,
    feature_rows,
    load_params,
    score_sentences,
    sentence_kind,
)
from graphrag.answer.reader.short_answer import AnswerType
from graphrag.errors import ModelUnavailable

# --- the kind of line -------------------------------------------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize("text", [
    "Can I get a refund for unused time?",
    "How do I export my snapshots?",
    "Who determines the size of the Supreme Court?",
])
def test_a_sentence_that_asks_is_flagged_as_a_question(text: str) -> None:
    assert sentence_kind(text) is SentenceKind.QUESTION


@pytest.mark.unit
@pytest.mark.parametrize("text", [
    "Smith, J., Jones, K. et al. (2019). Attention in graphs. Journal of Machine Learning Research, 20, pp. 1-29.",
    "Vaswani A, Shazeer N, et al. Attention is all you need. In: Advances in Neural Information Processing Systems.",
    'Ellis, Richard E. (2007). "The Supreme Court". Oxford University Press. ISBN 978-0-19-532340-2.',
    "Retrieved 12 March 2018. Archived from the original on 3 June 2017.",
])
def test_a_bibliography_entry_is_flagged_as_a_reference(text: str) -> None:
    assert sentence_kind(text) is SentenceKind.REFERENCE


@pytest.mark.unit
@pytest.mark.parametrize(("text", "kind"), [
    ("Refunds and Cancellations", SentenceKind.HEADING),
    ("Size of the Court", SentenceKind.HEADING),
    ("Contact us:", SentenceKind.HEADING),
    ("Figure 3: Retention of snapshots by plan.", SentenceKind.CAPTION),
    ("Plan\tSeats\tPrice", SentenceKind.TABLE_ROW),
    ("By Jane Doe and John Roe", SentenceKind.AUTHOR_LINE),
])
def test_headings_captions_table_rows_and_author_lines_are_flagged(text: str, kind: SentenceKind) -> None:
    assert sentence_kind(text) is kind


@pytest.mark.unit
@pytest.mark.parametrize("text", [
    "Article III of the Constitution leaves the number of justices to Congress.",
    "Larkspur does not refund unused time on annual plans.",
    "In 1869 the Judiciary Act set the number of justices at nine, where it has remained.",
    "Snapshots are kept for 35 days",  # no final period: still a statement
    # prose with one reference-like or byline-like cue (found flagged on the NQ dev articles)
    "She plays the role of Mantis in the film Guardians of the Galaxy Vol. 2 ( 2017 ).",
    "Cuoco 's film work includes roles in To Be Fat like Me ( 2007 ), Hop ( 2011 ) and Authors Anonymous ( 2014 ).",
    "By tradition, Quebec and Franco - Ontarian elementary and secondary schools arrange timetables around it.",
    "Written by Grande, Savan Kotecha and its producers Max Martin and Ilya, it was released by Republic Records.",
])
def test_statements_are_body_sentences(text: str) -> None:
    assert sentence_kind(text) is SentenceKind.BODY


# --- what the question asks for ----------------------------------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize(("question", "kind"), [
    ("who determines the size of the supreme court", AnswerType.PERSON),
    ("when did the tour de france start", AnswerType.DATE),
    ("what year was the act signed", AnswerType.DATE),
    ("how many justices sit on the court", AnswerType.QUANTITY),
    ("how long are snapshots kept", AnswerType.DURATION),
    ("where was the first stage held", AnswerType.PLACE),
    ("what is single sign-on", AnswerType.NONE),
])
def test_the_question_word_gives_the_answer_type(question: str, kind: AnswerType) -> None:
    """The ranker's cues read the question's kind coarsely (what its parameters were fitted with), in the reader's
    one ``AnswerType``."""
    assert cue_type(question) is kind


@pytest.mark.unit
def test_cues_find_dates_durations_counts_and_new_names() -> None:
    q = "who determines the size of the supreme court"
    assert cues("The act was signed on March 3, 1891.", q)["date"]
    assert cues("Snapshots are kept for 35 days.", q)["duration"]
    assert cues("The court has nine justices.", q)["count"]
    assert not cues("The court was founded in 1789.", q)["count"]  # a year is a date, not a count
    assert cues("Article III leaves the number of justices to Congress.", q)["name"]
    assert not cues("The Supreme Court sits in the capital.", q)["name"]  # only the question's own name


@pytest.mark.unit
def test_a_sentence_with_what_the_question_asks_for_matches_its_type() -> None:
    q = "how long are snapshots kept after cancellation"
    cands = [Candidate("Snapshots are kept for 35 days after cancellation."),
             Candidate("Snapshots are kept after cancellation in the export area.")]
    rows = feature_rows(q, cands, [0.6, 0.6])
    match = FEATURES.index("type_match")
    assert rows[0][match] == 1.0 and rows[1][match] == 0.0


@pytest.mark.unit
def test_a_question_word_every_candidate_has_weighs_less_than_a_rare_one() -> None:
    q = "what does larkspur refund"
    cands = [Candidate("Larkspur refunds unused time."), Candidate("Larkspur was founded in Oslo."),
             Candidate("Larkspur sells plans.")]
    rows = feature_rows(q, cands, [0.5, 0.5, 0.5])
    idf = FEATURES.index("idf_overlap")
    plain = FEATURES.index("overlap")
    assert rows[0][plain] == 1.0 and rows[1][plain] == 0.5
    assert rows[0][idf] > 0.7 > 0.3 > rows[1][idf]


# --- the shipped model ------------------------------------------------------------------------------


@pytest.mark.unit
def test_the_shipped_parameters_load_and_set_a_threshold() -> None:
    params = load_params()
    assert params.features == FEATURES
    assert 0.0 < ANSWER_THRESHOLD < 1.0
    assert params.threshold == ANSWER_THRESHOLD


@pytest.mark.unit
def test_parameters_for_other_features_are_refused_with_the_refit_command(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"features": ["cos"], "mean": [0], "scale": [1], "coef": [1], "intercept": 0,
                                "threshold": 0.5}))
    with pytest.raises(ModelUnavailable, match="ranker_fit"):
        load_params(path)
    with pytest.raises(ModelUnavailable, match="cannot read"):
        load_params(tmp_path / "missing.json")


@pytest.mark.unit
def test_a_non_claim_scores_zero_whatever_its_similarity() -> None:
    q = "can annual plans be refunded"
    cands = [Candidate("Can I get a refund for unused time on annual plans?", similarity=0.9),
             Candidate("Refunds", similarity=0.8, kind=SentenceKind.HEADING),
             Candidate("Annual plans are not refunded for unused time.", similarity=0.7)]
    s = score_sentences(q, cands)
    assert s[0] == 0.0 and s[1] == 0.0 and s[2] > 0.0


@pytest.mark.unit
def test_candidates_without_similarity_need_an_embedder() -> None:
    with pytest.raises(ValueError, match="embedder"):
        score_sentences("who sets it", [Candidate("Congress sets it.")])


@pytest.mark.unit
def test_similarities_given_the_answer_outranks_a_more_similar_on_topic_sentence() -> None:
    # The answering sentence is a little less like the question (as MiniLM often has it) but has
    # the question's rare words and the date it asks for; the other repeats its topic only.
    q = "when did larkspur stop refunding annual plans"
    cands = [Candidate("Annual plans at Larkspur are popular with larger teams.", similarity=0.62, index=0, count=3),
             Candidate("Larkspur stopped refunding annual plans in March 2024.", similarity=0.58, index=1, count=3),
             Candidate("Monthly plans can be cancelled at any time.", similarity=0.40, index=2, count=3)]
    s = score_sentences(q, cands)
    assert s[1] > s[0] > s[2]
    assert s[1] >= ANSWER_THRESHOLD


@pytest.mark.model
@pytest.mark.parametrize(("question", "answer", "other"), [
    pytest.param(
        "who determines the size of the supreme court",
        "Article III of the Constitution leaves the number of justices to Congress, which has changed it by statute.",
        "The size of the Supreme Court has been a matter of debate throughout the history of the court.",
        marks=pytest.mark.xfail(strict=True, reason="known limit: the non-answer repeats the question's words "
                                "('size', 'Supreme Court'); the answer paraphrases them ('number of justices')")),
    pytest.param(
        "who won the first stage of the tour de france",
        "The opening stage was won by Fernando Gaviria of Quick-Step Floors, who took the yellow jersey.",
        "The 2018 Tour de France was the 105th edition of the race, one of cycling's three Grand Tours.",
        marks=pytest.mark.xfail(strict=True, reason="known limit: MiniLM puts the non-answer 0.25 higher "
                                "(0.57 vs 0.32), a gap the surface features do not overturn")),
    ("when was larkspur founded",
     "Larkspur was founded in Oslo in 2009 by two engineers.",
     "Larkspur's founders still run the company from its Oslo office."),
    ("how long are snapshots kept after an account is cancelled",
     "Snapshots are deleted 35 days after an account is cancelled.",
     "Snapshots of an account can be exported from the settings page."),
])
def test_with_minilm_the_answer_ranks_above_an_on_topic_non_answer(embedder, question: str, answer: str,
                                                                   other: str) -> None:
    cands = [Candidate(other, index=0, count=2), Candidate(answer, index=1, count=2)]
    s = score_sentences(question, cands, embedder)
    assert s[1] > s[0]
    assert s[1] >= ANSWER_THRESHOLD
