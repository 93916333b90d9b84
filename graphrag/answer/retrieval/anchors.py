"""Question anchors: the graph entities a question names, where its routes start.

The question is parsed with the same spaCy pipeline and the same naming rules the rules
extractor used at ingest (named entities, noun chunks with determiners and generic
adjectives stripped), plus runs of proper nouns. Each phrase is linked to an entity key:

- by name: its normalised form is an entity key (score 1.0);
- by alias: a shorter form of it is a key: a multi-word chunk's head noun, or a proper-noun
  run inside a longer phrase (score 0.9);
- by name similarity: otherwise, the entity whose name embedding is closest, when the
  cosine similarity is at least ``MIN_NAME_SIMILARITY`` (score = that similarity).

A common noun phrase ("country", "charge") scores ``COMMON_NOUN_SCORE`` times its match when
the question also names something proper (a named entity or a proper noun that is a key).
The score is kept on the anchor; how specific the entity is (a hub such as "film" is named by
thousands of sentences) is the walk's business, not the linker's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.scores import names_like
from graphrag.language.encoding import Embedder
from graphrag.language.sentences import normalise
from graphrag.model import RouteStart, Seed

# A shorter form ("county" for "the county where ...", "Kenji" for "Akinoshu Kenji") or a
# similar name is less certain than the whole name: on MuSiQue (0.7 to 1.0 tried for each),
# 0.8 and 0.9 keep citations starting at a named entity at 86% with walk places in the
# context (84% at 0.9 and 1.0); lower ones lose answers.
ALIAS_SCORE = 0.8
# An anchor from a common noun phrase, in a question that also names something proper, scores
# this much of its match: "country" or "author" names the kind of thing asked about, not where
# to start. On MuSiQue (chosen there, 0.3 to 1.0 tried): citations starting at an entity the
# question names 83.0% -> 85.1%; lower values quote worse sentences.
COMMON_NOUN_SCORE = 0.7
# A match by name similarity is less certain than an exact name: its score is the similarity
# times this (see ALIAS_SCORE).
SIMILARITY_DISCOUNT = 0.9
# Two names this close in MiniLM space are spellings of one thing ("Stanley Hall" and
# "G. Stanley Hall"); below it, a neighbour is a different thing of the same kind.
MIN_NAME_SIMILARITY = 0.8
# Wh-words and other question words that parse as nouns but name nothing.
_QUESTION_WORDS = frozenset("what which who whom whose where when why how one ones someone something".split())


@dataclass(frozen=True)
class Phrase:
    """A phrase of the question that may name an entity, with shorter forms to try when the whole names none.
    """

    text: str  # as the question words it
    aliases: tuple[str, ...] = ()  # shorter forms tried when the whole has no key
    proper: bool = True  # a named entity or a phrase with a proper noun, not a common noun phrase


def question_phrases(question: str) -> list[Phrase]:
    """The phrases of a question that may name an entity, in question order, unique by key."""
    from graphrag.ingest.extract.rules import graph_nodes, load_spacy

    doc = load_spacy()(question)
    nodes, heads = graph_nodes(doc)
    found: dict[str, Phrase] = {}

    def add(text: str, aliases: Sequence[str] = (), proper: bool = True) -> None:
        key = normalise(text)
        if key and key not in _QUESTION_WORDS and key not in found:
            found[key] = Phrase(text, tuple(a for a in aliases if normalise(a) and normalise(a) != key), proper)

    propn_runs: list[str] = []
    run: list[str] = []
    for tok in doc:
        if tok.pos_ == "PROPN":
            run.append(tok.text)
        elif run:
            propn_runs.append(" ".join(run))
            run = []
    if run:
        propn_runs.append(" ".join(run))
    seen_nodes: set[int] = set()
    for i in sorted(nodes):
        node = nodes[i]
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        name = node[0]
        aliases = [heads[i]] if i in heads else []
        aliases += [r for r in propn_runs if r in name and r != name]
        proper = node[1] != "concept" or any(doc[j].pos_ == "PROPN" for j, n in nodes.items() if n is node)
        add(name, aliases, proper)
    for r in propn_runs:
        add(r)
    return list(found.values())


def link(graph: KnowledgeGraph, phrases: Sequence[Phrase], visible_entities: np.ndarray,
         embedder: Embedder | None = None) -> list[Seed]:
    """Anchors for the phrases: one Seed per entity, with the best score any phrase gave it."""
    best: dict[str, Seed] = {}

    def visible_key(text: str) -> str | None:
        key = normalise(text)
        return key if graph.knows(key) and visible_entities[graph.entity_index(key)] else None

    # A common noun ("country", "charge", "author") names a kind of thing, often the kind the
    # answer is; when the question also names something proper, that is where its routes start.
    named = any(p.proper and (visible_key(p.text) or any(visible_key(a) for a in p.aliases)) for p in phrases)

    def keep(seed: Seed, p: Phrase) -> None:
        if named and not p.proper:
            seed = replace(seed, score=round(seed.score * COMMON_NOUN_SCORE, 4))
        old = best.get(seed.entity)
        if old is None or seed.score > old.score:
            best[seed.entity] = seed

    unmatched: list[Phrase] = []
    for p in phrases:
        key = visible_key(p.text)
        if key is not None:
            keep(Seed(key, 1.0, RouteStart.QUESTION, p.text, "name"), p)
            continue
        aliased = [(a, k) for a in p.aliases if (k := visible_key(a)) is not None]
        for _, k in aliased:
            keep(Seed(k, ALIAS_SCORE, RouteStart.QUESTION, p.text, "alias"), p)
        if not aliased:
            unmatched.append(p)
    if unmatched and embedder is not None and visible_entities.any():
        vecs = embedder.encode([p.text for p in unmatched])
        sims = names_like(graph, vecs, visible_entities)  # by the entity index on a large graph
        for p, row in zip(unmatched, sims):
            tied = np.flatnonzero(row == row.max())  # ties on the key, not the entity's position
            i = int(min(tied.tolist(), key=graph.entity_key))
            if row[i] >= MIN_NAME_SIMILARITY:
                keep(Seed(graph.entity_key(i), round(float(row[i]) * SIMILARITY_DISCOUNT, 4), RouteStart.QUESTION, p.text,
                          "name similarity"), p)
    return sorted(best.values(), key=lambda s: (-s.score, s.entity))


def find_anchors(graph: KnowledgeGraph, question: str, visible_entities: np.ndarray,
                 embedder: Embedder | None = None) -> list[Seed]:
    """The visible entities the question names, each scored by how it was matched (name, alias or name
    similarity)."""
    return link(graph, question_phrases(question), visible_entities, embedder)
