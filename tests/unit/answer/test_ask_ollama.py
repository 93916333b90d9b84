"""Ask with the ollama generator, on the wire to a fake Ollama server: markers are resolved
by attribution whatever the model writes, and a missing model is reported as such."""

from __future__ import annotations

import pytest

from graphrag.answer.ask import Asker
from graphrag.answer.generate.ollama import OllamaGenerator
from graphrag.errors import ModelUnavailable
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import ClaimFlag
from helpers import ScriptedChecker, reference_corpus, reference_extractor
from ollama_fake import FakeOllama
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit


@pytest.fixture()
def embedder(unparsed_questions: None) -> HashEmbedder:
    """What these tests check happens after retrieval: the hash embedder finds the context, no
    model is loaded, and questions are not parsed for anchors."""
    return HashEmbedder()


@pytest.fixture()
def ref_store(store, embedder, tmp_path):
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    return store


def ask(store, embedder, fake: FakeOllama, reply: str):
    fake.responder = lambda req: reply
    gen = OllamaGenerator(model="llama3.1:8b", host=fake.url, timeout=5.0, retries=0)
    return Asker(store, embedder=embedder, generator=gen, checker=ScriptedChecker()).ask("What do exports use?")


MARKER_FLAGS = (ClaimFlag.UNCITED, ClaimFlag.INVALID_MARKER, ClaimFlag.MALFORMED_MARKER)  # what attribution sets


@pytest.mark.parametrize("reply, flags", [
    ("Exports use the latest snapshot [1]. They follow retention [2].", [(), ()]),
    ("Exports use the latest snapshot. They follow retention.", [(ClaimFlag.UNCITED,), (ClaimFlag.UNCITED,)]),
    ("Exports use the latest snapshot [1]. They follow retention [99].", [(), (ClaimFlag.INVALID_MARKER,)]),
])
def test_generated_markers_are_resolved_by_attribution(ref_store, embedder, fake_ollama, reply, flags):
    fake_ollama.models = ["llama3.1:8b"]
    out = ask(ref_store, embedder, fake_ollama, reply)
    got = [tuple(f for f in c.flags if f in MARKER_FLAGS) for c in out.answer.claims]
    assert got == flags
    assert out.answer.text == reply and out.answer.generator_model == "llama3.1:8b"
    # the prompt carried the numbered span texts themselves
    prompt = " ".join(m["content"] for m in fake_ollama.requests[0]["messages"])
    assert out.answer.context[0].span.text in prompt


def test_model_missing_names_the_pull_command(ref_store, embedder, fake_ollama):
    fake_ollama.models = ["mistral:7b"]
    with pytest.raises(ModelUnavailable, match=r"ollama pull llama3\.1:8b"):
        ask(ref_store, embedder, fake_ollama, "unused")
