"""PostgreSQL guards (schema 8, widened in schema 14): what the application role may change only with its audit row,
and what it may add only with the record it belongs to.

``graphrag store setup`` (roles.py) grants the application role only what the product needs; these
triggers and functions, owned by the owner, bound what is left:

- the server's clock: a verdict's ``created_at``, an audit row's ``at`` and a removal's ``removed_at``
  are the database's time, whatever the INSERT says;
- digests: a verdict's ``claim_sha256`` (the judged claim's words) and ``span_sha256`` (the cited
  sentence) are computed by the database from the rows judged, so a later change shows (schema.py); a
  verdict judges a claim its answer has;
- labels, title and date of a document change only in a transaction that first wrote the ``relabel``
  audit row naming that document and those labels;
- a document version's rows (``VERSION_TABLES``: sentences, the original file, layout, page sizes, mentions,
  relations) are added or changed only in the transaction that inserted the version itself, and an answer's
  rows (``ANSWER_TABLES``: claims, citations, context) only in the transaction that inserted the answer: a
  child is never added to a record that was already read, judged or quoted;
- a new version's number is above every stored or removed version of its id; a version becomes superseded
  only when the same transaction inserted a newer current version (checked at commit), and a superseded one
  becomes current again only in a transaction that deleted a version of its id, when it is the newest left;
- the settings in ``meta`` (the review policy: required verdicts, hence blind review) change only
  after their ``review-policy`` audit row in the same transaction; the graph's counters stay free;
- a document version's rows are deleted only in the transaction that added its ``removals`` row; its
  ``removals`` row is added only after the ``remove`` audit row naming the document, and committed only
  when that transaction really deleted the version (checked at commit);
- answers, claims, citations and context rows are append-only for the role (no UPDATE or DELETE
  granted); a removal withdraws an answer through ``graphrag_withdraw_answer``, which runs as the
  owner and only for an answer the transaction's ``remove`` audit row lists and that drew on a version
  the transaction removes (its context, a route step's sentence or a relation on its routes).

"In this transaction" for the audit rows is the row's ``xmin``: the application cannot forge it. What
the transaction inserted or deleted (a document version, an answer, a removal) is written by owner's
triggers into ``graphrag_xact_marks``, which the application role can neither read nor write: a row's
``xmin`` alone would also name a row merely updated in this transaction, and a savepoint's own id. A mark
names the top transaction (``pg_current_xact_id``); marks of finished transactions are cleared as new
ones come, without waiting on anyone's. The owner (who could drop every trigger anyway) passes each guard:
``store migrate`` copies rows with their own times. The functions fix their ``search_path`` (``pg_temp``
last), so a session's temporary table named ``audit`` cannot stand in for the real one.
"""

from __future__ import annotations

from sqlalchemy import Connection

# The counters documents.py moves on every ingest: free for the application role.
FREE_META_KEYS = ("generation", "appends_from", "appends_to")
# Tables holding a document version's rows (doc_id, version): deleted only by a removal.
PER_VERSION_TABLES = ("documents", "sentences", "document_files", "span_layout", "page_sizes", "mentions",
                      "relations")
# A document version's rows: added only with the version. passage_vectors is not among them: a cache that the
# first question reading a sentence fills (passage_vectors.py), which the role may rewrite anyway.
VERSION_TABLES = tuple(t for t in PER_VERSION_TABLES if t != "documents")
# An answer's rows (answer_id): added only with the answer.
ANSWER_TABLES = ("claims", "citations", "context_items")
MARKS = "graphrag_xact_marks"  # what each open transaction inserted or deleted: the owner's, no grant
NOW_SQL = "to_char(CURRENT_TIMESTAMP AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"+00:00\"')"
_REFUSED = "USING ERRCODE = 'insufficient_privilege'"


