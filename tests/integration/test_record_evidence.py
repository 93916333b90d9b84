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
