"""Retrieval: a true multi-source walk (fault 7) and filters applied twice (fault 8)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from doubles.extract import ScriptedExtractor, ScriptEntity, ScriptRelation
from doubles.generate import ScriptedGenerator
from graphrag.answer.ask import Asker
from graphrag.answer.retrieval.load import build_graph, load_graph
from graphrag.answer.retrieval.walk import relevance_walk, routes
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AnswerStatus, AskSettings, ClaimFlag, Route, RouteStart, RouteStep, SupportLabel
from graphrag.present.serialize import answer_json
from helpers import POLICY, ScriptedChecker, reference_corpus, reference_extractor, write_corpus

pytestmark = pytest.mark.model

CHAIN = """Cancellation triggers an export.
Exports use snapshots.
Snapshots follow retention.
"""


@pytest.fixture()
def chain_store(store, embedder, tmp_path):
    x = ScriptedExtractor(
        [ScriptEntity(n, n[:6]) for n in ("Cancellation", "Export", "Snapshot", "Retention")],
        [ScriptRelation("Cancellation", "trigger", "Export", "Cancellation triggers"),
         ScriptRelation("Export", "use", "Snapshot", "Exports use"),
         ScriptRelation("Snapshot", "follow", "Retention", "Snapshots follow")],
    )
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "c", {"chain.md": CHAIN})])
    return store


@pytest.mark.parametrize("direction", ["out", "both"])
def test_seed_order_does_not_shadow_nodes(chain_store, direction):
    """Fault 7: seeds (Cancellation, Snapshot) and (Snapshot, Cancellation) both reach Retention at depth 1."""
    g = build_graph(chain_store)
    vis, _ = g.visibility(["public"])
    results = [routes(g, seeds, 1, direction, vis) for seeds in (["cancellation", "snapshot"], ["snapshot", "cancellation"])]
    assert results[0] == results[1]
    assert results[0]["retention"].depth == 1 and results[0]["retention"].seed == "snapshot"
    assert results[0]["export"].depth == 1


def test_walk_is_independent_of_seed_order_and_keeps_best_depth(chain_store):
    g = build_graph(chain_store)
    vis, _ = g.visibility(["public"])
    seeds = ["cancellation", "export", "retention"]
    outs = [routes(g, p, 2, "both", vis) for p in itertools.permutations(seeds)]
    assert all(o == outs[0] for o in outs)
    assert {k: r.depth for k, r in outs[0].items()} == {"cancellation": 0, "export": 0, "retention": 0, "snapshot": 1}


def test_direction_out_follows_only_extracted_direction(chain_store):
    g = build_graph(chain_store)
    vis, _ = g.visibility(["public"])
    assert set(routes(g, ["retention"], 3, "out", vis)) == {"retention"}
    both = routes(g, ["retention"], 3, "both", vis)
    assert both["cancellation"].depth == 3
    assert [s.forward for s in both["cancellation"].steps] == [False, False, False]


@pytest.fixture()
def ref_store(store, embedder, tmp_path):
    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    return store


def asker(store, embedder, answer: str = "", checker=None):
    gen = ScriptedGenerator(answer) if answer else None
    return Asker(store, embedder=embedder, generator=gen, checker=checker or ScriptedChecker())


def _docs_in(outcome) -> set[str]:
    a = outcome.answer
    docs = {c.span.document_id for c in a.context}
    docs |= {c.item.span.document_id for cl in a.claims for c in cl.citations if c.item}
    return docs


def test_restricted_document_never_reaches_routes_context_or_answer(ref_store, embedder):
    """Fault 8: the asker without the 'internal' label never sees the internal notes."""
    q = "Which key encrypts exports?"
    public = asker(ref_store, embedder).ask(q, AskSettings(k=5, hops=3))
    assert "internal" not in _docs_in(public)
    assert "falcon key" not in {r.end for r in public.answer.reached}
    assert all("falcon" not in s.entity for s in public.answer.seeds)
    assert "Falcon" not in public.answer.text
    insider = asker(ref_store, embedder).ask(q, AskSettings(k=5, hops=3, access=("internal", "public")))
    assert "internal" in _docs_in(insider)


def test_context_builder_checks_access_again(ref_store, embedder):
    """Second filter: even a graph built before a document became restricted shows none of it."""
    graph = load_graph(ref_store)  # cached with 'faq' public
    with ref_store.transaction() as db:  # restrict it without bumping the graph generation
        db.execute("UPDATE documents SET access='[\"legal\"]' WHERE doc_id='faq'")
    assert load_graph(ref_store) is graph
    out = asker(ref_store, embedder).ask("How long are exports kept after cancellation?", AskSettings(k=5, hops=3))
    assert "faq" not in _docs_in(out)


def test_superseded_versions_are_excluded_by_default_and_marked_when_included(ref_store, embedder, tmp_path):
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


def test_scripted_answer_is_attributed_checked_and_persisted(ref_store, embedder):
    """Fault 1: each claim is the answer's sentence, and each citation carries a measured score."""
    checker = ScriptedChecker()
    out = asker(ref_store, embedder, "Exports use the latest snapshot [1]. The moon is cheese [2]. Extra [9].",
                checker).ask("What do exports use?", AskSettings(k=3, hops=2))
    a = out.answer
    assert a.id is not None and a.status == AnswerStatus.AUTO_CHECKED
    texts = [c.text for c in a.claims]
    assert texts == ["Exports use the latest snapshot.", "The moon is cheese.", "Extra."]
    scores = [c.citations[0].support.score for c in a.claims[:2]]
    assert len(set(scores)) == 2  # measured, not a constant
    assert ClaimFlag.LOW_SUPPORT in a.claims[1].flags
    assert a.claims[2].citations[0].valid is False and ClaimFlag.INVALID_MARKER in a.claims[2].flags
    assert a.claims[2].support is not None and a.claims[2].support.label == SupportLabel.NOT_SUPPORTED
    stored = ref_store.answer(a.id)
    assert stored == a
    assert stored.settings.k == 3 and stored.context[0].route.seed


