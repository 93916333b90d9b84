"""OllamaExtractor (and the shared Ollama plumbing) against a fake Ollama server.

The real ``ollama`` client makes every request over HTTP to tests/support/ollama_fake.py.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from graphrag.config import Config
from graphrag.errors import BackendFailed, ModelUnavailable
from graphrag.ingest.extract import make_extractor
from graphrag.ingest.extract.base import MemoryCache
from graphrag.ingest.extract.ollama import PROMPT_VERSION, REPLY_SCHEMA, OllamaExtractor
from graphrag.language.sentences import split_sentences
from graphrag.model import ExtractionStatus
from graphrag.ollama_util import (
    DEFAULT_HOST,
    OllamaChat,
    is_pulled,
    ollama_status,
    pull_hint,
    resolve_host,
)
from ollama_fake import FakeOllama, Reply

pytestmark = pytest.mark.unit

DOC = (
    "Export writes a snapshot every night. "
    "Snapshot files are kept by Retention. "
    "Retention deletes files after 30 days. "
    "Cancellation stops the Export job. "
    "Support answers questions about Billing."
)
SENTENCES = split_sentences(DOC)
FAST = {"timeout": 5.0, "retries": 2, "backoff": 0.01}


def numbered(request: dict[str, Any]) -> dict[int, str]:
    """The "[n] sentence" lines of the user message the extractor sent."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return {int(n): text for n, text in re.findall(r"^\[(\d+)\] (.*)$", user, flags=re.MULTILINE)}


def first_word_reply(request: dict[str, Any]) -> str:
    """One entity per sentence (its first word) and a relation to the second capitalised word."""
    entities, relations = [], []
    for n, text in numbered(request).items():
        words = re.findall(r"[A-Z][a-z]+", text)
        entities.append({"name": words[0], "type": "concept", "description": text, "sentence": n})
        if len(words) > 1:
            relations.append(
                {"source": words[0], "target": words[1], "type": "mentions", "description": "", "sentence": n}
            )
    return json.dumps({"entities": entities, "relations": relations})


def extractor(fake: FakeOllama, **kw: Any) -> OllamaExtractor:
    return OllamaExtractor(host=fake.url, **{**FAST, "chunk_sentences": 2, "num_ctx": 4096, **kw})


# --- good replies -------------------------------------------------------------------------


