"""Sentence splitting with exact character offsets, and entity-name normalisation.

Every sentence returned satisfies ``text[start:end] == sentence_text``: offsets are found on
the original string and never recomputed from a cleaned copy.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# A sentence longer than this is cut at whitespace: a 200,000-character "sentence" is not
# evidence a reviewer can read, and it would dominate parse and encode time.
MAX_SENTENCE_CHARS = 1200

# Abbreviations whose trailing period does not end a sentence (lowercased, without the dot): the common ones,
# and the legal and scholarly ones a case name or citation carries ("Marbury v. Madison, 5 U.S. 137",
# "No. 19-1392", "Art. I, Sec. 8", "Fig. 2", "Roe et al. found").
_ABBREVIATIONS = frozenset(
    """
    e.g i.e etc vs cf al approx dept est fig figs inc ltd co corp jr sr st mr mrs ms dr prof
    no nos vol vols pp p ed eds rev gen col lt sgt capt mt ft jan feb mar apr jun jul aug
    sep sept oct nov dec mon tue wed thu fri sat sun u.s u.k a.m p.m ph.d
    v ibid
    """.split()
)
# Abbreviations that are also words ending a sentence ("the state of the art."): abbreviations only capitalised,
# as a citation writes them ("Art. I, Sec. 8", "Eq. 3", "Ch. 7").
_CAPITALISED = frozenset("art arts sec secs ch para paras eq eqs supp cir".split())

# Block-level Markdown/list markers: each such line starts a new sentence; the marker itself
# is not part of the sentence.
_LINE_MARKER = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|[-*+•][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]*)")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_END = re.compile(r"[.!?…]+[\"'”’)\]]*")
# Titles written before a name never end a sentence, even with a marker after them.
_TITLES = frozenset("mr mrs ms dr prof gen col lt sgt capt rev".split())
# Citation markers right after an abbreviation's dot ("... until 3 a.m. [4] Next"): the
# extractive generator writes them there rather than inside the abbreviation ("a.m [4].").
_MARKERS_AFTER = re.compile(r"(?:[ \t]*\[\d{1,6}(?:\s*[,;-]\s*\d{1,6})*\])+")
# A caption's opening ("Figure 3:", "Table 2.", "Fig. 4 |"): what the PDF reader sets apart from prose and the
# answer never quotes as a claim.
CAPTION_START = re.compile(r"^\s*(?:fig(?:ure)?|table|tab|chart|plate|exhibit|listing|algorithm|image|photo|map)\.?\s*"
                           r"[\dIVXivx]+[a-z]?\s*[.:|\-–—]", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    """A sentence of a document: its index and its character offsets in the text."""

    index: int
    start: int
    end: int
    text: str


def _blocks(text: str) -> list[tuple[int, int]]:
    """Paragraphs, list items and headings, as (start, end) ranges without their markers."""
    ranges: list[tuple[int, int]] = []
    pos = 0
    for para in [*_BLANK_LINE.finditer(text), None]:
        p_end = para.start() if para else len(text)
        # Inside a paragraph a single newline is a soft wrap unless the next line is a
        # heading or list item, or the line is a heading itself.
        line_start = pos
        block_start = pos
        heading = False
        while line_start <= p_end:
            nl = text.find("\n", line_start, p_end)
            line_end = p_end if nl == -1 else nl
            m = _LINE_MARKER.match(text, line_start, line_end)
            if m and m.end() > line_start and line_start != block_start:
                ranges.append((block_start, line_start))
                block_start = line_start
            if m and line_start == block_start:
                block_start = m.end()
                heading = text[line_start:m.end()].lstrip().startswith("#")
            elif heading:
                ranges.append((block_start, line_start))
                block_start = line_start
                heading = False
            if heading and nl != -1:
                ranges.append((block_start, line_end))
                block_start = line_end
                heading = False
            if nl == -1:
                break
            line_start = nl + 1
        ranges.append((block_start, p_end))
        pos = para.end() if para else len(text)
    return ranges


def _is_abbreviation(text: str, dot: int) -> bool:
    """True when the period at ``dot`` closes an abbreviation or an initial."""
    i = dot
    while i > 0 and (text[i - 1].isalpha() or text[i - 1] == "."):
        i -= 1
    word = text[i:dot].lower()
    if not word:
        return False
    if word in _ABBREVIATIONS or (word in _CAPITALISED and text[i].isupper()):
        return True
    # Single capital initial ("J. Smith"), dotted acronyms ("U.S.A.").
    return (len(word) == 1 and text[i].isupper()) or bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", word))


def _starts_sentence(text: str, pos: int, end: int) -> bool:
    """Whether what follows ``pos`` (up to ``end``) may begin a new sentence: nothing, or
    whitespace and then a capital, a digit, a quote, a bracket or Markdown emphasis."""
    if pos < end and not text[pos].isspace():
        return False
    while pos < end and text[pos].isspace():
        pos += 1
    return pos == end or text[pos].isupper() or text[pos].isdigit() or text[pos] in "\"'“‘([*_#"


def ends_with_abbreviation(text: str) -> bool:
    """Whether ``text`` ends with the dot of an abbreviation or an initial ("3 a.m.", "J.")."""
    return text.endswith(".") and not text.endswith("..") and _is_abbreviation(text, len(text) - 1)


def _split_block(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    cur = start
    for m in _END.finditer(text, start, end):
        after = m.end()
        if not _starts_sentence(text, after, end):
            continue  # "3.5", "v1.2", "example.com", "e.g. billing"
        if text[m.start()] == "." and m.end() - m.start() == 1 and _is_abbreviation(text, m.start()):
            # An abbreviation ends the sentence only when citation markers follow it and a
            # new sentence follows them ("until 3 a.m. [4] Next ...").
            cited = _MARKERS_AFTER.match(text, after, end)
            word = text[text.rfind(" ", start, m.start()) + 1:m.start()].lower()
            if cited is None or word in _TITLES or not _starts_sentence(text, cited.end(), end):
                continue
            after = cited.end()
        opened = text.rfind("[", cur, m.start())
        if opened > text.rfind("]", cur, m.start()) and text.find("]", after, min(end, after + 40)) >= 0:
            continue  # inside a short bracketed group such as a citation marker "[1. 2]"
        out.append((cur, after))
        cur = after
    out.append((cur, end))
    return out


def _cap(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut an over-long range at whitespace so no sentence exceeds MAX_SENTENCE_CHARS."""
    out = []
    while end - start > MAX_SENTENCE_CHARS:
        cut = text.rfind(" ", start + MAX_SENTENCE_CHARS // 2, start + MAX_SENTENCE_CHARS)
        cut = cut if cut > start else start + MAX_SENTENCE_CHARS
        out.append((start, cut))
        start = cut
    out.append((start, end))
    return out


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences whose offsets index the original string exactly."""
    sentences: list[Sentence] = []
    for b_start, b_end in _blocks(text):
        for s_start, s_end in _split_block(text, b_start, b_end):
            for c_start, c_end in _cap(text, s_start, s_end):
                while c_start < c_end and text[c_start].isspace():
                    c_start += 1
                while c_end > c_start and text[c_end - 1].isspace():
                    c_end -= 1
                if c_end > c_start and any(ch.isalnum() for ch in text[c_start:c_end]):
                    sentences.append(Sentence(len(sentences), c_start, c_end, text[c_start:c_end]))
    return sentences


# --- names ------------------------------------------------------------------------------

_LEADING_DETERMINERS = frozenset(
    "the a an this that these those our your its their his her my each every all any some".split()
)
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_INVARIANT = frozenset("data media series species news analysis basis status access".split())


def singularise(word: str) -> str:
    """A light English singular for the last word of a name ("exports" -> "export")."""
    if len(word) <= 3 or word in _INVARIANT or not word.isalpha():
        return word
    if word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def normalise(name: str) -> str:
    """The identity of an entity name: case, articles, possessives and plurals folded."""
    s = unicodedata.normalize("NFKC", name).lower()
    s = re.sub(r"['’]s\b", "", s)
    words = [w for w in _NON_WORD.split(s) if w and w != "_"]
    while len(words) > 1 and words[0] in _LEADING_DETERMINERS:
        words = words[1:]
    if words:
        words[-1] = singularise(words[-1])
    return " ".join(words)


def _mention_words(text: str) -> list[str]:
    s = re.sub(r"['’]s\b", "", unicodedata.normalize("NFKC", text).lower())
    return [singularise(w) for w in _NON_WORD.split(s) if w and w != "_"]


def mentioned_in(name: str, sentence: str) -> bool:
    """Whether ``name`` occurs in ``sentence`` as a run of whole words, with case, possessives, plurals and a
    leading article folded as in ``normalise`` ("the exports" is in "Export writes a snapshot")."""
    want = [singularise(w) for w in normalise(name).split()]
    have = _mention_words(sentence)
    n = len(want)
    return n > 0 and any(have[i:i + n] == want for i in range(len(have) - n + 1))


def display_name(name: str) -> str:
    """A tidy surface form for display: whitespace collapsed, outer punctuation trimmed."""
    return " ".join(name.split()).strip(" .,;:!?\"'()[]")


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """"1 relation", "2 relations": counts shown to people read as English."""
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def sentence_hash(sentence: str) -> str:
    """A sentence as a model-reply cache names its sources: sha256 of its words, whitespace
    collapsed as the model saw them (a removal drops the replies about its sentences)."""
    return hashlib.sha256(" ".join(sentence.split()).encode("utf-8")).hexdigest()


# A spreadsheet runs a cell that starts with one of these as a formula (after a tab or carriage return too).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """``value`` as a cell a spreadsheet will not run: text starting like a formula gets a leading ``'``
    (OWASP CSV injection); anything else, numbers included, is unchanged."""
    return "'" + value if isinstance(value, str) and value[:1] in FORMULA_START else value


def spreadsheet_csv(rows: Iterable[Mapping[str, object]], fields: Sequence[str]) -> str:
    """``rows`` as CSV with a header of ``fields``, every cell made ``spreadsheet_safe``: the one writer of the
    record's, the audit log's and the changed sources' CSV exports (names, notes and quoted words come from people
    and documents; a spreadsheet must never run them as formulas)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields))
    w.writeheader()
    for r in rows:
        w.writerow({k: spreadsheet_safe(v) for k, v in r.items()})
    return buf.getvalue()