def test_unscorable_claim_leaves_the_answer_cited_not_auto_checked(ref_store, embedder):
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

    def generate(self, question, context, reading=None):
        from graphrag.answer.generate.base import Generation

        good = next(c.n for c in context if self.good in c.span.text)
        other = next(c.n for c in context if self.good not in c.span.text and "snapshot" not in c.span.text.lower())
        return Generation(f"Exports use the latest snapshot [{good}][{other}].", self.name)


def test_citation_that_adds_nothing_is_flagged_irrelevant(ref_store, embedder):
    out = Asker(ref_store, embedder=embedder, generator=CitingGenerator("latest snapshot"),
                checker=ScriptedChecker()).ask("What do exports use?")
    good, other = out.answer.claims[0].citations
    assert "latest snapshot" in good.item.span.text
    assert not good.irrelevant and other.irrelevant
    assert ClaimFlag.IRRELEVANT_CITATION in out.answer.claims[0].flags
    assert good.support.score > other.support.score


def test_empty_store_and_empty_question(store, embedder):
    from graphrag.errors import InputError

    with pytest.raises(InputError):
        asker(store, embedder).ask("   ")
    out = asker(store, embedder).ask("Anything?")
    assert out.answer.claims == () and out.warnings


# --- anchors, the relevance walk and honest routes ------------------------------------------


def test_routes_start_at_the_entities_the_question_names(chain_store, embedder):
    got = asker(chain_store, embedder).retrieve("What do snapshots follow?", AskSettings())
    assert got.seeding is RouteStart.QUESTION
    anchor = next(s for s in got.seeds if s.entity == "snapshot")
    assert anchor.how == "name" and anchor.score == 1.0 and anchor.mention.lower().startswith("snapshot")
    assert all(c.route.start is RouteStart.QUESTION and c.route.seed in {s.entity for s in got.seeds}
               for c in got.context if c.via != "similarity")
    retention = next(c for c in got.context if "retention" in c.span.text.lower())
    assert retention.via != "similarity" and retention.route.seed == "snapshot"


