"""A verified answer reused (issue 62, item 2) and an answer's standing on every surface (item 1), on SQLite and
PostgreSQL: a question asked again gets its verified answer first, saying so; asked afresh, or once a cited sentence
changed, a fresh answer (naming the outdated one); never across labels. No model: answers are written as rows and
the asker that would compose a fresh one is a stand-in that writes one."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from test_standing import SENTENCES, judge, save_answer, write_doc

from graphrag.access import library_viewer
from graphrag.answer.actions import answer_question
from graphrag.answer.ask import Asker, AskOutcome
from graphrag.cli import main
from graphrag.config import Config
from graphrag.model import AnswerStatus, AskSettings
from graphrag.store import Store
from graphrag.verify.actions import export_pack, export_record
from graphrag.verify.policy import ReviewViewer
from graphrag.verify.standing import StandingKind, answer_standing
from helpers import ADMIN

CONFIG = Config()
QUESTION = "How long are refunds and exports?"


class FreshAsker(Asker):
    """Composes a "fresh" answer by writing one citing the same sentences (no model); counts its calls."""

    calls = 0

    def ask(self, question: str, settings: AskSettings = AskSettings()) -> AskOutcome:
        FreshAsker.calls += 1
        # in words of its own: the same words on the same sentence would carry the verified answer's verdicts
        return AskOutcome(save_answer(self.store, question, doc_id=settings.documents[0] if settings.documents
                                      else "policy", version=_current(self.store), words="afresh:"))


def _current(store: Store) -> int:
    doc = store.current_document("policy")
    assert doc is not None
    return doc.version


@pytest.fixture()
def verified(any_store: Store) -> Store:
    """A store holding one answer to QUESTION (asked under the public label), verified by ana and ben."""
    FreshAsker.calls = 0
    write_doc(any_store)
    a = save_answer(any_store, QUESTION)
    judge(any_store, a, 0, "supported", "ana")
    judge(any_store, a, 1, "supported", "ben")
    return any_store


PUBLIC = library_viewer(["public"])


def test_a_verified_answer_is_reused_saying_so_and_asked_afresh_on_request(verified: Store) -> None:
    out = answer_question(verified, PUBLIC, CONFIG, "  how long are REFUNDS and exports ", asker=FreshAsker(verified))
    assert FreshAsker.calls == 0 and out.answer.id == 1  # nothing composed, nothing stored
    assert out.answer.status == AnswerStatus.VERIFIED and len(out.answer.claims) == 2
    assert out.earlier is not None and not out.earlier.outdated
    assert out.earlier.words.startswith("Answered before and verified: answer #1, verified by ana and ben on ")
    assert out.earlier.words.endswith("sources unchanged.")
    assert verified.answer_ids() and len(verified.answer_ids()) == 1
    fresh = answer_question(verified, PUBLIC, CONFIG, QUESTION, asker=FreshAsker(verified), fresh=True)
    assert FreshAsker.calls == 1 and fresh.answer.id == 2 and fresh.earlier is None
    # the fresh answer is not verified, but the verified one is still the one reused
    again = answer_question(verified, PUBLIC, CONFIG, QUESTION, asker=FreshAsker(verified))
    assert again.answer.id == 1 and FreshAsker.calls == 1


def test_another_question_scope_or_label_set_is_answered_afresh(verified: Store) -> None:
    for question, settings, viewer in (("How long are refunds kept?", AskSettings(), PUBLIC),
                                       (QUESTION, AskSettings(documents=("policy",)), PUBLIC),
                                       (QUESTION, AskSettings(mode="themes"), PUBLIC),
                                       (QUESTION, AskSettings(), library_viewer(["public", "internal"]))):
        out = answer_question(verified, viewer, CONFIG, question, settings, asker=FreshAsker(verified))
        assert out.earlier is None and out.answer.id != 1, (question, settings, viewer.labels)


def test_a_changed_sentence_gives_a_fresh_answer_and_names_the_verified_one_outdated(verified: Store) -> None:
    write_doc(verified, ("Refunds are paid within 14 days.", "Exports are kept for 60 days.", SENTENCES[2]))
    out = answer_question(verified, PUBLIC, CONFIG, QUESTION, asker=FreshAsker(verified))
    assert FreshAsker.calls == 1 and out.answer.id == 2
    assert out.earlier is not None and out.earlier.outdated and out.earlier.answer.id == 1
    assert "“Exports are kept for 30 days.” now reads “Exports are kept for 60 days.”" in out.earlier.words
    assert "This is a fresh answer." in out.earlier.words


def test_a_reuse_never_crosses_labels(any_store: Store) -> None:
    # an answer verified on an internal document, asked under both labels: a public reader never gets it
    write_doc(any_store, doc_id="ops", access=("internal",))
    internal = library_viewer(["internal", "public"])
    a = save_answer(any_store, QUESTION, doc_id="ops", access=("internal", "public"))
    judge(any_store, a, 0, "supported", "ana")
    judge(any_store, a, 1, "supported", "ana")
    write_doc(any_store)  # a public document, for the public reader's fresh answer
    out = answer_question(any_store, PUBLIC, CONFIG, QUESTION, asker=FreshAsker(any_store))
    assert out.earlier is None and out.answer.id != a.id
    # even an answer recorded under the public label alone (a forged row) is not reused when it shows an internal
    # document: the one rule for showing an answer is applied to it as to any
    forged = save_answer(any_store, QUESTION, doc_id="ops", access=("public",), words="forged:")
    judge(any_store, forged, 0, "supported", "ana")
    judge(any_store, forged, 1, "supported", "ana")
    again = answer_question(any_store, PUBLIC, CONFIG, QUESTION, asker=FreshAsker(any_store))
    assert again.earlier is None and again.answer.id not in (a.id, forged.id)
    # the holder of both labels gets the verified internal answer
    assert answer_question(any_store, internal, CONFIG, QUESTION, asker=FreshAsker(any_store)).answer.id == a.id


def test_the_standing_is_the_same_on_every_surface(verified: Store, store_url: str, capsys,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    a = verified.answer(1)
    assert a is not None
    words = answer_standing(verified, a).words
    assert answer_standing(verified, a).kind is StandingKind.VERIFIED
    monkeypatch.setattr(Asker, "ask", FreshAsker.ask)

    def cli(*args: str) -> str:
        capsys.readouterr()
        assert main([*args, "--store", store_url]) == 0
        return capsys.readouterr().out

    printed = cli("ask", QUESTION)
    assert printed.startswith("Answered before and verified: answer #1, verified by ana and ben")
    assert "--fresh" in printed and f"  standing: {words}\n" in printed
    as_json = json.loads(cli("ask", QUESTION, "--json"))
    assert as_json["answer_id"] == 1 and as_json["standing"]["words"] == words and as_json["standing"]["kind"] == "verified"
    assert as_json["earlier"]["reused"] is True
    fresh = json.loads(cli("ask", QUESTION, "--json", "--fresh"))
    assert fresh["answer_id"] == 2 and fresh["earlier"] is None and fresh["standing"]["kind"] == "not yet reviewed"
    rows = list(csv.DictReader(io.StringIO(export_record(verified, ADMIN, CONFIG, "csv").text)))
    assert {r["answer_standing"] for r in rows if r["answer_id"] == "1"} == {words}
    pack = export_pack(verified, ADMIN, CONFIG)
    with zipfile.ZipFile(io.BytesIO(pack.data)) as z:
        answers = {x["answer_id"]: x for x in json.loads(z.read("answers.json"))}
        report = z.read("report.html").decode()
    assert answers[1]["standing"]["words"] == words and answers[2]["standing"]["words"] == "not yet reviewed"
    assert words.replace("&", "&amp;") in report
    # a viewer who oversees sees the same: the verified claims' verdicts show to all
    assert answer_standing(verified, a, ReviewViewer(oversees=True)).words == words


def test_the_library_facade_reuses_and_asks_afresh(verified: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import graphrag

    monkeypatch.setattr(Asker, "ask", FreshAsker.ask)
    out = graphrag.ask_question(verified, QUESTION)
    assert out.answer.id == 1 and out.earlier is not None and not out.earlier.outdated and FreshAsker.calls == 0
    assert graphrag.ask_question(verified, QUESTION, fresh=True).answer.id == 2 and FreshAsker.calls == 1
    # another label set is another ask: nothing verified under it
    assert graphrag.ask_question(verified, QUESTION, access=["public", "internal"]).earlier is None
