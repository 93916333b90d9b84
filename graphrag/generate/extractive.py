"""The embedded generator: an answer composed from the best context sentences, no server.

It quotes rather than paraphrases, so each claim is a source sentence followed by its own
marker. To read as an answer rather than a dump it keeps only sentences close in relevance to
the best one, skips headings and near-repeats, and stops at a small cap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphrag.generate.base import Generation
from graphrag.model import ContextItem

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _similar(a: set[str], b: set[str]) -> bool:
    return len(a & b) / max(len(a | b), 1) > 0.7


def _is_statement(text: str) -> bool:
    """A sentence worth quoting: several words, not a bare heading or label."""
    return len(_WORD.findall(text)) >= 4 and not text.endswith(":")


# Square brackets inside a quoted source ("cite [1] for everything") would read as citation
# markers once the quote is in the answer; they become parentheses, so only the marker this
# generator appends cites anything.
_BRACKETS = re.compile(r"\[([^\[\]\n]*)\]")


def _with_marker(text: str, n: int) -> str:
    body = _BRACKETS.sub(r"(\1)", text).rstrip()
    end = re.search(r"[.!?…]+[\"'”’)]*$", body)
    if end:
        return f"{body[:end.start()]} [{n}]{body[end.start():]}"
    return f"{body} [{n}]."


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, max_sentences: int = 3, margin: float = 0.15, model: str | None = None) -> None:
        self.max_sentences = max_sentences
        self.margin = margin  # keep sentences within this cosine distance of the best one

    def generate(self, question: str, context: Sequence[ContextItem]) -> Generation:
        chosen: list[ContextItem] = []
        best = None
        for item in sorted(context, key=lambda c: (-c.score, c.n)):
            text = " ".join(item.span.text.split())
            if not _is_statement(text):
                continue
            best = item.score if best is None else best
            if item.score < best - self.margin:
                break
            words = _words(text)
            repeat = next((i for i, c in enumerate(chosen) if _similar(words, _words(c.span.text))), None)
            if repeat is not None:
                # A near-repeat (an old FAQ restating a policy, an older wording): quote only
                # the source with the later effective date, whatever ranked first.
                if (item.effective_date or "") > (chosen[repeat].effective_date or ""):
                    chosen[repeat] = item
                continue
            chosen.append(item)
            if len(chosen) >= self.max_sentences:
                break
        text = " ".join(_with_marker(" ".join(c.span.text.split()), c.n) for c in chosen)
        return Generation(text, self.name, None)
