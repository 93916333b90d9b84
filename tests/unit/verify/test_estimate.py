"""The estimate of what nobody reviewed: its interval against simulated stores with a known truth, the sample the
product draws into the queue, and "too small to say". No model: the store is written directly."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from graphrag.access import VIA_CLI, library_viewer, local_principal
from graphrag.cli import main
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.store.audit import AuditKind
from graphrag.verify.estimate import MIN_JUDGED, StratumCount, allocate, draw, stratified
from graphrag.verify.review import review_queue
from graphrag.verify.sample_in_force import sample_keys, sample_row
from graphrag.verify.sampling import draw_sample, record_estimate
from helpers import write_document_rows
from seeds import recorded_answer

pytestmark = pytest.mark.unit


def _simulated_store_covered(rng: random.Random, sizes: tuple[int, ...], rates: tuple[float, ...], n: int) -> bool:
    """One simulated store: claims in strata, each truly unsupported with its stratum's rate; the truth is the
    share in this finite population. A stratified sample is drawn and judged (reviewers say the truth); is the
    truth inside the 95% interval?"""
    units = {f"s{i}": [(i, j) for j in range(size)] for i, size in enumerate(sizes)}
    truth = {u: rng.random() < rate for (h, us), rate in zip(units.items(), rates) for u in us}
    share = sum(truth.values()) / len(truth)
    sample = draw(units, n, rng)
    est = stratified([StratumCount(h, len(units[h]), len(s), len(s), sum(truth[u] for u in s))
                      for h, s in sample.items()])
    assert est.ci_low is not None and est.ci_high is not None
    return est.ci_low <= share <= est.ci_high


@pytest.mark.parametrize(("sizes", "rates", "n"), [
    ((400, 250, 150), (0.05, 0.2, 0.45), 60),  # strata that differ
    ((400, 250, 150), (0.01, 0.03, 0.1), 60),  # a rare outcome
    ((60, 40, 25, 15), (0.3, 0.5, 0.7, 0.2), 40),  # a small store, a large sampling fraction
])
def test_the_95_percent_interval_holds_the_truth_in_about_95_of_100_simulated_stores(
        sizes: tuple[int, ...], rates: tuple[float, ...], n: int) -> None:
    # 200 stores, so that a slightly conservative interval (Wilson's is: 96.5% over 2,000 stores) does not land on
    # 100% by chance; an interval too wide to say anything would.
    rng = random.Random(20261203)
    covered = sum(_simulated_store_covered(rng, sizes, rates, n) for _ in range(200))
    assert 180 <= covered <= 198, covered


def test_allocation_is_proportional_with_two_at_least() -> None:
    got = allocate({"a": 800, "b": 150, "c": 50}, 60)
    assert sum(got.values()) == 60 and got["a"] > got["b"] > got["c"] >= 2
    got = allocate({"a": 1000, "b": 3, "c": 1}, 20)
    assert got["b"] == 2 and got["c"] == 1 and sum(got.values()) == 20
    assert allocate({"a": 5, "b": 4}, 60) == {"a": 5, "b": 4}  # fewer claims than asked: all of them


def test_too_few_settled_says_so() -> None:
    est = stratified([StratumCount("a", 100, 30, MIN_JUDGED - 1, 3)])
    assert est.too_small and est.unsupported_share is None and "too small to say" in est.reason
    est = stratified([StratumCount("a", 100, 30, 25, 3), StratumCount("b", 50, 5, 0, 0)])
    assert est.too_small and "b" in est.reason


# --- in the store ---------------------------------------------------------------------------------------------

@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
    write_document_rows(s, "ops", "The vault keeps backups.", ("internal",), ["vault"], [])
    yield s
    s.close()


ADMIN = local_principal(["public"], via=VIA_CLI)


def _judge(store: Store, keys: set[tuple[int, int]], label_of) -> None:
    from graphrag.verify.review import record_verdict

    for aid in sorted({a for a, _ in keys}):
        answer = store.answer(aid)
        assert answer is not None
        for cl in answer.claims:
            if (aid, cl.index) in keys:
                record_verdict(store, answer, cl, cl.citations[0], label_of(cl), "ana")


def test_the_sample_is_drawn_from_claims_without_a_verdict_queued_first_and_estimated(store: Store) -> None:
    # 80 claims; those scored below 0.5 are the unsupported ones (the truth reviewers will tell)
    answer = recorded_answer(store, [0.1, 0.3, 0.6, 0.9] * 20)
    _judge(store, {(answer.id or 0, 0)}, lambda cl: V.UNSUPPORTED)  # one judged before: not in the population
    assert record_estimate(store, ["public"]).reason.startswith("no estimate sample")
    drawn = draw_sample(store, ADMIN, size=30, seed=7)
    keys = sample_keys(store, ["public"])
    assert drawn == 30 == len(keys) and (answer.id, 0) not in keys
    (row,) = [e for e in store.audit() if e.event == AuditKind.ESTIMATE_SAMPLE]
    assert sum(s["population"] for s in row.detail["strata"]) == 79
    queue = review_queue(store, library_viewer(["public"]))
    assert {q.key for q in queue[:30]} == keys and all(q.sample for q in queue[:30])
    assert not any(q.sample for q in queue[30:])
    assert record_estimate(store, ["public"]).too_small
    unsupported = {0: True, 1: True, 2: False, 3: False}
    _judge(store, set(keys), lambda cl: V.UNSUPPORTED if unsupported[cl.index % 4] else V.SUPPORTED)
    est = record_estimate(store, ["public"])
    assert est.population == 79 and est.sampled == est.judged == 30
    truth = 39 / 79  # 40 unsupported of 80, less the one judged before the draw
    assert est.unsupported_share == pytest.approx(truth, abs=0.02)  # strata by check band: each all or none
    assert est.ci_low is not None and est.ci_high is not None and est.ci_low <= truth <= est.ci_high
    assert {s.name for s in est.strata} == {"policy / check below 0.5", "policy / check 0.5 or above"}


def test_a_viewer_without_the_draws_labels_gets_no_sample(store: Store) -> None:
    recorded_answer(store, [0.2] * 5, doc="ops", access=("internal",))
    draw_sample(store, local_principal(["public", "internal"], via=VIA_CLI), size=5, seed=1)
    assert sample_keys(store, ["public"]) == frozenset()
    assert record_estimate(store, ["public"]).reason.startswith("no estimate sample")
    assert len(sample_keys(store, ["public", "internal"])) == 5


def test_record_estimate_json_draws_when_there_is_none(store: Store, capsys) -> None:
    recorded_answer(store, [0.2, 0.7] * 10)
    assert main(["record", "estimate", "--json", "--store", str(store.path), "--seed", "3", "--size", "8"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["drawn_now"] == 8 and out["sampled"] == 8 and out["population"] == 20
    assert out["too_small"] is True and out["unsupported_share"] is None and "too small to say" in out["reason"]
    assert {"unsupported_share", "ci_low", "ci_high", "population", "sampled", "strata"} <= set(out)
    assert main(["record", "estimate", "--json", "--store", str(store.path)]) == 0
    assert json.loads(capsys.readouterr().out)["drawn_now"] is None  # the sample in force stays


# --- one sample in force per label set (issue 58, MEDIUM 5) --------------------------------------------------

INTERNAL_ADMIN = local_principal(["public", "internal"], via=VIA_CLI)


def test_each_label_set_has_its_own_sample_in_force(store: Store, capsys) -> None:
    recorded_answer(store, [0.2, 0.7] * 5)  # 10 public claims
    recorded_answer(store, [0.2, 0.7] * 5, doc="ops", access=("internal",))  # 10 internal claims
    assert draw_sample(store, ADMIN, size=4, seed=1) == 4  # a public admin draws last...
    internal = record_estimate(store, ["internal", "public"])
    # ...and the internal admin's estimate does not quietly describe the public claims only
    assert internal.labels == ("internal", "public") and not internal.strata
    assert internal.reason.startswith("no estimate sample drawn for the labels internal, public")
    assert record_estimate(store, ["public"]).labels == ("public",)
    assert record_estimate(store, ["public"]).population == 10
    assert draw_sample(store, INTERNAL_ADMIN, size=8, seed=2) == 8
    row = sample_row(store, ["public", "internal"])
    assert row is not None and row["labels"] == ["internal", "public"]
    internal_keys = {(a, i) for st in row["strata"] for a, i in st["claims"]}
    assert draw_sample(store, ADMIN, size=6, seed=3) == 6  # a later public draw replaces the public sample only
    assert record_estimate(store, ["public", "internal"]).population == 20  # the order of labels is no matter
    assert record_estimate(store, ["internal", "public", "public"]).sampled == 8
    public = record_estimate(store, ["public"])
    assert (public.population, public.sampled, public.labels) == (10, 6, ("public",))
    assert json.loads(json.dumps(public.to_json()))["labels"] == ["public"]
    # a reviewer holding both sets' labels judges both samples' claims first; a public one only the public's
    public_keys = sample_keys(store, ["public"])
    assert len(public_keys) == 6 and sample_keys(store, ["public", "internal"]) == internal_keys | public_keys
    assert {q.key for q in review_queue(store, INTERNAL_ADMIN) if q.sample} == internal_keys | public_keys


def test_record_estimate_and_the_pack_name_the_labels_the_sample_covers(store: Store, tmp_path: Path,
                                                                       capsys) -> None:
    import io
    import zipfile

    recorded_answer(store, [0.2, 0.7] * 5)
    recorded_answer(store, [0.2, 0.7] * 5, doc="ops", access=("internal",))
    draw_sample(store, ADMIN, size=4, seed=1)
    s = ["--store", str(store.path)]
    assert main(["record", "estimate", *s, "--access", "public"]) == 0
    assert "estimate sample for the labels public (drawn " in capsys.readouterr().out
    assert main(["record", "estimate", *s, "--access", "public", "internal", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["labels"] == ["internal", "public"] and out["drawn_now"] == 20 == out["population"]
    assert main(["record", "estimate", *s, "--access", "internal", "public"]) == 0
    assert "estimate sample for the labels internal, public" in capsys.readouterr().out
    pack = tmp_path / "p.zip"
    assert main(["export", "--format", "pack", "--out", str(pack), *s, "--access", "internal", "public"]) == 0
    with zipfile.ZipFile(io.BytesIO(pack.read_bytes())) as z:
        est = json.loads(z.read("estimate.json"))
        report = z.read("report.html").decode()
    assert est["labels"] == ["internal", "public"] and est["sampled"] == 20
    assert "estimate sample for the labels <b>internal, public</b>" in report
