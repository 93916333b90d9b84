"""Numbers and dates in one canonical form, so a claim and its source compare by value.

A source says "In 1869" and a claim "in 1,869"; one writes "ninth", the other "9th"; one
"$5 million", the other "5,000,000"; one "3 March 2024", the other "2024-03-03". The support
checker must see these as the same quantity and "1869" / "1896" or "5 million" / "5 thousand"
as different. ``quantities`` reads a text once and gives every quantity its canonical key;
both sides of a comparison go through it, so they cannot drift apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

# Capitalised only, so the verb "may" and the word "march" never start a date.
_MONTHS = {m: i + 1 for i, m in enumerate(
    "January February March April May June July August September October November December".split())}
_MONTHS |= {m[:3]: i for m, i in list(_MONTHS.items())} | {"Sept": 9}
_MONTH = r"(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "dozen": 12, "twice": 2, "once": 1, "single": 1, "double": 2,
}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "hundredth": 100,
}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
           "k": 10**3, "m": 10**6, "mn": 10**6, "bn": 10**9}
# Words a claim may use without stating a number: "once", "a single", "half", "first" and
# "second" (a qualifier, a unit of time) are read in the source but never demanded of it.
_NOT_DEMANDED = frozenset({"once", "single", "half", "first", "second"})

# Thousands grouped by commas, or by the narrow spaces typesetting uses ("1\u202f869", "10\u00a0000"; a plain space is
# left alone: "page 1 869" is two numbers as often as one); a decimal point not after a letter ("c.1869" is 1869).
_GROUP_SPACES = "\u00a0\u2009\u202f"
_DIGITS = (r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[" + _GROUP_SPACES + r"]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
           r"|(?<![A-Za-z])\.\d+")
# Characters a PDF leaves inside a word that a reader does not see: soft hyphen, zero-width spaces and joiners.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_WORD_NUMBER = "|".join(sorted([*_UNITS, *_ORDINALS, "half"], key=len, reverse=True))
_DATE_PATTERNS = [
    # 2024-03-03
    re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?!\d)"),
    # 3 March 2024, 3rd of March 2024, 3 March (no year)
    re.compile(r"(?<!\d)(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH.format("mon")
               + r"(?:,?\s+(?P<y>\d{4}))?(?!\d)"),
    # March 3, 2024, March 3rd 2024, March 3
    re.compile(r"\b" + _MONTH.format("mon") + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<y>\d{4}))?(?!\d)"),
]
_NUMBER = re.compile(
    # not inside another number: after a digit, a point or a comma; but a year listed after a year ("1866,1869") and
    # a number after an abbreviation's point ("c.1869", "No.5") start a number of their own
    r"(?:(?<![\d.,])|(?<=\d{4},)(?=\d{4}(?!\d))|(?<=[A-Za-z]\.))(?P<num>" + _DIGITS + r")(?P<ord>st|nd|rd|th)?(?![\d])"
    r"|\b(?P<word>(?:" + _WORD_NUMBER + r")(?:-(?:" + _WORD_NUMBER + r"))?)\b",
    re.IGNORECASE,
)
_SCALE_AFTER = re.compile(r"\s*(?P<scale>" + "|".join(sorted(_SCALES, key=len, reverse=True)) + r")\b",
                          re.IGNORECASE)
_UNIT_AFTER = re.compile(r"\s*%|\s+[A-Za-z]+")


@dataclass(frozen=True)
class Quantity:
    """One number or date as written (``text``, with the word after it for a readable reason)
    and the canonical keys it stands for (``keys[0]`` is what a claim must find in the source;
    the rest are what a source provides besides: a full date also states its year)."""

    text: str
    keys: tuple[str, ...]
    demanded: bool = True


def _canonical(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _word_value(word: str) -> Decimal | None:
    total = 0
    for part in word.lower().split("-"):
        if part == "half":
            return Decimal("0.5")
        value = _UNITS.get(part, _ORDINALS.get(part))
        if value is None:
            return None
        total += value
    return Decimal(total)


def _dates(text: str) -> tuple[list[tuple[int, Quantity]], list[tuple[int, int]]]:
    found: list[tuple[int, Quantity]] = []
    spans: list[tuple[int, int]] = []
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in spans):
                continue
            groups = m.groupdict()
            month = int(groups["m"]) if groups.get("m") else _MONTHS[groups["mon"].rstrip(".")]
            day = int(groups["d"])
            if not (1 <= month <= 12 and 1 <= day <= 31):
                continue
            month_day = f"date:--{month:02d}-{day:02d}"
            year = groups.get("y")
            keys = (f"date:{year}-{month:02d}-{day:02d}", month_day, year) if year else (month_day,)
            found.append((m.start(), Quantity(m.group(), keys)))
            spans.append((m.start(), m.end()))
    return found, spans


def quantities(text: str) -> list[Quantity]:
    """Every number and date of ``text`` with its canonical keys, in reading order.

    Dates become ``date:YYYY-MM-DD`` (or ``date:--MM-DD`` without a year); numbers become their
    value in plain digits: "1,869", "1\u202f869" and "1869" -> "1869", "9th" and "ninth" -> "9",
    "$5 million" and "5,000,000" -> "5000000", "twenty-one" -> "21", "2.50" -> "2.5".
    """
    text = text.translate(_INVISIBLE)
    found, taken = _dates(text)
    for m in _NUMBER.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        end = m.end()
        if m.group("num"):
            try:
                value = Decimal(re.sub("[," + _GROUP_SPACES + "]", "", m.group("num")))
            except InvalidOperation:
                continue
            demanded = True
        else:
            word = m.group("word")
            parsed = _word_value(word)
            if parsed is None:
                continue
            value = parsed
            demanded = word.lower() not in _NOT_DEMANDED
        if not m.group("ord"):
            scale = _SCALE_AFTER.match(text, end)
            # A bare "m" or "k" scales only a digit written against it ("$5m"), never "5 m".
            if scale and (len(scale.group("scale")) > 2 or scale.start("scale") == end):
                value *= _SCALES[scale.group("scale").lower()]
                end = scale.end()
        unit = _UNIT_AFTER.match(text, end)
        shown = text[m.start():end] + (unit.group() if unit and m.group("num") else "")
        found.append((m.start(), Quantity(shown, (_canonical(value),), demanded)))
    return [q for _, q in sorted(found, key=lambda pair: pair[0])]


def keys(text: str) -> set[str]:
    """Every canonical key the text states (what a source offers a claim)."""
    return {k for q in quantities(text) for k in q.keys}


def missing(claim: str, evidence: str) -> list[str]:
    """The claim's numbers and dates, as written, whose value the evidence does not state."""
    have = keys(evidence)
    return [q.text for q in quantities(claim) if q.demanded and q.keys[0] not in have]
