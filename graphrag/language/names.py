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


def reviewer_key(name: str) -> str:
    """What two reviewer names must share to be one reviewer: case, width, spacing and look-alike letters folded."""
    text = unicodedata.normalize("NFKC", name).translate(_CONFUSABLES).casefold().translate(_CONFUSABLES)
    return " ".join(text.split())


def same_reviewer(a: str | None, b: str | None) -> bool:
    """Whether two names (None: unnamed) are one reviewer."""
    return a is not None and b is not None and reviewer_key(a) == reviewer_key(b)


__all__ = ["reviewer_key", "same_reviewer"]
