"""How the evaluations match what an answer says against what a question set wrote down: words inside an evidence
paragraph, the expected sentence, a short answer's phrases, the items an answer cites. Shared by the answer panel
(``answers``) and the abstention figures (``abstention``), which import it and not each other's modules; and which
SQuAD article the abstention fit keeps out (``squad_held_out``), read by the fit and the figures alike.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from graphrag.model import Answer, ContextItem

_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> Counter[str]:
    """Lower-case word counts; hyphens and dashes split words (PDF text and the NQ paragraphs differ there)."""
    return Counter(_WORD.findall(text.lower().replace("\u2013", " ").replace("-", " ")))


def inside(sentence: str, evidence: str, threshold: float = 0.7) -> bool:
    """The sentence lies inside the evidence paragraph: at least 8 words, 70% of them in the paragraph (it
    may come from another revision of the article, so an exact match is too strict); for a short evidence
    row (an infobox line of under 12 words), the sentence holds 70% of the row's words."""
    s, e = tokens(sentence), tokens(evidence)
    n_s, n_e = sum(s.values()), sum(e.values())
    shared = sum((s & e).values())
    if n_e < 12:
        return n_e >= 3 and shared / n_e >= threshold
    return n_s >= 8 and shared / n_s >= threshold


def same_sentence(sentence: str, expected: str) -> bool:
    """``sentence`` is the written-down ``expected`` one: it holds 90% of its words and is mostly made of them
    (sentence splitting may attach a heading or split a clause differently)."""
    s, e = tokens(sentence), tokens(expected)
    shared = sum((s & e).values())
    return bool(e) and shared / sum(e.values()) >= 0.9 and shared / max(sum(s.values()), 1) >= 0.6


def contains_any(text: str, phrases: Sequence[str]) -> bool:
    """Case- and spacing-insensitive: one of ``phrases`` occurs in ``text``."""
    low = " ".join(text.lower().split())
    return any(p and " ".join(p.lower().split()) in low for p in phrases)


def clean_short_answer(text: str) -> str:
    """An NQ short answer without the tokeniser's quote marks (`` and '') and stray brackets."""
    return " ".join(text.replace("``", "").replace("''", "").split()).strip(" (")


def cited_items(answer: Answer) -> list[ContextItem]:
    """The context items the answer cites, in order of first citation, each once."""
    seen: dict[int, ContextItem] = {}
    for claim in answer.claims:
        for c in claim.citations:
            if c.valid and c.item is not None and c.item.n not in seen:
                seen[c.item.n] = c.item
    return list(seen.values())


def squad_held_out(data: Sequence[dict[str, Any]]) -> str:
    """The title of the SQuAD article kept out of the fit: the last one holding unanswerable questions."""
    return str([a["title"] for a in data if any(q.get("is_impossible") for p in a["paragraphs"] for q in p["qas"])][-1])
