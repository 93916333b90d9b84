"""One entity as a viewer may see it: the Graph page and ``graphrag entity`` share ``visible_entity``."""

from __future__ import annotations

import pytest

from graphrag.access import library_viewer
from graphrag.answer.entities import visible_entity
from graphrag.ingest import Ingestor
from helpers import reference_corpus, reference_extractor

pytestmark = pytest.mark.model


@pytest.fixture()
def ref(store, embedder, tmp_path):
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    return store


def test_an_entity_shows_only_the_mentions_and_relations_of_documents_the_labels_show(ref):
    public = visible_entity(ref, "export", library_viewer(["public"]))
    assert public is not None
    assert {m.span.document_id for m in public.entity.mentions} <= {"policy", "faq"}
    assert all(r.span.document_id != "internal" for r in public.relations)
    assert not any(r.target == "falcon key" for r in public.relations)
    both = visible_entity(ref, "export", library_viewer(["public", "internal"]))
    assert both is not None and any(r.target == "falcon key" for r in both.relations)


def test_an_entity_named_only_where_the_labels_do_not_reach_looks_like_a_missing_one(ref):
    assert visible_entity(ref, "falcon key", library_viewer(["public"])) is None
    assert visible_entity(ref, "no such entity", library_viewer(["public"])) is None
    assert visible_entity(ref, "falcon key", library_viewer(["internal"])) is not None
