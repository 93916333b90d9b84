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


BORN = "Hannah John-Kamen (born 6 September 1989) is a British actress."


def _quote_answer(store: Store, question: str, written: str | None = None):
    """An answer to ``question`` quoting BORN word for word (asked whether it answers) and, with ``written``, a claim
    in other words citing it too (asked whether its source backs it)."""
    from graphrag.model import Answer, AskSettings, Citation, Claim, ClaimFlag, ContextItem, Route

    span = store.span("hannah", 1, 0)
    assert span is not None
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    claims = [Claim(0, BORN, 0, 1, (Citation("1", True, item),), flags=(ClaimFlag.VERBATIM_QUOTE,))]
    if written:
        claims.append(Claim(1, written, 0, 1, (Citation("1", True, item),)))
    stored = store.answer(store.save_answer(Answer(question, AskSettings(), BORN + " [1]", (), (), (item,),
                                                   tuple(claims))))
    assert stored is not None
    return stored


def test_a_does_not_answer_verdict_stays_with_its_question_on_either_store(any_store: Store, store_url: str,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 60: "does not answer" given to the quote for "Where was Hannah John-Kamen born?" is no verdict on the
    same quote answering "When was Hannah John-Kamen born?": that one stays unjudged, in the queue and counted
    unreviewed; the same question asked again (as normalised) carries it; a backs verdict carries to both."""
    from graphrag.cli import main
    from graphrag.model import VerdictKind
    from graphrag.verify.carry import old_rule_carries
    from graphrag.verify.policy import ClaimStatus
    from graphrag.verify.record import RecordFilter, carry_check, record_stats

    write_version(any_store, [BORN, "She is known for Ant-Man and the Wasp."], doc_id="hannah")
    where = _quote_answer(any_store, "Where was Hannah John-Kamen born?", "She was born in 1989.")
    record_verdict(any_store, where, where.claims[0], where.claims[0].citations[0], V.UNSUPPORTED, "ana")
    record_verdict(any_store, where, where.claims[1], where.claims[1].citations[0], V.SUPPORTED, "ana")
    assert [v.words for v in any_store.verdicts()] == ["does not answer", "backed"]
    when = _quote_answer(any_store, "When was Hannah John-Kamen born?", "She was born in 1989.")
    again = _quote_answer(any_store, "  where was Hannah John Kamen born ", "She was born in 1989.")
    # the quote: not judged for "when"; judged for the same question again
    assert [(v.claim_index, v.kind) for v in verdict_rows(any_store, when.id)] == [(1, VerdictKind.BACKS)]
    assert sorted((v.claim_index, v.words, v.carried_answer) for v in verdict_rows(any_store, again.id)) == [
        (0, "does not answer", where.id), (1, "backed", where.id)]
    queue = {(q.answer_id, q.claim_index): q for q in review_queue(any_store, library_viewer(["public"]))}
    assert queue[(when.id, 0)].state.status == ClaimStatus.UNREVIEWED and not queue[(when.id, 0)].verdicts
    answers = record_stats(any_store, library_viewer(["public"]), RecordFilter(question="When", kind=VerdictKind.ANSWERS))
    assert (answers.claims, answers.unreviewed, answers.reviewed.unsupported.k) == (1, 1, 0)
    # the check over a store: what the old rule carried besides (the "when" quote), and nothing else
    (old,) = old_rule_carries(any_store)
    assert (old.answer_id, old.claim_index, old.carried_answer, old.words) == (when.id, 0, where.id, "does not answer")
    check = carry_check(any_store, library_viewer(["public"]))
    assert check.carried == 3 and [(v.answer_id, q, src) for v, q, src in check.old_rule_only] == [
        (when.id, "When was Hannah John-Kamen born?", "Where was Hannah John-Kamen born?")]
    assert carry_check(any_store, library_viewer(["internal"])).to_json() == {
        "carried": 0, "old_rule_only": 0, "old_rule_verdicts": []}  # labels that see none of it: nothing named
    assert main(["record", "carried", "--store", store_url]) == 0
    out = capsys.readouterr().out
    assert "3 verdicts carried over" in out and "also carried 1 verdict" in out
    assert f"answer {when.id}, claim 1 ('When was Hannah John-Kamen born?'): 'does not answer' by ana" in out
