"""Citations into PDF, HTML and DOCX documents through the `graphrag` command: ask --json and the export."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest

from doc_helpers import SAMPLE
from graphrag.cli import main

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def doc_store(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("docs")
    for name in ("security-handbook.pdf", "billing-help.html", "sso-setup.docx", "retention.md", "billing.md"):
        shutil.copy(SAMPLE / name, root / name)
    path = str(root / "store.db")
    assert main(["ingest", str(root), "--store", path, "--json"]) == 0
    return path


def ask(capsys, store: str, question: str) -> dict:
    capsys.readouterr()
    assert main(["ask", question, "--store", store, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def citations(answer: dict) -> list[dict]:
    return [c for cl in answer["claims"] for c in cl["citations"] if c["valid"]]


def test_pdf_citation_carries_page_label_and_boxes(doc_store, capsys):
    a = ask(capsys, doc_store, "Within how many hours are affected customers notified of a security incident?")
    cit = next(c for c in citations(a) if "72 hours" in c["sentence"])
    assert cit["document"] == "security-handbook"
    assert (cit["page"], cit["page_end"], cit["page_label"]) == (3, None, "2")
    assert len(cit["boxes"]) == 3 and all(b[0] == 3 and b[1] < b[3] and b[2] < b[4] for b in cit["boxes"])
    assert cit["heading_path"] == "Incident response"  # the section heading above it on the page


def test_text_citations_have_null_pages_and_html_keeps_its_heading(doc_store, capsys):
    a = ask(capsys, doc_store, "Can annual plans be refunded?")
    cits = citations(a)
    html = next(c for c in cits if c["document"] == "billing-help" and "14 days" in c["sentence"])
    assert html["heading_path"] == "Refunds > Annual plans" and html["page"] is None and html["boxes"] is None
    text = [c for c in citations(ask(capsys, doc_store, "How many times are failed payments retried?"))
            if c["document"] == "billing"]
    assert text and all(c["page"] is None and c["boxes"] is None and c["heading_path"] is None for c in text)


def test_plain_output_names_the_page(doc_store, capsys):
    capsys.readouterr()
    assert main(["ask", "Within how many hours are affected customers notified of a security incident?", "--store", doc_store]) == 0
    assert "security-handbook v1 (p. 2) [" in capsys.readouterr().out
    capsys.readouterr()
    assert main(["ask", "Can annual plans be refunded?", "--store", doc_store]) == 0
    assert "billing-help v1 (Refunds > Annual plans, paragraph 6) [" in capsys.readouterr().out


def test_export_carries_the_page(doc_store, capsys, tmp_path):
    a = ask(capsys, doc_store, "Within how many hours are affected customers notified of a security incident?")
    claim = next(cl for cl in a["claims"] if any("72 hours" in (c["sentence"] or "") for c in cl["citations"]))
    assert main(["review", "mark", "--answer", str(a["answer_id"]), "--claim", str(claim["number"]), "--verdict",
                 "supported", "--reviewer", "ana", "--store", doc_store]) == 0
    out = tmp_path / "record.csv"
    assert main(["export", "--format", "csv", "--out", str(out), "--store", doc_store]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    row = next(r for r in rows if r["answer_id"] == str(a["answer_id"]))
    assert (row["document"], row["page"], row["page_label"]) == ("security-handbook", "3", "2")