def test_a_question_naming_nothing_known_starts_from_similarity_and_says_so(chain_store, embedder):
    a = asker(chain_store, embedder).ask("Tell me about quarterly revenue forecasts", AskSettings(min_relevance=-1)).answer
    assert a.seeding is RouteStart.SIMILARITY and a.seeds
    assert all(s.start is RouteStart.SIMILARITY for s in a.seeds)
    assert all(c.route.start is RouteStart.SIMILARITY for c in a.context)
    assert answer_json(a)["retrieval"]["seeding"] == "similarity"
    assert chain_store.answer(a.id).seeding is RouteStart.SIMILARITY  # kept when stored


def _honest(graph, item) -> bool:
    """Each step's sentence names both its ends (a relation step: that relation joins them),
    and the route ends at an entity the cited sentence names (or is that step's sentence)."""
    route, prev = item.route, item.route.seed
    for s in route.steps:
        row = graph.row_of(s.document_id, s.version, s.sentence_index)
        named = {graph.keys[e] for e in graph.entities_in_row(row).tolist()}
        if s.comention and not {prev, s.entity} <= named:
            return False
        if not s.comention:
            src, dst = (prev, s.entity) if s.forward else (s.entity, prev)
            if s.relation_id not in graph.graph.get_edge_data(src, dst, default={}):
                return False
        prev = s.entity
    if item.via in ("relation", "co-mention"):  # the cited sentence states the last step
        last = route.steps[-1]
        return (last.document_id, last.version, last.sentence_index) == (
            item.span.document_id, item.span.version, item.span.sentence_index)
    cited = graph.row_of(item.span.document_id, item.span.version, item.span.sentence_index)
    return route.end in {graph.keys[e] for e in graph.entities_in_row(cited).tolist()}


def test_every_route_is_the_walk_that_reached_its_sentence(ref_store, embedder):
    graph = load_graph(ref_store)
    for q in ("How long are exports kept after cancellation?", "What do snapshots follow?", "Which key encrypts exports?"):
        got = asker(ref_store, embedder).retrieve(q, AskSettings(hops=3))
        walked = [c for c in got.context if c.via != "similarity"]
        assert walked and all(_honest(graph, c) for c in walked), q
        # A similarity hit keeps a one-node route that says where it came from: never a made-up path.
        assert all(c.route.depth == 0 and c.route.start is RouteStart.SIMILARITY
                   for c in got.context if c.via == "similarity")


def test_relevance_walk_is_order_independent_with_weights_and_comentions(ref_store):
    g = build_graph(ref_store)
    vis, _ = g.visibility(["public"])
    weights = np.random.default_rng(3).random(len(g.sentence_doc)).astype(np.float32)
    seeds = ["cancellation", "snapshot", "export"]
    outs = [relevance_walk(g, p, 3, "both", vis, row_weight=weights, node_weight=g.specificity, comention=True)
            for p in itertools.permutations(seeds)]
    assert all(o == outs[0] for o in outs)
    # Every step names the visible sentence it went through.
    for r in outs[0].routes.values():
        for s in r.steps:
            row = g.row_of(s.document_id, s.version, s.sentence_index)
            assert row is not None and vis[g.sentence_doc[row]]
    # Scores never grow along a route: each step multiplies by a weight of at most 1.
    for key, r in outs[0].routes.items():
        if r.steps:
            prev = r.steps[-2].entity if len(r.steps) > 1 else r.seed
            assert outs[0].scores[key] <= outs[0].scores[prev]


