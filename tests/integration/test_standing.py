"""An answer's standing (issue 62, items 1 and 4), on SQLite and PostgreSQL: derived from the record when read, in
the same words wherever it is asked for, and *source changed* the moment a new version edits or drops a sentence a
verified claim cites. No model: documents and answers are written as rows."""

from __future__ import annotations

import csv
import io
import json

import pytest

from graphrag.access import Forbidden, Viewer, library_viewer
from graphrag.access.identity import Identity
from graphrag.cli import main
from graphrag.config import Config
from graphrag.ingest.documents import Source
from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route
from graphrag.store import DocumentWrite, Store
from graphrag.verify.actions import export_source_changes, source_changed_answers
from graphrag.verify.policy import ReviewPolicy, ReviewViewer
from graphrag.verify.review import record_verdict, review_queue
from graphrag.verify.standing import StandingKind, answer_standing, changed_answers
from graphrag.verify.status import keep_review_policy
from helpers import ADMIN

SENTENCES = ("Refunds are paid within 14 days.", "Exports are kept for 30 days.", "Support answers in a day.")


def write_doc(store: Store, sentences: tuple[str, ...] = SENTENCES, doc_id: str = "policy",
              access: tuple[str, ...] = ("public",)) -> int:
    """One version of a document whose sentences are ``sentences``; its version number."""
    text = " ".join(sentences)
    rows, at = [], 0
    for s in sentences:
        rows.append((at, at + len(s), s))
        at += len(s) + 1
    src = Source(doc_id, doc_id.title(), text, access=access)
    return int(store.write_document(DocumentWrite(src.as_document(), "scripted", "ok", rows, None,
                                                  [("refund", "Refund", "thing")], {}, [("refund", 0, "", False)], [])))


def save_answer(store: Store, question: str = "How long are refunds and exports?", doc_id: str = "policy",
                version: int = 1, cited: tuple[int, ...] = (0, 1), words: str = "claim about",
                access: tuple[str, ...] = ("public",)) -> Answer:
    """An answer asked under ``access`` with one claim per cited sentence (``words`` and the sentence), each citing
    it."""
    items, claims = [], []
    for n, idx in enumerate(cited, start=1):
        span = store.span(doc_id, version, idx)
        assert span is not None
        item = ContextItem(n, span, Route("refund"), 0.9, "similarity")
        items.append(item)
        claims.append(Claim(n - 1, f"{words} {span.text}", 0, 1, (Citation(str(n), True, item),)))
    answer = Answer(question, AskSettings(access=access), " ".join(f"{c.text} [{c.index + 1}]" for c in claims), (), (),
                    tuple(items), tuple(claims))
    stored = store.answer(store.save_answer(answer))
    assert stored is not None
    return stored


def judge(store: Store, answer: Answer, claim: int, verdict: str, reviewer: str) -> None:
    c = answer.claims[claim]
    record_verdict(store, answer, c, c.citations[0], verdict, reviewer)


def test_each_standing_in_words(any_store: Store) -> None:
    write_doc(any_store)
    a = save_answer(any_store)
    s = answer_standing(any_store, a)
    assert (s.kind, s.words) == (StandingKind.NOT_REVIEWED, "not yet reviewed")
    judge(any_store, a, 0, "supported", "ana")
    s = answer_standing(any_store, a)
    assert s.kind is StandingKind.PARTLY_VERIFIED and s.waiting == (1,) and s.verified_claims == (0,)
    assert s.words.startswith("partly verified: 1 of 2 claims verified by ana on ")
    assert s.words.endswith("claim 2 waits for review")
    judge(any_store, a, 1, "supported", "ben")
    s = answer_standing(any_store, a)
    assert s.kind is StandingKind.VERIFIED and s.verified and s.reviewers == ("ana", "ben")
    assert s.words.startswith("verified by ana and ben on ") and s.words.endswith("sources unchanged")
    assert s.verified_on is not None and s.verified_on[:4] in s.words
    judge(any_store, a, 1, "unsupported", "ben")  # a changed mind is a new row: the answer is contradicted now
    s = answer_standing(any_store, a)
    assert s.kind is StandingKind.CONTRADICTED and s.contradicted == (1,)
    assert s.words == "contradicted by a reviewer: claim 2 judged not backed by ben"


