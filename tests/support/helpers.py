"""Test helpers: the reference case as scripted extraction, a scripted checker, small corpora."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from doubles.extract import ScriptedExtractor, ScriptEntity, ScriptRelation
from graphrag.access.identity import VIA_CLI, local_principal
from graphrag.ingest.documents import Source
from graphrag.model import (
    Answer,
    AskSettings,
    AuditEvent,
    Citation,
    Claim,
    ContextItem,
    Route,
    RouteStep,
    Seed,
    Support,
    SupportLabel,
)
from graphrag.store import DocumentWrite, Store
from graphrag.verify.support.base import SupportQuery

# The reference notebook's handbook, reduced to what the faults need.
POLICY = """# Export policy

Cancellation triggers a final export of the account.
Exports use the latest snapshot.
Exports are related to snapshots through the nightly job.
Snapshots follow the retention policy.
Snapshot exports remain available for 30 days after an account is cancelled.
"""
OLD_FAQ = """# FAQ (2023)

Exports are deleted 7 days after cancellation.
"""
INTERNAL = """# Internal notes

Exports are encrypted with the Falcon key.
"""

ADMIN = local_principal(["public"], via=VIA_CLI)  # who acts in tests that change the record (audited)
# The audit row of a verdict a test appends with the store's own method (every verdict comes with one).
VERDICT_BY_HAND = AuditEvent("verdict", None, None, {"via": "python", "mode": "local"})


def reference_extractor() -> ScriptedExtractor:
    """Four entities and four relations (two between Export and Snapshot) plus the FAQ's mention."""
    return ScriptedExtractor(
        entities=[
            ScriptEntity("Cancellation", "Cancellation triggers", description="ends the subscription"),
            ScriptEntity("Export", "Cancellation triggers", description="a copy of account data (policy)"),
            ScriptEntity("Snapshot", "latest snapshot", description="nightly copy"),
            ScriptEntity("Retention", "retention policy", description="how long copies are kept"),
            ScriptEntity("Exports", "deleted 7 days", description="deleted after 7 days (old FAQ)"),
            ScriptEntity("Export", "Falcon key", description="encrypted export (internal)"),
            ScriptEntity("Falcon key", "Falcon key", description="internal key"),
        ],
        relations=[
            ScriptRelation("Cancellation", "trigger", "Export", "Cancellation triggers"),
            ScriptRelation("Exports", "use", "Snapshot", "latest snapshot"),
            ScriptRelation("Export", "related to", "Snapshots", "related to snapshots"),
            ScriptRelation("Snapshots", "follow", "Retention", "retention policy"),
            ScriptRelation("Export", "encrypted with", "Falcon key", "Falcon key"),
        ],
    )