def test_routes_survive_storage_with_their_sentences(chain_store, embedder):
    a = asker(chain_store, embedder).ask("What do cancellations lead to that snapshots follow?").answer
    stored = chain_store.answer(a.id)
    assert [c.route for c in stored.context] == [c.route for c in a.context]
    assert stored.seeds == a.seeds
    deep = [c.route for c in stored.context if c.route.steps]
    assert deep and all(s.document_id == "chain" and s.sentence_index is not None for r in deep for s in r.steps)
    # Records written before steps named their sentence still read.
    old = Route.from_record({"seed": "export", "steps": [[3, "use", "snapshot", True]]})
    assert old == Route("export", (RouteStep(3, "use", "snapshot", True),))


def test_answer_json_shows_steps_with_their_sentences_and_verbatim_quotes(chain_store, embedder):
    a = Asker(chain_store, embedder=embedder, checker=ScriptedChecker()).ask("What do snapshots follow?").answer

    def sentence(doc: str, version: int, idx: int) -> str | None:
        span = chain_store.span(doc, version, idx)
        return span.text if span else None

    j = answer_json(a, sentence=sentence)
    assert j["retrieval"]["seeding"] == "question"
    assert any(s["entity"] == "snapshot" and s["matched_by"] == "name" for s in j["retrieval"]["seeds"])
    claim = j["claims"][0]
    assert claim["verbatim_quote"] is True and claim["support"]["label"] == "verbatim_quote"
    assert claim["support"]["score"] is None and len(claim["still_for_a_person"]) == 2
    edges = [s for c in j["context"] for s in c["route"] if "relation" in s]
    assert edges and all(e["kind"] in ("relation", "co-mention") and e["document"] == "chain" for e in edges)
    routed = [s for cl in j["claims"] for c in cl["citations"] for s in c["route"] if "relation" in s]
    assert all(e["sentence"] and e["sentence"] in CHAIN for e in routed)


def test_two_entities_one_sentence_names_are_a_comention_step(store, embedder, tmp_path):
    """No relation joins Europe to the Aurora region, but one sentence names both: the walk
    may step between them, and the step says it is a co-mention and which sentence."""
    x = ScriptedExtractor([ScriptEntity("Europe", "Europe"), ScriptEntity("Aurora region", "Europe"),
                           ScriptEntity("Aurora region", "Dublin"), ScriptEntity("Dublin", "Dublin")], [])
    text = "Workspaces created in Europe live in the Aurora region.\nThe Aurora region runs in Dublin.\n"
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "r", {"regions.md": text})])
    got = asker(store, embedder).retrieve("In which city are workspaces created in Europe hosted?", AskSettings())
    dublin = next(c for c in got.context if "Dublin" in c.span.text)
    assert dublin.route.seed == "europe" and dublin.route.depth == 1
    step = dublin.route.steps[0]
    assert step.comention and step.relation_type == "co-mention" and step.entity == "aurora region"
    assert store.span(step.document_id, step.version, step.sentence_index).text.startswith("Workspaces created")
    # direction "out" follows extracted relations only: a co-mention has no direction.
    out = asker(store, embedder).retrieve("In which city are workspaces created in Europe hosted?",
                                          AskSettings(direction="out"))
    assert all(not s.comention for c in out.context for s in c.route.steps)


def test_without_a_spacy_pipeline_routes_start_from_similarity(chain_store, embedder, monkeypatch):
    import graphrag.answer.retrieval.anchors
    from graphrag.errors import ModelUnavailable

    def missing(question: str):
        raise ModelUnavailable("no spaCy English pipeline is installed", backend="rules", model="en_core_web_sm")

    monkeypatch.setattr(graphrag.answer.retrieval.anchors, "question_phrases", missing)
    got = asker(chain_store, embedder).retrieve("What do snapshots follow?", AskSettings())
    assert got.seeding is RouteStart.SIMILARITY and got.context


