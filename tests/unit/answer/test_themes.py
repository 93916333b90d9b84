"""Theme answers: a global question answered from the graph's communities, every statement a cited quote; and what
changed between two documents or two versions. A scripted extractor and the hash embedder: no model."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from doubles.extract import ScriptedExtractor, ScriptEntity, ScriptRelation
from graphrag.access.identity import VIA_CLI, local_principal
from graphrag.answer.ask import Asker
from graphrag.answer.communities import communities, detect
from graphrag.answer.retrieval.load import load_graph
from graphrag.errors import InputError
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AnswerStatus, AskSettings, ClaimFlag
from graphrag.store import Store
from helpers import ScriptedChecker, write_corpus
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit

DOCS = {
    "halley.md": "Halley orbits the Sun every 76 years. Halley was seen from Earth in 1986. "
                 "The Sun heats the nucleus of Halley.\n",
    "tails.md": "A comet tail points away from the Sun. The tail of Halley glows near the Sun. "
                "Halley loses ice in its tail.\n",
    "messi.md": "Messi scored for Barcelona in La Liga. Messi left Barcelona in 2021. "
                "Barcelona won La Liga with Messi.\n",
    "zidane.md": "Zidane won La Liga with Madrid. Zidane coached Madrid after playing. "
                 "Madrid beat Barcelona in La Liga.\n",
    "ops.md": "The Falcon key guards Halley telemetry from the Sun. The Falcon key rotates with the Sun.\n",
}
MANIFEST = "".join(f'[[documents]]\nfile = "{name}"\nid = "{name[:-3]}"\ntitle = "{title}"\n{extra}\n'
                   for name, title, extra in (("halley.md", "Halley's Comet", ""), ("tails.md", "Comet tails", ""),
                                              ("messi.md", "Lionel Messi", ""), ("zidane.md", "Zinedine Zidane", ""),
                                              ("ops.md", "Operations", 'access = ["internal"]')))
NAMES = ("Halley", "Sun", "Earth", "nucleus", "tail", "comet", "Messi", "Barcelona", "La Liga", "Zidane", "Madrid",
         "Falcon key")


def extractor() -> ScriptedExtractor:
    """Each name in every sentence that holds it (the script finds a sentence by a substring: one entry per
    sentence)."""
    ents = [ScriptEntity(name, text) for doc in DOCS.values() for text in doc.split(". ") for name in NAMES
            if name in text]
    return ScriptedExtractor(ents, [ScriptRelation("Zidane", "coached", "Madrid", "coached Madrid")])


def ingest(store: Store, root: Path, docs: dict[str, str], manifest: str = MANIFEST) -> None:
    Ingestor(store, extractor(), HashEmbedder()).ingest_paths([write_corpus(root, docs, manifest)])


def asker(store: Store) -> Asker:
    return Asker(store, embedder=HashEmbedder(), checker=ScriptedChecker())


def cited_documents(claim) -> set[str]:
    return {c.item.span.document_id for c in claim.citations if c.item is not None}


@pytest.fixture()
def themed(store: Store, tmp_path: Path) -> Store:
    ingest(store, tmp_path / "c", DOCS)
    return store


def test_what_are_these_about_quotes_every_document_theme_by_theme(themed: Store) -> None:
    out = asker(themed).ask("What are these documents about?", AskSettings(mode="themes"))
    ans = out.answer
    assert ans.answered and ans.status == AnswerStatus.AUTO_CHECKED
    assert all(cl.text.startswith("“") and ClaimFlag.VERBATIM_QUOTE in cl.flags for cl in ans.claims)
    # every public document is quoted somewhere; the comet theme and the football themes are blocks of their own
    assert set().union(*map(cited_documents, ans.claims)) == {"halley", "tails", "messi", "zidane"}
    blocks = ans.text.split("\n\n")
    titles = {"halley": "Halley's Comet", "tails": "Comet tails", "messi": "Lionel Messi", "zidane": "Zinedine Zidane"}
    for block in blocks:
        named, *bullets = block.split("\n")  # "Halley and Sun (in Halley's Comet and Comet tails):", then quotes
        mine = [cl for cl in ans.claims if f"{cl.text} [" in block]
        assert len(mine) == len(bullets) >= 2
        assert not ({"halley", "tails"} & set().union(*map(cited_documents, mine))
                    and {"messi", "zidane"} & set().union(*map(cited_documents, mine)))
        for cl in mine:
            # each quote lies in a document the theme names, and each is checked as a quote of its sentence
            assert all(titles[d] in named for d in cited_documents(cl))
            assert cl.support is not None and cl.support.score == 1.0 and ClaimFlag.LOW_SUPPORT not in cl.flags
            assert all(c.item is not None and c.item.route.start.value == "theme" for c in cl.citations)


def test_a_theme_never_shows_what_the_viewer_cannot_see(themed: Store) -> None:
    public = asker(themed).ask("What are these documents about?", AskSettings(mode="themes")).answer
    assert "Falcon" not in public.text
    assert all(c.span.document_id != "ops" for c in public.context)
    assert "falcon key" not in {s.entity for s in public.seeds}
    both = asker(themed).ask("What are these documents about?",
                             AskSettings(mode="themes", access=("internal", "public"))).answer
    assert any(c.span.document_id == "ops" for c in both.context)  # the same question, with the label, does


def test_a_changed_quote_is_checked_not_passed_as_a_quote(themed: Store) -> None:
    from graphrag.verify.attribution import attribute
    from graphrag.verify.support.claims import check_claims

    ans = asker(themed).ask("What are these documents about?", AskSettings(mode="themes")).answer
    claim = ans.claims[0]
    first = claim.citations[0].item
    assert first is not None
    bullet = next(line for line in ans.text.split("\n") if line.startswith(f"- {claim.text}"))
    forged = bullet[2:].replace(" ".join(first.span.text.split()).rstrip("."), "Halley is made of cheese", 1)
    checker = ScriptedChecker()
    [checked] = check_claims(themed, attribute(forged, ans.context), checker)
    assert checker.queries, "a statement whose quote is not in its source goes to the checker"
    assert checked.support is not None and checked.support.checker == checker.name


def test_empty_store_and_one_document_say_so_and_a_scope_of_one_themes_it(store: Store, tmp_path: Path) -> None:
    empty = asker(store).ask("What are these documents about?", AskSettings(mode="themes"))
    assert not empty.answer.answered and not empty.answer.claims and "No documents" in empty.warnings[0]
    ingest(store, tmp_path / "one", {"messi.md": DOCS["messi.md"]},
           '[[documents]]\nfile = "messi.md"\nid = "messi"\ntitle = "Lionel Messi"\n')
    one = asker(store).ask("What are these documents about?", AskSettings(mode="themes")).answer
    assert not one.answered and not one.claims and "one document, “Lionel Messi”" in one.text
    scoped = asker(store).ask("What is it about?", AskSettings(mode="themes", documents=("messi",))).answer
    assert scoped.answered and scoped.claims
    assert all(cited_documents(cl) == {"messi"} for cl in scoped.claims)


def test_themes_follow_the_store_a_new_document_or_a_removal_makes_new_communities(themed: Store, tmp_path: Path) -> None:
    graph = load_graph(themed)
    first = communities(graph, ["public"])
    assert communities(graph, ["public"]) is first  # computed once per graph and visibility
    assert first.community_of(graph.entity_index("messi")) == first.community_of(graph.entity_index("barcelona"))
    assert first.community_of(graph.entity_index("messi")) != first.community_of(graph.entity_index("halley"))
    assert first.community_of(graph.entity_index("falcon key")) == -1  # only internal sentences name it
    ingest(themed, tmp_path / "more", {"pele.md": "Pele said: Messi scored for Barcelona in La Liga.\n"},
           '[[documents]]\nfile = "pele.md"\nid = "pele"\ntitle = "Pele"\n')
    newer = load_graph(themed)
    assert newer is not graph
    again = communities(newer, ["public"])
    assert again is not first
    assert any(d.id == "pele" for g in again.groups for d in (newer.docs[i] for i in g.documents))
    themed.remove_document("zidane", actor="test", by=local_principal(["public", "internal"], via=VIA_CLI))
    after = load_graph(themed)
    gone = communities(after, ["public"])
    assert gone is not again
    assert not any(after.docs[i].id == "zidane" for g in gone.groups for i in g.documents)
    assert after.knows("madrid") is False or gone.community_of(after.entity_index("madrid")) == -1


def test_without_graspologic_native_themes_group_the_same_entities_by_louvain(themed: Store,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    graph = load_graph(themed)
    visible = graph.visibility(frozenset(["public"]), False, frozenset())[0]
    by_leiden = detect(graph, visible)
    monkeypatch.setitem(sys.modules, "graspologic_native", None)  # as if the package were not installed
    by_louvain = detect(graph, visible)
    assert (by_leiden.method, by_louvain.method) == ("leiden", "louvain")
    for found in (by_leiden, by_louvain):
        assert found.community_of(graph.entity_index("messi")) == found.community_of(graph.entity_index("barcelona"))
        assert found.community_of(graph.entity_index("messi")) != found.community_of(graph.entity_index("halley"))
        assert found.community_of(graph.entity_index("falcon key")) == -1
        assert [g.id for g in found.groups] == list(range(len(found.groups)))
        assert sorted(e for g in found.groups for e in g.entities) == np.flatnonzero(found.of_entity >= 0).tolist()


V1 = "Exports are kept for 14 days. Exports are delivered as CSV files.\n"
V2 = "Exports are kept for 30 days. Exports are delivered as CSV files. Every export appears in the audit log.\n"
EXPORTS = '[[documents]]\nfile = "exports.md"\nid = "exports"\ntitle = "Data exports"\n'


def test_what_changed_between_two_versions_is_cited_on_both_sides(store: Store, tmp_path: Path) -> None:
    ingest(store, tmp_path / "v1", {"exports.md": V1}, EXPORTS)
    ingest(store, tmp_path / "v2", {"exports.md": V2}, EXPORTS)
    ans = asker(store).ask("What changed?", AskSettings(mode="changes", documents=("exports",))).answer
    assert ans.settings.include_superseded  # the older version is read, and the record says so
    [disagree] = [cl for cl in ans.claims if cl.text.startswith("Sources disagree")]
    assert {(c.item.span.version, "30" in c.item.span.text) for c in disagree.citations if c.item} == \
        {(2, True), (1, False)}
    only = [cl for cl in ans.claims if cl.text.startswith("Only ")]
    assert [cl.text for cl in only] == ["Only Data exports v2 says “Every export appears in the audit log”."]
    assert "CSV" not in ans.text  # a sentence both versions state is no change
    assert ans.disagreements and ans.disagreements[0].sides[0].version == 2  # the current side first
    with pytest.raises(InputError, match="two documents"):
        asker(store).ask("What changed?", AskSettings(mode="changes"))


def test_the_facade_takes_the_mode(themed: Store) -> None:
    from graphrag import ask_question

    out = ask_question(themed, "What are these documents about?", embedder=HashEmbedder(), checker=ScriptedChecker(),
                       mode="themes")
    assert out.answer.settings.mode == "themes" and all(cl.text.startswith("“") for cl in out.answer.claims)
    with pytest.raises(InputError, match="unknown answer mode"):
        ask_question(themed, "What are these documents about?", embedder=HashEmbedder(), checker=ScriptedChecker(),
                     mode="summary")
