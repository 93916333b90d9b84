"""Printed lines joined into the document's text: paragraphs where the gap, the size or the kind says so,
hyphenated line ends joined (a compound keeps its hyphen), footnote marks taken out, and each paragraph's kind and
heading path."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

import numpy as np

from graphrag.ingest.readers.layout import Block, TextLine
from graphrag.ingest.readers.pdf_kinds import IN_TEXT, LineKind
from graphrag.ingest.readers.pdf_lines import TERMINAL, Line
from graphrag.ingest.readers.pdf_tables import TableRow
from graphrag.ingest.readers.tables import ROW
from graphrag.language.sentences import FOOTNOTE_MARK

_HYPHENS = "-\u00ad\u2010\x02"


def _separator(prev: Line, nxt: Line, kind: LineKind, next_kind: LineKind) -> str:
    """What joins two consecutive lines: "" (hyphenated word), "\\n" (same paragraph) or a paragraph break.
    Lines of different kinds never share a paragraph, nor do two table rows or two title-block lines."""
    if kind is not next_kind or kind in (LineKind.TABLE, LineKind.INFOBOX, LineKind.AUTHOR):
        return "\n\n"
    text = prev.text.rstrip()
    if text and text[-1] in _HYPHENS and len(text) > 1 and text[-2].isalpha() and nxt.text[:1].isalpha():
        return ""
    same_column = prev.page == nxt.page and nxt.core_y0 >= prev.core_y0 and min(prev.x1, nxt.x1) > max(prev.x0, nxt.x0)
    h = max(prev.size, nxt.size)
    if same_column:
        if abs(prev.size - nxt.size) > 0.15 * h:
            return "\n\n"  # a heading, or a caption, in another size
        # A wide gap ends a paragraph only after a line that could end one (browsers print lines
        # with a superscript further apart; a sentence must not be cut there).
        short = prev.x1 < nxt.x1 - 0.2 * (nxt.x1 - nxt.x0)
        if nxt.core_y0 - prev.core_y1 > 0.75 * h and (text[-1:] in TERMINAL or short):
            return "\n\n"
        return "\n"
    # A new column or page: body text goes on where the line did not close its sentence.
    if kind is not LineKind.BODY or text[-1:] in TERMINAL or abs(prev.size - nxt.size) > 0.15 * h:
        return "\n\n"
    return "\n"


class _Headings:
    """The heading path of the text so far: a heading closes every open heading set no larger than it."""

    def __init__(self) -> None:
        self.open: list[tuple[float, str]] = []

    def add(self, ln: Line, continued: bool) -> None:
        text = " ".join(ln.text.split())
        if continued and self.open:  # a heading's second line
            size, first = self.open[-1]
            self.open[-1] = (size, f"{first} {text}")
            return
        while self.open and self.open[-1][0] <= 1.05 * ln.size:
            self.open.pop()
        self.open.append((ln.size, text))

    @property
    def path(self) -> str:
        return " > ".join(t for _, t in self.open)


# Footnote and citation marks printed in the text ("[69]", "[202][203]", "[a]", "[note 3]", "[citation needed]"):
# taken out of the document's text when it is read (table rows' too), so no sentence, entity or highlight carries them and the
# spans still index the text exactly. A mark a line break cuts ("[15" / "9]") is taken out on both lines.
_MARK_CUT = re.compile(r"\[\d{1,4}$")


_MARK_REST = re.compile(r"^\d{0,4}\]")


# First parts of a compound that a line break leaves with its hyphen ("best-" / "performing", "state-of-" /
# "the-art"): a word split by the break is joined, a compound keeps its hyphen.
_COMPOUND_HEADS = frozenset("""
    best well state high low long short large small self non multi cross open real end fine world top half semi
    full ill all ever left right hand rule task data domain zero few one two three four five first second third
    single double fully highly newly widely so much most least under over low mid near far wide broad deep
    """.split())


_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _unmarked(chars: list[str], x0s: list[float], x1s: list[float], cut_before: bool
              ) -> tuple[list[str], list[float], list[float], bool]:
    """A line's characters (and their edges) without footnote marks, and whether a mark is cut at its end."""
    text = "".join(chars)
    spans = [m.span() for m in FOOTNOTE_MARK.finditer(text)]  # the marks every reader takes out (graphrag.language.sentences)
    if cut_before and (rest := _MARK_REST.match(text)):
        spans.append(rest.span())
    cut = _MARK_CUT.search(text)
    if cut:
        spans.append(cut.span())
    if not spans:
        return chars, x0s, x1s, False
    drop: set[int] = set()
    for s, e in spans:
        drop.update(range(s, e))
        # "word [3] next" keeps one space, "word [3]." none
        if s > 0 and text[s - 1] in " \t" and (e == len(text) or text[e] in " \t.,;:!?)"):
            drop.add(s - 1)
    keep = [i for i in range(len(chars)) if i not in drop]
    return [chars[i] for i in keep], [x0s[i] for i in keep], [x1s[i] for i in keep], cut is not None


def _printed_words(lines: list[Line]) -> Counter[str]:
    """The words printed whole within lines (lowercased): a word a line break cuts is left out, both its parts."""
    out: Counter[str] = Counter()
    cut = False
    for ln in lines:
        text = ln.text.rstrip()
        found = _WORD.findall(text)
        ends_cut = bool(text) and text[-1] in _HYPHENS
        out.update(w.lower() for w in found[1 if cut else 0:len(found) - 1 if ends_cut else len(found)])
        cut = ends_cut
    return out