def install(c: Connection) -> None:
    """Create (or replace) the guards in the current schema. PostgreSQL only; run by the owner."""
    schema = str(c.exec_driver_sql("SELECT current_schema()").scalar())
    path = f'SET search_path = "{schema}", pg_temp'
    # unlogged: a mark lives as long as its transaction, and a crash ends every open one
    c.exec_driver_sql(f"CREATE UNLOGGED TABLE IF NOT EXISTS {MARKS} (xid bigint NOT NULL, kind text NOT NULL, "
                      "doc_id text, version integer, answer_id bigint)")
    c.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {MARKS}_xid ON {MARKS} (xid, kind)")
    c.exec_driver_sql(f"REVOKE ALL ON TABLE {MARKS} FROM PUBLIC")
    for ddl in _functions(path):
        c.exec_driver_sql(ddl)
    triggers = [
        ("verdicts", "graphrag_verdict_stamp", "BEFORE INSERT", "FOR EACH ROW", "graphrag_verdict_stamp()"),
        ("audit", "graphrag_audit_stamp", "BEFORE INSERT", "FOR EACH ROW", "graphrag_audit_stamp()"),
        ("removals", "graphrag_removal_guard", "BEFORE INSERT", "FOR EACH ROW", "graphrag_removal_guard()"),
        ("removals", "graphrag_removal_mark", "AFTER INSERT", "FOR EACH ROW", "graphrag_mark()"),
        ("documents", "graphrag_document_guard", "BEFORE UPDATE", "FOR EACH ROW", "graphrag_document_guard()"),
        ("documents", "graphrag_document_new", "BEFORE INSERT", "FOR EACH ROW", "graphrag_document_new()"),
        ("documents", "graphrag_document_mark", "AFTER INSERT OR DELETE", "FOR EACH ROW", "graphrag_mark()"),
        ("answers", "graphrag_answer_mark", "AFTER INSERT", "FOR EACH ROW", "graphrag_mark()"),
        ("meta", "graphrag_meta_guard", "BEFORE INSERT OR UPDATE OR DELETE", "FOR EACH ROW",
         "graphrag_meta_guard()"),
        *((t, f"graphrag_{t}_removed_only", "BEFORE DELETE", "FOR EACH ROW", "graphrag_removed_only()")
          for t in PER_VERSION_TABLES),
        *((t, f"graphrag_{t}_with_version", "BEFORE INSERT OR UPDATE", "FOR EACH ROW", "graphrag_with_version()")
          for t in VERSION_TABLES),
        *((t, f"graphrag_{t}_with_answer", "BEFORE INSERT OR UPDATE", "FOR EACH ROW", "graphrag_with_answer()")
          for t in ANSWER_TABLES),
    ]
    for table, name, when, each, fn in triggers:
        c.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        c.exec_driver_sql(f"CREATE TRIGGER {name} {when} ON {table} {each} EXECUTE FUNCTION {fn}")
    # checked at commit, whatever order the transaction wrote in (an ingest marks the old version superseded
    # before it inserts the new one; a removal records its removals rows before it deletes)
    deferred = [
        ("documents", "graphrag_superseded_check", "AFTER UPDATE",
         "WHEN (OLD.superseded = 0 AND NEW.superseded <> 0)", "graphrag_superseded_check()"),
        ("removals", "graphrag_removal_done", "AFTER INSERT", "", "graphrag_removal_done()"),
    ]
    for table, name, when, condition, fn in deferred:
        c.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        c.exec_driver_sql(f"CREATE CONSTRAINT TRIGGER {name} {when} ON {table} DEFERRABLE INITIALLY DEFERRED "
                          f"FOR EACH ROW {condition} EXECUTE FUNCTION {fn}")
    c.exec_driver_sql("REVOKE ALL ON FUNCTION graphrag_withdraw_answer(bigint) FROM PUBLIC")
    # nobody else's trigger (on a session's temporary table) may write a mark as the owner
    c.exec_driver_sql("REVOKE ALL ON FUNCTION graphrag_mark() FROM PUBLIC")


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
        # the current top transaction's full id (a savepoint's rows are its own)
        f"""CREATE OR REPLACE FUNCTION graphrag_xact_full() RETURNS bigint LANGUAGE sql VOLATILE {path} AS $$
            SELECT pg_current_xact_id()::text::bigint $$""",
        # an audit row of one of these events written by the current transaction (the newest rows only:
        # a transaction's own row is among them; an old one cannot be reused)
        f"""CREATE OR REPLACE FUNCTION graphrag_audited(events text[]) RETURNS SETOF jsonb LANGUAGE sql VOLATILE
            {path} AS $$
            SELECT a.detail::jsonb FROM (SELECT xmin AS x, event, detail FROM audit ORDER BY id DESC LIMIT 1000) a
            WHERE a.x::text = graphrag_xact() AND a.event = ANY(events) $$""",
        # What this transaction inserted or deleted, written as the owner (a trigger function cannot be called
        # by itself): 'document' (a version inserted), 'removed' (a version deleted), 'removal' (its removals
        # row), 'answer'. Marks of transactions that ended (below the snapshot's oldest open one) go first,
        # skipping any row another transaction is clearing: nobody waits on anyone.
        f"""CREATE OR REPLACE FUNCTION graphrag_mark() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER {path} AS $$
            BEGIN
              IF TG_TABLE_SCHEMA IS DISTINCT FROM current_schema() THEN  -- a session's own table: no mark
                RAISE EXCEPTION 'graphrag_mark marks the store''s own tables only' {_REFUSED};
              END IF;
              IF TG_OP = 'INSERT' AND TG_TABLE_NAME <> 'removals' THEN
                DELETE FROM {MARKS} WHERE ctid = ANY(ARRAY(SELECT ctid FROM {MARKS}
                  WHERE xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint FOR UPDATE SKIP LOCKED));
              END IF;
              IF TG_TABLE_NAME = 'answers' THEN
                INSERT INTO {MARKS} (xid, kind, answer_id) VALUES (graphrag_xact_full(), 'answer', NEW.id);
              ELSIF TG_TABLE_NAME = 'removals' THEN
                INSERT INTO {MARKS} (xid, kind, doc_id, version)
                  VALUES (graphrag_xact_full(), 'removal', NEW.doc_id, NEW.version);
              ELSIF TG_OP = 'DELETE' THEN
                INSERT INTO {MARKS} (xid, kind, doc_id, version)
                  VALUES (graphrag_xact_full(), 'removed', OLD.doc_id, OLD.version);
              ELSE
                INSERT INTO {MARKS} (xid, kind, doc_id, version)
                  VALUES (graphrag_xact_full(), 'document', NEW.doc_id, NEW.version);
              END IF;
              RETURN NULL;
            END $$""",
        # whether this transaction left such a mark (read as the owner: the role cannot read the marks)
        f"""CREATE OR REPLACE FUNCTION graphrag_marked(k text, d text, v integer, a bigint) RETURNS boolean
            LANGUAGE sql VOLATILE SECURITY DEFINER {path} AS $$
            SELECT EXISTS (SELECT 1 FROM {MARKS} m WHERE m.xid = graphrag_xact_full() AND m.kind = k
              AND m.doc_id IS NOT DISTINCT FROM d AND m.version IS NOT DISTINCT FROM v
              AND m.answer_id IS NOT DISTINCT FROM a) $$""",
        # the same for a row of a version or an answer, in one call per row (an ingest adds thousands): the
        # caller (``who``, its current_user) is trusted, or the transaction inserted the parent
        f"""CREATE OR REPLACE FUNCTION graphrag_may_add(who name, k text, d text, v integer, a bigint) RETURNS boolean
            LANGUAGE sql VOLATILE SECURITY DEFINER {path} AS $$
            SELECT (SELECT pg_has_role(who, c.relowner, 'USAGE') FROM pg_class c WHERE c.oid = 'meta'::regclass)
              OR EXISTS (SELECT 1 FROM {MARKS} m WHERE m.xid = pg_current_xact_id()::text::bigint AND m.kind = k
                         AND m.doc_id IS NOT DISTINCT FROM d AND m.version IS NOT DISTINCT FROM v
                         AND m.answer_id IS NOT DISTINCT FROM a) $$""",
        # whether this transaction deleted a version of this document
        f"""CREATE OR REPLACE FUNCTION graphrag_removed_from(d text) RETURNS boolean LANGUAGE sql VOLATILE
            SECURITY DEFINER {path} AS $$
            SELECT EXISTS (SELECT 1 FROM {MARKS} m WHERE m.xid = graphrag_xact_full() AND m.kind = 'removed'
              AND m.doc_id = d) $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_verdict_stamp() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN NEW; END IF;
              IF NOT EXISTS (SELECT 1 FROM claims WHERE answer_id = NEW.answer_id AND idx = NEW.claim_idx) THEN
                RAISE EXCEPTION {_REFUSED}, MESSAGE = 'a verdict judges a claim its answer has (answer '
                  || NEW.answer_id || ', claim ' || NEW.claim_idx || ')';
              END IF;
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
              THEN RAISE EXCEPTION 'a removal is recorded only with its audit row (graphrag remove)' {_REFUSED};
              END IF;
              NEW.removed_at := {NOW_SQL};
              RETURN NEW;
            END $$""",
        # at commit: a removals row stands only for a version this transaction really deleted
        f"""CREATE OR REPLACE FUNCTION graphrag_removal_done() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN NULL; END IF;
              IF NOT graphrag_marked('removed', NEW.doc_id, NEW.version, NULL) OR EXISTS (SELECT 1 FROM documents
                  WHERE doc_id = NEW.doc_id AND version = NEW.version) THEN
                RAISE EXCEPTION {_REFUSED}, MESSAGE = 'a removal is recorded only for a version its transaction '
                  'deletes (graphrag remove): ' || NEW.doc_id || ' version ' || NEW.version;
              END IF;
              RETURN NULL;
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_document_new() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN NEW; END IF;
              IF NEW.version <= COALESCE(GREATEST((SELECT max(version) FROM documents WHERE doc_id = NEW.doc_id),
                                         (SELECT max(version) FROM removals WHERE doc_id = NEW.doc_id)), 0) THEN
                RAISE EXCEPTION {_REFUSED}, MESSAGE = 'a new version of ' || NEW.doc_id || ' is numbered after '
                  'every stored or removed one (graphrag ingest)';
              END IF;
              RETURN NEW;
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_document_guard() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} THEN RETURN NEW; END IF;
              IF (OLD.access, OLD.title, OLD.effective_date) IS DISTINCT FROM (NEW.access, NEW.title,
                  NEW.effective_date) AND NOT EXISTS (SELECT 1 FROM graphrag_audited(ARRAY['relabel']) d
                  WHERE d->>'doc_id' = NEW.doc_id AND d->'to'->'access' = NEW.access::jsonb) THEN
                RAISE EXCEPTION 'the labels, title and date of a document change only with their audit row '
                  '(a relabel through ingest)' {_REFUSED};
              END IF;
              IF OLD.superseded <> 0 AND NEW.superseded = 0 AND (NOT graphrag_removed_from(NEW.doc_id)
                  OR EXISTS (SELECT 1 FROM documents d WHERE d.doc_id = NEW.doc_id AND d.version > NEW.version)) THEN
                RAISE EXCEPTION 'a superseded version becomes current again only by a removal of the newer one'
                  {_REFUSED};
              END IF;
              RETURN NEW;
            END $$""",
        # at commit: a version superseded in this transaction has a newer current version this transaction
        # inserted (or is current again)
        f"""CREATE OR REPLACE FUNCTION graphrag_superseded_check() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} OR NOT EXISTS (SELECT 1 FROM documents WHERE doc_id = NEW.doc_id
                                          AND version = NEW.version AND superseded <> 0)
                 OR EXISTS (SELECT 1 FROM documents d WHERE d.doc_id = NEW.doc_id AND d.version > NEW.version
                            AND d.superseded = 0 AND graphrag_marked('document', d.doc_id, d.version, NULL)) THEN
                RETURN NULL;
              END IF;
              RAISE EXCEPTION {_REFUSED}, MESSAGE = 'a version is superseded only by the newer version its '
                'transaction stores (graphrag ingest): ' || NEW.doc_id || ' version ' || NEW.version;
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
                'the Review page)' {_REFUSED};
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_removed_only() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF {trusted} OR graphrag_marked('removal', OLD.doc_id, OLD.version, NULL) THEN
                RETURN OLD;
              END IF;
              RAISE EXCEPTION 'a document version''s rows are deleted only by its removal (graphrag remove)'
                {_REFUSED};
            END $$""",
        # a version's sentences, file, layout, mentions and relations: only with the version (the old row's
        # version too, for an UPDATE)
        f"""CREATE OR REPLACE FUNCTION graphrag_with_version() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF NOT graphrag_may_add(current_user, 'document', NEW.doc_id, NEW.version, NULL) OR (TG_OP = 'UPDATE'
                 AND NOT graphrag_may_add(current_user, 'document', OLD.doc_id, OLD.version, NULL)) THEN
                RAISE EXCEPTION {_REFUSED}, MESSAGE = 'a document version''s ' || TG_TABLE_NAME || ' are written '
                  'only with the version itself (graphrag ingest), never added to a stored one: ' || NEW.doc_id
                  || ' version ' || NEW.version;
              END IF;
              RETURN NEW;
            END $$""",
        f"""CREATE OR REPLACE FUNCTION graphrag_with_answer() RETURNS trigger LANGUAGE plpgsql {path} AS $$
            BEGIN
              IF NOT graphrag_may_add(current_user, 'answer', NULL, NULL, NEW.answer_id) OR (TG_OP = 'UPDATE'
                 AND NOT graphrag_may_add(current_user, 'answer', NULL, NULL, OLD.answer_id)) THEN
                RAISE EXCEPTION {_REFUSED}, MESSAGE = 'an answer''s ' || TG_TABLE_NAME || ' are written only '
                  'with the answer itself, never added to a stored one: answer ' || NEW.answer_id;
              END IF;
              RETURN NEW;
            END $$""",
        # The document versions an answer drew on, as removals._answers_drawing_on reads them: its context
        # sentences, each route step's sentence and the version stating each relation on its routes (context
        # routes and the walk's reached routes).
        f"""CREATE OR REPLACE FUNCTION graphrag_answer_sources(aid bigint) RETURNS TABLE (doc_id text, version integer)
            LANGUAGE sql STABLE {path} AS $$
            WITH routes AS (
              SELECT ci.route::jsonb AS r FROM context_items ci WHERE ci.answer_id = aid
              UNION ALL
              SELECT x FROM answers a, jsonb_array_elements(CASE WHEN jsonb_typeof(a.reached::jsonb) = 'array'
                THEN a.reached::jsonb ELSE '[]'::jsonb END) x WHERE a.id = aid
            ), steps AS (
              SELECT s FROM routes, jsonb_array_elements(CASE WHEN jsonb_typeof(r->'steps') = 'array'
                THEN r->'steps' ELSE '[]'::jsonb END) s WHERE jsonb_typeof(s) = 'array'
            )
            SELECT ci.doc_id, ci.version FROM context_items ci WHERE ci.answer_id = aid
            UNION
            SELECT s->>4, (s->>5)::integer FROM steps WHERE s->>4 IS NOT NULL AND s->>5 ~ '^-?[0-9]{{1,9}}$'
            UNION
            SELECT rel.doc_id, rel.version FROM relations rel WHERE rel.id IN (
              SELECT (s->>0)::bigint FROM steps WHERE s->>0 ~ '^[0-9]{{1,18}}$') $$""",
        # Runs as the owner (the application role may not UPDATE answers or claims): blanks an answer that
        # drew on a removed document, as removals.withdraw_answers does on SQLite. Only for an answer the
        # transaction's remove audit row lists and that drew on a version whose removals row this transaction
        # wrote (and which it must then really delete: graphrag_removal_done, at commit).
        f"""CREATE OR REPLACE FUNCTION graphrag_withdraw_answer(aid bigint) RETURNS void LANGUAGE plpgsql
            SECURITY DEFINER {path} AS $$
            BEGIN
              IF NOT EXISTS (SELECT 1 FROM graphrag_audited(ARRAY['remove']) d
                             WHERE (d->'answers') @> to_jsonb(aid)) THEN
                RAISE EXCEPTION 'an answer is withdrawn only by a removal that lists it in its audit row'
                  {_REFUSED};
              END IF;
              IF NOT EXISTS (SELECT 1 FROM graphrag_answer_sources(aid) src
                             WHERE graphrag_marked('removal', src.doc_id, src.version, NULL)) THEN
                RAISE EXCEPTION 'an answer is withdrawn only by the removal of a document version it drew on'
                  {_REFUSED};
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


__all__ = ["ANSWER_TABLES", "FREE_META_KEYS", "PER_VERSION_TABLES", "VERSION_TABLES", "install"]