def test_disputed_under_two_reviewers_and_blind_to_who_has_not_judged(any_store: Store) -> None:
    write_doc(any_store)
    a = save_answer(any_store, cited=(0,))
    keep_review_policy(any_store, ReviewPolicy(2), by=ADMIN)
    judge(any_store, a, 0, "supported", "ana")
    assert answer_standing(any_store, a).kind is StandingKind.NOT_REVIEWED  # one verdict of the two required
    judge(any_store, a, 0, "unsupported", "ben")
    ana = ReviewViewer("ana", adjudicates=True)
    s = answer_standing(any_store, a, ana)
    assert s.kind is StandingKind.DISPUTED and s.words == "disputed: reviewers disagree on claim 1; awaiting an adjudicator"
    # blind review: someone who judged nothing and may not adjudicate is told nothing of the verdicts
    assert answer_standing(any_store, a, ReviewViewer("cy")).kind is StandingKind.NOT_REVIEWED
    record_verdict(any_store, a, a.claims[0], a.claims[0].citations[0], "supported", "dee", adjudicate=True)
    s = answer_standing(any_store, a, ReviewViewer("cy"))
    assert s.kind is StandingKind.VERIFIED and "dee" in s.reviewers
    assert "each claim by 2 reviewers who agree" in s.words


def test_a_new_version_that_keeps_the_sentences_leaves_it_verified(any_store: Store) -> None:
    write_doc(any_store)
    a = save_answer(any_store)
    judge(any_store, a, 0, "supported", "ana")
    judge(any_store, a, 1, "supported", "ana")
    assert write_doc(any_store, (*SENTENCES, "A new sentence at the end.")) == 2
    s = answer_standing(any_store, a)
    assert s.kind is StandingKind.VERIFIED and not s.changes


def test_an_edited_or_dropped_sentence_turns_it_source_changed(any_store: Store) -> None:
    write_doc(any_store)
    a = save_answer(any_store)
    judge(any_store, a, 0, "supported", "ana")
    judge(any_store, a, 1, "supported", "ana")
    verdicts_before = [(v.id, v.verdict, v.created_at) for v in any_store.verdicts(a.id)]
    edited = ("Refunds are paid within 14 days.", "Exports are kept for 60 days.", "Support answers in a day.")
    write_doc(any_store, edited)
    s = answer_standing(any_store, a)
    assert s.kind is StandingKind.SOURCE_CHANGED and not s.verified
    assert s.words.startswith("source changed: verified by ana on ")
    assert "claim 2 cites has changed since" in s.words
    [change] = s.changes
    assert (change.claim_index, change.document_id, change.cited_version, change.current_version) == (1, "policy", 1, 2)
    assert (change.old, change.new) == ("Exports are kept for 30 days.", "Exports are kept for 60 days.")
    assert s.waiting == (1,) and s.verified_claims == (0,)  # the unchanged claim's verdict still stands
    # a third version drops the sentence: nothing alike is left
    write_doc(any_store, ("Refunds are paid within 14 days.", "Support answers in a day."))
    [change] = answer_standing(any_store, a).changes
    assert change.new is None and change.current_version == 3 and "is no longer there" in change.words
    # derived, never written: the verdict rows are as they were
    assert [(v.id, v.verdict, v.created_at) for v in any_store.verdicts(a.id)] == verdicts_before


def test_a_changed_source_puts_exactly_the_affected_claims_first_in_the_queue(any_store: Store, store_url: str,
                                                                              capsys) -> None:
    write_doc(any_store)
    verified = save_answer(any_store)
    judge(any_store, verified, 0, "supported", "ana")
    judge(any_store, verified, 1, "supported", "ana")
    waiting = save_answer(any_store, "When are refunds paid?", cited=(0, 2))  # newer, never judged
    reader = library_viewer(["public"])
    before = review_queue(any_store, reader, reviewer="cy")
    assert {q.key for q in before[:2]} == {(waiting.id, 0), (waiting.id, 1)} and not any(q.changed for q in before)
    write_doc(any_store, ("Refunds are paid within 14 days.", "Exports are kept for 60 days.",
                          "Support answers in a day."))
    after = review_queue(any_store, reader, reviewer="cy")
    assert after[0].key == (verified.id, 1) and after[0].changed and not after[0].reviewed
    assert [q.key for q in after if q.changed] == [(verified.id, 1)]  # claim 1's sentence is unchanged
    capsys.readouterr()
    assert main(["review", "list", "--json", "--reviewer", "cy", "--store", store_url]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(r["answer_id"], r["claim_index"]) for r in listed if r["source_changed"]] == [(verified.id, 1)]
    assert (listed[0]["answer_id"], listed[0]["claim_index"]) == (verified.id, 1)
    assert [(c.answer.id, [r["claim_index"] for r in c.rows()]) for c in changed_answers(any_store, ["public"])] \
        == [(verified.id, [1])]
    # ana judges it again (on the cited words, now gone): it is no longer first for her; still for cy
    again = any_store.answer(verified.id)
    assert again is not None
    judge(any_store, again, 1, "unsupported", "ana")
    assert review_queue(any_store, reader, reviewer="ana")[0].key != (verified.id, 1)
    assert answer_standing(any_store, again).kind is StandingKind.CONTRADICTED
    assert changed_answers(any_store, ["public"]) == []  # contradicted now, not a verified answer whose source changed


