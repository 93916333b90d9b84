"""The verification record as a measurement, checked against values computed by hand.

Two reviewers judge 4 claims: A says supported, supported, unsupported, unsupported; B says
supported, unsupported, unsupported, unsupported. Krippendorff's alpha (nominal): coincidences
o(s,s)=2, o(s,u)=o(u,s)=1, o(u,u)=4, n=8, n_s=3, n_u=5; D_o = 2/8, D_e = 2*3*5/(8*7) = 30/56,
alpha = 1 - (2/8)/(30/56) = 8/15. Cohen's kappa: p_o = 3/4, p_e = (2/4)(1/4) + (2/4)(3/4) = 1/2,
kappa = (3/4 - 1/2)/(1/2) = 1/2. No model is needed: the store is written directly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.access import library_viewer
from graphrag.cli import main
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.record import RecordFilter, cohen_kappa, krippendorff_alpha, record_stats
from helpers import write_document_rows
from seeds import judge as _judge
from seeds import recorded_answer as _answer

pytestmark = pytest.mark.unit

S, P, U = V.SUPPORTED, V.PARTIAL, V.UNSUPPORTED


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
    write_document_rows(s, "ops", "The vault keeps backups.", ("internal",), ["vault"], [])
    yield s
    s.close()


def test_agreement_matches_hand_computed_values() -> None:
    a, b = [S, S, U, U], [S, U, U, U]
    assert krippendorff_alpha([a, b]) == pytest.approx(8 / 15)
    assert cohen_kappa(a, b) == pytest.approx(0.5)
    # A claim only one reviewer judged is not pairable: alpha ignores it (missing data).
    assert krippendorff_alpha([[*a, P], [*b, None]]) == pytest.approx(8 / 15)
    assert krippendorff_alpha([[S, S], [S, S]]) is None  # no variation: undefined, not 1.0
    assert krippendorff_alpha([a]) is None


def test_stats_on_a_planted_record(store: Store, capsys) -> None:
    # 20 claims so the pair gets a kappa; the pattern above five times; checker scores rank the
    # unsupported claims low, except one.
    pattern_a, pattern_b = [S, S, U, U] * 5, [S, U, U, U] * 5
    scores = [0.9, 0.6, 0.2, 0.1] * 5
    answer = _answer(store, scores)
    _judge(store, answer, "ana", pattern_a)
    _judge(store, answer, "ben", pattern_b)
    stats = record_stats(store, library_viewer(["public"]))
    assert (stats.claims, stats.unreviewed, stats.reviewed_claims, stats.disputed) == (20, 0, 15, 5)
    assert stats.reviewers == ("ana", "ben") and stats.alpha_units == 20
    assert stats.alpha == pytest.approx(0.48)  # the same pattern five times: D_o = 10/40, D_e = 750/1560
    (pair,) = stats.pairs
    assert pair.n == 20 and pair.kappa == pytest.approx(0.5)
    # Consensus: claims 0 mod 4 supported, 2 and 3 unsupported, 1 a tie (left out): 15 scored.
    assert stats.checker_n == 15 and stats.auroc == pytest.approx(1.0)
    assert stats.triage_found == pytest.approx(0.3)  # 3 of the first ceil(0.2*15)=3 are unsupported, of 10
    top = stats.calibration[-1]
    assert top.n == 5 and top.judged_supported == pytest.approx(1.0)
    assert stats.sources[0].document == "policy" and stats.sources[0].judged == 40
    assert main(["record", "stats", "--store", str(store.path), "--json"]) == 0


def test_a_pair_with_few_shared_claims_gets_no_kappa_and_a_one_sided_record_no_auroc(store: Store) -> None:
    answer = _answer(store, [0.9, 0.2, 0.8])
    _judge(store, answer, "ana", [S, S, S])
    _judge(store, answer, "ben", [S, U, S])
    stats = record_stats(store, library_viewer(["public"]))
    assert stats.pairs[0].n == 3 and stats.pairs[0].kappa is None


def test_only_visible_claims_and_filters(store: Store) -> None:
    public = _answer(store, [0.9, 0.2])
    hidden = _answer(store, [0.9], doc="ops", access=("internal",))
    _judge(store, public, "ana", [S, U])
    _judge(store, hidden, "eve", [U])
    stats = record_stats(store, library_viewer(["public"]))
    assert stats.claims == 2 and stats.reviewers == ("ana",)
    assert all(s.document == "policy" for s in stats.sources)
    assert record_stats(store, library_viewer(["public"]), RecordFilter(reviewer="nobody")).claims == 0
    assert record_stats(store, library_viewer(["public"]), RecordFilter(question="no such question")).claims == 0
    assert record_stats(store, library_viewer(["public"]), RecordFilter(since="2999-01-01")).verdicts == 0
    everyone = record_stats(store, library_viewer(["public", "internal"]))
    assert everyone.claims == 3 and set(everyone.reviewers) == {"ana", "eve"}


def test_reviewed_claims_are_counted_by_what_they_were_judged(store: Store) -> None:
    # Claims 0 mod 4 both say supported, 2 and 3 mod 4 both unsupported (agreed: reviewed), 1 mod 4 disputed.
    answer = _answer(store, [0.9, 0.6, 0.2, 0.1] * 5)
    _judge(store, answer, "ana", [S, S, U, U] * 5)
    _judge(store, answer, "ben", [S, U, U, U] * 5)
    stats = record_stats(store, library_viewer(["public"]))
    reviewed = stats.reviewed
    assert stats.reviewed_claims == reviewed.n == 15  # "reviewed" is not "supported":
    assert stats.verified == 5 and stats.to_json()["progress"]["verified"] == 5  # verified: found supported
    assert (reviewed.supported.k, reviewed.partial.k, reviewed.unsupported.k) == (5, 0, 10)
    # 95% Wilson interval of 5 of 15 (hand-computed: centre (p + z²/2n) / (1 + z²/n), z = 1.96)
    assert (reviewed.supported.low, reviewed.supported.high) == (pytest.approx(0.1518, abs=1e-3),
                                                                 pytest.approx(0.5829, abs=1e-3))
    assert reviewed.partial.low == 0.0 and 0 < (reviewed.partial.high or 0) < 0.25  # none of 15 is not "surely 0"
    assert [(c.who, c.n, c.supported.k, c.partial.k, c.unsupported.k) for c in stats.by_reviewer] == [
        ("ana", 20, 10, 0, 10), ("ben", 20, 5, 0, 15)]
    assert str(stats.by_reviewer[0].supported) == "10 (50%, 95% CI 30%–70%)"
    progress = stats.to_json()["reviewed"]
    assert progress["n"] == 15 and progress["unsupported"]["n"] == 10


def test_record_stats_says_reviewed_apart_from_verified_in_the_record_page_s_words(store: Store, capsys) -> None:
    """Issue 60: `record stats` said "10 verified" where 4 of the 10 were judged unsupported, and "alpha None".
    Reviewed claims are counted by what they were judged, in the kind's words; "verified" is only what reviewers
    found supported; a figure that cannot be computed is said so in words."""
    answer = _answer(store, [0.9] * 6 + [0.2] * 4)
    _judge(store, answer, "ana", [S] * 6 + [U] * 4)
    assert main(["record", "stats", "--store", str(store.path)]) == 0
    out = capsys.readouterr().out
    assert "Does the source back it? (10 claims in other words)" in out
    assert "claims 10: 0 unreviewed, 10 reviewed (6 backed, 0 partly backed, 4 not backed)" in out
    assert "verified" not in out and "None" not in out and "unsupported" not in out, out
    assert "agreement: one reviewer so far (ana)" in out
    assert main(["record", "stats", "--store", str(store.path), "--json"]) == 0
    progress = __import__("json").loads(capsys.readouterr().out)["progress"]
    assert (progress["reviewed"], progress["verified"]) == (10, 6)
    _judge(store, answer, "ben", [S] * 6 + [U] * 4)
    assert main(["record", "stats", "--store", str(store.path), "--kind", "backs"]) == 0
    assert "agreement: Krippendorff's alpha (nominal) 1.00 over 10 claims" in capsys.readouterr().out


def test_figures_that_cannot_be_computed_are_said_in_words(store: Store, capsys) -> None:
    answer = _answer(store, [0.9, 0.9, 0.9])
    _judge(store, answer, "ana", [S, S, S])
    _judge(store, answer, "ben", [S, S, S])  # every judgement alike: alpha is undefined, and so is AUROC
    assert main(["record", "stats", "--store", str(store.path)]) == 0
    out = capsys.readouterr().out
    assert "None" not in out, out
    assert "agreement: not enough overlapping verdicts to compute Krippendorff's alpha (3 claims judged by two or " \
           "more reviewers, all alike: nothing to agree on)" in out
    assert "Cohen's kappa ana / ben: needs 20 shared claims (3 shared claims)" in out
    assert "AUROC and balanced accuracy need claims judged backed and claims judged not" in out