def _keep_hyphen(before: str, after: str, words: Counter[str]) -> bool:
    """Whether a hyphen that ends a line belongs to a compound ("state-of-" / "the-art", "best-" / "performing")
    rather than splitting a word ("docu-" / "ment"). The document's own words decide first: the compound or the
    joined word written elsewhere in it; then a first part that is a compound already or a usual compound head,
    a capital after the break ("non-" / "English"), or parts that are words of the document."""
    head = _WORD.findall(before)[-1:] or [""]
    tail = _WORD.match(after)
    first, second = head[0], tail.group(0) if tail else ""
    if not first or not second:
        return False
    hyphenated, joined = f"{first}-{second}".lower(), f"{first}{second}".lower()
    if words[hyphenated] != words[joined]:
        return words[hyphenated] > words[joined]
    if "-" in first or first.lower() in _COMPOUND_HEADS or second[0].isupper():
        return True
    # A first part the document prints as a word of its own, before a long second part ("government" /
    # "sanctioned", "degree" / "holders"), or both parts such words: a split word's parts rarely are ("docu" /
    # "ment", "govern" / "ments", "every" / "where").
    if len(first) >= 4 and len(second) >= 6 and words[first.lower()] > 0:
        return True
    return min(len(first), len(second)) >= 3 and words[first.lower()] > 0 and words[second.lower()] > 0


def join_lines(lines: list[Line], kinds: list[LineKind], rows: dict[int, TableRow] | None = None
               ) -> tuple[str, list[TextLine], list[Block]]:
    """The document's text from the lines of the kinds kept in it, each line's place in that text, and its
    paragraphs with their kind and heading path. A table row in ``rows`` (by line index) reads as its
    statement, a paragraph of kind ``ROW``."""
    rows = rows or {}
    parts: list[str] = []
    text_lines: list[TextLine] = []
    blocks: list[tuple[int, str, str]] = []  # (start, kind, heading path) of each paragraph
    headings = _Headings()
    opened = False
    sizes = sorted(ln.size for ln, k in zip(lines, kinds) if k is LineKind.HEADING)
    title_above = 1.05 * sizes[-2] if len(sizes) > 1 else np.inf
    # The document's words as printed within lines: they say whether a line-end hyphen is a compound's.
    words = _printed_words([ln for ln, k in zip(lines, kinds) if k in IN_TEXT])
    pos = 0
    prev: tuple[Line, LineKind] | None = None
    cut_mark = False
    for k, (ln, kind) in enumerate(zip(lines, kinds)):
        if kind not in IN_TEXT:
            continue
        chars, x0s, x1s = list(ln.chars), ln.x0s, ln.x1s
        if k in rows:
            chars, x0s, x1s = list(rows[k].chars), rows[k].x0s, rows[k].x1s
        elif kind in (LineKind.TABLE, LineKind.INFOBOX):  # cells apart: a row reads as cells, never as a sentence
            for j in ln.joins:
                chars[j] = "\t"
        chars, x0s, x1s, cut_mark = _unmarked(chars, x0s, x1s, cut_mark)
        if not "".join(chars).strip():
            continue  # a line of marks only ("[25][26]")
        sep = "\n\n"
        if prev is not None:
            sep = _separator(prev[0], ln, prev[1], kind)
            if sep == "" and _keep_hyphen(parts[-1], "".join(chars), words):
                pass  # a compound's hyphen: the lines join without a space, the hyphen stays
            elif sep == "":  # a word split by the break: drop the hyphen that ends the previous line
                last = text_lines[-1]
                parts[-1] = parts[-1][:-1]
                pos -= 1
                text_lines[-1] = dataclasses.replace(last, end=last.end - 1, x0s=last.x0s[:-1], x1s=last.x1s[:-1])
            parts.append(sep)
            pos += len(sep)
        if kind is not LineKind.HEADING:
            opened = True
        elif opened or ln.size <= title_above:  # an opening heading larger than any other is the title
            headings.add(ln, continued=sep != "\n\n")
        if sep == "\n\n" or not blocks:
            blocks.append((pos, ROW if k in rows else kind.value, headings.path))
        line = "".join(chars).rstrip()
        parts.append(line)
        y0, y1 = ln.y0, ln.y1
        if ln.frame is not None:  # OCR on a turned page: every character in the line's box as the page lies
            y0, y1 = ln.frame[1], ln.frame[3]
            x0s, x1s = [ln.frame[0]] * len(line), [ln.frame[2]] * len(line)
        text_lines.append(TextLine(ln.page, pos, pos + len(line), round(y0, 2), round(y1, 2),
                                   np.asarray(x0s[:len(line)], dtype=np.float32),
                                   np.asarray(x1s[:len(line)], dtype=np.float32), ln.confidence))
        pos += len(line)
        prev = (ln, kind)
    ends = [*(start for start, _, _ in blocks[1:]), pos]
    return "".join(parts), text_lines, [Block(start, end, path, i + 1, kind)
                                         for i, ((start, kind, path), end) in enumerate(zip(blocks, ends))]
