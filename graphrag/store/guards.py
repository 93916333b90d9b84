"""PostgreSQL guards (schema 8): what the application role may change only with its audit row.

``graphrag store setup`` (roles.py) grants the application role only what the product needs; these
triggers and one function, owned by the owner, bound what is left:

- the server's clock: a verdict's ``created_at``, an audit row's ``at`` and a removal's ``removed_at``
  are the database's time, whatever the INSERT says;
- digests: a verdict's ``claim_sha256`` (the judged claim's words) and ``span_sha256`` (the cited
  sentence) are computed by the database from the rows judged, so a later change shows (schema.py);
- labels, title and date of a document change only in a transaction that first wrote the ``relabel``
  audit row naming that document and those labels; a superseded version becomes current again only
  in a removal's transaction;
- the settings in ``meta`` (the review policy: required verdicts, hence blind review) change only
  after their ``review-policy`` audit row in the same transaction; the graph's counters stay free;
- a document version's rows are deleted only in the transaction that added its ``removals`` row, and its ``removals``
  row is added in that transaction, only after the ``remove`` audit row naming the document;
- answers, claims, citations and context rows are append-only for the role (no UPDATE or DELETE
  granted); a removal withdraws an answer through ``graphrag_withdraw_answer``, which runs as the
  owner and only for an answer the transaction's ``remove`` audit row lists.

"In this transaction" is the row's ``xmin``: the application cannot forge it. The owner (who could
drop every trigger anyway) passes each guard: ``store migrate`` copies rows with their own times.
The functions fix their ``search_path`` (``pg_temp`` last), so a session's temporary table named
``audit`` cannot stand in for the real one.
"""

from __future__ import annotations

from sqlalchemy import Connection

# The counters documents.py moves on every ingest: free for the application role.
FREE_META_KEYS = ("generation", "appends_from", "appends_to")
# Tables holding a document version's rows (doc_id, version): deleted only by a removal.
PER_VERSION_TABLES = ("documents", "sentences", "document_files", "span_layout", "page_sizes", "mentions",
                      "relations")
NOW_SQL = "to_char(CURRENT_TIMESTAMP AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"+00:00\"')"


def install(c: Connection) -> None:
    """Create (or replace) the guards in the current schema. PostgreSQL only; run by the owner."""
    schema = str(c.exec_driver_sql("SELECT current_schema()").scalar())
    path = f'SET search_path = "{schema}", pg_temp'
    for ddl in _functions(path):
        c.exec_driver_sql(ddl)
    triggers = [
        ("verdicts", "graphrag_verdict_stamp", "BEFORE INSERT", "FOR EACH ROW", "graphrag_verdict_stamp()"),
        ("audit", "graphrag_audit_stamp", "BEFORE INSERT", "FOR EACH ROW", "graphrag_audit_stamp()"),
        ("removals", "graphrag_removal_guard", "BEFORE INSERT", "FOR EACH ROW", "graphrag_removal_guard()"),
        ("documents", "graphrag_document_guard", "BEFORE UPDATE", "FOR EACH ROW", "graphrag_document_guard()"),
        ("meta", "graphrag_meta_guard", "BEFORE INSERT OR UPDATE OR DELETE", "FOR EACH ROW",
         "graphrag_meta_guard()"),
        *((t, f"graphrag_{t}_removed_only", "BEFORE DELETE", "FOR EACH ROW", "graphrag_removed_only()")
          for t in PER_VERSION_TABLES),
    ]
    for table, name, when, each, fn in triggers:
        c.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        c.exec_driver_sql(f"CREATE TRIGGER {name} {when} ON {table} {each} EXECUTE FUNCTION {fn}")
    c.exec_driver_sql("REVOKE ALL ON FUNCTION graphrag_withdraw_answer(bigint) FROM PUBLIC")


