"""A question about a value in a table is answered by quoting the table's row, from a PDF and from a DOCX."""

from __future__ import annotations

import io
import json

import pytest

from doc_helpers import pdf_with
from graphrag.cli import main

pytestmark = pytest.mark.model

PLANS = [("Plan", "Price per seat", "Support"), ("Team", "12 EUR", "Business hours"),
         ("Enterprise", "40 EUR", "24/7"), ("Starter", "Free", "Community forum")]
ADDONS = [("Add-on", "Monthly price", "Included storage"), ("Archive block", "9 EUR", "500 GB"),
          ("Vault block", "25 EUR", "2 TB")]


def _pricing_pdf() -> bytes:
    """Two lines of prose, a ruled table of plans with a bold header, a line of prose under it."""
    def draw(c, i):
        c.setFont("Helvetica", 11)
        c.drawString(72, 720, "Larkspur plans are billed monthly per seat, and every plan includes the export tool.")
        c.drawString(72, 704, "The prices below apply from the first of March.")
        y = 670
        for r, row in enumerate(PLANS):
            c.setFont("Helvetica-Bold" if r == 0 else "Helvetica", 11)
            for j, value in enumerate(row):
                c.drawString(72 + 150 * j, y, value)
            c.line(70, y - 4, 540, y - 4)
            y -= 20
        c.setFont("Helvetica", 11)
        c.drawString(72, y - 20, "Seats can be added at any time from the billing page.")
    return pdf_with(draw)


def _storage_docx() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Storage add-ons", 1)
    document.add_paragraph("Extra storage is sold in blocks and billed with the plan.")
    table = document.add_table(rows=len(ADDONS), cols=3)
    for r, row in enumerate(ADDONS):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("Blocks can be cancelled at the end of any month.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def table_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("tables")
    docs = root / "docs"
    docs.mkdir()
    (docs / "pricing.pdf").write_bytes(_pricing_pdf())
    (docs / "storage.docx").write_bytes(_storage_docx())
    store = str(root / "store.db")
    assert main(["ingest", str(docs), "--store", store]) == 0
    return store


def _ask(capsys: pytest.CaptureFixture[str], store: str, question: str) -> dict:
    capsys.readouterr()
    assert main(["ask", question, "--store", store, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_price_in_a_pdf_table_is_answered_by_quoting_its_row_on_its_page(table_store: str,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Before: the row read "Enterprise\\t40 EUR\\t24/7", a table row the answer never quotes, and nothing in
    it said that 40 EUR is a price per seat."""
    a = _ask(capsys, table_store, "What is the price per seat of the Enterprise plan?")
    assert a["answer"].startswith("40 EUR ["), a["answer"]
    row = "Plan: Enterprise; Price per seat: 40 EUR; Support: 24/7."
    [quote] = [claim for claim in a["claims"] if claim["text"] == row]  # the row itself is quoted
    [cited] = quote["citations"]
    assert cited["document"] == "pricing" and cited["sentence"] == row and cited["page"] == 1
    [(page, x0, y0, x1, y1)] = cited["boxes"]  # the row's cells on page 1: from the first column to the third
    assert page == 1 and 70 <= x0 <= 74 and x1 > 372 and 792 - 630 - 12 < y0 < 792 - 630 < y1


def test_a_price_in_a_docx_table_is_answered_by_quoting_its_row(table_store: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Before: each cell was a paragraph of its own ("25 EUR"): the price stood apart from what it is for."""
    a = _ask(capsys, table_store, "How much does the Vault block cost per month?")
    assert a["answer"].startswith("25 EUR ["), a["answer"]
    assert any(claim["text"] == "Add-on: Vault block; Monthly price: 25 EUR; Included storage: 2 TB."
               for claim in a["claims"])
