"""The throwaway PostgreSQL server of the tests; it lives in lab/ because ``graphrag bench load --browser``
starts one too."""

from lab.pg_server import BIN, PgServer, missing_reason, pgvector_bin

__all__ = ["BIN", "PgServer", "missing_reason", "pgvector_bin"]
