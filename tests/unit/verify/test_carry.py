"""Verdicts that carry over: a verdict judges the claim's words and the exact cited sentence, so another answer
holding that pair, or a newer version keeping the sentence, shows it as judged; a changed sentence is not carried
and shows what it became. No model: the store is written directly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag.access import library_viewer
from graphrag.cli import main
from graphrag.model import Answer
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.carry import changed_sentence, claim_words, verdict_rows
from graphrag.verify.policy import ClaimStatus, ReviewPolicy, ReviewViewer, claim_state, latest
from graphrag.verify.review import export_rows, record_verdict, review_queue
from graphrag.verify.status import keep_review_policy
from graphrag.verify.worklist import work_queue
from helpers import ADMIN
from seeds import answer_citing, write_version

pytestmark = pytest.mark.unit

KEPT = "Snapshot exports remain available for 30 days."


def judge(store: Store, answer: Answer, index: int, label: V, reviewer: str) -> None:
    claim = answer.claims[index]
    record_verdict(store, answer, claim, claim.citations[0], label, reviewer)


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_version(s, [KEPT, "Backups run nightly."])
    yield s
    s.close()


def test_claim_words_ignore_case_punctuation_and_whitespace_only() -> None:
    assert claim_words("Exports  are kept, for 30 days.") == claim_words("exports are kept for 30 days")
    assert claim_words("Exports are kept for 30 days") != claim_words("Exports are kept for 60 days")


def test_a_verdict_carries_to_another_answer_with_the_same_words_and_sentence(store: Store) -> None:
    first = answer_citing(store, ["Exports remain available for 30 days."])
    judge(store, first, 0, V.SUPPORTED, "ana")
    again = answer_citing(store, ["  exports REMAIN available for 30 days ", "Exports remain for 30 days."],
                          question="How long do exports stay?")
    assert again.id is not None and first.id is not None
    rows = verdict_rows(store, again.id)
    (carried,) = rows  # only the near-identical claim: other words are another claim
    assert (carried.claim_index, carried.reviewer, carried.verdict) == (0, "ana", V.SUPPORTED)
    assert carried.carried_answer == first.id and carried.carried_from == store.verdicts()[0].id
    assert carried.id is None and carried.created_at == store.verdicts()[0].created_at
    # it is ana's: not queued for her again; ben still has it to judge
    ana = ReviewViewer("ana", adjudicates=True)
    queue = review_queue(store, library_viewer(["public"]), viewer=ana, answer_id=again.id)
    assert [(q.claim_index, q.mine, q.state.status) for q in queue] == [
        (1, False, ClaimStatus.UNREVIEWED), (0, True, ClaimStatus.VERIFIED)]
    assert work_queue(queue, ana).left == ((again.id, 1),)
    # the record stays as it was: one verdict row, one audit row; nothing was judged again
    assert len(store.verdicts()) == 1
    # the export names where it came from
    exported = [r for r in export_rows(store, ["public"], ana) if r["answer_id"] == again.id]
    assert [(r["verdict_id"], r["carried_from"], r["carried_from_answer"], r["verdict"]) for r in exported] == [
        (None, store.verdicts()[0].id, first.id, "supported")]


def test_the_policy_counts_carried_verdicts_like_fresh_ones(store: Store) -> None:
    keep_review_policy(store, ReviewPolicy(2), by=ADMIN)
    first = answer_citing(store, ["Exports remain available for 30 days."])
    judge(store, first, 0, V.SUPPORTED, "ana")
    judge(store, first, 0, V.SUPPORTED, "ben")
    again = answer_citing(store, ["Exports remain available for 30 days"])
    assert again.id is not None
    state = claim_state(latest(verdict_rows(store, again.id)), ReviewPolicy(2))
    assert (state.status, state.reviews) == (ClaimStatus.VERIFIED, 2)
    # one carried, one fresh: still two independent verdicts; and a reviewer's own later verdict replaces theirs
    judge(store, again, 0, V.UNSUPPORTED, "ben")
    rows = latest(verdict_rows(store, again.id))
    assert sorted((v.reviewer, v.carried_from is not None) for v in rows) == [("ana", True), ("ben", False)]
    assert claim_state(rows, ReviewPolicy(2)).status == ClaimStatus.DISPUTED


def test_a_new_version_that_keeps_the_sentence_keeps_the_verdict_current(store: Store) -> None:
    answer = answer_citing(store, ["Exports remain available for 30 days."])
    judge(store, answer, 0, V.SUPPORTED, "ana")
    write_version(store, [KEPT, "Backups run hourly."])  # version 2: the cited sentence byte for byte
    assert store.verdicts()[0].stale  # as stored: the version it judged is superseded
    (v,) = verdict_rows(store, answer.id)
    assert not v.stale and v.kept_in_version == 2
    assert claim_state([v], ReviewPolicy()).status == ClaimStatus.VERIFIED
    # an answer asked on version 2 with the same claim carries it too
    newer = answer_citing(store, ["Exports remain available for 30 days."], version=2)
    (carried,) = verdict_rows(store, newer.id)
    assert carried.carried_answer == answer.id and carried.version == 2 and not carried.stale


def test_a_changed_sentence_is_not_carried_and_shows_what_changed(store: Store, capsys) -> None:
    answer = answer_citing(store, ["Exports remain available for 30 days."])
    judge(store, answer, 0, V.SUPPORTED, "ana")
    changed = "Snapshot exports remain available for 60 days."
    write_version(store, [changed, "Backups run nightly."])
    (v,) = verdict_rows(store, answer.id)
    assert v.stale and v.kept_in_version is None
    assert claim_state([v], ReviewPolicy()).status == ClaimStatus.STALE
    assert changed_sentence(store, v) == changed
    newer = answer_citing(store, ["Exports remain available for 30 days."], version=2)
    assert verdict_rows(store, newer.id) == []  # another sentence: not carried
    (row,) = [r for r in export_rows(store, ["public"]) if r["answer_id"] == answer.id]
    assert row["stale"] and row["sentence_now"] == changed
    assert main(["review", "list", "--json", "--store", str(store.path), "--reviewer", "ana"]) == 0
    listed = {(r["answer_id"], r["claim_index"]): r for r in json.loads(capsys.readouterr().out)}
    assert listed[(answer.id, 0)]["status"] == "stale" and listed[(newer.id, 0)]["verdicts"] == []


def test_review_list_json_says_where_a_verdict_came_from(store: Store, capsys) -> None:
    first = answer_citing(store, ["Exports remain available for 30 days."])
    judge(store, first, 0, V.UNSUPPORTED, "ana")
    again = answer_citing(store, ["Exports remain available for 30 days."])
    assert main(["review", "list", "--json", "--store", str(store.path), "--answer", str(again.id)]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    (v,) = row["verdicts"]
    assert (row["status"], v["reviewer"], v["verdict"], v["carried_from_answer"]) == (
        "reviewed", "ana", "unsupported", first.id)  # reviewed, and judged unsupported: not verified
