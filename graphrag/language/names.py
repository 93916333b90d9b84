"""When two reviewer names are the same reviewer: compared by a key that folds case and look-alike letters.

"Ana", "ana", "ANA" and "аna" (a Cyrillic а) must be one reviewer wherever names are compared (the policy's count
of independent verdicts, "left for you", blind review, self-adjudication, agreement), or one person could supply
both verdicts of a double review by retyping their name. The stored and shown name stays as typed.

The key is a skeleton in the spirit of Unicode TR39 (section 4): NFKC, then each confusable letter mapped to its
Latin prototype, then case folded, then mapped again (a folded Cyrillic letter can be a confusable one). The
table covers the Cyrillic and Greek letters that are drawn like Latin ones (from TR39's confusables.txt), and the
Latin dotless i; it is not the whole of confusables.txt. Of the PyPI packages weighed, ``confusables`` was last
released in 2021, ``confusable-homoglyphs`` detects mixed scripts but gives no skeleton, and PyICU's SpoofChecker
needs the ICU C library built in. Digits are not folded into
letters ("l" / "1", "O" / "0"): names differing there are rare and telling them apart matters more.

Marks and compatibility forms fold too: NFKD (not NFKC) splits "ạ", "á", "Ａ", "ﬁ" into a base letter and its
combining marks, and the marks are dropped, so "ạna", "a\u0323na", "ána" and "Άna" are "ana" (the look-alike table
alone left "ạna" another reviewer, who could settle ana's own dispute). Invisible format characters (zero-width
spaces and joiners, soft hyphens, bidi marks) are dropped as well. A mark is dropped wherever it sits on a Latin,
Greek or Cyrillic letter or on no letter; the generic diacritics (U+0300-036F and the like) and variation selectors
everywhere; a script's own vowel signs and marks on its own letters are kept (Devanagari, Thai, Arabic, ...), where
they spell different names rather than decorate one.
"""

from __future__ import annotations

import unicodedata

_CONFUSABLES = str.maketrans({
    # Cyrillic capitals and small letters drawn like Latin ones
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X",
    "У": "Y", "Ү": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "l",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "һ": "h",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y", "ӏ": "l", "ɡ": "g",
    # Greek capitals and small letters drawn like Latin ones
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v", "ι": "i", "α": "a", "ρ": "p", "υ": "u", "γ": "y", "ϲ": "c",
    "ϳ": "j", "Ϲ": "C", "Ϳ": "J",
    # Latin letters drawn like others
    "ı": "i", "ɑ": "a", "ȷ": "j",
})


# Scripts whose letters take marks only as diacritics: a mark on one of them is dropped.
_FOLDED_SCRIPTS = frozenset({"LATIN", "GREEK", "CYRILLIC"})
# Marks that decorate any letter and spell none: combining diacritics (and their extension, supplement, for symbols,
# half marks), variation selectors, Mongolian free variation selectors.
_GENERIC_MARKS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F),
                  (0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x180B, 0x180F))


def _generic_mark(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in _GENERIC_MARKS)


def _drop_marks(text: str) -> str:
    """``text`` (decomposed) without format characters, and without the marks that decorate rather than spell:
    every mark on a Latin, Greek or Cyrillic letter or on no letter, and the generic ones on any letter."""
    out: list[str] = []
    folds = True  # a mark with no letter under it is dropped
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cf":
            continue
        if category.startswith("M"):
            if not folds and not _generic_mark(ch):
                out.append(ch)
            continue
        folds = not category.startswith("L") or unicodedata.name(ch, "").split(" ", 1)[0] in _FOLDED_SCRIPTS
        out.append(ch)
    return "".join(out)


def reviewer_key(name: str) -> str:
    """What two reviewer names must share to be one reviewer: case, width, spacing, compatibility forms, combining
    marks, invisible characters and look-alike letters folded."""
    text = unicodedata.normalize("NFKD", name).translate(_CONFUSABLES).casefold()
    text = _drop_marks(unicodedata.normalize("NFKD", text)).translate(_CONFUSABLES)
    return " ".join(text.split())


def same_reviewer(a: str | None, b: str | None) -> bool:
    """Whether two names (None: unnamed) are one reviewer."""
    return a is not None and b is not None and reviewer_key(a) == reviewer_key(b)


__all__ = ["reviewer_key", "same_reviewer"]
