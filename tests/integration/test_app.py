"""The dashboard pages driven through streamlit.testing.v1.AppTest, with the real models.

Each test gets its own store (GRAPHRAG_STORE in tmp_path); most copy one small store built
once per module. Ollama is always pointed at a closed local port.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app_helpers import TINY, app, copy_store, ok, page, sample_versions, texts, write_corpus
from graphrag.answer.ask import Asker
from graphrag.model import AskSettings
from graphrag.store import Store
from graphrag.verify.review import export_rows, record_verdict

pytestmark = [pytest.mark.model, pytest.mark.slow]

QUESTION = "How long do snapshot exports remain available after an account is cancelled?"


@pytest.fixture
def store_path(tiny_store: Path, tmp_path: Path) -> Path:
    return copy_store(tiny_store, tmp_path / "store.db")


def report_rows(at) -> dict[str, dict]:
    df = at.dataframe[0].value
    return {row["document"]: row for row in df.to_dict("records")}


# --- first start and ingest ---------------------------------------------------------------


def test_first_start_ingests_the_sample_corpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    at = ok(app(monkeypatch, path, sample=True))
    labels = [s.label for s in at.status]
    assert any("First start: ingested the sample corpus" in lab for lab in labels), labels
    with Store(path) as s:
        assert s.counts()["documents"] >= 9
    assert "versions)" in " ".join(texts(at.sidebar.caption))  # the sidebar shows the counts
    at = page(at, "ingest")
    rows = report_rows(at)
    assert rows["exports"]["supersedes"] == "v1" or any(r["supersedes"] == "v1" for r in rows.values())
    assert any("version 2 supersedes version 1" in t for t in texts(at.info))
    at = ok(at)  # a rerun does not ingest again
    with Store(path) as s:
        assert s.counts()["versions"] == sample_versions() == 15  # 12 text versions, a PDF, an HTML page and a DOCX


def test_upload_reports_each_bad_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "ingest")
    assert any("store is empty" in t for t in texts(at.info))
    at.file_uploader(key="ingest_uploads").set_value([
        ("good.md", b"# Good\n\nExports use the latest snapshot. Snapshots are kept for 35 days.\n", "text/markdown"),
        ("empty.txt", b"   \n", "text/plain"),
        ("binary.txt", b"\x00\x01\x02PK\x03\x04 not text", "text/plain"),
        ("latin.txt", "Café exports are kept for 30 days. Déjà vu.".encode("cp1252"), "text/plain"),
        ("garbage.txt", bytes(range(128, 256)) * 4, "text/plain"),
    ])
    at = ok(at)
    at = ok(at.button(key="ingest_go").click())
    rows = report_rows(at)
    assert rows["good"]["status"] == "ok"
    assert rows["empty"]["status"] == "rejected" and "empty file" in rows["empty"]["message"]
    assert rows["binary"]["status"] == "rejected" and "binary" in rows["binary"]["message"]
    assert rows["garbage"]["status"] == "rejected" and "UTF-8" in rows["garbage"]["message"]
    assert rows["latin"]["status"] == "ok" and "not UTF-8" in rows["latin"]["message"]
    errors = " ".join(texts(at.error))
    assert "empty file" in errors and "binary" in errors


def test_folder_ingest_then_new_version_supersedes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "ingest")
    at.segmented_control(key="ingest_source").set_value("Folder on this machine")
    at = ok(at)
    at = ok(at.text_input(key="ingest_folder").set_value(str(corpus)))
    at = ok(at.button(key="ingest_go").click())
    assert {r["status"] for r in report_rows(at).values()} == {"ok"}
    assert "Ingested 3 documents." in texts(at.success)
    # The counts are current, and cover what the sidebar's labels show (public: not the internal ops notes).
    assert any(c.startswith("2 documents (2 versions)") for c in texts(at.sidebar.caption))
    (corpus / "exports.md").write_text(TINY["exports.md"].replace("30 days", "45 days"), encoding="utf-8")
    at = ok(at.button(key="ingest_go").click())
    rows = report_rows(at)
    assert rows["exports"]["status"] == "ok" and rows["exports"]["supersedes"] == "v1"
    assert rows["faq"]["status"] == "unchanged"
    assert any("exports: version 2 supersedes version 1" in t for t in texts(at.info))


def test_ollama_extractor_down_is_model_unavailable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "ingest")
    at.selectbox(key="_w_extractor").set_value("ollama")
    at.segmented_control(key="ingest_source").set_value("Folder on this machine")
    at = ok(at)
    assert any("not reachable" in t for t in texts(at.warning))  # said before anything is sent
    at = ok(at.text_input(key="ingest_folder").set_value(str(corpus)))
    at = ok(at.button(key="ingest_go").click())
    assert {r["status"] for r in report_rows(at).values()} == {"model_unavailable"}
    errors = texts(at.error)
    assert len(errors) == 3 and all("model unavailable" in e and "not reachable" in e for e in errors), errors
    assert not texts(at.info)  # not confused with "nothing found"
    with Store(tmp_path / "s.db") as s:
        assert s.counts()["versions"] == 0


# --- ask and review ---------------------------------------------------------------------


def ask(at, question: str = QUESTION):
    at.text_area(key="_w_question").set_value(question)
    return ok(at.button(key="FormSubmitter:ask_form-Ask").click())


def test_off_topic_question_shows_no_answer(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)), "Who won the football world cup in 1998?")
    assert any("Nothing you can see is about this question" in w for w in texts(at.warning))
    # said as an abstention: the closest passages are shown as passages, no claim, nothing to review
    assert any(c.startswith("The closest passages, for you to read") for c in texts(at.caption))
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
    assert answer is not None and not answer.answered and answer.claims == ()
    assert not [b for b in at.button if b.key == "to_review"]  # nothing to review


def test_ask_review_verdict_export(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)))
    assert any(h.value.startswith("Answer #") for h in at.subheader)
    assert any("1 answer" in c for c in texts(at.sidebar.caption))  # the counts include the answer just given
    store = Store(store_path)
    answer = store.answer(store.answer_ids()[0]["id"])
    assert answer is not None and answer.claims
    # The cited sentence shows under its claim, no click needed.
    first = answer.claims[0].citations[0].item
    assert first is not None
    assert any(first.span.text.split()[-1].rstrip(".") in h.proto.body and "<mark>" in h.proto.body for h in at.get("html"))
    with_ctx = [e for e in at.expander if e.label == "Context items and seeds"]
    assert with_ctx and with_ctx[0].dataframe

    # "Review this answer" opens the review page with that answer selected.
    at = ok(at.button(key="to_review").click())
    assert at.selectbox(key="review_answer_filter").value == answer.id
    assert at.session_state["review_current"] == (answer.id, answer.claims[0].index)
    frames = at.get("iframe")
    assert frames and "vis.Network" in frames[0].proto.srcdoc  # the route drawing
    # 7 days (FAQ) vs 30 days: one box, with both sides (the page once showed it twice, worded two ways)
    boxes = [h.proto.body for h in at.get("html") if 'class="gr-warn"' in h.proto.body]
    assert len(boxes) == 1 and "7 days" in boxes[0] and "30 days" in boxes[0], boxes

    at.text_input(key="_w_review_note").set_value("the FAQ is stale")
    at = ok(at.button(key="rv_unsupported").click())
    verdicts = store.verdicts(answer.id)
    assert [(v.verdict.value, v.reviewer, v.note) for v in verdicts] == [("unsupported", "ada", "the FAQ is stale")]
    assert at.text_input(key="_w_review_note").value == ""  # ready for the next claim

    # Changing one's mind appends a row; the history shows both.
    at.session_state["review_current"] = (answer.id, answer.claims[0].index)
    at = ok(at)
    at = ok(at.button(key="rv_partial").click())
    assert len(store.verdicts(answer.id, answer.claims[0].index)) == 2
    at.session_state["review_current"] = (answer.id, answer.claims[0].index)
    at = ok(at)
    history = next(e for e in at.expander if e.label.startswith("Verdict history"))
    assert len(history.dataframe[0].value) == 2

    rows = export_rows(store, ["public"])
    assert [r["verdict"] for r in rows] == ["unsupported", "partially_supported"]
    assert [b.label for b in at.get("download_button")] == ["CSV", "JSON"]


def test_the_ask_page_says_verified_once_every_claim_is(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    # The store keeps the status an answer was saved with; the page derives "verified" from the verdicts under
    # the review policy (graphrag.verify.status), so the badge changes once every claim has its verdict.
    at = ask(ok(app(monkeypatch, store_path)))
    badges = [str(m.value) for m in at.markdown if "-badge[" in str(m.value)]
    assert badges and not any("verified" in b for b in badges)
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
        assert answer is not None and answer.claims
        for claim in answer.claims:
            record_verdict(s, answer, claim, next((c for c in claim.citations if c.valid), None), "supported", "ada")
    at = ok(at)
    # the answer's standing, in the words every surface uses (graphrag.verify.standing)
    assert any("-badge[" in str(m.value) and "; verified by ada on " in str(m.value) for m in at.markdown)


def test_review_moves_to_the_next_unreviewed_claim(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    store = Store(store_path)
    asker = Asker(store)
    for q in (QUESTION, "What does cancellation trigger?"):
        asker.ask(q, AskSettings())
    at = page(ok(app(monkeypatch, store_path)), "review")
    total = sum(len(store.answer(r["id"]).claims) for r in store.answer_ids())
    seen = set()
    for _ in range(total):
        current = at.session_state["review_current"]
        assert current not in seen, "the queue came back to a judged claim while others were unjudged"
        seen.add(current)
        at = ok(at.button(key="rv_supported").click())
    assert len({(v.answer_id, v.claim_index) for v in store.verdicts()}) == total


def test_stale_verdict_is_marked(monkeypatch: pytest.MonkeyPatch, store_path: Path, tmp_path: Path) -> None:
    store = Store(store_path)
    answer = Asker(store).ask("What does cancellation trigger?", AskSettings()).answer
    claim = answer.claims[0]
    cited = next(c for c in claim.citations if c.valid)
    record_verdict(store, answer, claim, cited, "supported", "ada")
    # A new version of the cited document that changes the cited sentence makes that verdict stale ...
    from graphrag.ingest.extract import make_extractor
    from graphrag.ingest.pipeline import Ingestor

    doc = cited.item.span.document_id
    said = cited.item.span.text
    name = {"exports": "exports.md", "faq": "faq.md", "ops": "ops.md"}[doc]
    assert said in TINY[name]

    def new_version(text: str) -> None:
        corpus = write_corpus(tmp_path / f"v{len(store.documents())}")
        (corpus / name).write_text(text, encoding="utf-8")
        Ingestor(store, make_extractor("rules")).ingest_paths([corpus])

    def history_of_claim() -> tuple[object, list[str], list[str]]:
        at = page(ok(app(monkeypatch, store_path)), "review")
        at.session_state["review_current"] = (answer.id, claim.index)
        at = ok(at)
        history = next(e for e in at.expander if e.label.startswith("Verdict history"))
        frame = history.dataframe[0].value
        return at, frame["stale"].tolist(), frame["from"].tolist()

    # ... but one that keeps it byte for byte does not (docs/record.md: the verdict judged that sentence)
    new_version(TINY[name] + "\nA new closing sentence.\n")
    _, stale, came_from = history_of_claim()
    assert stale == [""] and came_from[0].startswith("kept in v")
    new_version(TINY[name].replace(said, said.rstrip(".") + " in every region."))
    at, stale, _ = history_of_claim()
    assert stale == ["stale: document superseded"]
    assert any("stale" in str(m.value) for m in at.markdown)  # the claim's badge
    assert any("superseded" in t for t in texts(at.warning))


def test_ollama_generator_down_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ok(app(monkeypatch, store_path))
    at.selectbox(key="_w_generator").set_value("ollama")
    at = ask(at)
    errors = texts(at.error)
    assert errors and "not reachable" in errors[0] and "ollama serve" in errors[0], errors
    assert Store(store_path).counts()["answers"] == 0


def test_empty_store_on_every_page(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = ok(app(monkeypatch, tmp_path / "empty.db"))
    assert any("store is empty" in t for t in texts(at.info))
    at = ask(at)
    assert any("store is empty" in t for t in texts(at.warning))
    at = page(at, "review")
    assert any("Nothing to review yet" in t for t in texts(at.info))
    at = page(at, "graph")
    assert any("No entities visible" in t for t in texts(at.info))


def test_access_labels_hide_internal_documents(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = page(ok(app(monkeypatch, store_path)), "graph")
    at.text_input(key="graph_query").set_value("zephyr")
    at = ok(at)
    assert any("No visible entity matches" in t for t in texts(at.warning))
    at.multiselect(key="_w_access").set_value(["internal", "public"])
    at = ok(at)
    assert "zephyr" in at.selectbox(key="graph_entity").value
    assert len(at.dataframe[0].value) >= 1 and set(at.dataframe[0].value["document"]) == {"ops"}
    assert "vis.Network" in at.get("iframe")[0].proto.srcdoc
    # An answer drawn from the internal document is not listed for a public-only reviewer.
    at = page(at, "ask")
    at = ask(at, "Which cluster replicates snapshots?")
    store = Store(store_path)
    aid = store.answer_ids()[0]["id"]
    assert any(c.span.document_id == "ops" for c in store.answer(aid).context)
    at.multiselect(key="_w_access").set_value(["public"])
    at = page(at, "review")
    assert not any("Which cluster" in o for o in at.selectbox(key="review_answer_filter").options)