def test_a_common_noun_anchor_weighs_less_beside_a_proper_name(store, embedder, tmp_path):
    """"Which town is Kellerstadt near?": routes start at Kellerstadt first; "town" still
    anchors, at COMMON_NOUN_SCORE of its match. A question naming only common nouns keeps
    their full scores (the handbook's questions are such)."""
    from graphrag.answer.retrieval.anchors import COMMON_NOUN_SCORE

    x = ScriptedExtractor([ScriptEntity("Kellerstadt", "Kellerstadt"), ScriptEntity("town", "town"),
                           ScriptEntity("river", "river")], [])
    text = "Kellerstadt lies on a river.\nThe town has a bridge.\n"
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "k", {"k.md": text})])
    got = asker(store, embedder).retrieve("Which town is Kellerstadt near?", AskSettings())
    scores = {s.entity: s.score for s in got.seeds}
    assert scores == {"kellerstadt": 1.0, "town": COMMON_NOUN_SCORE} and COMMON_NOUN_SCORE < 1.0
    plain = asker(store, embedder).retrieve("Which town is on the river?", AskSettings())
    assert {s.entity: s.score for s in plain.seeds} == {"town": 1.0, "river": 1.0}


def test_a_sentence_the_walk_reached_keeps_a_context_place_though_it_does_not_resemble_the_question(
        store, embedder, tmp_path):
    """The director's birthplace shares no words with "In which country was the director of
    Quiet Harbour born?"; sentences about directors and harbours resemble it more. The walk
    reached it from the film through its director, so it keeps one of the walk's places, and
    its route says how: Quiet Harbour, then Ilse Vantorp through the film's sentence."""
    from graphrag.answer.retrieval.context import WALK_SHARE

    film = "Quiet Harbour is a 1961 film directed by Ilse Vantorp."
    fact = "Ilse Vantorp grew up on a farm outside Kellerstadt, in Norland."
    lookalikes = [f"Directors of harbour films of the {d}s were often born in another country." for d in
                  range(1900, 1990, 10)]
    x = ScriptedExtractor([ScriptEntity("Quiet Harbour", "Quiet Harbour is"), ScriptEntity("Ilse Vantorp", "directed by"),
                           ScriptEntity("Ilse Vantorp", "grew up"), ScriptEntity("Kellerstadt", "grew up")], [])
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "f", {"films.md": "\n".join(
        [film, *lookalikes, fact]) + "\n"})])
    question = "In which country was the director of Quiet Harbour born?"
    settings = AskSettings(max_context=4)
    assert int(settings.max_context * WALK_SHARE) == 1
    got = asker(store, embedder).retrieve(question, settings)
    texts = [c.span.text for c in got.context]
    assert texts[0] == film and fact in texts
    item = next(c for c in got.context if c.span.text == fact)
    assert item.route.seed == "quiet harbour" and [s.entity for s in item.route.steps] == ["ilse vantorp"]
    # it did not get there on similarity: every look-alike is closer to the question
    qvec = embedder.encode([question])[0]
    sims = embedder.encode([fact, *lookalikes]) @ qvec
    assert (sims[1:] > sims[0]).all()


LONG_ARTICLE_FACTS = [f"Larchmont has a {kind} on {street} Street." for kind, street in zip(
    ("library", "bakery", "school", "park", "museum", "station", "market", "clinic", "theatre", "chapel", "pool",
     "gallery", "stadium", "harbour", "mill", "tower", "garden", "forge", "inn", "archive"),
    ("Elm", "Oak", "Pine", "Birch", "Cedar", "Maple", "Ash", "Willow", "Alder", "Beech", "Hazel", "Larch", "Poplar",
     "Rowan", "Spruce", "Yew", "Holly", "Laurel", "Myrtle", "Juniper"))]
LONG_ARTICLE_ANSWER = "Larchmont became a town on 3 May 1907, after a vote of its residents."
LONG_ARTICLE_DEBRIS = ["Fenwick County quarter specimens with Larchmont coins, shown for size.",
                       "Fenwick County cartoon mascot Larchmont Gusty, drawn in crayon.",
                       "Fenwick County stamps, Larchmont series, grey and blue."]


