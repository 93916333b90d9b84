"""The ollama extractor inside the ingest pipeline, on the wire to a fake Ollama server.

Faults: the server stops mid-ingest (that document fails, the others go on, a re-run resumes
without resending cached chunks); no server at all is "model unavailable", never "0 entities".
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from graphrag.ingest.extract.ollama import OllamaExtractor
from graphrag.ingest.pipeline import Ingestor
from helpers import write_corpus
from ollama_fake import FakeOllama
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit
FAST = {"timeout": 5.0, "retries": 1, "backoff": 0.01, "chunk_sentences": 2}


def reply(request: dict[str, Any]) -> str:
    """An entity for each capitalised word of each numbered sentence."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    entities = [{"name": w, "type": "concept", "description": text, "sentence": int(n)}
                for n, text in re.findall(r"^\[(\d+)\] (.*)$", user, flags=re.M)
                for w in re.findall(r"\b[A-Z][a-z]{3,}\b", text)]
    return json.dumps({"entities": entities, "relations": []})


@pytest.fixture()
def embedder() -> HashEmbedder:
    """These tests are about extraction on the wire; how sentences are embedded does not matter."""
    return HashEmbedder()


DOCS = {
    "a.md": "Alpha uses Beta. Beta feeds Gamma. Gamma stores Delta. Delta reads Epsilon.\n",
    "b.md": "Zeta calls Theta. Theta owns Iota.\n",
    "c.md": "Kappa meets Lambda.\n",
}


def test_no_server_reports_model_unavailable_for_every_document(store, embedder, tmp_path, dead_host):
    x = OllamaExtractor(host=dead_host, **FAST)
    report = Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "c", DOCS)])
    assert {d.status for d in report.documents} == {"model_unavailable"}
    assert all("ollama serve" in (d.error or "") for d in report.documents)
    assert store.counts()["documents"] == 0


def test_server_stops_mid_ingest_then_rerun_resumes_from_cache(store, embedder, tmp_path, fake_ollama: FakeOllama):
    fake_ollama.responder = reply
    fake_ollama.stop_after = 1  # answers a.md's first chunk, then goes down
    corpus = write_corpus(tmp_path / "c", DOCS)
    x = OllamaExtractor(host=fake_ollama.url, cache=store.reply_cache(), **FAST)
    first = Ingestor(store, x, embedder).ingest_paths([corpus])
    status = {d.id: d.status for d in first.documents}
    assert status["a"] == "failed" and status["b"] == status["c"] == "model_unavailable"
    assert store.counts()["documents"] == 0  # nothing half-written
    sent_before = fake_ollama.calls
    fake_ollama.stop_after = None
    fake_ollama.start()
    second = Ingestor(store, x, embedder).ingest_paths([corpus])
    assert {d.status for d in second.documents} == {"ok"}
    # a.md has 2 chunks, one cached; b.md and c.md one chunk each: 3 new calls, not 4
    assert fake_ollama.calls - sent_before == 3
    assert store.entity("epsilon") is not None
    third = Ingestor(store, x, embedder).ingest_paths([corpus])
    assert {d.status for d in third.documents} == {"unchanged"}
    assert fake_ollama.calls - sent_before == 3


def test_changed_document_only_resends_changed_chunks(store, embedder, tmp_path, fake_ollama: FakeOllama):
    fake_ollama.responder = reply
    x = OllamaExtractor(host=fake_ollama.url, cache=store.reply_cache(), **FAST)
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "v1", {"a.md": DOCS["a.md"]})])
    assert fake_ollama.calls == 2
    changed = DOCS["a.md"].replace("Delta reads Epsilon", "Delta reads Omega")
    report = Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "v2", {"a.md": changed})])
    assert report.documents[0].version == 2 and fake_ollama.calls == 3
