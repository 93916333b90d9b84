"""Attribution: an answer's sentences become claims, and their [N] markers become citations.

Nothing is dropped: a marker past the context, or bracket text that is not a number list, is
kept on its claim and flagged; a claim without any marker is flagged ``uncited``. The claim's
text is the answer's own sentence with the markers taken out, never a placeholder. A claim
that is one of its cited sentences word for word is flagged ``verbatim_quote``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from graphrag.language.sentences import split_sentences
from graphrag.model import Answer, Citation, Claim, ClaimFlag, ContextItem
from graphrag.verify.quotations import inside_quotation, quotation_spans

# A bracketed group with a word character in it that is not a Markdown link ("[text](url)").
_MARKER = re.compile(r"\[(?=[^\[\]\n]*\w)([^\[\]\n]{1,40})\](?!\()")
_NUMBERS = re.compile(r"\s*\d{1,6}(\s*-\s*\d{1,6})?(\s*[,;]\s*\d{1,6}(\s*-\s*\d{1,6})?)*\s*")
_MAX_RANGE = 50


@dataclass(frozen=True)
class Marker:
    """A bracketed citation marker in generated text, with the source numbers it names."""

    start: int
    end: int
    raw: str  # inside the brackets
    numbers: tuple[int, ...]  # empty when malformed

    @property
    def malformed(self) -> bool:
        """Whether the marker names no source number it can be read as."""
        return not self.numbers


def parse_markers(text: str) -> list[Marker]:
    """Every bracketed group: "[3]", "[1, 2]", "[1][2]", "[2-4]" resolve; others are malformed."""
    out = []
    for m in _MARKER.finditer(text):
        raw = m.group(1)
        numbers: list[int] = []
        if _NUMBERS.fullmatch(raw):
            for part in re.split(r"[,;]", raw):
                lo, _, hi = part.partition("-")
                a, b = int(lo), int(hi) if hi.strip() else int(lo)
                if b < a or b - a > _MAX_RANGE:
                    numbers = []
                    break
                numbers.extend(range(a, b + 1))
        out.append(Marker(m.start(), m.end(), raw, tuple(dict.fromkeys(numbers))))
    return out


def display_numbers(answer: Answer) -> dict[int, int]:
    """Context item number -> the number a reader sees: 1, 2, 3 in the order the answer first cites them,
    then the items no claim cites, in their own order. An answer is stored numbered so (``in_reading_order``), and
    this is then the identity; an answer stored before keeps retrieval's numbers, and every surface (the pages, the
    export of the record, the pack) shows these."""
    return _reading_order(answer.claims, answer.context)


def _reading_order(claims: Sequence[Claim], context: Sequence[ContextItem]) -> dict[int, int]:
    order: dict[int, int] = {}
    for claim in claims:  # claims run in the text's order, citations in their markers' order
        for c in claim.citations:
            if c.valid and c.item is not None and c.item.n not in order:
                order[c.item.n] = len(order) + 1
    for item in sorted(context, key=lambda i: i.n):
        order.setdefault(item.n, len(order) + 1)
    return order


def in_reading_order(text: str, context: Sequence[ContextItem]) -> tuple[str, tuple[ContextItem, ...]]:
    """An answer's text and context numbered as a reader meets them, decided once as the answer is composed: [1]
    for the first source the text cites, [2] for the next new one, then the items no claim cites in retrieval's
    order (the numbers ``display_numbers`` gives). Stored so, the answer, its verdicts (which name the marker they
    judged) and every surface (the pages, ``graphrag ask``, the export, the pack) hold one numbering; each item
    keeps its retrieval score. A context not numbered 1..N (none is) is left as it is: a number past it, flagged on
    its claim, could then be taken for one of the new numbers."""
    items = tuple(context)
    if sorted(i.n for i in items) != list(range(1, len(items) + 1)):
        return text, items
    numbers = _reading_order(attribute(text, items), items)
    if all(new == old for old, new in numbers.items()):
        return text, items
    moved = tuple(sorted((replace(i, n=numbers[i.n]) for i in items), key=lambda i: i.n))
    return renumbered(text, numbers), moved


def shown_marker(marker: str | None, shown: Mapping[int, int]) -> str | None:
    """The number the surfaces show for a stored marker (``shown``: ``display_numbers``); a marker outside the
    context as stored."""
    if marker is None or not marker.isdigit():
        return marker
    return str(shown.get(int(marker), marker))


def renumbered(text: str, numbers: Mapping[int, int]) -> str:
    """``text`` with every numeric marker rewritten by ``numbers`` ("[6, 5]" -> "[1, 2]"). A number outside it
    (a marker past the context, flagged on its claim) and a malformed marker are left as written: the numbers
    shown run 1..N over the N context items, so a number past the context cannot be mistaken for one of them."""
    out, at = [], 0
    for m in parse_markers(text):
        if m.malformed:
            continue
        out.append(text[at:m.start])
        out.append("[" + ", ".join(str(numbers.get(n, n)) for n in m.numbers) + "]")
        at = m.end
    out.append(text[at:])
    return "".join(out)


def strip_markers(text: str) -> str:
    """The sentence as a reader should see it: markers removed, spacing tidied."""
    s = _MARKER.sub("", text)
    s = re.sub(r"\s+([.,;:!?])", r"\1", s)
    return " ".join(s.split())


_LEADING_MARKERS = re.compile(r"(?:\s*\[(?=[^\[\]\n]*\w)[^\[\]\n]{1,40}\](?!\())+")


def _sentence_ranges(answer: str) -> list[tuple[int, int]]:
    """The answer's sentences, with those that begin inside a quotation joined to the one before: a quoted
    "Refunds are not given. Ask support." is one statement the answer makes, not two claims."""
    spans = quotation_spans(answer)
    ranges: list[tuple[int, int]] = []
    for s in split_sentences(answer):
        if ranges and inside_quotation(spans, s.start):
            ranges[-1] = (ranges[-1][0], s.end)
        else:
            ranges.append((s.start, s.end))
    return ranges


def _claim_ranges(answer: str) -> list[tuple[int, int]]:
    """Sentence ranges of the answer. Markers written after a full stop ("... snapshots. [1]")
    belong to the sentence before them, not to the next one."""
    ranges: list[tuple[int, int]] = []
    for s_start, s_end in _sentence_ranges(answer):
        start = s_start
        lead = _LEADING_MARKERS.match(answer, start, s_end)
        if ranges and lead:
            ranges[-1] = (ranges[-1][0], lead.end())
            start = lead.end()
            while start < s_end and answer[start].isspace():
                start += 1
        if start < s_end and strip_markers(answer[start:s_end]).strip(" .,;:!?"):
            ranges.append((start, s_end))
        elif ranges:
            ranges[-1] = (ranges[-1][0], s_end)
        elif start < s_end:
            ranges.append((start, s_end))  # an answer that opens with bare markers keeps them
    return ranges


_DOUBLE_QUOTES = str.maketrans({"“": "‘", "”": "’", '"': "'"})


def _canonical(text: str) -> str:
    """Text as a quote carries it: whitespace collapsed, square brackets as parentheses (the
    extractive generator's one change to a source), double quotation marks as single ones (a quotation
    holding one writes it so), no space before punctuation."""
    s = " ".join(text.replace("[", "(").replace("]", ")").translate(_DOUBLE_QUOTES).split())
    return re.sub(r"\s+([.,;:!?])", r"\1", s).rstrip(" .!?…")


def _unquoted(claim: str) -> str:
    """The claim without one pair of double quotation marks around the whole of it (a theme's bullet quotes its
    sentence so), or as it is."""
    s = claim.strip()
    if len(s) > 2 and ((s[0] == "“" and s[-1] == "”") or (s[0] == s[-1] == '"')) and not \
            set(s[1:-1]) & set('“”"'):
        return s[1:-1]
    return claim


def _verbatim(claim: str, cited: Sequence[str]) -> bool:
    """The claim is one cited sentence word for word (or that sentence in quotation marks): checking it against
    that sentence measures the copy, not whether it answers anything."""
    c = _canonical(_unquoted(claim))
    return bool(c) and any(_canonical(t) == c for t in cited)


def _line_ranges(answer: str, lines: Collection[str]) -> list[tuple[int, int]]:
    """(start, end) of each line of ``answer`` whose text, stripped, is one of ``lines``."""
    out, at = [], 0
    for line in answer.splitlines(keepends=True):
        if line.strip() and line.strip() in lines:
            out.append((at, at + len(line)))
        at += len(line)
    return out


def attribute(answer: str, context: Sequence[ContextItem], not_claims: Collection[str] = ()) -> list[Claim]:
    """Claims of ``answer`` with citations resolved against ``context`` (numbered from 1). ``not_claims``: lines
    of the answer that are no claim, given by what composed it (a theme's name over its quotes, an opening that
    says how the answer was made: ``graphrag.answer.themes``); a sentence lying in one of them is left out. A line
    the text itself presents as a heading is still a claim: only its composer can say it states nothing."""
    items = {c.n: c for c in context}
    claims: list[Claim] = []
    headings = _line_ranges(answer, not_claims) if not_claims else []
    for start, end in _claim_ranges(answer):
        if any(a <= start and end <= b for a, b in headings):
            continue
        sentence = answer[start:end]
        text = strip_markers(sentence)
        markers = parse_markers(sentence)
        if not text and not markers:
            continue
        citations: list[Citation] = []
        flags: list[ClaimFlag] = []
        seen: set[int] = set()
        for m in markers:
            if m.malformed:
                citations.append(Citation(m.raw, valid=False))
                flags.append(ClaimFlag.MALFORMED_MARKER)
                continue
            for n in m.numbers:
                if n in seen:
                    continue
                seen.add(n)
                item = items.get(n)
                citations.append(Citation(str(n), valid=item is not None, item=item))
                if item is None:
                    flags.append(ClaimFlag.INVALID_MARKER)
                elif item.superseded:
                    flags.append(ClaimFlag.SUPERSEDED_SOURCE)
        if not markers:
            flags.append(ClaimFlag.UNCITED)
        elif _verbatim(text, [c.item.span.text for c in citations if c.item is not None]):
            flags.append(ClaimFlag.VERBATIM_QUOTE)
        claims.append(Claim(len(claims), text, start, end, tuple(citations), tuple(dict.fromkeys(flags))))
    return claims
