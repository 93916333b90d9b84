"""The exported record names a citation by the number the reviewer saw ([1], [2] in reading order), with
retrieval's number beside it: an answer citing context items 5 then 3 showed them as [1] and [2]."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route
from graphrag.present import display_numbers
from graphrag.store import Store
from graphrag.verify.exports import export_record
from graphrag.verify.review import record_verdict
from helpers import ADMIN, write_document_rows

pytestmark = pytest.mark.unit


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
    span = s.span("policy", 1, 0)
    items = {n: ContextItem(n, span, Route("export"), 1.0 - n / 10, "similarity") for n in (3, 5, 7)}
    claims = (Claim(0, "first claim", 0, 1, (Citation("5", True, items[5]),)),
              Claim(1, "second claim", 0, 1, (Citation("3", True, items[3]),)))
    s.save_answer(Answer("How long are exports kept?", AskSettings(), "first [5]. second [3].", (), (),
                         tuple(items.values()), claims))
    answer = s.answer(1)
    assert answer is not None
    for claim in answer.claims:
        record_verdict(s, answer, claim, claim.citations[0], "supported", "ana")
    yield s
    s.close()


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_the_export_names_the_citation_the_reviewer_saw(store: Store, fmt: str) -> None:
    text = export_record(store, fmt, by=ADMIN).text
    rows = list(csv.DictReader(io.StringIO(text))) if fmt == "csv" else json.loads(text)
    assert [(r["claim"], str(r["citation"]), str(r["citation_retrieval"])) for r in rows] == [
        ("first claim", "1", "5"), ("second claim", "2", "3")]
    answer = store.answer(1)
    assert answer is not None
    assert display_numbers(answer) == {5: 1, 3: 2, 7: 3}  # the numbers the Ask and Review pages show


def test_the_pack_names_an_older_answer_s_citations_as_the_pages_do(store: Store, tmp_path: Path) -> None:
    """Issue 60: an answer stored before its numbers were decided as it was composed (retrieval's 5 then 3) reads
    [1] and [2] on the pages; the pack's answers and report say the same (its stored marker kept beside)."""
    import zipfile

    from graphrag.verify.exports import export_pack

    pack = export_pack(store, by=ADMIN, config_home=tmp_path / "config")
    with zipfile.ZipFile(io.BytesIO(pack.data)) as z:
        (answer,) = json.loads(z.read("answers.json"))
        report = z.read("report.html").decode()
    assert [(c["marker"], c["citation"]) for cl in answer["claims"] for c in cl["citations"]] == [("5", "1"),
                                                                                                ("3", "2")]
    assert "<blockquote>[1] " in report and "<blockquote>[2] " in report and "<blockquote>[5] " not in report
