"""What a generator may know of the knowledge graph beyond its numbered context items.

A generator is given context items; the graph they came from can tell it three more things, and only these: how
specific an entity is (a hub, named by most sentences, must not join a chain of quotes), a document version's title
(to name the sources that disagree) and how many sentences a document version has (a bridge runs between short
pages). ``GraphFacts`` declares them; each is None when the generator was given no graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphrag.answer.retrieval.graph import KnowledgeGraph

Specificity = Callable[[str], float]  # entity key -> specificity in [0, 1]
TitleOf = Callable[[str, int], "str | None"]  # (document id, version) -> title
SentenceCount = Callable[[str, int], int]  # (document id, version) -> sentences in it


@dataclass(frozen=True)
class GraphFacts:
    """The graph as a generator sees it: three lookups, each None when unknown."""

    specificity: Specificity | None = None
    title: TitleOf | None = None
    sentence_count: SentenceCount | None = None


def graph_facts(graph: KnowledgeGraph) -> GraphFacts:
    """The facts ``graph`` holds, read once: an entity the graph does not hold counts as fully specific, a document
    version it does not hold as one sentence long."""
    spec, index = graph.specificity, graph.index
    titles = {(d.id, d.version): d.title for d in graph.docs}
    per_doc, doc_index = graph.doc_sentence_counts, graph.doc_index

    def specificity(key: str) -> float:
        return float(spec[index[key]]) if key in index else 1.0

    def sentence_count(doc: str, version: int) -> int:
        return int(per_doc[doc_index[(doc, version)]]) if (doc, version) in doc_index else 1

    return GraphFacts(specificity, lambda doc, version: titles.get((doc, version)), sentence_count)
