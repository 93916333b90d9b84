"""Stores seeded with documents, answers and verdicts, shared by several test files (each imported them from
another test module while tests/ was one folder)."""

from __future__ import annotations

from pathlib import Path

from doubles.generate import ScriptedGenerator
from graphrag.answer.ask import Asker
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, Support, SupportLabel
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.store.documents import DocumentWrite
from graphrag.verify.review import record_verdict
from helpers import ScriptedChecker
from proc_helpers import HashEmbedder, PatternExtractor


def ingest_patterns(store: Store, *docs: tuple[str, str]) -> list[str]:
    """(doc id, text) pairs ingested by the pattern extractor; each document's status."""
    report = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([Source(i, i.title(), t) for i, t in docs])
    return [d.status for d in report.documents]


def scripted_answer(store: Store) -> Answer:
    """A stored answer of two cited claims on ``doc_text`` documents (questions left unparsed by the caller)."""
    asker = Asker(store, embedder=HashEmbedder(), generator=ScriptedGenerator("Alpha1 uses Beacon [1]. It runs [2]."),
                  checker=ScriptedChecker())
    return asker.ask("What does Alpha1 use?", AskSettings(min_relevance=0.0)).answer


def seed_store(path: Path | str, corpus: Path) -> int:
    """A store with the corpus and one answer with three cited claims; returns its id."""
    with Store(path) as s:
        Ingestor(s, PatternExtractor(), HashEmbedder()).ingest_paths([corpus])
        gen = ScriptedGenerator("Alpha0 uses Beacon1 [1]. Beacon1 follows Cobalt2 [2]. It is kept [3].")
        # min_relevance 0: the relevance floor is set for MiniLM's similarities, not the hash embedder's.
        a = Asker(s, embedder=HashEmbedder(), generator=gen, checker=ScriptedChecker()).ask(
            "What does Alpha0 use?", AskSettings(min_relevance=0.0)).answer
        assert a.id is not None and len(a.claims) == 3
        return a.id


def recorded_answer(store: Store, scores: list[float], doc: str = "policy",
                    access: tuple[str, ...] = ("public",)) -> Answer:
    """An answer written straight into the store, one claim per checker score, each citing ``doc``'s first span."""
    span = store.span(doc, 1, 0)
    assert span is not None
    item = ContextItem(1, span, Route("export" if doc == "policy" else "vault"), 0.9, "similarity")
    claims = tuple(Claim(i, f"claim {i}", 0, 1, (Citation("1", True, item),),
                         support=Support(s, SupportLabel.SUPPORTED if s >= 0.5 else SupportLabel.NOT_SUPPORTED,
                                         "embedded", "test")) for i, s in enumerate(scores))
    a = Answer("How long are exports kept?", AskSettings(access=access), "x", (), (), (item,), claims)
    stored = store.answer(store.save_answer(a))
    assert stored is not None
    return stored


def judge(store: Store, answer: Answer, reviewer: str, labels: list[V]) -> None:
    """The reviewer's verdict on each claim in turn (None: no verdict)."""
    for claim, label in zip(answer.claims, labels):
        if label is not None:
            record_verdict(store, answer, claim, claim.citations[0], label, reviewer)


def write_version(store: Store, sentences: list[str], doc_id: str = "policy") -> None:
    """A new version of ``doc_id`` made of these sentences (its first names the entity "export", where answers'
    routes start)."""
    text, rows, at = "", [], 0
    for s in sentences:
        rows.append((at, at + len(s), s))
        text += s + " "
        at = len(text)
    store.write_document(DocumentWrite(Source(doc_id, doc_id.title(), text.strip()).as_document(), "scripted", "ok",
                                       rows, None, [("export", "Export", "thing")], {}, [("export", 0, "", False)],
                                       []))


def answer_citing(store: Store, claim_texts: list[str], version: int = 1, sentence: int = 0,
                  question: str = "How long are exports kept?") -> Answer:
    """An answer whose claims (these words) each cite sentence ``sentence`` of ``policy`` version ``version``."""
    span = store.span("policy", version, sentence)
    assert span is not None
    item = ContextItem(1, span, Route("export"), 0.9, "similarity")
    claims = tuple(Claim(i, t, 0, 1, (Citation("1", True, item),)) for i, t in enumerate(claim_texts))
    stored = store.answer(store.save_answer(Answer(question, AskSettings(), "x", (), (), (item,), claims)))
    assert stored is not None
    return stored
