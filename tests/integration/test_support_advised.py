"""A model judge advises; the embedded checker decides (fake Ollama server, scripted replies; MiniLM).

Before: with the Ollama checker chosen, its "Yes" labelled a claim supported, so a judge that obeyed a line planted
in a document marked a fabricated claim supported.
"""

from __future__ import annotations

import pytest

from graphrag.model import SupportLabel
from graphrag.store import Store
from graphrag.store.codec import support, support_json
from graphrag.verify.support import checker_for_store
from graphrag.verify.support.base import SupportQuery
from ollama_fake import FakeOllama

pytestmark = pytest.mark.model

CLAIM = "Acme acquired Globex in 2024."
EVIDENCE = "Export writes a snapshot every night."


def test_an_obeying_judge_is_advice_and_the_embedded_score_decides(store: Store, fake_ollama: FakeOllama) -> None:
    fake_ollama.responder = lambda req: "Yes"  # told by the text to agree with everything
    checker = checker_for_store("ollama", store, host=fake_ollama.url, timeout=5.0, backoff=0.01)
    (result,) = checker.check([SupportQuery(CLAIM, EVIDENCE)])

    assert result is not None and result.checker.startswith("embedded")
    assert result.label is SupportLabel.NOT_SUPPORTED
    assert result.advisory is not None and result.advisory.label is SupportLabel.SUPPORTED
    assert result.advisory.checker == "ollama:bespoke-minicheck"
    assert support(support_json(result)) == result  # kept with the answer, advice included


def test_a_judge_that_cannot_run_leaves_the_embedded_score_and_says_so(store: Store, dead_host: str) -> None:
    checker = checker_for_store("ollama", store, host=dead_host, timeout=2.0, backoff=0.01, retries=0)
    (result,) = checker.check([SupportQuery(CLAIM, EVIDENCE)])
    assert result is not None and result.advisory is None
    assert result.label is SupportLabel.NOT_SUPPORTED and "model judge ollama:bespoke-minicheck not asked" in \
        result.reason
