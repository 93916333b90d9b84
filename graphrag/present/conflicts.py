"""What the review page says about a cited source, beyond the sentence itself.

The "possible conflict" check is a deliberately simple heuristic, labelled as such in the
page: another *current* document the viewer can see mentions the same entities (at least two
of them, when there are two) in a sentence that states a different number for the same unit
(e.g. "7 days" vs "30 days"). It finds the planted stale-FAQ case; it will miss paraphrased
contradictions and can flag unrelated numbers, so it only prompts the reviewer to look.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from graphrag.access import Access, Viewer
from graphrag.model import Document, Span
from graphrag.store import Store

_UNITS = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
    "year": "year", "years": "year", "hour": "hour", "hours": "hour", "minute": "minute", "minutes": "minute",
    "%": "%", "percent": "%", "gb": "gb", "mb": "mb", "tb": "tb", "times": "times", "seats": "seat",
    "seat": "seat", "users": "user", "user": "user",
}
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "thirty": 30, "ninety": 90}
_QTY = re.compile(r"\b(\d+(?:[.,]\d+)?|" + "|".join(_WORDS) + r")\s*(%|[a-z]+)?", re.IGNORECASE)


def quantities(text: str) -> dict[str, set[float]]:
    """Numbers by unit: {"day": {30.0}}; a number with no known unit goes under ""."""
    out: dict[str, set[float]] = {}
    for num, unit in _QTY.findall(text):
        n = _WORDS.get(num.lower())
        value = float(n) if n is not None else float(num.replace(",", ""))
        out.setdefault(_UNITS.get((unit or "").lower(), ""), set()).add(value)
    return out


def differs(a: dict[str, set[float]], b: dict[str, set[float]]) -> bool:
    """Both state a number for a shared (known) unit and the numbers differ."""
    return any(u and a[u] != b[u] for u in a.keys() & b.keys())


@dataclass(frozen=True)
class Conflict:
    """A sentence in another document that names the same entities as a cited one but states a different
    number."""

    entity: str  # display name
    document: Document
    span: Span


def possible_conflicts(store: Store, cited: Span, entity_keys: Iterable[str], by: Viewer,
                       limit: int = 3) -> list[Conflict]:
    """Sentences in other current documents ``by`` may see that share entities and differ in a number.

    A sentence must mention at least two of the given entities (or the only one given), so a
    generic entity such as "account" alone does not pair unrelated sentences.
    """
    mine = quantities(cited.text)
    keys = list(dict.fromkeys(entity_keys))
    if not mine or not keys:
        return []
    need = min(2, len(keys))
    viewer = Access.of(by.labels)  # current versions only: a conflict is with what holds now
    shared: dict[tuple[str, int, int], set[str]] = {}
    spans: dict[tuple[str, int, int], tuple[str, Span]] = {}
    for key in keys:
        entity = store.entity(key)
        if entity is None:
            continue
        for m in entity.mentions:
            sp = m.span
            if m.superseded or sp.document_id == cited.document_id:
                continue
            where = (sp.document_id, sp.version, sp.sentence_index)
            shared.setdefault(where, set()).add(key)
            spans.setdefault(where, (entity.name, sp))
    out: list[Conflict] = []
    for where in sorted(shared, key=lambda w: (-len(shared[w]), w)):
        if len(shared[where]) < need:
            continue
        name, sp = spans[where]
        doc = store.document(sp.document_id, sp.version)
        if doc is None or not viewer.sees(doc.access, doc.superseded) or not differs(mine, quantities(sp.text)):
            continue
        out.append(Conflict(name, doc, sp))
        if len(out) >= limit:
            break
    return out
