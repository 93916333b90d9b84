"""Retrieval: a true multi-source walk (fault 7) and filters applied twice (fault 8)."""

from __future__ import annotations

import itertools

import pytest
from helpers import POLICY, ScriptedChecker, reference_corpus, reference_extractor, write_corpus

from graphrag.ask import Asker
from graphrag.extract.scripted import ScriptedExtractor, ScriptEntity, ScriptRelation
from graphrag.generate.scripted import ScriptedGenerator
from graphrag.graph import build_graph, load_graph
from graphrag.ingest import Ingestor
from graphrag.model import AnswerStatus, AskSettings, ClaimFlag, SupportLabel

pytestmark = pytest.mark.model

CHAIN = """Cancellation triggers an export.
Exports use snapshots.
Snapshots follow retention.
"""


@pytest.fixture()
def chain_store(store, embedder, tmp_path):  # type: ignore[no-untyped-def]
    x = ScriptedExtractor(
        [ScriptEntity(n, n[:6]) for n in ("Cancellation", "Export", "Snapshot", "Retention")],
        [ScriptRelation("Cancellation", "trigger", "Export", "Cancellation triggers"),
         ScriptRelation("Export", "use", "Snapshot", "Exports use"),
         ScriptRelation("Snapshot", "follow", "Retention", "Snapshots follow")],
    )
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "c", {"chain.md": CHAIN})])
    return store


@pytest.mark.parametrize("direction", ["out", "both"])
def test_seed_order_does_not_shadow_nodes(chain_store, direction):  # type: ignore[no-untyped-def]
    """Fault 7: seeds (Cancellation, Snapshot) and (Snapshot, Cancellation) both reach Retention at depth 1."""
    g = build_graph(chain_store)
    vis, _ = g.visibility(["public"])
    results = [g.walk(seeds, 1, direction, vis) for seeds in (["cancellation", "snapshot"], ["snapshot", "cancellation"])]
    assert results[0] == results[1]
    assert results[0]["retention"].depth == 1 and results[0]["retention"].seed == "snapshot"
    assert results[0]["export"].depth == 1


def test_walk_is_independent_of_seed_order_and_keeps_best_depth(chain_store):  # type: ignore[no-untyped-def]
    g = build_graph(chain_store)
    vis, _ = g.visibility(["public"])
    seeds = ["cancellation", "export", "retention"]
    outs = [g.walk(p, 2, "both", vis) for p in itertools.permutations(seeds)]
    assert all(o == outs[0] for o in outs)
    assert {k: r.depth for k, r in outs[0].items()} == {"cancellation": 0, "export": 0, "retention": 0, "snapshot": 1}


def test_direction_out_follows_only_extracted_direction(chain_store):  # type: ignore[no-untyped-def]
    g = build_graph(chain_store)
    vis, _ = g.visibility(["public"])
    assert set(g.walk(["retention"], 3, "out", vis)) == {"retention"}
    both = g.walk(["retention"], 3, "both", vis)
    assert both["cancellation"].depth == 3
    assert [s.forward for s in both["cancellation"].steps] == [False, False, False]


@pytest.fixture()
def ref_store(store, embedder, tmp_path):  # type: ignore[no-untyped-def]
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    return store


def asker(store, embedder, answer: str = "", checker=None):  # type: ignore[no-untyped-def]
    gen = ScriptedGenerator(answer) if answer else None
    return Asker(store, embedder=embedder, generator=gen, checker=checker or ScriptedChecker())


def _docs_in(outcome) -> set[str]:  # type: ignore[no-untyped-def]
    a = outcome.answer
    docs = {c.span.document_id for c in a.context}
    docs |= {c.item.span.document_id for cl in a.claims for c in cl.citations if c.item}
    return docs


def test_restricted_document_never_reaches_routes_context_or_answer(ref_store, embedder):  # type: ignore[no-untyped-def]
    """Fault 8: the asker without the 'internal' label never sees the internal notes."""
    q = "Which key encrypts exports?"
    public = asker(ref_store, embedder).ask(q, AskSettings(k=5, hops=3))
    assert "internal" not in _docs_in(public)
    assert "falcon key" not in {r.end for r in public.answer.reached}
    assert all("falcon" not in s.entity for s in public.answer.seeds)
    assert "Falcon" not in public.answer.text
    insider = asker(ref_store, embedder).ask(q, AskSettings(k=5, hops=3, access=("internal", "public")))
    assert "internal" in _docs_in(insider)


