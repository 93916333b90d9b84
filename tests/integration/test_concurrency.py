"""Several processes on one store: reviewers appending verdicts, an ingest, askers.

Workers are separate Python processes (tests/support/proc_helpers.py) started together through a
ready/go handshake on their pipes; each reports its own errors, which must be none."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter

import pytest
from sqlalchemy import event

from graphrag.ingest.pipeline import Ingestor
from graphrag.store import Store
from proc_helpers import HERE, ROOT, HashEmbedder, PatternExtractor, store_problems, write_synthetic_corpus
from seeds import seed_store as _seed_store

HELPER = str(HERE / "proc_helpers.py")

pytestmark = pytest.mark.timeout(120)


def _start(*args: str) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, HELPER, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = p.stdout.readline()
    assert line, p.stderr.read()
    assert json.loads(line)["event"] == "ready"
    return p


def _go(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()


def _done(p: subprocess.Popen) -> dict:
    out, err = p.communicate(timeout=110)
    assert p.returncode == 0, err
    event = json.loads(out.strip().splitlines()[-1])
    assert event["event"] == "done"
    return event


@pytest.fixture(params=["sqlite", "postgresql"])
def shared(request, tmp_path):
    """(store, reviewer processes): 4 on the SQLite file, 8 on a PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "s.db"), 4
    return request.getfixturevalue("pg_url"), 8


def _verdict_rows(store: str, answer_id: int) -> list[tuple[int, str, str]]:
    with Store(store) as s:
        return [(int(v.id or 0), v.reviewer, v.note) for v in s.verdicts(answer_id)]


def test_reviewers_append_250_verdicts_each_at_once(shared, tmp_path):
    path, n = shared
    answer_id = _seed_store(path, write_synthetic_corpus(tmp_path / "c", 6))
    reviewers = [f"reviewer-{i}" for i in range(n)]
    # A short pause between a writer's verdicts (as a reviewer's clicks have) lets the others in
    # even on a busy machine, where a writer could otherwise finish its 250 within one time slice.
    procs = [_start("verdicts", "--store", path, "--answer", str(answer_id), "--reviewer", r, "--n", "250",
                    "--delay-ms", "2", "--wait-go") for r in reviewers]
    _go(procs)  # all are connected and waiting: they start writing together
    results = dict(zip(reviewers, map(_done, procs)))
    errors = {r: res["errors"] for r, res in results.items() if res["errors"]}
    assert errors == {}, "no caller may see 'database is locked', a serialisation failure or any other failure"
    rows = _verdict_rows(path, answer_id)
    assert len(rows) == 250 * n
    assert len({r[0] for r in rows}) == 250 * n
    assert len({(r[1], r[2]) for r in rows}) == 250 * n, "a verdict was duplicated"
    assert Counter(r[1] for r in rows) == dict.fromkeys(reviewers, 250)
    for r, res in results.items():
        assert sorted(res["ids"]) == [i for i, who, _ in rows if who == r], "ids reported == ids stored"
        assert {n_ for _, who, n_ in rows if who == r} == {f"{r} note {i}" for i in range(250)}
    # the writers really overlapped: writers one after the other switch n-1 times; more
    # switches mean their writes interleaved (how much depends on the scheduler and fsync)
    order = [who for _, who, _ in rows]
    assert sum(a != b for a, b in itertools.pairwise(order)) > n - 1
    assert store_problems(path) == []


def test_server_restarted_mid_review_loses_no_confirmed_verdict(pg_server, tmp_path):
    """PostgreSQL goes down and comes back while two reviewers write: their writes wait and
    retry (the store says 'unreachable' only after its retry budget), and every verdict they
    were told was stored is there, once."""
    import time

    url = pg_server.new_database()
    answer_id = _seed_store(url, write_synthetic_corpus(tmp_path / "c", 6))
    procs = [_start("verdicts", "--store", url, "--answer", str(answer_id), "--reviewer", f"r{i}", "--n", "150",
                    "--delay-ms", "5", "--wait-go") for i in range(2)]
    _go(procs)
    deadline = time.monotonic() + 30
    while len(_verdict_rows(url, answer_id)) < 60:
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.02)
    pg_server.restart()  # fast shutdown: open connections are terminated
    results = [_done(p) for p in procs]
    assert [r["errors"] for r in results] == [[], []]
    confirmed = sorted(i for r in results for i in r["ids"])
    rows = _verdict_rows(url, answer_id)
    assert len(confirmed) == 300 and sorted(r[0] for r in rows) == confirmed
    assert len({(r[1], r[2]) for r in rows}) == 300, "no verdict was written twice by a retry"
    assert store_problems(url) == []


