"""Helpers for the reliability/concurrency tests: a fast deterministic embedder and extractor,
a synthetic corpus, store invariant checks, and a small command line that the tests run in
subprocesses (so they can be killed with SIGKILL, or run side by side).

Subprocess protocol: a worker prints one JSON line per event on stdout ("ready", "paused",
"done"), flushing each, and waits for a line on stdin after "ready" when started with --wait-go.
The tests synchronise on those lines, never on sleeps.

    python tests/support/proc_helpers.py ingest  --store S --corpus DIR [--pause-after-commit N |
                                         --pause-before-commit N | --pause-in-extract N] [--delay-ms X]
    python tests/support/proc_helpers.py verdicts --store S --answer ID --reviewer R --n 250 [--wait-go]
    python tests/support/proc_helpers.py ask --store S --until-documents N [--min-asks M] [--wait-go]
    python tests/support/proc_helpers.py remove --store S --doc ID [--version N] [--pause-before SQL | COMMIT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sqlite3
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent  # tests/support: this script and the modules it imports
ROOT = HERE.parents[1]  # the repository
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from graphrag.language.sentences import Sentence, split_sentences  # noqa: E402
from graphrag.model import (  # noqa: E402
    ExtractedEntity,
    ExtractedRelation,
    ExtractionResult,
    ExtractionStatus,
)

DIM = 384


class HashEmbedder:
    """Bag-of-words feature hashing, L2-normalised: deterministic across processes, no model."""

    name = "hash-embedder"
    dim = DIM

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                h = zlib.crc32(w.encode("utf-8"))
                out[i, h % DIM] += 1.0 if (h >> 16) & 1 else -1.0
            n = np.linalg.norm(out[i])
            out[i] = out[i] / n if n else out[i]
            if not n:
                out[i, 0] = 1.0
        return out


_REL = re.compile(r"\b([A-Z][a-z]+\d*) (uses|follows|feeds|guards) ([A-Z][a-z]+\d*)\b")


class PatternExtractor:
    """``Name uses Other``-style sentences become two entities and a relation: scripted, fast."""

    name = "pattern"

    def __init__(self, delay_s: float = 0.0, pause_on_call: int | None = None) -> None:
        self.delay_s = delay_s
        self.pause_on_call = pause_on_call
        self.calls = 0

    def extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        self.calls += 1
        if self.pause_on_call == self.calls:
            pause("extract", self.calls)
        if self.delay_s:
            time.sleep(self.delay_s)  # makes the run long enough to be interrupted; not a sync point
        ents: list[ExtractedEntity] = []
        rels: list[ExtractedRelation] = []
        for s in sentences:
            for m in _REL.finditer(s.text):
                a, verb, b = m.groups()
                ents.append(ExtractedEntity(a, "concept", f"{a} in: {s.text[:60]}", s.index))
                ents.append(ExtractedEntity(b, "concept", f"{b} in: {s.text[:60]}", s.index))
                rels.append(ExtractedRelation(a, b, verb, s.text[:80], s.index))
        status = ExtractionStatus.OK if ents else ExtractionStatus.NOTHING_FOUND
        return ExtractionResult(status, self.name, tuple(ents), tuple(rels))


NAMES = ["Alpha", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Garnet", "Harbor", "Indigo", "Juniper"]
VERBS = ["uses", "follows", "feeds", "guards"]



class BatchPattern(PatternExtractor):
    """PatternExtractor that also takes a window of documents at once, counting its calls."""

    def __init__(self) -> None:
        super().__init__()
        self.windows: list[int] = []

    def extract_many(self, documents: Sequence[Sequence[Sentence]]) -> list[ExtractionResult]:
        self.windows.append(len(documents))
        return [PatternExtractor.extract(self, d) for d in documents]


def doc_text(i: int, sentences: int = 6) -> str:
    lines = [f"# Runbook {i}", ""]
    for j in range(sentences):
        a, b = NAMES[(i + j) % len(NAMES)], NAMES[(i * 3 + j + 1) % len(NAMES)]
        lines.append(f"{a}{i % 4} {VERBS[(i + j) % 4]} {b}{(i + j) % 5} during step {j} of runbook {i}.")
    return "\n".join(lines) + "\n"


def write_synthetic_corpus(root: Path, n_docs: int = 30, big_doc: int | None = None,
                           big_sentences: int = 300) -> Path:
    """``n_docs`` small runbooks; two files share id "policy" (two versions by date);
    ``big_doc`` (an index) gets ``big_sentences`` sentences so its write spills pages."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n_docs - 2):
        n = big_sentences if big_doc is not None and i == big_doc else 6
        (root / f"runbook-{i:02d}.md").write_text(doc_text(i, n), encoding="utf-8")
    (root / "policy-2024.md").write_text("Alpha0 uses Beacon1 for 7 days.\nBeacon1 follows Cobalt2.\n")
    (root / "policy-2026.md").write_text("Alpha0 uses Beacon1 for 30 days.\nBeacon1 guards Cobalt2.\n")
    (root / "manifest.toml").write_text("""
[[documents]]
file = "policy-2024.md"
id = "policy"
effective_date = "2024-01-01"

[[documents]]
file = "policy-2026.md"
id = "policy"
effective_date = "2026-01-01"
access = ["internal"]
""", encoding="utf-8")
    return root


