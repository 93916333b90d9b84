"""OllamaChecker (judge model) against the fake Ollama server."""

from __future__ import annotations

import math
from typing import Any

import pytest

from graphrag.errors import ModelUnavailable
from graphrag.model import SupportLabel
from graphrag.verify.support import make_checker
from graphrag.verify.support.base import SupportQuery
from graphrag.verify.support.ollama import GENERIC_SYSTEM, OllamaChecker, parse_verdict
from ollama_fake import FakeOllama, Reply

pytestmark = pytest.mark.unit

CLAIM = "Snapshots are deleted after 30 days."
EVIDENCE = "The retention job deletes snapshots after 30 days."
QUERY = SupportQuery(CLAIM, EVIDENCE, neighbours=("Exports run nightly.",))


def checker(fake: FakeOllama, **kw: Any) -> OllamaChecker:
    return OllamaChecker(host=fake.url, **{"timeout": 5.0, "backoff": 0.01, **kw})


def test_yes_is_supported_and_prompt_is_minicheck_form(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: "Yes"
    ch = checker(fake_ollama)
    [support] = ch.check([QUERY])

    assert support is not None
    assert support.score == 1.0 and support.label is SupportLabel.SUPPORTED
    assert support.checker == "ollama:bespoke-minicheck" == ch.name
    assert support.reason == "judge bespoke-minicheck answered Yes"
    request = fake_ollama.requests[0]
    assert request["model"] == "bespoke-minicheck"
    assert request["messages"] == [{"role": "user", "content": f"Document: {EVIDENCE}\nClaim: {CLAIM}"}]
    assert request["options"]["temperature"] == 0 and "num_ctx" in request["options"]


def test_no_is_not_supported(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: "No"
    [support] = checker(fake_ollama).check([QUERY])
    assert support is not None
    assert support.score == 0.0 and support.label is SupportLabel.NOT_SUPPORTED
    assert support.reason == "judge bespoke-minicheck answered No"


def test_off_format_twice_gives_none_after_one_stricter_retry(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: "The document mentions retention."
    assert checker(fake_ollama).check([QUERY]) == [None]
    assert fake_ollama.calls == 2
    retry = fake_ollama.requests[1]["messages"]
    assert retry[0]["role"] == "system" and "Yes or No" in retry[0]["content"]
    assert retry[-1]["content"] == f"Document: {EVIDENCE}\nClaim: {CLAIM}"


def test_off_format_then_answer_is_scored(fake_ollama: FakeOllama) -> None:
    replies = iter(["Maybe."])
    fake_ollama.responder = lambda req: next(replies, "No.")
    [support] = checker(fake_ollama).check([QUERY])
    assert support is not None and support.score == 0.0
    assert fake_ollama.calls == 2


def test_logprobs_give_a_probability(fake_ollama: FakeOllama) -> None:
    top = [{"token": "Yes", "logprob": math.log(0.8)}, {"token": "No", "logprob": math.log(0.2)}]
    first_token = {"token": "Yes", "logprob": math.log(0.8), "top_logprobs": top}
    fake_ollama.responder = lambda req: Reply("Yes", logprobs=[first_token])
    [support] = checker(fake_ollama, threshold=0.9).check([QUERY])

    assert support is not None
    assert support.score == pytest.approx(0.8)
    assert support.label is SupportLabel.NOT_SUPPORTED  # below this checker's threshold
    assert "P(yes) = 0.80" in support.reason
    assert fake_ollama.requests[0]["logprobs"] is True


def test_generic_chat_model_gets_yes_no_instruction(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: "Yes, the document says so."
    [support] = checker(fake_ollama, model="llama3.1:8b").check([QUERY])
    assert support is not None and support.label is SupportLabel.SUPPORTED
    messages = fake_ollama.requests[0]["messages"]
    assert messages[0] == {"role": "system", "content": GENERIC_SYSTEM}
    assert messages[1]["content"] == f"Document: {EVIDENCE}\nClaim: {CLAIM}"


def test_batch_keeps_order_and_judges_a_repeated_pair_once(fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: "Yes" if req["messages"][-1]["content"].endswith(CLAIM) else "No"
    other = SupportQuery("Exports run hourly.", EVIDENCE)
    results = checker(fake_ollama).check([QUERY, other, QUERY])
    assert [r.score if r else None for r in results] == [1.0, 0.0, 1.0]
    assert fake_ollama.calls == 2


def test_model_missing_names_the_pull_command(fake_ollama: FakeOllama) -> None:
    fake_ollama.models = ["llama3.1:8b"]
    with pytest.raises(ModelUnavailable, match="ollama pull bespoke-minicheck"):
        checker(fake_ollama).check([QUERY])
    assert fake_ollama.calls == 1


def test_server_down(dead_host: str) -> None:
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        OllamaChecker(host=dead_host).check([QUERY])


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Yes", True),
        ("no.", False),
        (" YES, because", True),
        ("Answer: yes", None),
        ("", None),
        ("Nope", None),
    ],
)
def test_parse_verdict(text: str, verdict: bool | None) -> None:
    assert parse_verdict(text) is verdict


def test_registry_builds_the_checker(fake_ollama: FakeOllama) -> None:
    ch = make_checker("ollama", host=fake_ollama.url)
    assert isinstance(ch, OllamaChecker) and ch.threshold == 0.5