@pytest.mark.parametrize("backend", ["sqlite", "postgresql", "pgvector"])
def test_ingest_reviews_and_questions_at_the_same_time(backend, tmp_path, request):
    """An ingest, a reviewer and an asker, three processes on one store at once; on PostgreSQL with pgvector too,
    where every sentence the ingest commits carries its halfvec."""
    path = str(tmp_path / "s.db") if backend == "sqlite" else request.getfixturevalue(
        "pg_url" if backend == "postgresql" else "pgvector_url")
    answer_id = _seed_store(path, write_synthetic_corpus(tmp_path / "first", 6))
    with Store(path) as s:
        before = s.counts()["versions"]
    more = write_synthetic_corpus(tmp_path / "more", 30)
    for f in more.glob("runbook-*.md"):  # new ids, so every one is a new document
        f.rename(f.with_name("more-" + f.name))
    expected = before + 28 + 0  # "policy" v1/v2 have the same content as before: unchanged
    ingest = subprocess.Popen([sys.executable, HELPER, "ingest", "--store", path, "--corpus", str(more),
                               "--delay-ms", "25", "--pace-every", "7", "--wait-go"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT)
    reviewer = _start("verdicts", "--store", path, "--answer", str(answer_id), "--reviewer", "rita",
                      "--n", "250", "--wait-go")
    asker = _start("ask", "--store", path, "--until-documents", str(expected), "--min-asks", "10", "--wait-go")
    assert json.loads(ingest.stdout.readline())["event"] == "ready"
    _go([ingest, reviewer, asker])  # all three start together; the ingest waits for asks every 7 commits
    ingested, reviewed, asked = _done(ingest), _done(reviewer), _done(asker)
    assert ingested["totals"]["ok"] == 28 and ingested["totals"].get("failed", 0) == 0
    assert reviewed["errors"] == [] and len(reviewed["ids"]) == 250
    assert asked["errors"] == []
    records = asked["records"]
    assert len(records) >= 10
    assert [r["bad"] for r in records if r["bad"]] == []  # every span exists and matches its document
    assert all(r["context"] > 0 for r in records) and sum(r["claims"] > 0 for r in records) >= len(records) // 2
    seen = sorted({r["docs_seen"] for r in records})
    assert len(seen) >= 3, f"the asks did not overlap the ingest (document counts seen: {seen})"
    with Store(path) as s:
        assert s.counts()["versions"] == expected
        assert len(s.verdicts(answer_id)) == 250
        if backend == "pgvector":
            assert s.vector_search().in_database
            assert s.database.read(lambda c: c.exec_driver_sql(
                "SELECT count(*) = count(embedding) AND count(*) > 0 FROM sentences").scalar())
        for r in records:  # stored answers re-read from the final store still resolve exactly
            a = s.answer(r["id"])
            assert a is not None and len(a.context) == r["context"]
            for c in a.context:
                d = s.document(c.span.document_id, c.span.version)
                assert d is not None and d.text[c.span.start:c.span.end] == c.span.text
    assert store_problems(path) == []


def test_two_dashboards_on_a_pgvector_store_search_by_the_database_and_lose_no_verdict(pgvector_url, tmp_path):
    """Two asking processes searched by the database (no index of their own) and two reviewers, at once on one
    store: every question answered from spans that exist, every verdict stored once."""
    answer_id = _seed_store(pgvector_url, write_synthetic_corpus(tmp_path / "c", 12))
    askers = [_start("ask", "--store", pgvector_url, "--min-asks", "12", "--max-asks", "12", "--index-from", "10",
                     "--wait-go") for _ in range(2)]
    reviewers = ["ana", "ben"]
    procs = [_start("verdicts", "--store", pgvector_url, "--answer", str(answer_id), "--reviewer", r, "--n", "60",
                    "--delay-ms", "2", "--wait-go") for r in reviewers]
    _go(askers + procs)
    asked, reviewed = [_done(p) for p in askers], [_done(p) for p in procs]
    for got in asked:
        assert got["errors"] == [] and got["searched"] == ["database"]
        assert len(got["records"]) == 12 and [r["bad"] for r in got["records"] if r["bad"]] == []
        assert all(r["context"] > 0 for r in got["records"])
    assert all(r["errors"] == [] and len(r["ids"]) == 60 for r in reviewed)
    rows = _verdict_rows(pgvector_url, answer_id)
    assert Counter(who for _, who, _ in rows) == dict.fromkeys(reviewers, 60)
    assert len({(who, note) for _, who, note in rows}) == 120, "a verdict was duplicated"
    assert store_problems(pgvector_url) == []


def test_graph_build_reads_one_snapshot_while_another_process_commits(tmp_path):
    """Found by `graphrag bench load`: an ingest committing between the graph's reads (documents,
    then sentences) made build_graph fail with KeyError. The commit is placed deterministically
    between every pair of reads here (before each read but the first, which starts the snapshot),
    through a second connection as another process would. The graph reads its columns on the driver's
    own cursor (no SQLAlchemy event sees those), so the reads are caught by SQLite's statement trace on
    the reader's connections."""
    from graphrag.answer.retrieval.load import build_graph
    from graphrag.ingest.documents import Source

    path = tmp_path / "s.db"
    _seed_store(path, write_synthetic_corpus(tmp_path / "c", 4))
    reader, writer = Store(path), Store(path)
    ingestor = Ingestor(writer, PatternExtractor(), HashEmbedder())
    commits = iter(range(100))
    armed = False
    reads = iter(range(1000))

    def commit_before_each_read(statement: str) -> None:
        if armed and statement.lstrip().upper().startswith("SELECT") and next(reads) > 0:
            i = next(commits)
            assert ingestor.ingest([Source(f"late-{i}", "Late", f"Zephyr{i} uses Quartz{i}.")]).documents[0].status == "ok"

    event.listen(reader.engine, "connect", lambda dbapi, record: dbapi.set_trace_callback(commit_before_each_read))
    reader.engine.dispose()  # the pooled connections opened before the listener: new ones get the trace
    versions_before = reader.counts()["versions"]
    armed = True
    g = build_graph(reader)  # KeyError before the fix
    armed = False
    assert next(commits) >= 5, "a commit landed between every pair of the graph's reads"
    assert len(g.docs) == versions_before and all(not d.id.startswith("late-") for d in g.docs)
    assert "zephyr0" not in g.index and "zephyr0" in build_graph(reader).index
    assert reader.counts()["versions"] > versions_before  # the commits did happen meanwhile
    assert len(build_graph(reader).docs) == reader.counts()["versions"]
    reader.close()
    writer.close()
