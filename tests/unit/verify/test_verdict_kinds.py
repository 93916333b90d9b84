"""Two judgements (issue 44): a verbatim quote is asked "Does this answer the question?", a claim in other words
"Does the source back it?". Each verdict names its kind; the review policy, the export and the Record's figures
take each kind apart. No model: the store is written directly, one quote and one claim citing one sentence."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.access import library_viewer
from graphrag.errors import InputError
from graphrag.model import (
    Answer,
    AskSettings,
    Citation,
    Claim,
    ClaimFlag,
    ContextItem,
    Route,
    Support,
    SupportLabel,
    VerdictKind,
    VerdictLabel,
)
from graphrag.store import Store
from graphrag.verify.exports import export_record
from graphrag.verify.policy import (
    ClaimStatus,
    ReviewPolicy,
    ReviewViewer,
    claim_state,
    latest,
    visible_verdicts,
)
from graphrag.verify.record import RecordFilter, record_by_kind, record_stats
from graphrag.verify.review import record_verdict, review_queue
from graphrag.verify.status import keep_review_policy
from graphrag.verify.undo import undo_verdict
from helpers import ADMIN, write_document_rows

pytestmark = pytest.mark.unit
SENTENCE = "Snapshot exports remain available for 30 days."
QUOTE, WRITTEN = 0, 1  # claim indexes


def _seed(s: Store, answerable: float | None = 0.8) -> None:
    write_document_rows(s, "policy", SENTENCE, ("public",), ["export"], [])
    span = s.span("policy", 1, 0)
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    cite = (Citation("1", True, item),)
    claims = (Claim(QUOTE, SENTENCE, 0, 1, cite, flags=(ClaimFlag.VERBATIM_QUOTE,),
                    support=Support(1.0, SupportLabel.SUPPORTED, "embedded", "copy")),
              Claim(WRITTEN, "Exports are kept for a month.", 0, 1, cite,
                    support=Support(0.7, SupportLabel.SUPPORTED, "embedded", "t")))
    s.save_answer(Answer("How long are exports kept?", AskSettings(), "x", (), (), (item,), claims,
                         answerable=answerable))


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    _seed(s)
    yield s
    s.close()


def _mark(s: Store, claim: int, reviewer: str, verdict: str, kind: str | None = None) -> int:
    a = s.answer(1)
    assert a is not None
    v = record_verdict(s, a, a.claims[claim], a.claims[claim].citations[0], verdict, reviewer, kind=kind)
    assert v.id is not None
    return v.id


def test_a_quote_is_asked_whether_it_answers_and_a_claim_whether_its_source_backs_it(store: Store) -> None:
    _mark(store, QUOTE, "ana", "supported")
    _mark(store, WRITTEN, "ana", "unsupported")
    quote, written = store.verdicts(1, QUOTE)[0], store.verdicts(1, WRITTEN)[0]
    assert (quote.kind, quote.words) == (VerdictKind.ANSWERS, "answers")
    assert (written.kind, written.words) == (VerdictKind.BACKS, "not backed")
    items = {q.claim_index: q for q in review_queue(store, library_viewer(["public"]), reviewer="ana")}
    assert items[QUOTE].kind.question == "Does this answer the question?"
    assert items[WRITTEN].kind.question == "Does the source back it?"


def test_a_verdict_in_a_kinds_words_names_its_kind_and_a_contradiction_is_refused(store: Store) -> None:
    _mark(store, WRITTEN, "ana", "does_not")  # the quote's question, asked of a written claim on purpose
    (v,) = store.verdicts(1, WRITTEN)
    assert (v.kind, v.verdict) == (VerdictKind.ANSWERS, VerdictLabel.UNSUPPORTED)
    with pytest.raises(InputError, match="Does the source back it"):
        _mark(store, QUOTE, "ana", "backed", kind="answers")
    with pytest.raises(InputError, match="kind is one of backs, answers"):
        _mark(store, QUOTE, "ana", "supported", kind="agrees")


def test_the_policy_counts_agrees_and_disputes_each_kind_apart(store: Store) -> None:
    keep_review_policy(store, ReviewPolicy(2), by=ADMIN)
    policy = ReviewPolicy(2)
    # the quote: two reviewers say it answers; two others disagree whether its source backs it (another question)
    _mark(store, QUOTE, "ana", "answers")
    _mark(store, QUOTE, "ben", "answers")
    _mark(store, QUOTE, "cy", "backed", kind="backs")
    _mark(store, QUOTE, "dee", "not_backed", kind="backs")
    current = latest(store.verdicts(1, QUOTE))
    assert len(current) == 4  # one current verdict per reviewer and kind
    assert claim_state(current, policy, VerdictKind.ANSWERS).status == ClaimStatus.VERIFIED
    assert claim_state(current, policy, VerdictKind.BACKS).status == ClaimStatus.DISPUTED
    (item,) = [q for q in review_queue(store, library_viewer(["public"]), reviewer="ana") if q.claim_index == QUOTE]
    assert item.state.status == ClaimStatus.VERIFIED and {v.kind for v in item.verdicts} == {VerdictKind.ANSWERS}
    # a changed mind on one kind leaves the other kind's verdict of the same reviewer current
    _mark(store, QUOTE, "ana", "not_backed", kind="backs")
    assert {(v.reviewer, v.kind) for v in latest(store.verdicts(1, QUOTE)) if v.reviewer == "ana"} == {
        ("ana", VerdictKind.ANSWERS), ("ana", VerdictKind.BACKS)}


def test_blind_review_hides_each_kind_until_one_has_judged_that_kind(store: Store) -> None:
    keep_review_policy(store, ReviewPolicy(2), by=ADMIN)
    _mark(store, WRITTEN, "ana", "backed")  # the claim's asked kind, still blind (one of two verdicts)
    _mark(store, WRITTEN, "ben", "answers", kind="answers")  # ben judged the other question only
    shown = visible_verdicts(store.verdicts(1, WRITTEN), ReviewPolicy(2), ReviewViewer("ben"))
    assert [(v.reviewer, v.kind) for v in shown] == [("ben", VerdictKind.ANSWERS)]  # not ana's "backed"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_the_export_names_the_question_and_says_the_verdict_in_its_words(store: Store, fmt: str) -> None:
    _mark(store, QUOTE, "ana", "partial")
    _mark(store, WRITTEN, "ana", "backed")
    undone = _mark(store, WRITTEN, "ben", "not_backed")
    answer = store.answer(1)
    assert answer is not None
    undo_verdict(store, answer, undone, "ben")
    out = export_record(store, fmt, by=ADMIN).text
    rows = list(csv.DictReader(io.StringIO(out))) if fmt == "csv" else json.loads(out)
    said = [(r["reviewer"], r["kind"], r["question_asked"], r["judgement"]) for r in rows]
    assert said == [("ana", "answers", "Does this answer the question?", "partly answers"),
                    ("ana", "backs", "Does the source back it?", "backed"),
                    ("ben", "backs", "Does the source back it?", "retracted"),  # the undone verdict, named so
                    ("ben", "backs", "Does the source back it?", "")]  # its retraction judges nothing


def test_the_record_counts_and_checks_each_kind_apart(store: Store) -> None:
    _mark(store, QUOTE, "ana", "does_not")
    _mark(store, WRITTEN, "ana", "backed")
    kinds = record_by_kind(store, library_viewer(["public"]))
    answers, backs = kinds[VerdictKind.ANSWERS], kinds[VerdictKind.BACKS]
    assert (answers.claims, answers.reviewed_claims, answers.reviewed.unsupported.k) == (1, 1, 1)  # does not answer
    assert (backs.claims, backs.reviewed_claims, backs.reviewed.supported.k) == (1, 1, 1)  # the written claim: backed
    assert (answers.verified, backs.verified) == (0, 1)  # verified: what reviewers found supported, only
    # the automatic check each kind is set against: the reader's probability for quotes, the checker's score else
    assert answers.checker_n == 1 and backs.checker_n == 1
    assert answers.to_json()["question"] == "Does this answer the question?"
    # a verdict of the other kind is counted under its own kind, never the claim's
    _mark(store, QUOTE, "ben", "backed", kind="backs")
    backs = record_stats(store, library_viewer(["public"]), RecordFilter(kind=VerdictKind.BACKS))
    assert backs.claims == 2 and backs.reviewed.supported.k == 2
    assert record_stats(store, library_viewer(["public"]), RecordFilter(kind=VerdictKind.ANSWERS)).verdicts == 1


def test_verdicts_from_before_kinds_keep_meaning_backs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrag.store import db, schema

    path = tmp_path / "old.db"
    monkeypatch.delitem(schema.MIGRATIONS, 10)
    monkeypatch.setattr(db, "SCHEMA_VERSION", 9)
    with Store(path) as s:
        _seed(s)
        s._write(lambda c: c.exec_driver_sql("ALTER TABLE verdicts DROP COLUMN kind"))  # a schema-9 table
        s._write(lambda c: c.execute(text(
            "INSERT INTO verdicts (answer_id, claim_idx, span_sha256, verdict, reviewer, note, created_at) "
            "VALUES (1, 0, 'x', 'supported', 'ana', '', '2026-01-01T00:00:00+00:00')")))
    monkeypatch.undo()
    with Store(path) as s:  # opened by this release: migrated to schema 10
        (v,) = s.verdicts(1, QUOTE)
        assert v.kind == VerdictKind.BACKS and v.words == "backed"
        # the quote is now asked whether it answers: the old verdict does not settle that question
        (item,) = [q for q in review_queue(s, library_viewer(["public"]), reviewer="ana") if q.claim_index == QUOTE]
        assert item.state.status == ClaimStatus.UNREVIEWED and not item.mine


def test_the_review_page_asks_each_claim_its_own_question_in_its_own_words(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from app_helpers import app, ok, page

    at = page(ok(app(monkeypatch, store.path)), "review")  # the configured reviewer is "ada"
    asked: dict[int, tuple[str, list[str]]] = {}
    for _ in range(2):
        claim = at.session_state["review_current"][1]
        question = next(str(m.value) for m in at.markdown if str(m.value).startswith("**Does "))
        labels = [b.label for b in at.button if b.key in ("rv_supported", "rv_partial", "rv_unsupported")]
        asked[claim] = (question, labels)
        at = ok(at.button(key="rv_partial").click())  # the key P: "partly", in either kind's words
    assert asked == {QUOTE: ("**Does this answer the question?**", ["Answers", "Partly answers", "Does not answer"]),
                     WRITTEN: ("**Does the source back it?**", ["Backed", "Partly backed", "Not backed"])}
    kinds = {v.claim_index: (v.kind, v.verdict) for v in store.verdicts()}
    assert kinds == {QUOTE: (VerdictKind.ANSWERS, VerdictLabel.PARTIAL),
                     WRITTEN: (VerdictKind.BACKS, VerdictLabel.PARTIAL)}


def test_the_command_line_and_the_facade_take_the_kind(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    from graphrag import review_claim
    from graphrag.cli import main

    assert main(["review", "mark", "--answer", "1", "--claim", str(QUOTE + 1), "--verdict", "partial", "--kind", "backs",
                 "--reviewer", "ana", "--store", str(store.path), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["kind"], said["judgement"]) == ("backs", "partly backed")
    assert main(["review", "mark", "--answer", "1", "--claim", str(QUOTE + 1), "--verdict", "does_not",
                 "--reviewer", "ana", "--store", str(store.path)]) == 0
    assert "does not answer (Does this answer the question?) by ana" in capsys.readouterr().out
    v = review_claim(store, 1, WRITTEN, "unsupported", "ben", kind="answers")
    assert (v.kind, v.words) == (VerdictKind.ANSWERS, "does not answer")
    assert [(x.reviewer, x.kind.value) for x in store.verdicts()] == [("ana", "backs"), ("ana", "answers"),
                                                                     ("ben", "answers")]


def test_record_stats_on_the_command_line_takes_one_kind(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    from graphrag.cli import main

    _mark(store, QUOTE, "ana", "does_not")
    _mark(store, WRITTEN, "ana", "backed")
    assert main(["record", "stats", "--kind", "answers", "--store", str(store.path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["kind"], data["progress"]["claims"], data["reviewed"]["unsupported"]["n"]) == ("answers", 1, 1)
