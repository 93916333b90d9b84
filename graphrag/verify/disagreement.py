"""Sources that disagree: cited sentences of different documents (or versions) that state
different values about the same thing.

Two sentences are about the same thing when they share at least ``MIN_SHARED`` content words
(numbers aside) and do not each name something the other lacks (two cities' snowfall, two films' years are
numbers of two things; so "as CSV files" / "as JSON files" is not found either, where "as CSV or JSON files" is). They disagree when they give the same unit different numbers ("kept for 14
days" / "kept for 35 days"), when one says it and the other, of another date, denies it
("refunds unused time" / "unused time is not refunded"), or when one restates the other with
other names in it ("as CSV files" / "as CSV or JSON files"). Each side names its document, version and effective date;
the current one comes first (not superseded, then the newer effective date, then the newer
version), since that is the one a reader should act on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from graphrag.language.lexical import STOPWORDS, content_stems, negated
from graphrag.model import ContextItem, Disagreement, DisagreementSide

DISAGREE_OPENING = "Sources disagree: "
MIN_SHARED = 3  # content words two sentences must share to be about the same thing
RESTATED = 0.5  # share of content words (Jaccard) above which one sentence restates the other

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30,
                 "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100}
_VALUE = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?|" + "|".join(_NUMBER_WORDS) + r")\s*(%|percent\b|[a-zA-Z]+)",
                    re.IGNORECASE)
_UNIT_STEM = re.compile(r"(ies|es|s)$")


def _values(text: str) -> dict[str, tuple[float, str]]:
    """Numbers with the word after them, by unit: {"day": (14.0, "14 days")}."""
    out: dict[str, tuple[float, str]] = {}
    for m in _VALUE.finditer(text):
        raw, unit = m.group(1).lower().replace(",", ""), m.group(2).lower()
        if unit in STOPWORDS:
            continue  # "step 3 of runbook 2": a number naming something, not a measure
        number = float(_NUMBER_WORDS[raw]) if raw in _NUMBER_WORDS else float(raw)
        key = "%" if unit in ("%", "percent") else _UNIT_STEM.sub("", unit)
        out.setdefault(key, (number, m.group().strip()))
    return out


def _topic(text: str) -> set[str]:
    return {s for s in content_stems(text) if not s[0].isdigit()}


def differing_values(a: str, b: str, same_date: bool = False) -> tuple[str, str] | None:
    """What ``a`` and ``b`` say differently, if they are about the same thing: the two values of
    one unit; or the two sentences when one denies what the other says (not between sources of the
    same date: two current pages saying "restores the workspace but not deleted snapshots" and
    "restoring replaces the workspace" are two statements, not a conflict), or restates it naming
    something else. None when they agree."""
    if len(_topic(a) & _topic(b)) < MIN_SHARED:
        return None
    if _about_other_things(a, b):
        return None
    va, vb = _values(a), _values(b)
    for unit in (u for u in va if u in vb):  # in the order of ``a`` (a set's order changes with the hash seed)
        if va[unit][0] != vb[unit][0]:
            return va[unit][1], vb[unit][1]
    if negated(a) != negated(b) and not same_date:
        return a, b
    ta, tb = _topic(a), _topic(b)
    if len(ta & tb) / len(ta | tb) >= RESTATED and _names(a) != _names(b):
        return a, b  # one restates the other with another name in it: "CSV files" / "CSV or JSON files"
    return None


def _about_other_things(a: str, b: str) -> bool:
    """Each sentence names something the other does not (a name past its first word, found in the other in no
    case): two pages about two cities, two sailors or two films give different numbers of different things, not
    rival values of one (on MuSiQue 26 of 29 "disagreements" were such pairs; a policy and its FAQ name nothing
    the other lacks, or only one of them does)."""
    words_a, words_b = set(re.findall(r"[\w\-]+", a.lower())), set(re.findall(r"[\w\-]+", b.lower()))
    return (any(n.lower() not in words_b for n in _names(a))
            and any(n.lower() not in words_a for n in _names(b)))


def _names(text: str) -> set[str]:
    """Capitalised words and acronyms past the first word: the names a statement lists."""
    return set(re.findall(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w\-]*", text.strip()))


def _currency(item: ContextItem) -> tuple[bool, str, int]:
    return (not item.superseded, item.effective_date or "", item.span.version)


TitleOf = Callable[[str, int], str | None]


def _side(item: ContextItem, says: str, title_of: TitleOf | None) -> DisagreementSide:
    span = item.span
    title = title_of(span.document_id, span.version) if title_of else None
    return DisagreementSide(item.n, span.document_id, span.version, title or span.document_id, item.effective_date,
                            item.superseded, says, span.text)


def find_disagreements(items: Sequence[ContextItem], title_of: TitleOf | None = None) -> list[Disagreement]:
    """Pairs of ``items`` from different documents or versions that disagree, the current side
    first; each item is in at most one disagreement (with the first item it disagrees with)."""
    out: list[Disagreement] = []
    used: set[int] = set()
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if a.n in used or b.n in used:
                continue
            if (a.span.document_id, a.span.version) == (b.span.document_id, b.span.version):
                continue
            found = differing_values(a.span.text, b.span.text,
                                     same_date=bool(a.effective_date) and a.effective_date == b.effective_date)
            if found is None:
                continue
            first, second = (a, b) if _currency(a) >= _currency(b) else (b, a)
            says = dict(zip((a.n, b.n), found))
            out.append(Disagreement((_side(first, says[first.n], title_of), _side(second, says[second.n], title_of))))
            used |= {a.n, b.n}
    return out


def _date(side: DisagreementSide) -> str:
    bits = [f"v{side.version}" if side.version > 1 else "", side.effective_date or "", "superseded" if side.superseded
            else ""]
    inner = ", ".join(b for b in bits if b)
    return f" ({inner})" if inner else ""


def _says(side: DisagreementSide) -> str:
    """A value as written ("14 days"); a whole sentence in quotation marks, its brackets made
    parentheses so they cannot read as markers."""
    if side.says != side.sentence:
        return side.says
    text = " ".join(side.says.replace("[", "(").replace("]", ")").split()).rstrip(" .!?")
    return f"“{text}”"


def disagreement_sentence(d: Disagreement) -> str:
    """The disagreement in words, each side with its marker: "Sources disagree: Retention policy
    (2025-06-01) says 35 days [2]; Frequently asked questions (2023-04-01) says 14 days [5]." """
    parts = [f"{s.title}{_date(s)} says {_says(s)} [{s.n}]" for s in d.sides]
    return DISAGREE_OPENING + "; ".join(parts) + "."
