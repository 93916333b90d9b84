"""The review queue: every visible claim, however many answers the store holds, in triage order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphrag.access import library_viewer
from graphrag.answer.ask import Asker
from graphrag.answer.generate.extractive import ExtractiveGenerator
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings
from graphrag.verify.review import record_verdict, review_queue, visible_answer_questions, visible_answers
from helpers import ScriptedChecker, reference_corpus, reference_extractor
from proc_helpers import HashEmbedder


@pytest.fixture()
def many_answers(store, tmp_path, unparsed_questions):
    """One real answer stored 260 times (more than any page of answers), plus an insider's answer.
    The queue does not depend on how sentences were found: the hash embedder (its similarities are
    low, so no relevance floor), no question parse."""
    embedder = HashEmbedder()
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    asker = Asker(store, embedder=embedder, generator=ExtractiveGenerator(), checker=ScriptedChecker())
    first = asker.ask("How long do exports stay available?", AskSettings(k=5, hops=2, access=("public",), min_relevance=0.0)).answer
    assert first.claims and first.id is not None
    ids = [first.id] + [store.save_answer(replace(first, id=None)) for _ in range(259)]
    insider = asker.ask("Which key encrypts exports?", AskSettings(k=5, hops=3, access=("internal", "public"),
                                                                 min_relevance=0.0)).answer
    assert any(c.span.document_id == "internal" for c in insider.context)
    return store, ids, first, insider


@pytest.mark.unit
def test_queue_holds_every_claim_of_every_answer(many_answers) -> None:
    store, ids, first, insider = many_answers
    queue = review_queue(store, library_viewer(["public"]))
    # The oldest answer is still there: an unreviewed claim never drops out of the queue.
    assert {q.answer_id for q in queue} == set(ids)
    assert len(queue) == len(ids) * len(first.claims)
    assert insider.id not in {q.answer_id for q in queue}  # its context includes the internal document
    assert list(visible_answer_questions(store, library_viewer(["public"]))) == sorted(ids, reverse=True)
    assert insider.id in visible_answer_questions(store, library_viewer(["internal", "public"]))

    # A verdict sends that claim to the back, with every claim of the same words citing the same sentence (the
    # same question asked again: its verdict carries over, docs/record.md); the rest keep lowest support first.
    cl = first.claims[0]
    record_verdict(store, first, cl, next((c for c in cl.citations if c.valid), None), "supported", "ada")
    queue = review_queue(store, library_viewer(["public"]))
    assert queue[-1].key == (first.id, cl.index) and queue[-1].reviewed
    scores = [q.score for q in queue if not q.reviewed]
    assert scores == sorted(scores)
    mine = review_queue(store, library_viewer(["public"]), reviewer="ada", mine_only=True)
    assert (first.id, cl.index) in {q.key for q in mine}
    assert all(v.carried_answer == first.id for q in mine if q.key != (first.id, cl.index) for v in q.verdicts)
    only_first = review_queue(store, library_viewer(["public"]), answer_id=first.id)
    assert {q.answer_id for q in only_first} == {first.id} and len(only_first) == len(first.claims)
    # The summary matches the stored answer it stands for.
    item = only_first[0]
    whole = store.answer(item.answer_id)
    claim = next(c for c in whole.claims if c.index == item.claim_index)
    assert (item.text, item.flags, item.support, item.question) == (claim.text, claim.flags, claim.support,
                                                                    whole.question)


@pytest.mark.unit
def test_whole_answers_for_export_follow_the_same_visibility(many_answers) -> None:
    store, ids, _, insider = many_answers
    assert {a.id for a in visible_answers(store, ["public"])} == set(ids)
    assert insider.id in {a.id for a in visible_answers(store, ["internal", "public"])}


@pytest.mark.model
def test_bench_review_prints_queue_sizes(capsys) -> None:
    import json

    from graphrag.cli import main

    assert main(["bench", "review", "--answers", "3", "7", "--rounds", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    per = out["claims_per_answer"]
    assert per > 0
    assert [(r["answers"], r["claims_in_queue"]) for r in out["sizes"]] == [(3, 3 * per), (7, 7 * per)]
    assert all(r["queue_p50_ms"] >= 0 for r in out["sizes"])