def test_a_question_about_a_long_documents_subject_is_ranked_by_what_sentences_say(store, embedder, tmp_path):
    """In a long article every sentence names its subject, so the walk from "Larchmont" reaches the whole
    article and a rarely named entity of the question ("Fenwick County", named only by photo captions and
    stamp lists) lifts its debris above the sentence that answers. The walk's order is fused with
    similarity for such a question: the answer keeps its place in a small context (it lost it before)."""
    from graphrag.answer.retrieval.retrieve import SUBJECT_MIN_SENTENCES

    lines = [*LONG_ARTICLE_FACTS[:10], LONG_ARTICLE_ANSWER, *LONG_ARTICLE_FACTS[10:], *LONG_ARTICLE_DEBRIS]
    assert len(lines) >= SUBJECT_MIN_SENTENCES
    streets = [s.split(" on ")[1].split()[0] for s in LONG_ARTICLE_FACTS]
    x = ScriptedExtractor([ScriptEntity("Larchmont", "Larchmont"), ScriptEntity("Fenwick County", "Fenwick County"),
                           *(ScriptEntity(f"{s} Street", f"{s} Street") for s in streets)], [])
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "a", {"larchmont.md": "\n".join(lines) + "\n"})])
    got = asker(store, embedder).retrieve("When did Larchmont become a town in Fenwick County?",
                                          AskSettings(max_context=3))
    texts = [c.span.text for c in got.context]
    assert {s.entity for s in got.seeds} == {"larchmont", "fenwick county"}
    assert texts[0] == LONG_ARTICLE_ANSWER, texts


def test_short_pages_keep_the_walks_order(store, embedder, tmp_path):
    """The fusion is for long documents only: on pages of a few sentences (a multi-hop corpus) the
    question's entities are not a document's subject and retrieval keeps the walk's order."""
    from graphrag.answer.retrieval.load import load_graph
    from graphrag.answer.retrieval.retrieve import names_a_long_document_subject

    x = ScriptedExtractor([ScriptEntity("Larchmont", "Larchmont")], [])
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "s", {
        f"p{i}.md": f"Larchmont has a {k}.\n" for i, k in enumerate(("library", "bakery", "school"))})])
    graph = load_graph(store)
    visible = np.ones(len(graph.docs), dtype=bool)
    assert not names_a_long_document_subject(graph, ["larchmont"], visible)


def test_a_long_documents_subject_question_gives_no_place_to_what_the_walk_reached_beyond_it(
        store, embedder, tmp_path):
    """The fused ranking already holds the walk's order, so no place is kept aside for sentences reached one
    step beyond the question's entities: from "Larchmont" one relation leads to "Fenwick County", whose
    stamp list says nothing about the question, yet it took a reserved place ahead of the article's own
    sentences (on real articles such steps mostly start at generic words like "world" or "person")."""
    from graphrag.answer.retrieval.context import WALK_SHARE

    link = "Larchmont lies in Fenwick County."
    stray = "Fenwick County stamps come in grey and blue."
    lines = [*LONG_ARTICLE_FACTS[:10], LONG_ARTICLE_ANSWER, *LONG_ARTICLE_FACTS[10:], link]
    x = ScriptedExtractor([ScriptEntity("Larchmont", "Larchmont"), ScriptEntity("Fenwick County", "Fenwick County")],
                          [ScriptRelation("Larchmont", "lie in", "Fenwick County", "Larchmont lies")])
    Ingestor(store, x, embedder).ingest_paths([write_corpus(tmp_path / "a", {
        "larchmont.md": "\n".join(lines) + "\n", "stamps.md": stray + "\n"})])
    settings = AskSettings(max_context=4)
    assert int(settings.max_context * WALK_SHARE) == 1  # the place the walk would have kept
    got = asker(store, embedder).retrieve("When did Larchmont become a town?", settings)
    texts = [c.span.text for c in got.context]
    assert {s.entity for s in got.seeds} == {"larchmont"}
    assert texts[0] == LONG_ARTICLE_ANSWER and stray not in texts, texts
    assert len(texts) == 4 and all("Larchmont" in t for t in texts), texts