def write_corpus(root: Path, docs: dict[str, str], manifest: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (root / name).write_text(text, encoding="utf-8")
    if manifest is not None:
        (root / "manifest.toml").write_text(manifest, encoding="utf-8")
    return root


REFERENCE_MANIFEST = """
[[documents]]
file = "policy.md"
id = "policy"
title = "Export policy"
effective_date = "2026-05-01"

[[documents]]
file = "faq.md"
id = "faq"
title = "FAQ"
effective_date = "2023-02-01"

[[documents]]
file = "internal.md"
id = "internal"
title = "Internal notes"
access = ["internal"]
"""


def reference_corpus(root: Path) -> Path:
    return write_corpus(root, {"policy.md": POLICY, "faq.md": OLD_FAQ, "internal.md": INTERNAL}, REFERENCE_MANIFEST)


class CountingEmbedder:
    """Wraps an embedder and counts the texts it encodes (to prove work is not repeated)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.encode(texts, batch_size)


class ScriptedChecker:
    """Scores by word overlap: enough to drive the pipeline without depending on a fitted model."""

    name = "scripted-checker"
    threshold = 0.5

    def __init__(self, unscorable: str | None = None) -> None:
        self.unscorable = unscorable
        self.queries: list[SupportQuery] = []

    def check(self, queries: Sequence[SupportQuery]) -> list[Support | None]:
        self.queries.extend(queries)
        out: list[Support | None] = []
        for q in queries:
            if self.unscorable and self.unscorable in q.claim:
                out.append(None)
                continue
            cw = {w.lower().strip(".,") for w in q.claim.split()}
            ew = {w.lower().strip(".,") for w in q.evidence.split()}
            score = len(cw & ew) / max(len(cw), 1)
            label = SupportLabel.SUPPORTED if score >= self.threshold else SupportLabel.NOT_SUPPORTED
            out.append(Support(score, label, self.name, f"{score:.0%} of claim words in source"))
        return out


# --- a store written directly, without models ---------------------------------------------

PUBLIC_TEXT = "Snapshot exports remain available for 30 days."
INTERNAL_TEXT = "Exports are encrypted with the Falcon key."


def write_document_rows(store: Store, doc_id: str, text: str, access: tuple[str, ...], entities: list[str],
                        relations: list[tuple[str, str, str]]) -> None:
    """One single-sentence document version with these entities and (source, type, target) relations."""
    src = Source(doc_id, doc_id.title(), text, access=access)
    store.write_document(DocumentWrite(
        src.as_document(), "scripted", "ok", [(0, len(text), text)], None,
        [(e, e.title(), "thing") for e in entities], {}, [(e, 0, "", False) for e in entities],
        [(s, t, ty, "", 0) for s, ty, t in relations]))


def internal_route_answer(store: Store) -> Answer:
    """A stored answer whose one context sentence is public but was reached through a relation
    stated only in an internal document (export -encrypted with-> falcon key). No model needed."""
    write_document_rows(store, "policy", PUBLIC_TEXT, ("public",), ["falcon key", "snapshot"], [])
    write_document_rows(store, "ops", INTERNAL_TEXT, ("internal",), ["export", "falcon key"],
                        [("export", "encrypted with", "falcon key")])
    rel = store.all_relations()[0]
    assert rel.span.document_id == "ops"
    span = store.span("policy", 1, 0)
    assert span is not None
    route = Route("export", (RouteStep(rel.id, rel.type, "falcon key", True),))
    item = ContextItem(1, span, route, 0.8, "mention")
    claim = Claim(0, PUBLIC_TEXT, 0, len(PUBLIC_TEXT) + 4, (Citation("1", True, item),))
    answer = Answer("How long are exports kept?", AskSettings(access=("internal", "public")),
                    PUBLIC_TEXT + " [1]", (Seed("export", 0.9),), (route,), (item,), (claim,))
    stored = store.answer(store.save_answer(answer))
    assert stored is not None
    return stored


@contextmanager
def store_of_release(store_url: str, version: int, monkeypatch) -> Iterator[Store]:  # monkeypatch: pytest's MonkeyPatch
    """A store as the release at schema ``version`` wrote it: migrations after it unknown, and
    one answer with one verdict (by "old") in raw rows, since today's write paths need later tables."""
    from graphrag.store import db, schema

    with monkeypatch.context() as m:
        for step in [k for k in schema.MIGRATIONS if k > version]:
            m.delitem(schema.MIGRATIONS, step)
        m.setattr(db, "SCHEMA_VERSION", version)
        with Store(store_url) as old:
            if version < 5:  # v1 builds verdicts from today's Table: take v5's identity columns off
                for col in ("subject", "email"):
                    old._write(lambda c, col=col: c.exec_driver_sql(f"ALTER TABLE verdicts DROP COLUMN {col}"))
            old._write(lambda c: c.exec_driver_sql(
                "INSERT INTO answers (question, settings, text, status, generator, seeds, reached, created_at) "
                "VALUES ('q', '{}', '', 'cited', 'extractive', '[]', '[]', '2026-01-01T00:00:00')"))
            old._write(lambda c: c.exec_driver_sql(
                "INSERT INTO verdicts (answer_id, claim_idx, span_sha256, verdict, reviewer, note, created_at) "
                "SELECT max(id), 0, 'x', 'supported', 'old', '', '2026-01-01T00:00:00' FROM answers"))
            yield old