# --- store checks -----------------------------------------------------------------------


class _Reader:
    """Read-only SQL on a SQLite file (sqlite3, read-only URI) or a PostgreSQL store (SQLAlchemy):
    the checks below run unchanged on both."""

    def __init__(self, where: object) -> None:
        from graphrag.store import parse_store

        self.url = parse_store(where)
        if self.url.kind == "sqlite":
            self.db = sqlite3.connect(f"file:{self.url.path}?mode=ro", uri=True, timeout=5)
        else:
            from sqlalchemy import create_engine
            from sqlalchemy.pool import NullPool

            self.engine = create_engine(self.url.url, poolclass=NullPool)
            self.db = self.engine.raw_connection()

    def all(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        if self.url.kind == "postgresql":
            sql = sql.replace("?", "%s")
        cur = self.db.cursor()
        cur.execute(sql, tuple(params))
        return [tuple(r) for r in cur.fetchall()]

    def close(self) -> None:
        self.db.close()
        if self.url.kind == "postgresql":
            self.engine.dispose()


def store_problems(path: object) -> list[str]:
    """Everything wrong with a store's integrity after a crash; empty when it is sound."""
    db = _Reader(path)
    try:
        problems: list[str] = []
        if db.url.kind == "sqlite":  # PostgreSQL checks its own pages and foreign keys on every write
            ic = [r[0] for r in db.all("PRAGMA integrity_check")]
            if ic != ["ok"]:
                problems.append(f"integrity_check: {ic}")
            fk = db.all("PRAGMA foreign_key_check")
            if fk:
                problems.append(f"foreign_key_check: {fk}")
        for doc_id, version, text in db.all("SELECT doc_id, version, text FROM documents"):
            want = [(s.start, s.end, s.text) for s in split_sentences(text)]
            got = db.all('SELECT start, "end", text FROM sentences WHERE doc_id=? AND version=? ORDER BY idx',
                         (doc_id, version))
            if got != want:
                problems.append(f"{doc_id} v{version}: {len(got)} sentences stored, {len(want)} expected")
            for s, e, t in got:
                if text[s:e] != t:
                    problems.append(f"{doc_id} v{version}: span [{s}:{e}] does not match its text")
        checks = {
            "sentence without document": "SELECT COUNT(*) FROM sentences s LEFT JOIN documents d "
                                         "USING (doc_id, version) WHERE d.doc_id IS NULL",
            "mention without sentence": "SELECT COUNT(*) FROM mentions m LEFT JOIN sentences s ON "
                                        "s.doc_id=m.doc_id AND s.version=m.version AND s.idx=m.sentence_idx "
                                        "WHERE s.doc_id IS NULL",
            "mention without entity": "SELECT COUNT(*) FROM mentions m LEFT JOIN entities e ON e.key=m.entity_key "
                                      "WHERE e.key IS NULL",
            "relation without sentence": "SELECT COUNT(*) FROM relations r LEFT JOIN sentences s ON "
                                         "s.doc_id=r.doc_id AND s.version=r.version AND s.idx=r.sentence_idx "
                                         "WHERE s.doc_id IS NULL",
            "relation endpoint missing": "SELECT COUNT(*) FROM relations r WHERE r.source_key NOT IN "
                                         "(SELECT key FROM entities) OR r.target_key NOT IN (SELECT key FROM entities)",
            "entity without mention": "SELECT COUNT(*) FROM entities e WHERE NOT EXISTS "
                                      "(SELECT 1 FROM mentions m WHERE m.entity_key=e.key)",
            "document without ingest log": "SELECT COUNT(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM "
                                           "ingest_log l WHERE l.doc_id=d.doc_id AND l.sha256=d.sha256 AND "
                                           "l.status=d.status)",
            "older version not superseded": "SELECT COUNT(*) FROM documents d WHERE d.superseded=0 AND EXISTS "
                                            "(SELECT 1 FROM documents n WHERE n.doc_id=d.doc_id AND "
                                            "n.version>d.version)",
            "generation behind the versions": "SELECT COUNT(*) FROM meta WHERE key='generation' AND "
                                              "CAST(value AS INTEGER) < (SELECT COUNT(*) FROM documents)",
        }
        for name, sql in checks.items():
            n = db.all(sql)[0][0]
            if n:
                problems.append(f"{name}: {n}")
        return problems
    finally:
        db.close()


def store_snapshot(path: object) -> dict[str, object]:
    """What an ingest produced, independent of row ids and timestamps."""
    db = _Reader(path)
    try:
        q = lambda sql: sorted(db.all(sql))  # noqa: E731
        return {
            "documents": q("SELECT doc_id, version, sha256, superseded, status, access, title FROM documents"),
            "sentences": q('SELECT doc_id, version, idx, start, "end", text FROM sentences'),
            "entities": q("SELECT key, name, type FROM entities"),
            "mentions": q("SELECT entity_key, doc_id, version, sentence_idx, description, implied FROM mentions"),
            "relations": q("SELECT source_key, target_key, type, doc_id, version, sentence_idx FROM relations"),
        }
    finally:
        db.close()


def wait_while_ingest_grows(path: object, target: int, stall_s: float = 180.0, first_s: float = 300.0) -> int:
    """Wait for the store to hold `target` versions, for as long as the ingest keeps adding some.

    A fixed deadline fails on a loaded machine while the job is healthy; this fails only when no
    version has been added for `stall_s` seconds (a stuck or dead job). Before the first version the
    job loads its models and extracts a first batch (15 s idle), so that wait gets `first_s`. It was 600 s
    while a dashboard's full garbage collection after each sidebar refresh starved the job's thread (the
    80 runbooks took 665 s beside three busy processes; 71 s since). Returns the final count."""
    import time

    last, since = document_count(path), time.monotonic()
    while last < target:
        time.sleep(0.5)
        now = document_count(path)
        if now != last:
            last, since = now, time.monotonic()
            continue
        allowed = stall_s if last else first_s
        if time.monotonic() - since > allowed:
            raise AssertionError(f"the ingest stalled at {last} of {target} versions for {allowed:.0f} s")
    return last


def document_count(path: object) -> int:
    """Committed document versions, read without taking any lock the writer needs."""
    try:
        db = _Reader(path)
        try:
            return int(db.all("SELECT COUNT(*) FROM documents")[0][0])
        finally:
            db.close()
    except Exception as exc:  # not created yet
        if "no such table" in str(exc) or "does not exist" in str(exc) or isinstance(exc, sqlite3.OperationalError):
            return 0
        raise


# --- subprocess commands -----------------------------------------------------------------


def emit(event: str, **data: object) -> None:
    print(json.dumps({"event": event, **data}), flush=True)


def pause(where: str, n: int) -> None:
    """Tell the test where we are, then wait to be killed."""
    emit("paused", where=where, n=n)
    while True:
        time.sleep(3600)


def wait_go(enabled: bool) -> None:
    emit("ready")
    if enabled:
        sys.stdin.readline()


def cmd_ingest(a: argparse.Namespace) -> int:
    from sqlalchemy import event

    from graphrag.ingest.pipeline import Ingestor
    from graphrag.store import Store

    store = Store(a.store)
    if a.cache_pages:
        # a small page cache makes a big transaction spill its pages into the WAL before COMMIT
        event.listen(store.engine, "connect", lambda dbapi, _: dbapi.execute(f"PRAGMA cache_size={a.cache_pages}"))
        store.engine.dispose()  # pooled connections reopen with the setting
    committed = 0
    armed: list[int] = []

    @event.listens_for(store.engine, "commit")
    def before_commit(conn) -> None:
        if armed:  # the rows are written, the COMMIT not yet sent: die here
            pause("before-commit", armed[0])

    real_write = store.write_document

    def write_document(w):
        nonlocal committed
        if a.pause_before_commit == committed + 1:
            armed.append(committed + 1)
        version = real_write(w)
        committed += 1
        if a.pause_after_commit == committed:
            pause("after-commit", committed)
        if a.pace_every and committed % a.pace_every == 0:
            # Wait until two more answers are stored: the second began after this commit, so the
            # asks see this state however slow the machine is (no race between ingest and asker).
            start = store.counts()["answers"]
            deadline = time.monotonic() + 60
            while store.counts()["answers"] < start + 2 and time.monotonic() < deadline:
                time.sleep(0.02)
        return version

    store.write_document = write_document
    extractor = PatternExtractor(a.delay_ms / 1000, a.pause_in_extract)
    wait_go(a.wait_go)
    report = Ingestor(store, extractor, HashEmbedder()).ingest_paths([a.corpus])
    store.close()
    emit("done", totals=report.totals())
    return 0


def cmd_verdicts(a: argparse.Namespace) -> int:
    from graphrag.store import Store
    from graphrag.verify.review import record_verdict

    errors: list[str] = []
    ids: list[int] = []
    with Store(a.store) as store:
        answer = store.answer(a.answer)
        assert answer is not None
        wait_go(a.wait_go)
        t0 = time.perf_counter()
        for i in range(a.n):
            claim = answer.claims[i % len(answer.claims)]
            citation = next((c for c in claim.citations if c.valid), None)
            try:
                v = record_verdict(store, answer, claim, citation, ("supported", "partial", "unsupported")[i % 3],
                                   a.reviewer, f"{a.reviewer} note {i}")
                ids.append(int(v.id or 0))
                if a.delay_ms:
                    time.sleep(a.delay_ms / 1000)  # a slower reviewer: long enough to restart a server under it
            except Exception as exc:  # noqa: BLE001 - counted and reported: the test asserts there are none
                errors.append(f"{type(exc).__name__}: {exc}")
        seconds = time.perf_counter() - t0
    emit("done", ids=ids, errors=errors, seconds=round(seconds, 3))
    return 0


def cmd_ask(a: argparse.Namespace) -> int:
    from graphrag.answer.ask import Asker
    from graphrag.answer.generate.extractive import ExtractiveGenerator
    from graphrag.model import AskSettings
    from graphrag.store import Store
    from helpers import ScriptedChecker

    questions = ["What does Alpha0 use?", "What follows Cobalt?", "Which runbook feeds Delta?",
                 "What guards Ember?"]
    records: list[dict[str, object]] = []
    errors: list[str] = []
    if a.index_from is not None:  # a graph this small searched as a large one is (by an index, or the database)
        from graphrag.answer.retrieval import index as ann

        ann.EXACT_BELOW, ann.EXACT_SUBSET = a.index_from, 0
    searched: set[str] = set()
    with Store(a.store) as store:
        asker = Asker(store, embedder=HashEmbedder(), generator=ExtractiveGenerator(), checker=ScriptedChecker())
        wait_go(a.wait_go)
        i = 0
        while True:
            docs_seen = store.counts()["versions"]
            try:
                ans = asker.ask(questions[i % len(questions)], AskSettings(k=3, hops=2, access=tuple(a.access),
                                                                 min_relevance=0.0)).answer
                bad: list[str] = []
                spans = [c.span for c in ans.context]
                spans += [c.item.span for cl in ans.claims for c in cl.citations if c.item is not None]
                for sp in spans:
                    doc = store.document(sp.document_id, sp.version)
                    if doc is None:
                        bad.append(f"{sp.document_id} v{sp.version} does not exist")
                    elif doc.text[sp.start:sp.end] != sp.text:
                        bad.append(f"{sp.document_id} v{sp.version} [{sp.start}:{sp.end}] mismatch")
                    elif not set(doc.access) & set(a.access):
                        bad.append(f"{sp.document_id} v{sp.version} not visible")
                records.append({"id": ans.id, "docs_seen": docs_seen, "context": len(ans.context),
                                "claims": len(ans.claims), "bad": bad})
                searched.add(_searched_by(store))
            except Exception as exc:  # noqa: BLE001 - reported to the test, which asserts there are none
                errors.append(f"{type(exc).__name__}: {exc}")
            i += 1
            if (docs_seen >= a.until_documents and i >= a.min_asks) or i >= a.max_asks:
                break
    emit("done", records=records, errors=errors, searched=sorted(searched))
    return 0


def _searched_by(store: object) -> str:
    """Who searched the sentences of the graph the last question used: "database" (pgvector), "index" (held in
    this process) or "exact"."""
    from graphrag.answer.retrieval import load_graph

    indexes = load_graph(store).indexes  # type: ignore[arg-type]
    if indexes is not None and indexes.server_sentences is not None:
        return "database"
    return "index" if indexes is not None and indexes.sentences is not None else "exact"


def cmd_remove(a: argparse.Namespace) -> int:
    """Remove a document, pausing (to be killed) before the statement that starts with
    ``--pause-before`` or, with "COMMIT", once every statement ran and just before COMMIT."""
    from sqlalchemy import event

    from graphrag.access.identity import local_principal
    from graphrag.ingest.removal import remove_document
    from graphrag.store import Store

    store = Store(a.store)
    armed = False

    @event.listens_for(store.engine, "before_cursor_execute")
    def before_statement(conn, cursor, statement, *args) -> None:
        if armed and a.pause_before != "COMMIT" and statement.lstrip().startswith(a.pause_before):
            pause(a.pause_before, 0)

    @event.listens_for(store.engine, "commit")
    def before_commit(conn) -> None:
        if armed and a.pause_before == "COMMIT":
            pause("COMMIT", 0)

    wait_go(False)
    armed = bool(a.pause_before)
    done = remove_document(store, a.doc, a.version, actor="kill test", reason="a removal killed half-way",
                           by=local_principal(["public"], via="cli"))
    store.close()
    emit("done", spans=done.spans, entities=done.entities)
    return 0


def store_dump(path: object) -> dict[str, list[str]]:
    """Every row of every table, each column as text (vectors as hex): equal dumps, equal stores."""
    from graphrag.store.schema import metadata

    db = _Reader(path)
    try:
        out = {}
        for t in metadata.sorted_tables:
            cols = ", ".join(f'"{c.name}"' for c in t.columns)
            out[t.name] = sorted(repr(tuple(bytes(v).hex() if isinstance(v, (bytes, memoryview)) else v for v in r))
                                 for r in db.all(f"SELECT {cols} FROM {t.name}"))
        return out
    finally:
        db.close()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("ingest")
    s.add_argument("--store", required=True)
    s.add_argument("--corpus", required=True)
    s.add_argument("--pause-after-commit", type=int)
    s.add_argument("--pause-before-commit", type=int)
    s.add_argument("--pause-in-extract", type=int)
    s.add_argument("--delay-ms", type=float, default=0.0)
    s.add_argument("--pace-every", type=int, default=0, help="after every N commits, wait for two asks")
    s.add_argument("--cache-pages", type=int, default=0)
    s.add_argument("--wait-go", action="store_true")
    s.set_defaults(fn=cmd_ingest)
    s = sub.add_parser("verdicts")
    s.add_argument("--store", required=True)
    s.add_argument("--answer", type=int, required=True)
    s.add_argument("--reviewer", required=True)
    s.add_argument("--n", type=int, default=250)
    s.add_argument("--delay-ms", type=float, default=0.0)
    s.add_argument("--wait-go", action="store_true")
    s.set_defaults(fn=cmd_verdicts)
    s = sub.add_parser("ask")
    s.add_argument("--store", required=True)
    s.add_argument("--access", nargs="+", default=["public"])
    s.add_argument("--until-documents", type=int, default=0)
    s.add_argument("--min-asks", type=int, default=5)
    s.add_argument("--max-asks", type=int, default=2000)
    s.add_argument("--index-from", type=int, help="search by an index (or the database) from this many rows")
    s.add_argument("--wait-go", action="store_true")
    s.set_defaults(fn=cmd_ask)
    s = sub.add_parser("remove")
    s.add_argument("--store", required=True)
    s.add_argument("--doc", required=True)
    s.add_argument("--version", type=int)
    s.add_argument("--pause-before", default="", help="a statement's start (e.g. DELETE FROM entities), or COMMIT")
    s.set_defaults(fn=cmd_remove)
    a = p.parse_args(argv)
    return int(a.fn(a))


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


if __name__ == "__main__":
    sys.exit(main())
