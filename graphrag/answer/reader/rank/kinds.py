"""What kind of line a sentence is: only a body sentence may answer, and be quoted, as a claim.

A FAQ's question ("Can I get a refund for unused time?"), a heading, a figure or table caption, a
table row, a bibliography entry or a paper's author line is stored as a sentence like any other,
and retrieval may rank it high (it shares the question's words), but quoted as a claim it states
nothing. Judged from the text alone, so it works on every reader's output. The ranker scores such
a line 0 and the generator never quotes it: one detector for both, so they cannot disagree.
"""

from __future__ import annotations

import re
from enum import Enum

from graphrag.language.sentences import CAPTION_START


class SentenceKind(str, Enum):
    """What kind of line a sentence is; only a body sentence can answer as a claim."""

    BODY = "body"
    QUESTION = "question"  # a sentence that itself asks ("Can I get a refund?")
    HEADING = "heading"
    CAPTION = "caption"
    TABLE_ROW = "table_row"
    REFERENCE = "reference"  # a bibliography entry, a web reference or citation debris
    AUTHOR_LINE = "author_line"


# Kinds that never answer as a claim (issue 23: never quote a question, a heading, a caption, a
# table row, a reference entry or an author line).
NOT_A_CLAIM = frozenset(k for k in SentenceKind if k is not SentenceKind.BODY)

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?:[.,]\d+)*")
_ENDS = re.compile(r"[.!?…;][\"'”’)]*$")
# "[12] A. Smith, ..." / "12. Smith, J. (2019)." opening a numbered bibliography entry
_REF_LEAD = re.compile(r"^\s*(\[\d{1,3}\]|\(\d{1,3}\)|\d{1,3}\.)\s+\S")
# "Smith, J., & Lee, K. (2019)." / "Ellis, Richard E. (2007)." : the author-year opening of an entry
_AUTHOR_YEAR = re.compile(r"^[^\W\d_][\w'’\-]+,\s+(?:(?:[A-Z]\.\s*){1,3}.*|[A-Z][^()]{0,80})\(\s*(1[5-9]|20)\d\d[a-z]?\s*\)")
# One of these alone marks a reference entry; prose does not carry a DOI, an ISBN or a page range.
_STRONG_REF = re.compile(r"\bdoi\s*:|\bdoi\.org/|arxiv(?:\.org|\s*:|\s+preprint)|\bISBN\b|\bpp?\.\s*\d"
                         r"|\bIn\s+Proceedings\b|\bProc\.\s", re.IGNORECASE)
# Two of these make one; one alone is prose ("Guardians of the Galaxy Vol. 2", "the Journal of Physics").
_WEAK_REF = re.compile(r"\bet al\b|\bvol\.\s*\d|\bJournal of\b|\bProceedings of\b|\bUniversity Press\b|\bIn:\s"
                       r"|\bEds?\.|\bRetrieved\b|\bArchived\b|\bhttps?://", re.IGNORECASE)
# A web reference as printed pages carry them: a quoted title followed by its address ('"Oklahoma" (http://...)'),
# a name, its address and where ("Hannah John-Kamen (https://...) at IMDb"), a "Retrieved 3 May 2018" or an
# "Archived from the original" (an encyclopedia's notes and external links). A statement that merely holds an
# address ("Exports stay available for 30 days (https://...).") is still a statement.
_WEB_REF = re.compile(r"^\s*[\"“‘'].*\(\s*https?://|\(\s*https?://[^)\s]*\)\s+at\s+\S+(?:\s+\S+){0,2}\s*\.?$"
                      r"|\bRetrieved\s+(?:on\s+)?[\w ,]{0,20}\b(?:1[89]|20)\d\d\b|\bArchived\s+from\s+the\s+original",
                      re.IGNORECASE)
