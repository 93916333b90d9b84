"""Table rows read as statements that carry their header, in DOCX and HTML (PDF: test_readers, test_pdf_kinds)."""

from __future__ import annotations

import io

import pytest

from doc_helpers import docx_with_body
from graphrag.ingest.readers import read_document
from graphrag.ingest.readers.limits import LIMITS
from graphrag.ingest.readers.tables import row_statement
from graphrag.language.sentences import split_sentences

pytestmark = pytest.mark.unit

PLANS = [("Plan", "Price per seat", "Support"), ("Team", "12 EUR", "Business hours"),
         ("Enterprise", "40 EUR", "24/7")]


def _docx_with_table(rows: list[tuple[str, ...]]) -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Pricing", 1)
    document.add_paragraph("Every plan is billed monthly.")
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    for r, cells in enumerate(rows):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    document.add_paragraph("Seats can be added at any time.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_docx_table_row_is_one_statement_with_its_header_under_its_heading() -> None:
    read = read_document(_docx_with_table(PLANS), ".docx")
    sentences = [s.text for s in split_sentences(read.text)]
    # Before: each cell a paragraph of its own ("Enterprise", "40 EUR", "24/7"), nothing saying what 40 EUR is.
    assert "Plan: Enterprise; Price per seat: 40 EUR; Support: 24/7." in sentences
    assert "Plan: Team; Price per seat: 12 EUR; Support: Business hours." in sentences
    assert "40 EUR" not in sentences and "Seats can be added at any time." in sentences
    start = read.text.index("Plan: Enterprise")
    assert read.layout.kind_at(start) == "row"
    lay = read.layout.span_layout(start, start + 10)
    assert lay is not None and lay.heading_path == "Pricing"
    assert read.layout.notes == ("1 table: 2 rows read as statements (each row with its header)",)


def test_a_row_statement_skips_empty_cells_and_labels_nothing_past_the_header() -> None:
    assert row_statement(["Plan", "", "Note:"], ["Team", "monthly", "", "extra"]) == "Plan: Team; monthly; extra."
    assert row_statement(["Plan", "Price"], ["", " "]) == ""
    assert row_statement(["Question", "Answer"], ["Refunds", "Within 14 days!"]) == \
        "Question: Refunds; Answer: Within 14 days!"


def test_a_table_of_ten_thousand_columns_is_read_as_cells_within_the_bounds() -> None:
    columns = 10_000
    html = ("<html><body><p>A very wide export.</p><table>"
            + "<tr>" + "".join(f"<th>Field {c}</th>" for c in range(columns)) + "</tr>"
            + "<tr>" + "".join(f"<td>{c}</td>" for c in range(columns)) + "</tr></table></body></html>")
    read = read_document(html.encode(), ".html")
    # Each row would repeat 10,000 labels; it keeps its cells only, and the reading report says so.
    assert "Field 9999: 9999" not in read.text and "Field 9999" in read.text
    assert len(read.text) < 200_000
    assert read.layout.notes == (f"1 table wider than {LIMITS.table_columns} columns (up to 10,000) read as cells "
                                 "only, without the header",)
    cell = "<w:tc><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:tc>"
    body = ("<w:tbl>" + "".join("<w:tr>" + "".join(cell.format(f"{r}{c}") for c in range(columns)) + "</w:tr>"
                                for r in ("h", "v")) + "</w:tbl>")
    read = read_document(docx_with_body(body), ".docx")
    assert "h9999: v9999" not in read.text and "v9999" in read.text
    assert read.layout.notes == (f"1 table wider than {LIMITS.table_columns} columns (up to 10,000) read as cells "
                                 "only, without the header",)


def test_a_row_of_figures_read_with_its_header_is_a_statement_the_answer_may_quote() -> None:
    from graphrag.answer.reader.rank.kinds import SentenceKind, quotable, sentence_kind

    # Before: mostly figures, so a table row that no answer quotes, though every figure says what it is.
    assert quotable(row_statement(["Year", "Q1", "Q2", "Q3", "Q4"], ["2011", "12", "14", "15", "16"]))
    assert sentence_kind("2011 12 14 15 16") is SentenceKind.TABLE_ROW  # cells without their header are not
