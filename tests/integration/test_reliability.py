"""Faults and bad input: a killed ingest, a read-only or full store, hostile bytes and manifests,
absurd sizes. The store must stay sound, say clearly what went wrong, and write nothing partial."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doubles.generate import ScriptedGenerator
from graphrag.answer.ask import Asker
from graphrag.errors import InputError, StoreError
from graphrag.ingest.documents import Rejected, Source, collect, decode, read_file
from graphrag.ingest.pipeline import Ingestor
from graphrag.language.sentences import MAX_SENTENCE_CHARS, Sentence
from graphrag.model import AskSettings, ExtractedEntity, ExtractionResult, ExtractionStatus
from graphrag.store import Store
from graphrag.verify.review import record_verdict
from proc_helpers import (
    HERE,
    ROOT,
    HashEmbedder,
    PatternExtractor,
    doc_text,
    document_count,
    store_problems,
    store_snapshot,
    write_synthetic_corpus,
)

HELPER = str(HERE / "proc_helpers.py")
PY = sys.executable
N_DOCS = 30


# --- SIGKILL during ingest ----------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    # document 5 (in ingest order: "policy" v1, v2, then runbook-00...) is big, so with a tiny page
    # cache its transaction spills uncommitted pages into the WAL before COMMIT
    return write_synthetic_corpus(tmp_path_factory.mktemp("kill") / "corpus", N_DOCS, big_doc=2, big_sentences=400)


def _run_helper(*args: str) -> dict:
    out = subprocess.run([PY, HELPER, *args], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def uninterrupted(corpus, tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("fresh") / "fresh.db"
    done = _run_helper("ingest", "--store", str(path), "--corpus", str(corpus))
    assert done["totals"]["ok"] == N_DOCS
    assert store_problems(path) == []
    return store_snapshot(path)


def _start_ingest(store: Path, corpus: Path, *extra: str) -> subprocess.Popen:
    p = subprocess.Popen([PY, HELPER, "ingest", "--store", str(store), "--corpus", str(corpus), *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert json.loads(p.stdout.readline())["event"] == "ready"
    return p


def _kill(p: subprocess.Popen) -> None:
    assert p.poll() is None, "the ingest finished before it could be killed"
    p.send_signal(signal.SIGKILL)
    assert p.wait(timeout=30) == -signal.SIGKILL
    p.stdout.close()
    p.stderr.close()


def _assert_recovers(store: Path, corpus: Path, uninterrupted: dict) -> None:
    """The killed store is sound; a re-run finishes it exactly like an uninterrupted run."""
    assert store_problems(store) == []
    Store(store).close()  # opens cleanly (recovers the WAL) with the product's own code
    assert store_problems(store) == []
    _run_helper("ingest", "--store", str(store), "--corpus", str(corpus))
    assert store_problems(store) == []
    assert store_snapshot(store) == uninterrupted


@pytest.mark.parametrize("point,arg,n", [
    ("after-commit", "--pause-after-commit", 1),
    ("after-commit", "--pause-after-commit", 17),
    ("extract", "--pause-in-extract", 9),
    ("before-commit", "--pause-before-commit", 1),
    ("before-commit", "--pause-before-commit", 5),  # runbook-02, the big document: its pages are in the WAL
    ("before-commit", "--pause-before-commit", 2),  # "policy" v2: the UPDATE superseding v1 is undone
])
@pytest.mark.timeout(90)
def test_sigkill_at_a_known_point_leaves_a_sound_store_and_a_rerun_completes(
        point, arg, n, corpus, uninterrupted, tmp_path):
    store = tmp_path / "s.db"
    p = _start_ingest(store, corpus, arg, str(n), "--cache-pages", "8")
    paused = json.loads(p.stdout.readline())
    assert paused == {"event": "paused", "where": point, "n": n}, p.stderr.read()
    wal = Path(str(store) + "-wal")
    wal_bytes = wal.stat().st_size if wal.exists() else 0
    _kill(p)
    committed = {"after-commit": n, "extract": n - 1, "before-commit": n - 1}[point]
    assert document_count(store) == committed
    if point == "before-commit" and n == 5:
        assert wal_bytes > 400 * 384 * 4, "the big write should have spilled into the WAL before COMMIT"
    if point == "before-commit" and n == 2:
        with sqlite3.connect(store) as db:  # v1 of "policy" is not left marked superseded by a dead v2
            assert db.execute("SELECT superseded FROM documents WHERE doc_id='policy'").fetchall() == [(0,)]
    _assert_recovers(store, corpus, uninterrupted)


@pytest.mark.parametrize("after", [3, 12, 22])
@pytest.mark.timeout(90)
def test_sigkill_at_an_arbitrary_moment(after, corpus, uninterrupted, tmp_path):
    """Killed wherever it happens to be once ``after`` documents are in: reading, embedding, writing."""
    store = tmp_path / "s.db"
    p = _start_ingest(store, corpus, "--delay-ms", "15")
    deadline = time.monotonic() + 30
    while document_count(store) < after:  # polling the store, not sleeping to synchronise
        assert p.poll() is None and time.monotonic() < deadline
        time.sleep(0.002)
    _kill(p)
    assert after <= document_count(store) < N_DOCS
    _assert_recovers(store, corpus, uninterrupted)


@pytest.mark.parametrize("arg,n", [("--pause-before-commit", 2), ("--pause-after-commit", 17), ("--delay-ms", 12)])
@pytest.mark.timeout(90)
def test_sigkill_of_an_ingest_on_postgresql(arg, n, corpus, uninterrupted, pg_url):
    """The same kills against a PostgreSQL store: the server rolls back the dead client's open
    transaction (a superseding v2 of "policy" leaves v1 current), and a re-run completes it."""
    if arg == "--delay-ms":  # killed wherever it happens to be once n documents are in
        p = _start_ingest(pg_url, corpus, "--delay-ms", "15")
        deadline = time.monotonic() + 30
        while document_count(pg_url) < n:
            assert p.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
    else:
        p = _start_ingest(pg_url, corpus, arg, str(n))
        assert json.loads(p.stdout.readline())["event"] == "paused", p.stderr.read()
    _kill(p)
    committed = document_count(pg_url)
    assert {"--pause-before-commit": committed == n - 1, "--pause-after-commit": committed == n,
            "--delay-ms": n <= committed < N_DOCS}[arg]
    if arg == "--pause-before-commit":
        with Store(pg_url) as s:
            assert [(d.version, d.superseded) for d in s.documents() if d.id == "policy"] == [(1, False)]
    _assert_recovers(pg_url, corpus, uninterrupted)


@pytest.mark.model
@pytest.mark.timeout(120)
def test_sigkill_of_the_real_cli_ingest(tmp_path, embedder):
    """`python -m graphrag ingest` with the rules extractor and MiniLM, killed part-way."""
    from graphrag.ingest.extract.rules import RulesExtractor

    corpus = tmp_path / "c"
    corpus.mkdir()
    for i in range(24):
        (corpus / f"doc-{i:02d}.md").write_text(
            f"# Runbook {i}\n\nThe export service uses snapshot store {i}. Snapshot store {i} follows the "
            f"retention policy. The billing team owns invoice batch {i}.\n", encoding="utf-8")
    store = tmp_path / "killed.db"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    p = subprocess.Popen([PY, "-m", "graphrag", "ingest", str(corpus), "--store", str(store)], cwd=ROOT, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    while document_count(store) < 3:
        assert p.poll() is None and time.monotonic() < deadline
        time.sleep(0.005)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    killed_at = document_count(store)
    assert 3 <= killed_at < 24
    assert store_problems(store) == []
    with Store(store) as s:  # re-run in-process: same extractor, same model
        report = Ingestor(s, RulesExtractor(), embedder).ingest_paths([corpus])
    statuses = [d.status for d in report.documents]
    assert statuses.count("unchanged") == killed_at and statuses.count("ok") == 24 - killed_at
    fresh = tmp_path / "fresh.db"
    with Store(fresh) as s:
        Ingestor(s, RulesExtractor(), embedder).ingest_paths([corpus])
    assert store_problems(store) == []
    assert store_snapshot(store) == store_snapshot(fresh)


# --- read-only store and a full disk ------------------------------------------------------


def _small_store(path: Path) -> Store:
    s = Store(path)
    Ingestor(s, PatternExtractor(), HashEmbedder()).ingest([Source("one", "One", doc_text(1))])
    return s


def _an_answer(store: Store):
    from helpers import ScriptedChecker

    gen = ScriptedGenerator("Alpha1 uses something [1].")
    # min_relevance 0: the relevance floor is set for MiniLM's similarities, not the hash embedder's.
    return Asker(store, embedder=HashEmbedder(), generator=gen, checker=ScriptedChecker()).ask(
        "What does Alpha1 use?", AskSettings(min_relevance=0.0)).answer


def test_read_only_store_fails_clearly_and_writes_nothing(tmp_path):
    with _small_store(tmp_path / "s.db") as s:
        answer = _an_answer(s)
        before = s.counts()
    ro = Store(tmp_path / "s.db", readonly=True)
    report = Ingestor(ro, PatternExtractor(), HashEmbedder()).ingest([Source("two", "Two", doc_text(2))])
    assert report.documents[0].status == "failed"
    assert "read-only" in (report.documents[0].error or "") and "nothing was written" in report.documents[0].error
    with pytest.raises(StoreError, match="read-only"):
        record_verdict(ro, answer, answer.claims[0], answer.claims[0].citations[0], "supported", "ann")
    with pytest.raises(StoreError, match="read-only"):
        _an_answer(ro)
    assert ro.counts() == before  # reads still work
    ro.close()
    assert store_problems(tmp_path / "s.db") == []


class NearlyFullStore(Store):
    """A store whose file may not grow past its current size: SQLite raises SQLITE_FULL,
    exactly as when the disk is full."""

    def __init__(self, path: Path, headroom_pages: int = 0) -> None:
        from sqlalchemy import event

        super().__init__(path)
        with self.engine.connect() as c:
            limit = c.exec_driver_sql("PRAGMA page_count").scalar() + headroom_pages
        event.listen(self.engine, "connect", lambda dbapi, _: dbapi.execute(f"PRAGMA max_page_count={limit}"))
        self.engine.dispose()  # every pooled connection reopens with the limit


def test_full_disk_fails_clearly_and_writes_nothing(tmp_path):
    path = tmp_path / "s.db"
    with _small_store(path) as s:
        answer = _an_answer(s)
    before = store_snapshot(path)
    full = NearlyFullStore(path)
    counts = full.counts()
    big = Source("big", "Big", doc_text(3, sentences=300))
    report = Ingestor(full, PatternExtractor(), HashEmbedder()).ingest([big])
    d = report.documents[0]
    assert d.status == "failed" and "full" in (d.error or "") and "nothing was written" in (d.error or "")
    claim = answer.claims[0]
    with pytest.raises(StoreError, match=r"disk holding .* is full"):
        record_verdict(full, answer, claim, claim.citations[0], "supported", "ann", "n" * 5000)
    assert full.counts() == counts
    full.close()
    assert store_problems(path) == [] and store_snapshot(path) == before
    with Store(path) as s:  # space freed: the same document goes in whole
        assert Ingestor(s, PatternExtractor(), HashEmbedder()).ingest([big]).documents[0].status == "ok"
        assert len(s.sentences("big", 1)) == 301  # the heading and 300 sentences
    assert store_problems(path) == []


# --- bad input through the real pipeline ---------------------------------------------------


class FirstWordExtractor:
    """The first word of every sentence is an entity: exercises spans on arbitrary text."""

    name = "first-word"

    def extract(self, sentences: list[Sentence]) -> ExtractionResult:
        ents = []
        for s in sentences:
            word = next((w for w in s.text.split() if any(c.isalnum() for c in w)), None)
            if word:
                ents.append(ExtractedEntity(word[:80], "concept", s.text[:40], s.index))
        return ExtractionResult(ExtractionStatus.OK if ents else ExtractionStatus.NOTHING_FOUND, self.name,
                                tuple(ents))


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory):
    s = Store(tmp_path_factory.mktemp("fuzz") / "fuzz.db")
    yield s
    s.close()


def _check_ingested(store: Store, doc_id: str) -> None:
    doc = store.current_document(doc_id)
    assert doc is not None
    for sp in store.sentences(doc_id, doc.version):
        assert doc.text[sp.start:sp.end] == sp.text
    for key in store.entities_at(doc_id, doc.version, 0):
        for m in store.entity(key).mentions:
            d = store.document(m.span.document_id, m.span.version)
            assert d is not None and d.text[m.span.start:m.span.end] == m.span.text


_counter = iter(range(10**9))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(
    st.binary(max_size=3000),
    st.text(max_size=1500).map(lambda t: t.encode("utf-8")),
    st.text(max_size=500).map(lambda t: t.encode("utf-16")),
    st.text(alphabet=st.characters(max_codepoint=255), max_size=800).map(lambda t: t.encode("latin-1")),
))
def test_random_bytes_are_rejected_with_a_message_or_ingested_with_exact_spans(data, fuzz_store, tmp_path):
    text, note = decode(data)
    assert (text is None and note) or isinstance(text, str)
    f = tmp_path / f"f{next(_counter)}.txt"
    f.write_bytes(data)
    item = read_file(f, tmp_path, None, ("public",))
    if isinstance(item, Rejected):
        assert item.reason and isinstance(item.reason, str)
    else:
        assert "\r" not in item.text and item.text
    report = Ingestor(fuzz_store, FirstWordExtractor(), HashEmbedder()).ingest([item])
    d = report.documents[0]
    assert d.status in ("ok", "nothing_found", "rejected", "unchanged"), d
    if d.status == "rejected":
        assert d.error
    else:
        _check_ingested(fuzz_store, item.id)


@pytest.mark.unit
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1, max_size=2000))
def test_any_unicode_text_ingests_with_exact_spans(text, fuzz_store):
    doc_id = f"u{next(_counter)}"
    report = Ingestor(fuzz_store, FirstWordExtractor(), HashEmbedder()).ingest([Source(doc_id, "T", text)])
    assert report.documents[0].status in ("ok", "nothing_found")
    _check_ingested(fuzz_store, doc_id)


@pytest.mark.unit
def test_nul_bytes_after_the_sniffed_prefix_are_kept_exactly(store):
    text = "Alpha1 uses Beacon2. " * 500 + "\x00 Cobalt3 uses Delta4."
    Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([Source("nul", "NUL", text)])
    doc = store.current_document("nul")
    assert doc is not None and doc.text == text
    for sp in store.sentences("nul", 1):
        assert doc.text[sp.start:sp.end] == sp.text


ABSURD_MANIFEST = """
[defaults]
access = ["public"]

