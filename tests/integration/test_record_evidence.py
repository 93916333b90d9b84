"""The record as evidence on each store backend: carry-over across answers and versions, the estimate sample and
the signed pack read the same rows from SQLite and PostgreSQL (the unit tests in tests/unit/verify run on SQLite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.access import library_viewer
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.carry import verdict_rows
from graphrag.verify.exports import export_pack, public_key
from graphrag.verify.pack import verify_pack
from graphrag.verify.review import record_verdict, review_queue
from graphrag.verify.sample_in_force import sample_keys
from graphrag.verify.sampling import draw_sample
from helpers import ADMIN
from seeds import answer_citing, write_version

pytestmark = pytest.mark.unit

KEPT = "Snapshot exports remain available for 30 days."


def test_carry_over_the_sample_and_a_pack_on_either_store(any_store: Store, tmp_path: Path) -> None:
    write_version(any_store, [KEPT, "Backups run nightly."])
    first = answer_citing(any_store, ["Exports remain available for 30 days."])
    claim = first.claims[0]
    record_verdict(any_store, first, claim, claim.citations[0], V.SUPPORTED, "ana")
    write_version(any_store, [KEPT, "Backups run hourly."])  # keeps the cited sentence
    again = answer_citing(any_store, ["exports remain available for 30 days", "Backups are kept."], version=2)
    (kept,) = verdict_rows(any_store, first.id)
    assert not kept.stale and kept.kept_in_version == 2
    (carried,) = verdict_rows(any_store, again.id)
    assert carried.carried_answer == first.id and carried.claim_index == 0 and not carried.stale
    assert draw_sample(any_store, ADMIN, size=1, seed=1) == 1
    assert sample_keys(any_store, ["public"]) == {(again.id, 1)}  # the one claim without a verdict
    assert review_queue(any_store, library_viewer(["public"]))[0].sample
    pack = export_pack(any_store, by=ADMIN, config_home=tmp_path / "config")
    assert verify_pack(pack.data, public_key(any_store, config_home=tmp_path / "config")).ok
    assert len(any_store.verdicts()) == 1


def test_one_sample_per_label_set_and_a_blind_pack_on_either_store(any_store: Store, tmp_path: Path) -> None:
    from graphrag.access import VIA_CLI, local_principal
    from graphrag.verify.pack import PackRefused
    from graphrag.verify.policy import ReviewPolicy
    from graphrag.verify.sampling import record_estimate
    from graphrag.verify.status import keep_review_policy

    write_version(any_store, [KEPT, "Backups run nightly."])
    answer = answer_citing(any_store, ["Exports remain available for 30 days.", "Backups run nightly."])
    both = local_principal(["public", "internal"], via=VIA_CLI)
    draw_sample(any_store, ADMIN, size=1, seed=1)
    drawn = draw_sample(any_store, both, size=1, seed=1)
    assert draw_sample(any_store, ADMIN, size=2, seed=2) == 2  # the public set's again: the other set's stays
    assert record_estimate(any_store, ["internal", "public"]).sampled == drawn
    public = record_estimate(any_store, ["public"])
    assert public.labels == ("public",) and public.sampled == 2
    keep_review_policy(any_store, ReviewPolicy(2), by=ADMIN)
    record_verdict(any_store, answer, answer.claims[0], answer.claims[0].citations[0], V.SUPPORTED, "ana")
    with pytest.raises(PackRefused):
        export_pack(any_store, by=ADMIN, config_home=tmp_path / "config")
    pack = export_pack(any_store, by=ADMIN, whole_record=True, config_home=tmp_path / "config")
    assert pack.verdicts == 1 and verify_pack(pack.data, public_key(any_store, config_home=tmp_path / "config")).ok
