"""The embedded support checker: feature functions (no model) and the reference cases (MiniLM)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphrag.errors import ModelUnavailable
from graphrag.language import lexical as L
from graphrag.model import SupportLabel
from graphrag.verify.support import features as F
from graphrag.verify.support import make_checker
from graphrag.verify.support import selection as S
from graphrag.verify.support import tokens as T
from graphrag.verify.support.base import SupportQuery
from graphrag.verify.support.embedded import (
    DIRECTION,
    FEATURES,
    EmbeddedChecker,
    PairFeatures,
    TreeParams,
    evidence_sentences,
    reason,
)

SOURCE = "Snapshot exports remain available for 30 days after an account is cancelled."

# --- features: pure functions, no model --------------------------------------------------


@pytest.mark.unit
def test_numbers_mismatch_names_the_missing_quantity() -> None:
    assert L.missing_numbers("Exports stay available for 30 days", "Cancelling ends billing at period end.") == [
        "30 days"]
    assert L.missing_numbers("Exports stay available for 30 days", SOURCE) == []


@pytest.mark.unit
def test_numbers_are_compared_in_canonical_form() -> None:
    assert L.numbers("It cost 1,500 dollars in 2019, two times") == {"1500", "2019", "2"}
    assert L.missing_numbers("The fee rose to 2.50 in three years", "a fee of 2.5 after 3 years") == []
    assert L.missing_numbers("Founded in 1998", "Founded in 1989") == ["1998"]


@pytest.mark.unit
def test_negation_mismatch() -> None:
    assert L.negation_mismatch("Exports are not kept after cancellation", "Exports are kept after cancellation")
    assert L.negation_mismatch("Exports aren't kept", "Exports are kept")
    assert not L.negation_mismatch("Exports are never deleted", "Exports are not deleted")
    assert not L.negation_mismatch("Exports are kept", "Exports are kept for a month")


@pytest.mark.unit
def test_named_term_mismatch() -> None:
    assert L.missing_terms("Acme was founded by Jane Smith", "Acme was founded by John Doe") == ["Jane Smith"]
    assert L.missing_terms("Acme was founded in Paris", "ACME was founded in paris") == []
    # Sentence-initial stopwords are not terms; other capitalised words are.
    assert L.capitalised_terms("The report by Acme Corp reached NASA.") == ["Acme Corp", "NASA"]
    assert L.capitalised_terms("Exports stay available") == ["Exports"]


@pytest.mark.unit
def test_coverage_counts_content_words_through_inflection() -> None:
    share, missing = L.coverage("Exports stay available for 30 days", SOURCE)
    assert share == pytest.approx(0.8)
    assert missing == ["stay"]
    assert L.coverage("cancelled accounts", "when an account is cancelling")[0] == 1.0
    assert L.coverage("the of and", "anything") == (1.0, [])


@pytest.mark.unit
def test_bigram_coverage_rewards_intact_phrases() -> None:
    assert L.bigram_coverage("period end billing", "billing stops at period end") == pytest.approx(0.5)
    assert L.bigram_coverage("exports", "anything") == 1.0


@pytest.mark.unit
def test_missing_qualifiers() -> None:
    assert L.missing_qualifiers("Only admins can always restore", "Admins can restore") == ["only", "always"]
    assert L.missing_qualifiers("Only admins restore", "only admins restore") == []


@pytest.mark.unit
def test_claim_chunks_split_at_conjunctions_and_merge_tiny_pieces() -> None:
    chunks = L.claim_chunks("Arnold is the publisher and editorial director of Media Play News, one of five trades.")
    assert chunks == ["Arnold is the publisher", "editorial director of Media Play News", "one of five trades."]
    assert L.claim_chunks("Exports stay available for 30 days") == ["Exports stay available for 30 days"]
    assert L.claim_chunks("Red, white and blue flags fly") == ["Red white", "blue flags fly"]


@pytest.mark.unit
def test_window_and_top_m_selection() -> None:
    claim = np.array([1.0, 0.0, 0.0])
    sents = np.array([[0.0, 1.0, 0.0], [0.8, 0.6, 0.0], [0.8, -0.6, 0.0], [0.0, 0.0, 1.0]])
    score, start, end = S.best_window(claim, sents)
    assert (start, end) == (1, 3)  # the two halves together point straight at the claim
    assert score == pytest.approx(1.0)
    sim, idx = S.top_m_similarity(claim, sents, 3)
    assert idx == [1, 2] and sim == pytest.approx(1.0)  # two sentences beat one; a third would hurt
    assert S.top_m_similarity(claim, sents[[1, 3]], 3) == (pytest.approx(0.8), [0])


@pytest.mark.unit
def test_content_token_mask_skips_specials_punctuation_stopwords() -> None:
    tokens = ["[CLS]", "the", "snaps", "##hot", "of", "exports", ".", "[SEP]"]
    assert T.content_token_mask(tokens).tolist() == [False, False, True, True, False, True, False, False]


@pytest.mark.unit
def test_token_idf_grows_with_word_piece_rank() -> None:
    w = T.token_idf(np.array([1996, 2800, 14338, 100]))  # the, available, exports, [UNK]
    assert w[0] < w[1] < w[2] and w[3] == w[0]


@pytest.mark.unit
def test_token_alignment_finds_the_unmatched_token() -> None:
    ids = np.array([101, 5000, 6000, 102])
    tokens = ["[CLS]", "exports", "encrypted", "[SEP]"]
    claim = np.array([[1.0, 0, 0], [1.0, 0, 0], [0, 1.0, 0], [1.0, 0, 0]])
    ev_ids, ev = np.array([5000, 7000]), np.array([[1.0, 0, 0], [0, 0.6, 0.8]])
    f = F.token_alignment(ids, tokens, claim, ev_ids, ev)
    assert f["tok_min"] == pytest.approx(0.6) and f["tok_mean"] == pytest.approx(0.8)
    assert 0.0 < f["tok_exact_idf"] < 1.0 and f["tok_low_share"] == 0.0
    no_evidence = F.token_alignment(ids, tokens, claim, np.array([], dtype=int), np.zeros((0, 3)))
    assert no_evidence["tok_low_share"] == 1.0
    assert set(f) == set(F.TOKEN_FEATURE_NAMES) and all(DIRECTION[k] in (1, -1) for k in f)


@pytest.mark.unit
def test_tree_params_walk_every_tree() -> None:
    # tree 0: x0 <= 0.5 -> -1 else +1; tree 1: a single leaf worth 0.5
    raw = {"features": list(FEATURES), "baseline": 0.0, "depth": 1, "threshold": 0.5,
           "partial_threshold": 0.3,
           "trees": [{"feature": [0, 0, 0], "threshold": [0.5, 0, 0], "left": [1, 1, 2], "right": [2, 1, 2],
                      "value": [0, -1.0, 1.0]},
                     {"feature": [0], "threshold": [0], "left": [0], "right": [0], "value": [0.5]}]}
    params = TreeParams.from_raw(raw)
    x = np.zeros((2, len(FEATURES)))
    x[1, 0] = 0.9
    z = np.array([-0.5, 1.5])
    assert params.predict(x) == pytest.approx(1 / (1 + np.exp(-z)))


@pytest.mark.unit
def test_evidence_sentences_split_and_dedupe_neighbours() -> None:
    q = SupportQuery("c", "One sentence here. Two sentences here.", ("Two sentences here.", "Three here."))
    assert evidence_sentences(q) == ["One sentence here.", "Two sentences here.", "Three here."]


@pytest.mark.unit
def test_reason_names_the_problem() -> None:
    values = dict.fromkeys(FEATURES, 0.5)
    pf = PairFeatures(values, [0], 1, missing_numbers=["30 days"])
    assert reason(pf, SupportLabel.NOT_SUPPORTED) == "30 days not in source"
    pf = PairFeatures(values, [0], 1, missing_terms=["Exports"], source_terms=["Billing"])
    assert reason(pf, SupportLabel.NOT_SUPPORTED) == "source names Billing, claim names Exports"
    pf = PairFeatures(values, [0], 1, negation=True)
    assert reason(pf, SupportLabel.PARTIAL) == "negation differs"


# --- the checker ---------------------------------------------------------------------------


@pytest.mark.unit
def test_construction_is_cheap_and_does_not_load_the_model() -> None:
    checker = make_checker("embedded")
    assert checker.name == "embedded@shipped"  # no store given: the shipped parameters, named so
    assert 0.0 < checker.threshold < 1.0
    assert checker._embedder is None  # lazily loaded on first check
    assert checker.check([]) == []


@pytest.mark.unit
def test_params_file_is_small_and_matches_the_features() -> None:
    from graphrag.verify.support.embedded import PARAMS_PATH

    raw = json.loads(PARAMS_PATH.read_text())
    assert tuple(raw["features"]) == FEATURES
    assert PARAMS_PATH.stat().st_size < 200_000  # a tree ensemble of tens of KB


@pytest.mark.unit
def test_the_feature_table_is_the_one_list_of_names_and_directions() -> None:
    table = (*F.PAIR_FEATURES, *F.TOKEN_FEATURES)
    assert tuple(f.name for f in table) == FEATURES and len(set(FEATURES)) == len(FEATURES)
    assert {f.name: f.direction for f in table} == DIRECTION
    assert all(f.direction in (F.FOR, F.AGAINST) for f in table)
    assert {f for f in FEATURES if DIRECTION[f] == F.AGAINST} == {
        "num_missing", "num_missing_all", "term_missing", "term_missing_all", "negation_mismatch",
        "qualifiers_missing", "claim_words", "tok_low_share"}


@pytest.mark.unit
def test_the_shipped_trees_move_each_feature_only_in_its_direction() -> None:
    from graphrag.verify.support.embedded import PARAMS_PATH, load_params

    params = load_params(PARAMS_PATH)
    rng = np.random.default_rng(0)
    x = rng.uniform(0.0, 1.0, size=(400, len(FEATURES)))
    x[:, FEATURES.index("claim_words")] *= 4.0
    base = params.predict(x)
    for j, name in enumerate(FEATURES):
        more = x.copy()
        more[:, j] += 0.25
        assert (DIRECTION[name] * (params.predict(more) - base) >= -1e-12).all(), name


@pytest.mark.unit
def test_missing_or_stale_params_are_reported(tmp_path) -> None:
    with pytest.raises(ModelUnavailable, match="fit_support"):
        EmbeddedChecker(params_path=str(tmp_path / "nope.json"))
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({"features": ["old"]}))
    with pytest.raises(ModelUnavailable, match="other features"):
        EmbeddedChecker(params_path=str(stale))


@pytest.fixture(scope="module")
def checker() -> EmbeddedChecker:
    return EmbeddedChecker()


REFERENCE = [
    SupportQuery("Exports stay available for 30 days", "Cancelling ends billing at period end."),
    SupportQuery("Snapshots last 30 days", "Exports use the latest snapshot."),
    SupportQuery("Exports stay available for 30 days", SOURCE),
]


@pytest.mark.model
def test_reference_case(checker: EmbeddedChecker) -> None:
    wrong_topic, wrong_number, supported = checker.check(REFERENCE)
    assert wrong_topic.score < checker.threshold and wrong_topic.label is not SupportLabel.SUPPORTED
    assert wrong_number.score < checker.threshold and wrong_number.label is not SupportLabel.SUPPORTED
    assert "30 days not in source" in wrong_number.reason
    assert supported.score >= checker.threshold and supported.label is SupportLabel.SUPPORTED
    assert supported.checker == "embedded@shipped"


@pytest.mark.model
def test_scores_in_unit_interval_and_batch_equals_one_by_one(checker: EmbeddedChecker) -> None:
    queries = [
        *REFERENCE,
        SupportQuery("Exports are not kept after cancellation", SOURCE),
        SupportQuery("Billing stops", ""),
        SupportQuery("Acme bought Initech in 2019.", "Initech was bought by Acme.", ("Acme is a firm.", "It grew.")),
    ]
    batch = checker.check(queries)
    single = [checker.check([q])[0] for q in queries]
    for b, s in zip(batch, single):
        assert b is not None and s is not None
        assert 0.0 <= b.score <= 1.0
        assert b.score == pytest.approx(s.score, abs=1e-3)
        assert b.label == s.label and b.reason
    assert batch[4].label is SupportLabel.NOT_SUPPORTED and batch[4].reason == "no evidence text"


@pytest.mark.model
def test_support_spread_over_neighbouring_sentences(checker: EmbeddedChecker) -> None:
    claim = "Snapshot exports stay available for 30 days and are encrypted."
    evidence = "Snapshot exports remain available for 30 days."
    neighbours = ("The weather was fine.", "Snapshot exports are encrypted at rest.", "Lunch is at noon.")
    joint = checker.check([SupportQuery(claim, evidence, neighbours)])[0]
    alone = checker.check([SupportQuery(claim, evidence)])[0]
    assert joint.score > alone.score


@pytest.mark.model
def test_a_negated_neighbour_is_no_reason_against_an_exact_quote(checker: EmbeddedChecker) -> None:
    quote = "Cancelling ends billing at period end."
    neighbours = ("Removing a seat takes effect at the start of the next billing period.",
                  "No further invoices are issued, and unused time is not refunded.")
    s = checker.check([SupportQuery(quote, quote, neighbours)])[0]
    assert s is not None and s.label is SupportLabel.SUPPORTED and "negation" not in s.reason
    negated = checker.check([SupportQuery("Cancelling does not end billing at period end.", quote)])[0]
    assert negated is not None and "negation differs" in negated.reason