def test_maps_chunk_numbers_to_document_sentences(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = first_word_reply
    result = extractor(fake_ollama).extract(SENTENCES)

    assert result.status is ExtractionStatus.OK
    assert result.extractor == "ollama:llama3.1:8b"
    assert result.model_calls == fake_ollama.calls == 3  # 5 sentences, 2 per chunk
    for e in result.entities:
        assert SENTENCES[e.sentence_index].text.startswith(e.name), e
    assert [e.sentence_index for e in result.entities] == [0, 1, 2, 3, 4]
    by_source = {r.source: r for r in result.relations}
    assert by_source["Cancellation"].target == "Export"
    assert by_source["Cancellation"].sentence_index == 3  # chunk 2, local sentence 2


def test_sends_schema_options_and_numbered_sentences(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = first_word_reply
    extractor(fake_ollama).extract(SENTENCES)

    request = fake_ollama.requests[1]
    assert request["model"] == "llama3.1:8b"
    assert request["format"] == REPLY_SCHEMA
    assert request["options"]["num_ctx"] == 4096
    assert request["options"]["temperature"] == 0
    assert request["stream"] is False
    assert numbered(request) == {1: SENTENCES[2].text, 2: SENTENCES[3].text}


def test_drops_out_of_range_numbers_empty_names_and_junk(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: json.dumps(
        {
            "entities": [
                {"name": "Export", "type": "job", "description": "", "sentence": "1"},  # digits as text: ok
                {"name": "Ghost", "type": "x", "description": "", "sentence": 7},  # past the chunk
                {"name": "Zero", "type": "x", "description": "", "sentence": 0},
                {"name": "  ", "type": "x", "description": "", "sentence": 1},  # empty name
                "not an object",
                {"name": "Snapshot", "sentence": 2},  # missing type/description: defaults
            ],
            "relations": [
                {"source": "Export", "target": "", "type": "uses", "description": "", "sentence": 1},
                {"source": "Export", "target": "Snapshot", "type": "writes", "sentence": True},  # bool
                {"source": "Export", "target": "Snapshot", "type": "writes", "sentence": 1},
            ],
        }
    )
    ex = extractor(fake_ollama, chunk_sentences=24)
    result = ex.extract(SENTENCES)

    assert result.status is ExtractionStatus.OK
    entities = [(e.name, e.type, e.sentence_index) for e in result.entities]
    assert entities == [("Export", "job", 0), ("Snapshot", "concept", 1)]
    relations = [(r.source, r.type, r.target, r.sentence_index) for r in result.relations]
    assert relations == [("Export", "writes", "Snapshot", 0)]
    assert ex.last_dropped == 6


def test_empty_reply_is_nothing_found(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: '{"entities": [], "relations": []}'
    result = extractor(fake_ollama).extract(SENTENCES)
    assert result.status is ExtractionStatus.NOTHING_FOUND
    assert result.model_calls == 3
    assert result.error is None


def test_empty_document_makes_no_call(fake_ollama: FakeOllama) -> None:
    result = extractor(fake_ollama).extract([])
    assert result.status is ExtractionStatus.NOTHING_FOUND
    assert fake_ollama.calls == 0


# --- failures -----------------------------------------------------------------------------


def test_malformed_json_fails_after_bounded_retries(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: "Sure! Here are the entities: Export, Snapshot"
    result = extractor(fake_ollama, retries=2).extract(SENTENCES)

    assert result.status is ExtractionStatus.FAILED
    assert "malformed" in (result.error or "") and "3 tries" in (result.error or "")
    assert result.entities == () and result.relations == ()
    assert result.model_calls == fake_ollama.calls == 3  # first chunk only, 1 + 2 retries


def test_wrong_shape_is_malformed(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: '{"entities": "Export, Snapshot"}'
    result = extractor(fake_ollama, retries=0).extract(SENTENCES)
    assert result.status is ExtractionStatus.FAILED
    assert fake_ollama.calls == 1


def test_malformed_then_good_reply_recovers(fake_ollama: FakeOllama) -> None:
    replies = iter(["{not json"])
    fake_ollama.responder = lambda req: next(replies, None) or first_word_reply(req)
    result = extractor(fake_ollama, chunk_sentences=24).extract(SENTENCES)
    assert result.status is ExtractionStatus.OK
    assert result.model_calls == 2


def test_model_not_pulled_names_the_pull_command(fake_ollama: FakeOllama) -> None:
    fake_ollama.models = ["mistral:7b"]
    result = extractor(fake_ollama, model="qwen2.5:7b").extract(SENTENCES)

    assert result.status is ExtractionStatus.MODEL_UNAVAILABLE
    assert "ollama pull qwen2.5:7b" in (result.error or "")
    assert fake_ollama.calls == 1  # "not found" is never retried


def test_server_down_is_model_unavailable_not_nothing_found(dead_host: str) -> None:
    result = OllamaExtractor(host=dead_host, **FAST).extract(SENTENCES)

    assert result.status is ExtractionStatus.MODEL_UNAVAILABLE
    assert dead_host in (result.error or "")
    assert "ollama serve" in (result.error or "")
    assert result.model_calls == 1


def test_timeout_fails_after_bounded_retries_quickly(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = first_word_reply
    fake_ollama.delay = 2.0
    started = time.monotonic()
    result = extractor(fake_ollama, timeout=0.2, retries=1).extract(SENTENCES)

    assert time.monotonic() - started < 1.5
    assert result.status is ExtractionStatus.FAILED
    assert "no reply within 0.2s" in (result.error or "") and "2 tries" in (result.error or "")
    assert fake_ollama.calls == 2


@pytest.mark.parametrize(
    "first",
    [
        Reply(status=500, error="llama runner process has terminated"),
        Reply(drop=True),
        Reply(raw="<html>oops"),
    ],
    ids=["server-error", "connection-reset", "non-json-body"],
)
def test_transient_errors_are_retried(fake_ollama: FakeOllama, first: Reply) -> None:
    replies = iter([first])
    fake_ollama.responder = lambda req: next(replies, None) or first_word_reply(req)
    result = extractor(fake_ollama, chunk_sentences=24).extract(SENTENCES)
    assert result.status is ExtractionStatus.OK
    assert result.model_calls == 2


# --- cache --------------------------------------------------------------------------------


def test_unchanged_text_makes_no_calls_and_changed_chunk_calls_once(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = first_word_reply
    cache = MemoryCache()
    ex = extractor(fake_ollama, cache=cache)
    first = ex.extract(SENTENCES)
    assert first.model_calls == 3 and len(cache.data) == 3

    again = extractor(fake_ollama, cache=cache).extract(SENTENCES)
    assert again.model_calls == 0 and fake_ollama.calls == 3
    assert again.entities == first.entities and again.relations == first.relations

    changed = split_sentences(DOC.replace("after 30 days.", "after 90 days."))
    third = ex.extract(changed)
    assert third.model_calls == 1 and fake_ollama.calls == 4
    assert "90 days" in fake_ollama.chat_contents()[-1]
    assert third.status is ExtractionStatus.OK


def test_cache_key_depends_on_model_prompt_version_and_text(fake_ollama: FakeOllama) -> None:
    a = extractor(fake_ollama)
    b = extractor(fake_ollama, model="mistral:7b")
    chunk = SENTENCES[:2]
    assert a.cache_key(chunk) == extractor(fake_ollama).cache_key(chunk)
    assert a.cache_key(chunk) != b.cache_key(chunk)
    assert a.cache_key(chunk) != a.cache_key(SENTENCES[1:3])
    assert PROMPT_VERSION


def test_server_stopping_mid_document_fails_and_rerun_sends_only_uncached(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = first_word_reply
    fake_ollama.stop_after = 1
    cache = MemoryCache()
    result = extractor(fake_ollama, cache=cache).extract(SENTENCES)

    assert result.status is ExtractionStatus.FAILED
    assert "chunk 2 of 3" in (result.error or "") and "ollama serve" in (result.error or "")
    assert result.entities == ()
    assert len(cache.data) == 1

    fake_ollama.stop_after = None
    fake_ollama.start()
    sent_before = fake_ollama.calls
    rerun = extractor(fake_ollama, cache=cache).extract(SENTENCES)
    assert rerun.status is ExtractionStatus.OK
    assert rerun.model_calls == 2 and fake_ollama.calls - sent_before == 2
    resent = " ".join(fake_ollama.chat_contents()[sent_before:])
    assert SENTENCES[0].text not in resent and SENTENCES[2].text in resent
    assert [e.sentence_index for e in rerun.entities] == [0, 1, 2, 3, 4]


def test_registry_builds_the_ollama_extractor(fake_ollama: FakeOllama) -> None:
    ex = make_extractor("ollama", host=fake_ollama.url, model="llama3.1:8b")
    assert isinstance(ex, OllamaExtractor) and ex.name == "ollama:llama3.1:8b"


# --- shared plumbing (graphrag.ollama_util) -----------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("0.0.0.0:11434", "http://127.0.0.1:11434"),
        ("gpu-box:8080", "http://gpu-box:8080"),
        ("gpu-box", "http://gpu-box:11434"),
        (":5000", "http://127.0.0.1:5000"),
        ("https://ollama.internal/", "https://ollama.internal:443"),
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
    ],
)
def test_resolve_host_forms(given: str, expected: str) -> None:
    assert resolve_host(given) == expected


def test_resolve_host_takes_the_configured_host_else_the_default() -> None:
    assert resolve_host(None) == DEFAULT_HOST
    assert resolve_host(Config.from_env({"OLLAMA_HOST": "0.0.0.0:9999"}).ollama_host) == "http://127.0.0.1:9999"
    assert resolve_host("other:1") == "http://other:1"


def test_status_lists_pulled_models(fake_ollama: FakeOllama) -> None:
    status = ollama_status(fake_ollama.url)
    assert status.reachable and status.error is None
    assert status.models == ("bespoke-minicheck:latest", "llama3.1:8b")
    assert status.has("bespoke-minicheck") and not status.has("llama3.1")


def test_status_of_dead_server(dead_host: str) -> None:
    status = ollama_status(dead_host, timeout=1.0)
    assert not status.reachable and status.models == ()
    assert "ollama serve" in (status.error or "")


def test_pulled_names_and_hint() -> None:
    assert is_pulled("llama3.1", ["llama3.1:latest"])
    assert is_pulled("llama3.1:latest", ["llama3.1"])
    assert not is_pulled("llama3.1", ["llama3.1:8b"])
    assert pull_hint("bespoke-minicheck") == "ollama pull bespoke-minicheck"


def test_client_errors_are_not_retried(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: Reply(status=400, error="invalid format")
    chat = OllamaChat("llama3.1:8b", fake_ollama.url, retries=3, backoff=0.01)
    with pytest.raises(BackendFailed, match="400"):
        chat.ask([{"role": "user", "content": "hi"}])
    assert fake_ollama.calls == chat.calls == 1


def test_unavailable_error_carries_backend_and_model(fake_ollama: FakeOllama) -> None:
    fake_ollama.models = []
    chat = OllamaChat("llama3.1:8b", fake_ollama.url, backend="ollama:llama3.1:8b")
    with pytest.raises(ModelUnavailable) as caught:
        chat.ask([{"role": "user", "content": "hi"}])
    assert caught.value.model == "llama3.1:8b" and caught.value.backend == "ollama:llama3.1:8b"
