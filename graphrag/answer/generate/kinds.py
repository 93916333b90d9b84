"""What kind of sentence a context sentence is: only statements may be quoted as claims.

A FAQ's question ("Can I get a refund for unused time?"), a heading, a figure or table
caption, a table row, a bibliography entry or a paper's author line is stored as a sentence
like any other, and retrieval may rank it high (it shares the question's words), but quoted as
a claim it states nothing. Judged from the text alone, so it works on every reader's output.
"""

from __future__ import annotations

import re
from enum import Enum

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?:[.,]\d+)*")
_CAPTION = re.compile(r"^\s*(fig(ure)?|table|tab|chart|plate|exhibit|listing|algorithm)\.?\s*[\dIVXivx]+[a-z]?\s*[.:|\-–—]",
                      re.IGNORECASE)
# "[12] A. Smith, ..." / "12. Smith, J. (2019)." / "Smith, J., & Lee, K. (2019)." / a DOI or arXiv id
_REF_LEAD = re.compile(r"^\s*(\[\d{1,3}\]|\(\d{1,3}\)|\d{1,3}\.)\s+\S")
_AUTHOR_YEAR = re.compile(r"^[^\W\d_][\w'’\-]+,\s+(?:[A-Z]\.\s*){1,3}.*\(\s*(1[89]|20)\d\d[a-z]?\s*\)")
_REF_MARKS = re.compile(r"\bdoi\s*:|\bdoi\.org/|arxiv(?:\.org|\s*:|\s+preprint)|\bpp\.\s*\d|\bvol\.\s*\d|\bISBN\b"
                        r"|\bIn\s+Proceedings\b|\bProc\.\s|\bJournal of\b",
                        re.IGNORECASE)
# A web reference as printed pages carry them: a quoted title followed by its address ('"Oklahoma" (http://...)'),
# a name, its address and where ("Hannah John-Kamen (https://...) at IMDb"), a "Retrieved 3 May 2018" or an
# "Archived from the original" (an encyclopedia's notes and external links). A statement that merely holds an
# address ("Exports stay available for 30 days (https://...).") is still a statement.
_WEB_REF = re.compile(r"^\s*[\"“‘'].*\(\s*https?://|\(\s*https?://[^)\s]*\)\s+at\s+\S+(?:\s+\S+){0,2}\s*\.?$"
                      r"|\bRetrieved\s+(?:on\s+)?[\w ,]{0,20}\b(?:1[89]|20)\d\d\b|\bArchived\s+from\s+the\s+original",
                      re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")
_AFFILIATION = re.compile(r"\b(university|universit[àäé]|institute|department|laboratory|labs?|school of|college)\b",
                          re.IGNORECASE)
_VERBISH = re.compile(r"\b(is|are|was|were|be|been|has|have|had|can|may|must|will|would|should|does|do|did)\b"
                      r"|\w(ed|es|s)\b", re.IGNORECASE)


class SentenceKind(str, Enum):
    """What a sentence is, as far as quoting it goes."""

    STATEMENT = "statement"
    QUESTION = "question"
    HEADING = "heading"
    CAPTION = "caption"
    TABLE_ROW = "table_row"
    REFERENCE = "reference"
    AUTHOR_LINE = "author_line"


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _looks_like_heading(text: str, words: list[str]) -> bool:
    """Short, no sentence end, and title-cased or ending in a colon ("Annual plans", "Before you start:")."""
    if text.endswith(":"):
        return True
    if re.search(r"[.!?…][\"'”’)]*$", text):
        return False
    if len(words) <= 3:
        return True
    letters = [w for w in words if w[0].isalpha()]
    capitalised = sum(1 for w in letters if w[0].isupper())
    return len(words) <= 12 and bool(letters) and capitalised / len(letters) >= 0.6


def _looks_like_table_row(text: str, words: list[str]) -> bool:
    """Cells rather than a sentence: pipes or tabs between cells, or mostly numbers."""
    if text.count("|") >= 2 or "\t" in text:
        return True
    numbers = sum(1 for w in words if w[0].isdigit())
    return len(words) >= 4 and numbers / len(words) > 0.5


def _looks_like_author_line(text: str, words: list[str]) -> bool:
    """Names, affiliations and e-mail addresses without a verb: a paper's byline."""
    if _EMAIL.search(text) and len(words) <= 40 and not re.search(r"[.!?][\"'”’)]*$", text):
        return True  # a byline ends without a full stop; "Write to help@example.org for a refund." is a statement
    names = re.findall(r"\b[A-Z][a-z]+(?:\s+[A-Z]\.)?\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b", text)
    if len(names) >= 2 and text.count(",") >= 2 and not _VERBISH.search(re.sub(r"[A-Z]\w+", "", text)):
        return True
    return bool(_AFFILIATION.search(text)) and text.count(",") >= 2 and not re.search(r"[.!?]$", text.strip())


def _looks_like_reference(text: str) -> bool:
    if _REF_MARKS.search(text) or _WEB_REF.search(text):
        return True
    if _AUTHOR_YEAR.search(text):
        return True
    return bool(_REF_LEAD.match(text)) and bool(re.search(r"\(\s*(1[89]|20)\d\d[a-z]?\s*\)|\b(1[89]|20)\d\d\.", text))


def sentence_kind(text: str) -> SentenceKind:
    """The kind of ``text`` (whitespace is collapsed first)."""
    text = " ".join(text.split())
    words = _words(text)
    if text.rstrip("\"'”’) ").endswith("?"):
        return SentenceKind.QUESTION
    if _CAPTION.match(text):
        return SentenceKind.CAPTION
    if _looks_like_table_row(text, words):
        return SentenceKind.TABLE_ROW
    if _looks_like_reference(text):
        return SentenceKind.REFERENCE
    if _looks_like_author_line(text, words):
        return SentenceKind.AUTHOR_LINE
    if len(words) < 4 or _looks_like_heading(text, words):
        return SentenceKind.HEADING
    return SentenceKind.STATEMENT


def quotable(text: str) -> bool:
    """Whether ``text`` may be quoted as a claim: a statement, not a question, heading, caption,
    table row, reference entry or author line."""
    return sentence_kind(text) is SentenceKind.STATEMENT
