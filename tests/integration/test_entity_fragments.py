"""Entity names a reader would call names: the rules extractor makes no sentence fragments ("Larkspur supports
SAML", "Larkspur reviews staff access"), no cut words ("Larkspur notifie"), and types a name only where its label
can be trusted (the product "Larkspur" is not a person); ``lab.evaluate.entity_quality`` counts what slips
through."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from graphrag.ingest.extract.rules import UNKNOWN_TYPE, RulesExtractor, document_types
from graphrag.ingest.readers import DOCUMENT_SUFFIXES, read_document
from graphrag.language.sentences import normalise, split_sentences

CORPUS = Path(__file__).resolve().parents[2] / "sample_corpus"


# --- one type per name in a document: no model --------------------------------------------------------------


@pytest.mark.unit
def test_the_majority_of_a_documents_mentions_types_a_name() -> None:
    sentences = [{0: ("Larkspur", "org")}, {0: ("Larkspur", "person")}, {3: ("Larkspur", "org")}]
    assert document_types(sentences)["larkspur"] == "org"


@pytest.mark.unit
def test_a_one_word_name_with_one_guessed_label_is_left_untyped() -> None:
    types = document_types([{0: ("Larkspur", "person")}, {2: ("Dublin", "gpe")}, {1: ("Larkspur Console", "org")}])
    assert types["larkspur"] == UNKNOWN_TYPE  # a product once typed PERSON: the label is a guess
    assert types["dublin"] == "gpe"  # places the small model tells well
    assert types["larkspur console"] == "org"


@pytest.mark.unit
def test_a_tie_is_unknown_unless_the_name_is_also_a_plain_noun() -> None:
    assert document_types([{0: ("Larkspur", "org")}, {0: ("Larkspur", "person")}])["larkspur"] == UNKNOWN_TYPE
    # A heading "Refunds" labelled GPE, and "refund" as a noun in the text: a concept.
    assert document_types([{0: ("Refunds", "gpe")}, {4: ("refund", "concept")}])["refund"] == "concept"


# --- the extractor on sentences that fooled it: spaCy -------------------------------------------------------


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    return RulesExtractor()


def _names(extractor: RulesExtractor, text: str) -> dict[str, str]:
    return {e.name: e.type for e in extractor.extract(split_sentences(text)).entities}


@pytest.mark.model
def test_a_name_does_not_run_through_a_verb(extractor: RulesExtractor) -> None:
    # spaCy labels "Larkspur supports SAML" one PERSON, and chunks "Larkspur reviews staff access" as one noun.
    names = _names(extractor, "Larkspur supports SAML 2.0 and OpenID Connect identity providers. "
                              "Larkspur reviews staff access to production systems every quarter.")
    assert "Larkspur" in names and "staff access" in names
    assert not [n for n in names if " supports" in n or " reviews" in n], names


@pytest.mark.model
def test_a_verb_read_as_a_plural_noun_is_no_name(extractor: RulesExtractor) -> None:
    # The tagger reads "notifies" as a plural noun (lemma "notifie"): the noun chunk "Larkspur notifies".
    text = "Larkspur notifies affected\ncustomers within 72 hours of confirming a\nsecurity incident."
    names = _names(extractor, text)
    assert "Larkspur" in names and not [n for n in names if "notifie" in n.lower()], names


@pytest.mark.model
def test_an_unknown_plural_is_made_singular_whole(extractor: RulesExtractor) -> None:
    names = _names(extractor, "Cryptocurrencies are traded on exchanges.")
    assert "Cryptocurrency" in names, names  # spaCy's lemma is "cryptocurrencie"


def _sample_corpus(extractor: RulesExtractor) -> list[tuple[str, str, list[str]]]:
    """(name, type, its sentences) for every entity of every sample document, as ``measure`` takes them."""
    out = []
    with (CORPUS / "manifest.toml").open("rb") as f:
        documents = tomllib.load(f)["documents"]
    for d in documents:
        path = CORPUS / d["file"]
        text = (read_document(path.read_bytes(), path.suffix).text if path.suffix in DOCUMENT_SUFFIXES
                else path.read_text(encoding="utf-8"))
        sentences = split_sentences(text)
        found: dict[tuple[str, str], list[str]] = {}
        for e in extractor.extract(sentences).entities:
            found.setdefault((e.name, e.type), []).append(sentences[e.sentence_index].text)
        out += [(name, etype, sents) for (name, etype), sents in found.items()]
    return out


@pytest.mark.model
def test_the_sample_corpus_has_no_fragment_and_no_person_larkspur(extractor: RulesExtractor) -> None:
    from lab.evaluate.entity_quality import measure

    entities = _sample_corpus(extractor)
    q = measure(entities)
    assert q.fragments == 0, q.examples
    assert {t for n, t, _ in entities if normalise(n) == "larkspur"} <= {"org", UNKNOWN_TYPE}


# --- the check itself ---------------------------------------------------------------------------------------


@pytest.mark.model
def test_the_check_finds_each_kind_of_fragment() -> None:
    from lab.evaluate.entity_quality import measure

    q = measure([
        ("Larkspur notifie", "concept", ["Larkspur notifies affected customers within 72 hours."]),
        ("Larkspur supports SAML", "person", ["Larkspur supports SAML 2.0 and OpenID Connect."]),
        ("Larkspur reviews staff access", "concept", ["Larkspur reviews staff access to production systems."]),
        ("export", "concept", ["Exports use the latest snapshot."]),  # a singular is no cut word
        ("child", "concept", ["Children may not open an account."]),  # nor an irregular one
        ("staff access", "concept", ["Larkspur reviews staff access to production systems."]),
    ])
    assert q.entities == 6 and q.fragments == 3, q.examples
    assert q.examples["cut word"] == ["Larkspur notifie"]
    assert set(q.examples["verb"]) == {"Larkspur supports SAML", "Larkspur reviews staff access"}
    assert q.examples["clause"] == ["Larkspur supports SAML"]


@pytest.mark.unit
def test_the_check_refuses_a_store_that_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab.evaluate.entity_quality import main

    assert main(["--store", str(tmp_path / "missing.db")]) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()  # not created empty