# Footnote and citation marks printed in running text ("[69]", "[202][203]", "[a]", "[note 3]", "[citation needed]").
# Every reader takes them out of a document's text as it reads it (the PDF reader line by line, keeping each
# character's box), so no sentence, entity or highlight carries them and spans index the stored text exactly.
FOOTNOTE_MARK = re.compile(r"\[(?:\d{1,4}|[a-z]|note \d{1,3}|nb \d{1,3}|citation needed)\]", re.IGNORECASE)
# In plain text and Markdown only a number (or "citation needed") right after a word or punctuation, or after a
# space where punctuation or the line's end follows ("in 1803 [12],"), is a mark: "- [x] done" is a task list,
# "see [a]" a bracketed letter and "table [1] below" a name, not footnotes.
_MARK_BODY = r"\[(?:\d{1,4}|note \d{1,3}|citation needed)\]"
_ATTACHED_MARK = re.compile(rf"(?<=[^\s\[(]){_MARK_BODY}|(?<=[ \t]){_MARK_BODY}(?=[.,;:!?)]|\n|$)", re.IGNORECASE)


def mark_spans(text: str, pattern: re.Pattern[str] = FOOTNOTE_MARK) -> list[tuple[int, int]]:
    """Where ``text``'s footnote marks are, each widened by the space before it when the mark ends a word's
    phrase ("word [3] next" keeps one space, "word [3]." none)."""
    spans = []
    for m in pattern.finditer(text):
        s, e = m.span()
        if s > 0 and text[s - 1] in " \t" and (e == len(text) or text[e] in " \t.,;:!?)"):
            s -= 1
        spans.append((s, e))
    return spans


def without_footnote_marks(text: str, *, attached_only: bool = False) -> str:
    """``text`` with its footnote marks taken out (``attached_only``: only numbered marks right after a word or
    punctuation, for plain text and Markdown, where brackets mean other things)."""
    spans = mark_spans(text, _ATTACHED_MARK if attached_only else FOOTNOTE_MARK)
    if not spans:
        return text
    out, at = [], 0
    for s, e in spans:
        out.append(text[at:s])
        at = max(at, e)
    out.append(text[at:])
    return "".join(out)
