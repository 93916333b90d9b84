"""Tables and captions in the PDF reader: a table's rows under a worded header read as statements ("Plan:
Enterprise; Price per seat: 40 EUR."), and a caption the reading order put inside a body sentence moved after it."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from graphrag.ingest.readers.pdf_kinds import LineKind
from graphrag.ingest.readers.pdf_lines import TERMINAL, Line
from graphrag.ingest.readers.tables import TableTally, has_header, too_wide


@dataclass
class TableRow:
    """A table row's line as a statement: the header's labels (not drawn: NaN edges) before its cells' drawn
    characters, so the statement's box is the row's cells."""

    chars: list[str]
    x0s: list[float]
    x1s: list[float]


def _cells(ln: Line) -> list[tuple[int, int, float, float]]:
    """A line's cells as (start, end, x0, x1) over its characters: fragments at least an em apart (as
    ``region_lines`` counts them); fragments that touch (a change of font) are one cell."""
    cuts = [j for j in ln.joins if ln.x0s[j + 1] - ln.x1s[j - 1] > ln.size]
    bounds = [0, *cuts, len(ln.chars)]
    out = []
    for a, b in itertools.pairwise(bounds):
        a = a + 1 if a in cuts else a  # the space that stands for the gap belongs to neither cell
        xs0 = [x for x in ln.x0s[a:b] if not np.isnan(x)]
        xs1 = [x for x in ln.x1s[a:b] if not np.isnan(x)]
        if xs0 and "".join(ln.chars[a:b]).strip():
            out.append((a, b, min(xs0), max(xs1)))
    return out


def _column(x0: float, x1: float, header: list[tuple[int, int, float, float]]) -> int:
    """The header column a cell sits under: the one it overlaps most, else the nearest by centre."""
    overlaps = [min(x1, h1) - max(x0, h0) for _, _, h0, h1 in header]
    best = max(range(len(header)), key=lambda c: overlaps[c])
    if overlaps[best] > 0:
        return best
    centre = (x0 + x1) / 2
    return min(range(len(header)), key=lambda c: abs((header[c][2] + header[c][3]) / 2 - centre))


def _statement(ln: Line, header: list[str], columns: list[tuple[int, int, float, float]]) -> TableRow | None:
    """``ln``'s cells after their columns' labels ("Plan: Enterprise; Price per seat: 40 EUR."), each cell's
    characters keeping their edges; None when the row has no cell."""
    by_column: dict[int, list[tuple[int, int, float, float]]] = {}
    for cell in _cells(ln):
        by_column.setdefault(_column(cell[2], cell[3], columns), []).append(cell)
    if not by_column:
        return None
    row = TableRow([], [], [])

    def undrawn(text: str) -> None:
        row.chars.extend(text)
        row.x0s.extend([np.nan] * len(text))
        row.x1s.extend([np.nan] * len(text))

    for c in sorted(by_column):
        if row.chars:
            undrawn("; ")
        label = " ".join(header[c].split()).rstrip(":")
        if label:
            undrawn(f"{label}: ")
        for i, (a, b, _, _) in enumerate(by_column[c]):
            if i:
                undrawn(" ")
            row.chars.extend(ln.chars[a:b])
            row.x0s.extend(ln.x0s[a:b])
            row.x1s.extend(ln.x1s[a:b])
    if row.chars[-1] not in ".!?":
        undrawn(".")
    return row


def table_statements(lines: list[Line], kinds: list[LineKind], tally: TableTally) -> dict[int, TableRow]:
    """Each table's rows under a worded header as statements, by line index: a table is a run of table
    rows in reading order (across a page break: a table running onto the next page keeps its header), its
    first line the header (kept as it is, cells apart; a header repeated on the next page too). A table wider
    than the column bound keeps its rows as cells (``tables``)."""
    out: dict[int, TableRow] = {}
    k = 0
    while k < len(lines):
        if kinds[k] is not LineKind.TABLE:
            k += 1
            continue
        end = k + 1
        while end < len(lines) and kinds[end] is LineKind.TABLE:
            end += 1
        columns = _cells(lines[k])
        header = ["".join(lines[k].chars[a:b]) for a, b, _, _ in columns]
        if end - k >= 2 and too_wide(len(columns)):
            tally.wide += 1
            tally.widest = max(tally.widest, len(columns))
        elif end - k >= 2 and has_header(header):
            tally.tables += 1
            for j in range(k + 1, end):
                if lines[j].text.split() == lines[k].text.split():
                    continue  # the header printed again on the next page
                if (row := _statement(lines[j], header, columns)) is not None:
                    out[j] = row
                    tally.rows += 1
        k = end
    return out


def captions_aside(lines: list[Line], kinds: list[LineKind]) -> tuple[list[Line], list[LineKind]]:
    """Lines in the order their text is joined: a caption that the reading order put inside a body sentence (a
    picture beside the text, its caption read between two lines of a sentence) goes after that sentence's line,
    so the sentence reads whole and the caption stands as a paragraph of its own."""
    out = list(zip(lines, kinds))
    k = 1
    while k < len(out):
        j = k
        while j < len(out) and out[j][1] is LineKind.CAPTION:
            j += 1
        prev = out[k - 1]
        if j > k and j < len(out) and prev[1] is LineKind.BODY and out[j][1] is LineKind.BODY \
                and prev[0].text.rstrip()[-1:] not in TERMINAL:
            m = j  # the body line that ends the interrupted sentence
            while m + 1 < len(out) and out[m + 1][1] is LineKind.BODY and out[m][0].text.rstrip()[-1:] not in ".!?":
                m += 1
            out[k:m + 1] = [*out[j:m + 1], *out[k:j]]
            k += m + 1 - j  # the captions' new place: more of them may follow, and the sentence go on after
        else:
            k = j + 1 if j > k else k + 1
    return [ln for ln, _ in out], [kd for _, kd in out]
