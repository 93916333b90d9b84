"""An answer as a reader meets it: citation markers numbered in reading order, and the words of a cited
sentence that its claim uses.

An answer is stored numbered in reading order ([1] for the first source the text cites, [2] for the next new
one: ``graphrag.verify.attribution.in_reading_order``, decided once as it is composed), so its text, claims,
verdicts and every surface hold the same numbers. An answer stored before that keeps retrieval's numbers ("[6] ...
[5] ... [3]"; a verdict names the marker it judged); a surface shows ``display_numbers`` instead, the identity on a
newer answer, the same numbers in its list of sources.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from graphrag.model import Answer
from graphrag.verify.attribution import display_numbers, renumbered

__all__ = ["cited_words", "citing_claims", "display_numbers", "renumbered"]

_WORD = re.compile(r"\w+(?:[.,'’]\w+)*")
# Words a claim shares with any sentence by chance: never marked on their own.
_SMALL = frozenset("a an and are as at be by for from in is it of on or that the this to was were with".split())


def citing_claims(answer: Answer) -> dict[int, list[int]]:
    """Context item number -> the numbers (1-based, as the pages write "Claim N") of the claims citing it, in
    the answer's order, each once: a reader finds an item's route by its claim."""
    out: dict[int, list[int]] = {}
    for claim in answer.claims:
        for c in claim.citations:
            if c.item is not None and claim.index + 1 not in out.setdefault(c.item.n, []):
                out[c.item.n].append(claim.index + 1)
    return out


def cited_words(sentence: str, claim: str) -> list[tuple[int, int]]:
    """Character ranges of ``sentence`` holding the words ``claim`` takes from it: runs of two or more
    words in the same order, or a single word that carries meaning (a number, or not a small word).
    A verbatim quote marks the whole sentence; a paraphrase marks what it kept, or nothing."""
    spans = [(m.start(), m.end()) for m in _WORD.finditer(sentence)]
    words = [sentence[a:b].lower() for a, b in spans]
    theirs = [w.lower() for w in _WORD.findall(claim)]
    ranges: list[tuple[int, int]] = []
    for block in SequenceMatcher(None, theirs, words, autojunk=False).get_matching_blocks():
        if not block.size:
            continue
        first = words[block.b]
        if block.size == 1 and (first in _SMALL or (len(first) < 3 and not any(ch.isdigit() for ch in first))):
            continue
        start, end = spans[block.b][0], spans[block.b + block.size - 1][1]
        if ranges and sentence[ranges[-1][1]:start].strip(" ,;:") == "":
            ranges[-1] = (ranges[-1][0], end)  # adjacent runs read as one
        else:
            ranges.append((start, end))
    return ranges
