"""The extractor takes entities from a PDF's body text and headings only (issue 24): a paper's authors,
affiliation, table cells and references, and citation debris such as "et al." or a single letter, made
1,706 entities of two short papers, and routes ran through them."""

from __future__ import annotations

import pytest

from graphrag.ingest.extract.rules import RulesExtractor
from graphrag.ingest.pipeline import Ingestor
from graphrag.language.sentences import Sentence

pytestmark = pytest.mark.model

DEBRIS = {"et al", "al", "et", "a", "j", "r"}


@pytest.fixture(scope="module")
def rules() -> RulesExtractor:
    extractor = RulesExtractor()
    extractor.load()
    return extractor


def test_an_uploaded_paper_gives_entities_from_its_prose_only(store, embedder, tmp_path, rules) -> None:
    from paper_pdf import AFFILIATION, AUTHORS, ROWS, paper_pdf

    path = tmp_path / "paper.pdf"
    path.write_bytes(paper_pdf())
    (doc,) = Ingestor(store, rules, embedder).ingest_paths([path]).documents
    assert doc.status == "ok", doc
    names = {n.lower() for n in store.entity_names().values()}
    title_block = {n.strip().lower() for n in [*AUTHORS.split(","), *AFFILIATION.split(",")]}
    cells = {row.split()[0].lower() for row in ROWS}
    cited = {"doe", "roe", "lee", "park", "proceedings", "translation workshop"}
    assert not names & (title_block | cells | cited | DEBRIS), names & (title_block | cells | cited | DEBRIS)
    assert {"model", "language"} <= {n.rsplit(" ", 1)[-1] for n in names}, names  # the prose's are there


def test_citation_debris_names_no_entity(rules) -> None:
    text = "Roe et al. showed that pivot languages help, and J. K. Lee found the same for A in 2021."
    result = rules.extract([Sentence(0, 0, len(text), text)])
    names = {e.name.lower() for e in result.entities}
    assert "roe" in names and not names & {"roe et al", "et al", "al", "j. k.", "a"}, names