def _functions(path: str) -> list[str]:
    trusted = "graphrag_trusted()"
    return [
        # the owner (or a member of it, a superuser) is trusted: it owns the triggers
        f"""CREATE OR REPLACE FUNCTION graphrag_trusted() RETURNS boolean LANGUAGE sql STABLE {path} AS $$
            SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c
            WHERE c.oid = 'meta'::regclass $$""",
        # the current transaction's id as a row's xmin shows it (32 bits)
        f"""CREATE OR REPLACE FUNCTION graphrag_xact() RETURNS text LANGUAGE sql VOLATILE {path} AS $$
            SELECT mod(pg_current_xact_id()::text::bigint, 4294967296)::text $$""",
        # an audit row of one of these events written by the current transaction (the newest rows only:
        # a transaction's own row is among them; an old one cannot be reused)
        f"""CREATE OR REPLACE FUNCTION graphrag_audited(events text[]) RETURNS SETOF jsonb LANGUAGE sql VOLATILE
            {path} AS $$
            SELECT a.detail::jsonb FROM (SELECT xmin AS x, event, detail FROM audit ORDER BY id DESC LIMIT 1000) a
            WHERE a.x::text = graphrag_xact() AND a.event = ANY(events) $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_verdict_stamp() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN NEW; END IF;
              NEW.created_at := {NOW_SQL};
              NEW.claim_sha256 := (SELECT encode(sha256(convert_to(text, 'UTF8')), 'hex') FROM claims
                                   WHERE answer_id = NEW.answer_id AND idx = NEW.claim_idx);
              IF NEW.doc_id IS NULL THEN
                NEW.span_sha256 := encode(sha256(''::bytea), 'hex');
              ELSE
                NEW.span_sha256 := COALESCE((SELECT encode(sha256(convert_to(s.text, 'UTF8')), 'hex')
                  FROM sentences s WHERE s.doc_id = NEW.doc_id AND s.version = NEW.version
                  AND s.start = NEW.start AND s."end" = NEW."end" LIMIT 1), NEW.span_sha256);
              END IF;
              RETURN NEW;
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_audit_stamp() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF NOT {trusted} THEN NEW.at := {NOW_SQL}; END IF;
              RETURN NEW;
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_removal_guard() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN NEW; END IF;
              IF NOT EXISTS (SELECT 1 FROM graphrag_audited(ARRAY['remove']) d WHERE d->>'document' = NEW.doc_id)
              THEN RAISE EXCEPTION 'a removal is recorded only with its audit row (graphrag remove)'
                   USING ERRCODE = 'insufficient_privilege';
              END IF;
              NEW.removed_at := {NOW_SQL};
              RETURN NEW;
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_document_guard() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN NEW; END IF;
              IF (OLD.access, OLD.title, OLD.effective_date) IS DISTINCT FROM (NEW.access, NEW.title,
                  NEW.effective_date) AND NOT EXISTS (SELECT 1 FROM graphrag_audited(ARRAY['relabel']) d
                  WHERE d->>'doc_id' = NEW.doc_id AND d->'to'->'access' = NEW.access::jsonb) THEN
                RAISE EXCEPTION 'the labels, title and date of a document change only with their audit row '
                  '(a relabel through ingest)' USING ERRCODE = 'insufficient_privilege';
              END IF;
              IF OLD.superseded <> 0 AND NEW.superseded = 0 AND NOT EXISTS (SELECT 1 FROM removals r
                  WHERE r.doc_id = NEW.doc_id AND r.xmin::text = graphrag_xact()) THEN
                RAISE EXCEPTION 'a superseded version becomes current again only by a removal of the newer one'
                  USING ERRCODE = 'insufficient_privilege';
              END IF;
              RETURN NEW;
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_meta_guard() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END IF;
              IF TG_OP <> 'DELETE' AND NEW.key IN ({", ".join(f"'{k}'" for k in FREE_META_KEYS)})
                 AND (TG_OP = 'INSERT' OR OLD.key = NEW.key) THEN
                RETURN NEW;
              END IF;
              IF TG_OP <> 'DELETE' AND NEW.key = 'review_required_verdicts' AND (TG_OP = 'INSERT' OR OLD.key = NEW.key)
                 AND EXISTS (SELECT 1 FROM graphrag_audited(ARRAY['review-policy']) d
                             WHERE d->>'required' = NEW.value) THEN
                RETURN NEW;
              END IF;
              RAISE EXCEPTION 'the store''s settings change only with their audit row (graphrag review policy, '
                'the Review page)' USING ERRCODE = 'insufficient_privilege';
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_removed_only() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} OR EXISTS (SELECT 1 FROM removals r WHERE r.doc_id = OLD.doc_id
                                      AND r.version = OLD.version AND r.xmin::text = graphrag_xact()) THEN
                RETURN OLD;
              END IF;
              RAISE EXCEPTION 'a document version''s rows are deleted only by its removal (graphrag remove)'
                USING ERRCODE = 'insufficient_privilege';
            END $$""",
        # Runs as the owner (the application role may not UPDATE answers or claims): blanks an answer that
        # drew on a removed document, as removals.withdraw_answers does on SQLite.
        f"""CREATE OR REPLACE FUNCTION graphrag_withdraw_answer(aid bigint) RETURNS void LANGUAGE plpgsql
            SECURITY DEFINER {path} AS $$
            BEGIN
              IF NOT EXISTS (SELECT 1 FROM graphrag_audited(ARRAY['remove']) d
                             WHERE (d->'answers') @> to_jsonb(aid)) THEN
                RAISE EXCEPTION 'an answer is withdrawn only by a removal that lists it in its audit row'
                  USING ERRCODE = 'insufficient_privilege';
              END IF;
              UPDATE answers SET text = '', seeds = '[]', reached = '[]', disagreements = NULL, status = 'withdrawn'
                WHERE id = aid;
              UPDATE claims SET text = '', start = 0, "end" = 0,
                flags = (COALESCE((SELECT jsonb_agg(f) FROM jsonb_array_elements(flags::jsonb) f
                                   WHERE f <> '"source_removed"'::jsonb), '[]'::jsonb)
                         || '["source_removed"]'::jsonb)::text,
                support = CASE WHEN support IS NULL OR jsonb_typeof(support::jsonb) <> 'object' THEN support
                               ELSE jsonb_set(support::jsonb, '{{reason}}', '""'::jsonb)::text END
                WHERE answer_id = aid;
              DELETE FROM citations WHERE answer_id = aid;
              DELETE FROM context_items WHERE answer_id = aid;
            END $$""",
    ]


__all__ = ["FREE_META_KEYS", "PER_VERSION_TABLES", "install"]