def test_a_changed_source_is_listed_only_to_who_sees_the_answer(any_store: Store) -> None:
    write_doc(any_store, doc_id="ops", access=("internal",))
    a = save_answer(any_store, doc_id="ops")
    judge(any_store, a, 0, "supported", "ana")
    judge(any_store, a, 1, "supported", "ana")
    write_doc(any_store, ("Refunds are paid within 10 days.", *SENTENCES[1:]), doc_id="ops", access=("internal",))
    assert [c.answer.id for c in changed_answers(any_store, ["internal"])] == [a.id]
    assert changed_answers(any_store, ["public"]) == []
    assert review_queue(any_store, library_viewer(["public"]), reviewer="cy") == []


def test_record_changes_lists_and_an_admin_exports_them_audited(any_store: Store, store_url: str, capsys) -> None:
    write_doc(any_store)
    a = save_answer(any_store)
    judge(any_store, a, 0, "supported", "ana")
    judge(any_store, a, 1, "supported", "ana")

    def cli(*args: str) -> str:
        capsys.readouterr()
        assert main(["record", "changes", *args, "--store", store_url]) == 0
        return capsys.readouterr().out

    assert cli() == "no verified answer's sources changed since it was verified\n"
    write_doc(any_store, ("Refunds are paid within 14 days.", "Exports are kept for 60 days.", SENTENCES[2]))
    printed = cli()
    assert "answer 1 ('How long are refunds and exports?'): source changed: verified by ana on " in printed
    assert "claim 2 (v2, " in printed and "“Exports are kept for 30 days.” now reads “Exports are kept for 60 days.”" \
        in printed
    [listed] = json.loads(cli("--json"))
    assert listed["answer_id"] == 1 and listed["standing"]["kind"] == "source changed"
    assert listed["standing"]["source_changes"][0]["changed_in_version"] == 2
    rows = list(csv.DictReader(io.StringIO(cli("--export", "csv"))))
    assert [(r["answer_id"], r["claim_index"], r["cited_version"], r["changed_in_version"], r["old_words"],
             r["new_words"]) for r in rows] == [("1", "1", "1", "2", SENTENCES[1], "Exports are kept for 60 days.")]
    row = any_store.audit_of("export")[-1]
    assert row.detail["what"] == "verified answers whose sources changed" and row.detail["rows"] == 1
    assert row.detail["via"] == "cli"
    # only an admin exports the record, and a refusal changes nothing
    reviewer = Viewer(Identity("sub-cat", "cat@example.com", frozenset(), "iss"), frozenset({"public"}), "reviewer",
                      team=True)
    with pytest.raises(Forbidden):
        export_source_changes(any_store, reviewer, Config(), "csv")
    assert len(any_store.audit_of("export")) == 1
    assert [c.answer.id for c in source_changed_answers(any_store, reviewer, Config())] == [1]  # a read: theirs too


def test_an_answer_verified_only_by_carried_verdicts_is_listed_when_its_source_changes(any_store: Store) -> None:
    """A second answer to the same question, quoting the same sentences, is verified by the verdicts carried from the
    first; when the source changes, it is as much *source changed* as the first, and listed as such."""
    write_doc(any_store)
    first = save_answer(any_store)
    judge(any_store, first, 0, "supported", "ana")
    judge(any_store, first, 1, "supported", "ana")
    second = save_answer(any_store)
    assert not any_store.verdicts(second.id)  # no verdict of its own: every one is carried
    assert answer_standing(any_store, second).kind is StandingKind.VERIFIED
    write_doc(any_store, ("Refunds are paid within 14 days.", "Exports are kept for 60 days.",
                          "Support answers in a day."))
    assert answer_standing(any_store, second).kind is StandingKind.SOURCE_CHANGED
    listed = changed_answers(any_store, ["public"])
    assert [c.answer.id for c in listed] == [second.id, first.id]