# A table row as the readers word it, each cell after its column's label ("Year: 2011; Q1: 12; Q2: 14."): a
# statement however many of its cells are figures (graphrag.ingest.readers.tables).
_ROW_STATEMENT = re.compile(r"^[^:;]{1,80}: [^;]+(?:; [^;]+)+[.!?]$")
_BYLINE = re.compile(r"^\s*(?:by|authors?:|written by)\s+[A-Z]", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")
_AFFILIATION = re.compile(r"\b(university|universit[àäé]|institute|department|laboratory|labs?|school of|college)\b",
                          re.IGNORECASE)
_VERBISH = re.compile(r"\b(is|are|was|were|be|been|has|have|had|can|could|may|might|must|shall|should|will|would|"
                      r"does|do|did)\b|\w(ed|es|s)\b", re.IGNORECASE)


def _capitalised_share(words: list[str]) -> float:
    letters = [w for w in words if w[0].isalpha()]
    return sum(w[0].isupper() for w in letters) / len(letters) if letters else 0.0


def _looks_like_heading(text: str, words: list[str]) -> bool:
    """Short and without a sentence end: title-cased ("Annual plans", "Size of the Court"), verbless, or ending in
    a colon ("Before you start:")."""
    if text.endswith(":"):
        return True
    if _ENDS.search(text):
        return False
    if len(words) <= 3:
        return True
    return len(words) <= 12 and (_capitalised_share(words) >= 0.6 or not _VERBISH.search(text))


def _looks_like_table_row(text: str, words: list[str]) -> bool:
    """Cells rather than a sentence: pipes between cells, or mostly numbers."""
    if text.count("|") >= 2:
        return True
    numbers = sum(1 for w in words if w[0].isdigit())
    return len(words) >= 4 and numbers / len(words) > 0.5


def _looks_like_author_line(text: str, words: list[str]) -> bool:
    """Names, affiliations and e-mail addresses without a verb: a paper's byline."""
    if _EMAIL.search(text) and len(words) <= 40 and not _ENDS.search(text):
        return True  # a byline ends without a full stop; "Write to help@example.org for a refund." is a statement
    if _BYLINE.match(text) and len(words) <= 12 and _capitalised_share(words) >= 0.6:
        return True  # "By Jane Doe and John Roe"; not "By tradition, schools arrange ..."
    names = re.findall(r"\b[A-Z][a-z]+(?:\s+[A-Z]\.)?\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b", text)
    if len(names) >= 2 and text.count(",") >= 2 and not _VERBISH.search(re.sub(r"[A-Z]\w+", "", text)):
        return True
    return bool(_AFFILIATION.search(text)) and text.count(",") >= 2 and not re.search(r"[.!?]$", text.strip())


def _looks_like_reference(text: str) -> bool:
    if _STRONG_REF.search(text) or _WEB_REF.search(text) or _AUTHOR_YEAR.search(text):
        return True
    # two kinds of cue, not one cue twice: a statement may hold two links ("see https://a and https://b")
    if len({m.group(0).lower().rstrip(":/. ")[:4] for m in _WEAK_REF.finditer(text)}) >= 2:
        return True
    return bool(_REF_LEAD.match(text)) and bool(re.search(r"\(\s*(1[89]|20)\d\d[a-z]?\s*\)|\b(1[89]|20)\d\d\.", text))


def sentence_kind(text: str) -> SentenceKind:
    """The kind of line ``text`` is (whitespace is collapsed first); BODY unless a cue says otherwise."""
    if "\t" in text.strip():
        return SentenceKind.TABLE_ROW  # cells a reader kept apart with tabs
    text = " ".join(text.split())
    words = _WORD.findall(text)
    if text.rstrip("\"'”’) ").endswith("?"):
        return SentenceKind.QUESTION
    if CAPTION_START.match(text):
        return SentenceKind.CAPTION
    if _looks_like_table_row(text, words) and not _ROW_STATEMENT.match(text):
        return SentenceKind.TABLE_ROW
    if _looks_like_reference(text):
        return SentenceKind.REFERENCE
    if _looks_like_author_line(text, words):
        return SentenceKind.AUTHOR_LINE
    if len(words) < 4 or _looks_like_heading(text, words):
        return SentenceKind.HEADING
    return SentenceKind.BODY


def quotable(text: str) -> bool:
    """Whether ``text`` may be quoted as a claim: a body sentence, not a question, heading, caption, table row,
    reference entry or author line."""
    return sentence_kind(text) is SentenceKind.BODY