[[documents]]
file = "huge-title.md"
title = "{huge}"
access = ["internal"]

[[documents]]
file = "int-title.md"
title = 12345
access = ["internal"]

[[documents]]
file = "nested-title.md"
title = {{ a = {{ b = 1 }} }}

[[documents]]
file = "bad-date.md"
effective_date = "yesterday-ish"

[[documents]]
file = "neg-date.md"
effective_date = -20240101

[[documents]]
file = "bool-date.md"
effective_date = true

[[documents]]
file = "time-date.md"
effective_date = 07:32:00

[[documents]]
file = "empty-access.md"
access = []

[[documents]]
file = "blank-access.md"
access = ["  "]

[[documents]]
file = "int-access.md"
access = [1, 2]

[[documents]]
file = "table-access.md"
access = {{ internal = true }}

[[documents]]
file = "list-id.md"
id = ["a", "b"]

[[documents]]
file = "huge-id.md"
id = "{huge_id}"

[[documents]]
file = 42

[[documents]]
file = {{ nested = "x.md" }}

[[documents]]
file = "datetime.md"
effective_date = 2026-03-01T10:00:00Z
title = "Date-time"

[[documents]]
file = "good.md"
id = "good"
title = "Good"
effective_date = 2026-01-01
access = ["internal"]
"""

BAD_FILES = ["huge-title", "int-title", "nested-title", "bad-date", "neg-date", "bool-date", "time-date",
             "empty-access", "blank-access", "int-access", "table-access", "list-id", "huge-id"]


@pytest.mark.unit
def test_absurd_manifest_values_give_per_document_messages_and_the_rest_ingest(store, tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    for name in [*BAD_FILES, "datetime", "plain", "good"]:
        (root / f"{name}.md").write_text(f"{name.title()}1 uses Beacon2 in file {name}.\n", encoding="utf-8")
    (root / "manifest.toml").write_text(ABSURD_MANIFEST.format(huge="T" * 100_000, huge_id="i" * 10_000))
    report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest_paths([root])
    by_id = {d.id: d for d in report.documents}
    for name in BAD_FILES:
        doc_id = "huge-id" if name == "huge-id" else name
        d = by_id[doc_id]
        assert d.status == "rejected", (name, d)
        assert "invalid manifest entry" in (d.error or "")
        assert store.current_document(doc_id) is None
    assert len([p for p in report.problems if "not ingested until its entry is fixed" in p]) == len(BAD_FILES)
    assert sum("needs a `file` string" in p for p in report.problems) == 2
    assert all(len(p) < 2000 for p in report.problems), "a 100,000-character title is not echoed back whole"
    good = store.current_document("good")
    assert good is not None and good.access == ("internal",) and good.effective_date == "2026-01-01"
    # The two entries without a usable `file` could have meant "plain" (the only file without an
    # entry of its own): it is held back rather than given the [defaults] labels.
    assert by_id["plain"].status == "rejected" and "cannot be told" in (by_id["plain"].error or "")
    assert store.current_document("plain") is None
    dt = store.current_document("datetime")
    assert dt is not None and dt.effective_date == "2026-03-01" and dt.title == "Date-time"
    assert store_problems(store.path) == []


@pytest.mark.unit
def test_an_invalid_entry_never_widens_access(store, tmp_path):
    """Fail closed: before, an internal document whose entry had a bad title was ingested as public."""
    root = tmp_path / "c"
    root.mkdir()
    (root / "secret.md").write_text("Falcon1 guards Beacon2.\n")
    (root / "other.md").write_text("Alpha1 uses Beacon2.\n")
    (root / "manifest.toml").write_text('[[documents]]\nfile = "secret.md"\ntitle = 7\naccess = ["internal"]\n')
    found = collect([root])
    items, problems = found.items, found.problems
    assert not any(isinstance(x, Source) and x.id == "secret" for x in items)
    assert any("secret.md" in p for p in problems)
    (root / "manifest.toml").write_text('[defaults]\naccess = []\n')  # an invalid default is not "public"
    found = collect([root])
    items, problems = found.items, found.problems
    assert all(isinstance(x, Rejected) and "access" in x.reason for x in items)
    assert any("[defaults]" in p for p in problems)


def test_a_200000_character_sentence_and_a_10000_sentence_document(store):
    """Real sentence splitting, real store; the hash embedder stands in for MiniLM (figures in the
    report: MiniLM takes ~68 s for 10,000 sentences and ~20 s for the 168 chunks on this machine)."""
    long_sentence = ("word " * 40_000)[:200_000]
    many = " ".join(f"Alpha{i % 7} uses Beacon{i % 11} in step {i}." for i in range(10_000))
    x = PatternExtractor()
    t0 = time.perf_counter()
    report = Ingestor(store, x, HashEmbedder()).ingest([Source("long", "Long", long_sentence),
                                                        Source("many", "Many", many)])
    seconds = time.perf_counter() - t0
    long_doc, many_doc = report.documents
    assert long_doc.status == "nothing_found" and long_doc.sentences >= 200_000 // MAX_SENTENCE_CHARS
    assert many_doc.status == "ok" and many_doc.sentences == 10_000 and many_doc.relations == 10_000
    for doc_id in ("long", "many"):
        doc = store.current_document(doc_id)
        spans = store.sentences(doc_id, 1)
        assert all(doc.text[s.start:s.end] == s.text for s in spans)
        assert all(len(s.text) <= MAX_SENTENCE_CHARS for s in spans)
    assert "".join(s.text for s in store.sentences("long", 1)).replace(" ", "") == long_sentence.replace(" ", "")
    assert seconds < 30, f"ingest took {seconds:.1f} s"


@pytest.mark.model
def test_empty_question_is_an_input_error_and_a_100kb_question_is_answered(store, embedder):
    from helpers import ScriptedChecker

    Ingestor(store, PatternExtractor(), embedder).ingest([Source("one", "One", doc_text(1))])
    asker = Asker(store, embedder=embedder, checker=ScriptedChecker())
    for empty in ("", "   ", "\n\t "):
        with pytest.raises(InputError, match="empty"):
            asker.ask(empty)
    huge = ("What does Alpha1 use during step 0? " * 3000)[:100_000]
    out = asker.ask(huge, AskSettings(k=3, hops=1))
    assert out.answer.id is not None and out.answer.context
    assert len(out.answer.question) <= 2000
    for c in out.answer.context:
        assert store.document(c.span.document_id, c.span.version).text[c.span.start:c.span.end] == c.span.text


@pytest.mark.timeout(120)
def test_sigkill_of_an_ingest_on_a_pgvector_store_leaves_every_row_with_its_halfvec(corpus, uninterrupted,
                                                                                   pgvector_url):
    """On a store whose database searches the vectors, the halfvec is written in the document's transaction: a
    killed ingest leaves no row without it (nor one of an uncommitted document), and a re-run completes it."""
    import psycopg

    def embedded() -> tuple[int, int]:
        with psycopg.connect(pgvector_url.replace("postgresql+psycopg://", "postgresql://")) as c:
            row = c.execute("SELECT count(*), count(embedding) FROM sentences").fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    p = _start_ingest(pgvector_url, corpus, "--pause-before-commit", "5")  # the big document, 400 sentences
    assert json.loads(p.stdout.readline())["event"] == "paused", p.stderr.read()
    _kill(p)
    assert document_count(pgvector_url) == 4
    rows, with_halfvec = embedded()
    assert rows == with_halfvec and rows > 0
    with Store(pgvector_url) as s:
        assert s.vector_search().in_database
    _assert_recovers(pgvector_url, corpus, uninterrupted)
    rows, with_halfvec = embedded()
    assert rows == with_halfvec and rows > 400