def test_context_builder_checks_access_again(ref_store, embedder):  # type: ignore[no-untyped-def]
    """Second filter: even a graph built before a document became restricted shows none of it."""
    graph = load_graph(ref_store)  # cached with 'faq' public
    with ref_store.transaction() as db:  # restrict it without bumping the graph generation
        db.execute("UPDATE documents SET access='[\"legal\"]' WHERE doc_id='faq'")
    assert load_graph(ref_store) is graph
    out = asker(ref_store, embedder).ask("How long are exports kept after cancellation?", AskSettings(k=5, hops=3))
    assert "faq" not in _docs_in(out)


def test_superseded_versions_are_excluded_by_default_and_marked_when_included(ref_store, embedder, tmp_path):  # type: ignore[no-untyped-def]
    v2 = write_corpus(tmp_path / "v2", {"policy.md": POLICY.replace("30 days", "45 days")}, """
[[documents]]
file = "policy.md"
id = "policy"
""")
    Ingestor(ref_store, reference_extractor(), embedder).ingest_paths([v2])
    q = "How long do snapshot exports remain available?"
    default = asker(ref_store, embedder).ask(q, AskSettings(k=5, hops=2))
    assert {(c.span.document_id, c.span.version) for c in default.answer.context} <= {("policy", 2), ("faq", 1)}
    included = asker(ref_store, embedder).ask(q, AskSettings(k=5, hops=2, include_superseded=True))
    old = [c for c in included.answer.context if (c.span.document_id, c.span.version) == ("policy", 1)]
    assert old and all(c.superseded for c in old)


def test_scripted_answer_is_attributed_checked_and_persisted(ref_store, embedder):  # type: ignore[no-untyped-def]
    """Fault 1: each claim is the answer's sentence, and each citation carries a measured score."""
    checker = ScriptedChecker()
    out = asker(ref_store, embedder, "Exports use the latest snapshot [1]. The moon is cheese [2]. Extra [9].",
                checker).ask("What do exports use?", AskSettings(k=3, hops=2))
    a = out.answer
    assert a.id is not None and a.status == AnswerStatus.AUTO_CHECKED
    texts = [c.text for c in a.claims]
    assert texts == ["Exports use the latest snapshot.", "The moon is cheese.", "Extra."]
    scores = [c.citations[0].support.score for c in a.claims[:2]]  # type: ignore[union-attr]
    assert len(set(scores)) == 2  # measured, not a constant
    assert ClaimFlag.LOW_SUPPORT in a.claims[1].flags
    assert a.claims[2].citations[0].valid is False and ClaimFlag.INVALID_MARKER in a.claims[2].flags
    assert a.claims[2].support is not None and a.claims[2].support.label == SupportLabel.NOT_SUPPORTED
    stored = ref_store.answer(a.id)
    assert stored == a
    assert stored.settings.k == 3 and stored.context[0].route.seed


def test_unscorable_claim_leaves_the_answer_cited_not_auto_checked(ref_store, embedder):  # type: ignore[no-untyped-def]
    out = asker(ref_store, embedder, "Exports use the latest snapshot [1]. Opaque claim [1].",
                ScriptedChecker(unscorable="Opaque")).ask("What do exports use?")
    assert out.answer.status == AnswerStatus.CITED
    assert out.answer.claims[1].citations[0].support is None
    assert any("not checked" in w or "could not score" in w for w in out.warnings)


class CitingGenerator:
    """Cites the context item holding ``good`` and one that does not, on one claim."""

    name = "citing"

    def __init__(self, good: str) -> None:
        self.good = good

    def generate(self, question, context):  # type: ignore[no-untyped-def]
        from graphrag.generate.base import Generation

        good = next(c.n for c in context if self.good in c.span.text)
        other = next(c.n for c in context if self.good not in c.span.text and "snapshot" not in c.span.text.lower())
        return Generation(f"Exports use the latest snapshot [{good}][{other}].", self.name)


def test_citation_that_adds_nothing_is_flagged_irrelevant(ref_store, embedder):  # type: ignore[no-untyped-def]
    out = Asker(ref_store, embedder=embedder, generator=CitingGenerator("latest snapshot"),
                checker=ScriptedChecker()).ask("What do exports use?")
    good, other = out.answer.claims[0].citations
    assert "latest snapshot" in good.item.span.text  # type: ignore[union-attr]
    assert not good.irrelevant and other.irrelevant
    assert ClaimFlag.IRRELEVANT_CITATION in out.answer.claims[0].flags
    assert good.support.score > other.support.score  # type: ignore[union-attr]


def test_empty_store_and_empty_question(store, embedder):  # type: ignore[no-untyped-def]
    from graphrag.errors import InputError

    with pytest.raises(InputError):
        asker(store, embedder).ask("   ")
    out = asker(store, embedder).ask("Anything?")
    assert out.answer.claims == () and out.warnings
