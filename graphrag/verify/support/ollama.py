"""Support checking with an Ollama judge model (default: bespoke-minicheck).

bespoke-minicheck is a fact-checking model trained on the exact prompt
"Document: {evidence}\\nClaim: {claim}" and answers "Yes" or "No"; any other chat model gets
a generic instruction to answer Yes or No only. When the server returns token log
probabilities (recent Ollama servers honour ``logprobs``; older ones ignore the field), the
score is P(yes) from the first token; otherwise Yes/No map to 1.0/0.0. An answer that is
neither, even after one stricter retry, gives ``None`` for that pair: the citation stays
"not checked".
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import ollama

from graphrag.model import Support, SupportLabel
from graphrag.ollama_util import DEFAULT_JUDGE_MODEL, OllamaChat, reply_text
from graphrag.verify.support.base import SupportQuery

log = logging.getLogger(__name__)

GENERIC_SYSTEM = (
    "You are a fact-checking judge. Decide whether the Document fully supports the Claim. "
    "Use only the Document. Answer with one word: Yes or No."
)
STRICT_SYSTEM = "Answer with exactly one word, Yes or No, and nothing else."
_TOP_LOGPROBS = 5


@dataclass(frozen=True)
class Judgement:
    """A judge model's yes/no, with its probability of yes when the server reports logprobs."""

    yes: bool
    p_yes: float | None  # from logprobs, when the server gave them


def is_minicheck(model: str) -> bool:
    """Whether ``model`` is a MiniCheck model, whose own template expects the bare user turn (no system
    prompt)."""
    return "minicheck" in model.lower()


def judge_prompt(claim: str, evidence: str) -> str:
    """The user turn every judge gets: the evidence as the document, then the claim (MiniCheck's format)."""
    return f"Document: {evidence}\nClaim: {claim}"


def parse_verdict(text: str) -> bool | None:
    """Yes -> True, No -> False, anything else -> None. Accepts "Yes." and "No, because..."."""
    words: list[str] = re.findall(r"[a-z]+", text.lower())
    if not words or words[0] not in ("yes", "no"):
        return None
    return words[0] == "yes"


def p_yes_from_logprobs(reply: ollama.ChatResponse) -> float | None:
    """P(yes) / (P(yes) + P(no)) over the first token's alternatives, when available."""
    if not reply.logprobs:
        return None
    first = reply.logprobs[0]
    alternatives = list(first.top_logprobs or []) or [first]
    mass = {"yes": 0.0, "no": 0.0}
    for alt in alternatives:
        word = alt.token.strip().lower()
        if word in mass:
            mass[word] += math.exp(alt.logprob)
    total = mass["yes"] + mass["no"]
    return mass["yes"] / total if total > 0 else None


class OllamaChecker:
    """SupportChecker backed by an Ollama judge. Raises ModelUnavailable / BackendFailed."""

    def __init__(
        self,
        model: str | None = None,
        host: str | None = None,
        timeout: float = 60.0,
        threshold: float = 0.5,
        num_ctx: int = 4096,
        retries: int = 2,
        backoff: float | None = None,
    ) -> None:
        self.model = model or DEFAULT_JUDGE_MODEL
        self.name = f"ollama:{self.model}"
        self.threshold = threshold
        extra = {} if backoff is None else {"backoff": backoff}
        self.chat = OllamaChat(
            self.model, host, timeout=timeout, retries=retries, num_ctx=num_ctx, backend=self.name, **extra
        )

    def check(self, queries: Sequence[SupportQuery]) -> list[Support | None]:
        """Judge each pair with the model, asking once per distinct (claim, evidence)."""
        seen: dict[tuple[str, str], Support | None] = {}  # the same pair is judged once
        out: list[Support | None] = []
        for q in queries:
            pair = (q.claim, q.evidence)
            if pair not in seen:
                seen[pair] = self._check_one(q)
            out.append(seen[pair])
        return out

    def _check_one(self, query: SupportQuery) -> Support | None:
        judgement = self._judge(query, strict=False) or self._judge(query, strict=True)
        if judgement is None:
            log.warning("%s answered off-format twice; claim left unchecked: %r", self.name, query.claim[:80])
            return None
        return self._support(judgement)

    def _judge(self, query: SupportQuery, *, strict: bool) -> Judgement | None:
        reply = self.chat.ask(self._messages(query, strict), logprobs=True, top_logprobs=_TOP_LOGPROBS)
        text = reply_text(reply)
        verdict = parse_verdict(text)
        if verdict is None:
            log.info("%s off-format answer%s: %r", self.name, " (strict retry)" if strict else "", text[:80])
            return None
        return Judgement(verdict, p_yes_from_logprobs(reply))

    def _messages(self, query: SupportQuery, strict: bool) -> list[dict[str, str]]:
        user = {"role": "user", "content": judge_prompt(query.claim, query.evidence)}
        if is_minicheck(self.model):
            # The model's own template expects exactly this turn; only the retry adds a nudge.
            system = STRICT_SYSTEM if strict else None
        else:
            system = f"{GENERIC_SYSTEM} {STRICT_SYSTEM}" if strict else GENERIC_SYSTEM
        return [{"role": "system", "content": system}, user] if system else [user]

    def _support(self, judgement: Judgement) -> Support:
        answer = "Yes" if judgement.yes else "No"
        if judgement.p_yes is None:
            score = 1.0 if judgement.yes else 0.0
            reason = f"judge {self.model} answered {answer}"
        else:
            score = judgement.p_yes
            reason = f"judge {self.model} answered {answer} (P(yes) = {score:.2f})"
        label = SupportLabel.SUPPORTED if score >= self.threshold else SupportLabel.NOT_SUPPORTED
        return Support(score=score, label=label, checker=self.name, reason=reason)
