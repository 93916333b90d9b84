"""Table rows as citable statements: each row read with its header ("Plan: Enterprise; Price per seat: 40 EUR").

A row's cells alone ("Enterprise 40 EUR 24/7") say nothing a reader can quote: which figure is the price is
in the header. Every reader (DOCX, HTML, PDF) finds its tables' header and rows its own way and words each
row here, so a row reads the same from every format and the answer can quote it as a statement. A row is
one paragraph of the document's text, of block kind ``ROW``.

Bounded: a table wider than ``ReadLimits.table_columns`` would repeat its header in every row (a table of
10,000 columns, 10,000 labels a row), so its rows keep their cells only, apart with tabs as before, and
the reading report says so; every row's text counts against the document's character limit as it is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphrag.ingest.readers.limits import LIMITS, ReadLimits
from graphrag.language.sentences import counted

ROW = "row"  # Block.kind of a table row read as a statement
_END = ".!?"


def clean(cell: str) -> str:
    """A cell's text on one line, its whitespace collapsed."""
    return " ".join(cell.split())


def has_header(header: Sequence[str]) -> bool:
    """Whether a first row can label the others: at least two cells with words, not a row of figures."""
    labels = [clean(h) for h in header if clean(h)]
    worded = [h for h in labels if any(c.isalpha() for c in h)]
    return len(worded) >= 2 and len(worded) >= len(labels) / 2


def row_statement(header: Sequence[str], cells: Sequence[str]) -> str:
    """One row as a statement: each non-empty cell after its column's label, "; " between them, a full stop
    at the end ("Plan: Enterprise; Price per seat: 40 EUR; Support: 24/7."). A cell under an empty label
    stands alone; cells past the header are labelled by nothing. Empty when the row has no text."""
    parts = []
    for i, cell in enumerate(cells):
        value = clean(cell)
        if not value:
            continue
        label = clean(header[i]).rstrip(":") if i < len(header) else ""
        parts.append(f"{label}: {value}" if label and label != value else value)
    if not parts:
        return ""
    text = "; ".join(parts)
    return text if text[-1] in _END else text + "."


def too_wide(columns: int, limits: ReadLimits = LIMITS) -> bool:
    """Whether a table has more columns than its rows may repeat labels for."""
    return columns > limits.table_columns


@dataclass
class TableTally:
    """What the reading report says of a document's tables."""

    tables: int = 0  # tables read row by row (a worded header and at least one row under it)
    rows: int = 0  # rows read as statements
    wide: int = 0  # tables past the column bound, read as cells only
    widest: int = 0

    def note(self, limits: ReadLimits = LIMITS) -> str | None:
        """"2 tables: 7 rows read as statements (each row with its header)", and the wide ones; None without tables."""
        parts = []
        if self.tables:
            parts.append(f"{counted(self.tables, 'table')}: {counted(self.rows, 'row')} read as statements (each row "
                         "with its header)")
        if self.wide:
            parts.append(f"{counted(self.wide, 'table')} wider than {limits.table_columns} columns (up to "
                         f"{self.widest:,}) read as cells only, without the header")
        return "; ".join(parts) or None
