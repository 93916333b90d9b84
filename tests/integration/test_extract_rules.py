"""The rules extractor (spaCy + dependency rules) on the sample corpus and on small cases,
plus the sample corpus manifest itself (no model needed)."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from graphrag.errors import ModelUnavailable
from graphrag.ingest.extract import make_extractor, rules
from graphrag.ingest.extract.rules import RulesExtractor
from graphrag.ingest.readers import DOCUMENT_SUFFIXES, read_document
from graphrag.language.sentences import Sentence, normalise, split_sentences
from graphrag.model import ExtractionResult, ExtractionStatus

CORPUS = Path(__file__).resolve().parents[2] / "sample_corpus"
MANIFEST = CORPUS / "manifest.toml"

Edge = tuple[str, str, str]  # (source key, type, target key)


def _manifest() -> dict:
    with MANIFEST.open("rb") as f:
        return tomllib.load(f)


def _edges(result: ExtractionResult) -> set[Edge]:
    return {(normalise(r.source), r.type, normalise(r.target)) for r in result.relations}


def _keys(result: ExtractionResult) -> set[str]:
    return {normalise(e.name) for e in result.entities}


# --- the manifest: no model -------------------------------------------------------------


@pytest.mark.unit
def test_manifest_parses_and_every_listed_file_exists() -> None:
    m = _manifest()
    assert m["defaults"]["access"] == ["public"]
    docs = m["documents"]
    assert 6 <= len(docs) <= 16
    for d in docs:
        assert (MANIFEST.parent / d["file"]).is_file(), d["file"]
        assert d["id"] and d["title"]
        assert isinstance(d["access"] if "access" in d else m["defaults"]["access"], list)


@pytest.mark.unit
def test_manifest_versions_have_distinct_dates_and_changed_content() -> None:
    by_id: dict[str, list[dict]] = defaultdict(list)
    for d in _manifest()["documents"]:
        by_id[d["id"]].append(d)
    versioned = {i: ds for i, ds in by_id.items() if len(ds) > 1}
    assert "exports" in versioned
    for ds in versioned.values():
        dates = [d["effective_date"] for d in ds]
        assert len(set(dates)) == len(dates), dates
        texts = {(CORPUS / d["file"]).read_text() for d in ds}
        assert len(texts) == len(ds)


@pytest.mark.unit
def test_manifest_plants_the_required_cases() -> None:
    docs = _manifest()["documents"]
    text = {d["file"]: (CORPUS / d["file"]).read_text() for d in docs
            if d["file"].endswith((".md", ".txt"))}  # the PDF, HTML and DOCX are tested in test_readers.py
    exports = sorted((d for d in docs if d["id"] == "exports"), key=lambda d: d["effective_date"])
    current = text[exports[-1]["file"]]
    assert "Snapshot exports remain available for 30 days after an account is cancelled." in current
    assert "Cancelling ends billing at period end." in text["billing.md"]
    # An old FAQ contradicts the current policy and is older than it.
    faq = next(d for d in docs if d["id"] == "faq")
    assert faq["effective_date"] < exports[-1]["effective_date"]
    assert "remain available for 7 days" in text[faq["file"]]
    # One restricted document mentions exports and snapshots.
    internal = [d for d in docs if d.get("access") == ["internal"]]
    assert len(internal) == 1
    assert "export" in text[internal[0]["file"]].lower() and "snapshot" in text[internal[0]["file"]].lower()


# --- no model needed: loading and failure outcomes ---------------------------------------


def test_missing_spacy_model_names_the_package_to_install() -> None:
    with pytest.raises(ModelUnavailable, match="pip install en-core-web-sm"):
        rules._load(("no_such_pipeline_xyz",))  # bypass the process-wide cache


@pytest.mark.unit
def test_model_unavailable_is_an_outcome_not_an_empty_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ModelUnavailable("no spaCy English pipeline is installed: run `pip install ...`")

    monkeypatch.setattr(rules, "load_spacy", missing)
    r = RulesExtractor().extract(split_sentences("Exports use the latest snapshot."))
    assert r.status is ExtractionStatus.MODEL_UNAVAILABLE
    assert "pip install" in (r.error or "")
    assert not r.entities and not r.relations


@pytest.mark.unit
def test_empty_document_is_nothing_found_without_loading_spacy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "load_spacy", lambda: pytest.fail("spaCy loaded for no sentences"))
    assert split_sentences("... !!! --- ???") == []
    r = RulesExtractor().extract([])
    assert r.status is ExtractionStatus.NOTHING_FOUND and r.error is None


@pytest.mark.unit
def test_registry_builds_the_rules_extractor() -> None:
    x = make_extractor("rules", model=None)
    assert isinstance(x, RulesExtractor) and x.name == "rules"
    assert x.parse_seconds == 0.0


# --- with spaCy ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    return RulesExtractor()


@pytest.fixture(scope="module")
def corpus(extractor: RulesExtractor) -> dict[str, tuple[list[Sentence], ExtractionResult]]:
    out = {}
    for d in _manifest()["documents"]:
        path = CORPUS / d["file"]
        text = read_document(path.read_bytes(), path.suffix).text if path.suffix in DOCUMENT_SUFFIXES else path.read_text()
        sentences = split_sentences(text)
        out[d["file"]] = (sentences, extractor.extract(sentences))
    return out


def _one(extractor: RulesExtractor, text: str) -> ExtractionResult:
    r = extractor.extract(split_sentences(text))
    assert r.status is ExtractionStatus.OK, r
    return r


@pytest.mark.model
def test_every_corpus_document_yields_entities_and_relations(corpus: dict) -> None:
    for file, (_, r) in corpus.items():
        assert r.status is ExtractionStatus.OK, (file, r.error)
        assert r.extractor == "rules"
        assert r.entities and r.relations, file


@pytest.mark.model
def test_key_entities_are_found_by_normalised_name(corpus: dict) -> None:
    keys = set().union(*(_keys(r) for _, r in corpus.values()))
    assert {"cancellation", "export", "snapshot", "retention"} <= keys
    assert "retention policy" in keys and "snapshot export" in keys


@pytest.mark.model
def test_cancellation_export_snapshot_retention_chain(corpus: dict) -> None:
    assert ("cancellation", "trigger", "export") in _edges(corpus["cancellation.md"][1])
    assert ("export", "use", "snapshot") in _edges(corpus["exports.md"][1])
    snap = _edges(corpus["snapshots.md"][1])
    assert ("snapshot", "subject to", "retention") in snap
    assert ("snapshot", "follow", "retention policy") in snap


@pytest.mark.model
def test_two_distinct_relation_types_between_export_and_snapshot(corpus: dict) -> None:
    types = {t for s, t, o in _edges(corpus["exports.md"][1]) if (s, o) == ("export", "snapshot")}
    assert {"use", "related to"} <= types
    # ... each on its own sentence, so each keeps its own span.
    r = corpus["exports.md"][1]
    idx = {x.type: x.sentence_index for x in r.relations if normalise(x.source) == "export"
           and normalise(x.target) == "snapshot"}
    assert idx["use"] != idx["related to"]


@pytest.mark.model
def test_contradicting_retention_periods_are_both_extracted(corpus: dict) -> None:
    current = _edges(corpus["exports.md"][1])
    faq = _edges(corpus["faq-2023.md"][1])
    assert ("snapshot export", "remain available for", "30 day") in current
    assert ("snapshot export", "remain available for", "7 day") in faq
    assert ("cancelling", "end", "billing") in _edges(corpus["billing.md"][1])


@pytest.mark.model
def test_every_index_is_a_valid_sentence_and_descriptions_come_from_it(corpus: dict) -> None:
    for file, (sentences, r) in corpus.items():
        for item in (*r.entities, *r.relations):
            assert 0 <= item.sentence_index < len(sentences), (file, item)
            assert item.description and item.description in sentences[item.sentence_index].text
        for rel in r.relations:  # the endpoints are emitted as entities of that sentence too
            here = {normalise(e.name) for e in r.entities if e.sentence_index == rel.sentence_index}
            assert {normalise(rel.source), normalise(rel.target)} <= here, rel


@pytest.mark.model
def test_passive_with_agent_is_turned_active(extractor: RulesExtractor) -> None:
    edges = _edges(_one(extractor, "Snapshots are governed by the retention policy."))
    assert edges == {("retention policy", "govern", "snapshot")}


@pytest.mark.model
def test_passive_without_agent_keeps_the_surface_direction(extractor: RulesExtractor) -> None:
    edges = _edges(_one(extractor, "Exports are related to snapshots."))
    assert edges == {("export", "related to", "snapshot")}


@pytest.mark.model
def test_copulas_and_adjective_complements(extractor: RulesExtractor) -> None:
    r = _one(extractor, "Snapshots are subject to retention. Exports remain available for 30 days. "
                        "Larkspur is a reporting platform.")
    assert _edges(r) == {
        ("snapshot", "subject to", "retention"),
        ("export", "remain available for", "30 day"),
        ("larkspur", "be", "reporting platform"),
    }
    assert {e.type for e in r.entities if e.name == "30 days"} == {"date"}


@pytest.mark.model
def test_conjunctions_negation_and_relative_pronouns(extractor: RulesExtractor) -> None:
    r = _one(extractor, "Exports and snapshots are stored in the vault. Retention applies to snapshots and "
                        "invoices. Exports do not include invoices. Exports, which use snapshots, are sent "
                        "to the owner.")
    edges = _edges(r)
    assert {("export", "stored in", "vault"), ("snapshot", "stored in", "vault")} <= edges
    assert {("retention", "apply to", "snapshot"), ("retention", "apply to", "invoice")} <= edges
    assert ("export", "not include", "invoice") in edges and ("export", "include", "invoice") not in edges
    assert {("export", "use", "snapshot"), ("export", "sent to", "owner")} <= edges
    assert "which" not in _keys(r)
    use = next(x for x in r.relations if x.type == "use")
    assert use.description == "Exports, which use snapshots"  # the clause names its real subject


@pytest.mark.model
def test_entity_names_are_readable_and_meet_across_forms(extractor: RulesExtractor) -> None:
    r = _one(extractor, "Exports use the latest snapshot. It uses the account's snapshots. "
                        "The export uses a snapshot.")
    names = {(e.sentence_index, e.name) for e in r.entities}
    assert (0, "Export") in names and (0, "snapshot") in names  # plural -> lemma, "the latest" dropped
    assert (1, "snapshot") in names and not any(n.lower() in ("it", "account") for _, n in names)
    assert _keys(r) == {"export", "snapshot"}
    # One entity per key per sentence: "snapshot" twice in a sentence is one mention.
    assert len({(e.sentence_index, normalise(e.name)) for e in r.entities}) == len(r.entities)


@pytest.mark.model
def test_punctuation_or_pronouns_only_is_nothing_found(extractor: RulesExtractor) -> None:
    for text in ("...", "?!", "It is. They were."):
        r = extractor.extract([Sentence(0, 0, len(text), text)])
        assert r.status is ExtractionStatus.NOTHING_FOUND, (text, r)
        assert not r.entities and not r.relations


@pytest.mark.model
def test_an_unexpected_error_is_failed_with_its_text(
    extractor: RulesExtractor, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_: object) -> None:
        raise ValueError("bad parse")

    monkeypatch.setattr(RulesExtractor, "_extract_one", boom)
    r = extractor.extract(split_sentences("Exports use the latest snapshot."))
    assert r.status is ExtractionStatus.FAILED and "bad parse" in (r.error or "")
    assert not r.entities and not r.relations


@pytest.mark.model
def test_parse_seconds_accumulates(extractor: RulesExtractor) -> None:
    x = RulesExtractor()
    x.extract(split_sentences("Exports use the latest snapshot."))
    first = x.parse_seconds
    assert first > 0
    x.extract(split_sentences("Snapshots follow the retention policy. Cancellation triggers a final export."))
    assert x.parse_seconds > first


@pytest.mark.model
def test_a_compound_head_is_mentioned_only_when_the_document_names_it(extractor: RulesExtractor) -> None:
    r = _one(extractor, "Snapshot exports remain available for 30 days. Exports use the retention policy.")
    first = {normalise(e.name) for e in r.entities if e.sentence_index == 0}
    assert {"snapshot export", "export"} <= first  # joins the "export" node of sentence 1
    assert "policy" not in _keys(r)  # "policy" alone is never named: no hub node for it
