"""The embedded generator: an answer composed from the best context sentences, no server.

It quotes rather than paraphrases, so each claim is a source sentence followed by its own
marker. To read as an answer rather than a dump it keeps only sentences close in relevance to
the best one, skips headings and near-repeats, and stops at a small cap.

Chains: a context item reached through the graph names the sentences of the steps that
reached it, and quoting those sentences before it makes a chain. The answer opens with the
first chain in the retrieval's order that is about the question (one of its sentences is
as close to the question as any quote; the sentence giving the bridge entity's fact rarely
resembles the question); when another item's route went through a quoted sentence (the
film's sentence names its director; the director's sentence gives the country), the entity
the walk reached most strongly that way is followed next, and the chain continues once more
from its newest quote. A chain never passes through a hub (an entity most sentences name).
The sentence most like the question and the first of the retrieval's order always keep a
place. So a bridge question reads as the chain of sentences that answers it, each with its
own marker and route, and nothing is written that a source does not say.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from graphrag.generate.base import Generation
from graphrag.model import ContextItem
from graphrag.text import ends_with_abbreviation

if TYPE_CHECKING:
    from graphrag.graph import KnowledgeGraph

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _similar(a: set[str], b: set[str]) -> bool:
    return len(a & b) / max(len(a | b), 1) > 0.7


def _is_statement(text: str) -> bool:
    """A sentence worth quoting: several words, not a bare heading or label."""
    return len(_WORD.findall(text)) >= 4 and not text.endswith(":")


# Square brackets inside a quoted source ("cite [1] for everything") would read as citation
# markers once the quote is in the answer; they become parentheses, so only the marker this
# generator appends cites anything.
_BRACKETS = re.compile(r"\[([^\[\]\n]*)\]")


def _with_marker(text: str, n: int) -> str:
    body = _BRACKETS.sub(r"(\1)", text).rstrip()
    if ends_with_abbreviation(body):
        # "until 3 a.m." keeps its dot: "3 a.m [4]." would cut the abbreviation (and the
        # answer "3 a.m." would no longer be in the text).
        return f"{body} [{n}]"
    end = re.search(r"[.!?…]+[\"'”’)]*$", body)
    if end:
        return f"{body[:end.start()]} [{n}]{body[end.start():]}"
    return f"{body} [{n}]."


def _where(item: ContextItem) -> tuple[str, int, int]:
    return item.span.document_id, item.span.version, item.span.sentence_index


def _step_sentences(item: ContextItem) -> list[tuple[str | None, int | None, int | None]]:
    """Where each step of the item's route was stated, as ``_where`` places a sentence."""
    return [(s.document_id, s.version, s.sentence_index) for s in item.route.steps]


def _most_like_the_question(candidates: Sequence[ContextItem], route_of: ContextItem) -> ContextItem:
    """Of the candidates reached by ``route_of``'s route (every sentence naming the entity it
    reached), the one most like the question; the first in the retrieval's order on a tie."""
    return max((c for c in candidates if c.route == route_of.route), key=lambda c: (c.score, -c.n))


class ExtractiveGenerator:
    """An answer with no model: quotes of the most relevant context sentences, chains kept together."""

    name = "extractive"

    def __init__(self, max_sentences: int = 5, margin: float = 0.3, chain_margin: float = 0.8,
                 by_context_order: bool = True, any_chain: bool = True, keep_best: bool = True,
                 chain_first: bool = True, near_best: float = 0.03,
                 chain_links: int = 2, specificity: Callable[[str], float] | None = None,
                 min_join_specificity: float = 0.55,
                 model: str | None = None) -> None:
        # A chain (a route continuing a quote, or the fallback chain) may only pass through
        # entities at least this specific (KnowledgeGraph.specificity): a hub such as the
        # company's name, named in every document, joins any sentence to any other.
        # Scored on MuSiQue: without it, all of its figures are the same; on the handbook it keeps
        # the invoice sentences out of a security answer. ``for_graph`` supplies the specificity.
        self.specificity = specificity
        self.min_join_specificity = min_join_specificity
        # Links quoted after the first sentence: the chain continues from its own newest quote
        # once more (film -> director -> birthplace -> country). Two rather than one: MuSiQue
        # citations starting at a named entity 82.3% -> 83.0%, bridge paragraphs cited through
        # a step 19 -> 20, nothing lower; three lowered answers with the gold string to 0.37.
        self.chain_links = chain_links
        # The sentence most like the question, and the first of the retrieval's order, are always
        # among the quotes (a walk from a generic entity such as "customer" put three sentences
        # ahead of the handbook's direct answer; a chain opening the answer must not push out
        # the sentence that names the answer: on MuSiQue, answers with the gold string 0.40 ->
        # 0.45 when the first of the retrieval's order keeps its place too).
        self.keep_best = keep_best
        # Open with a chain about the question rather than the first sentence of the retrieval's
        # order (MuSiQue, bridge paragraphs cited through a step 26 -> 33 of 68).
        self.chain_first = chain_first
        # A sentence this close to the best one (cosine) is as much the answer and keeps a place
        # too: a chain opening the handbook's answer pushed out "Larkspur notifies affected
        # customers within 72 hours ..." (0.59 against 0.61). On MuSiQue it costs chains: 0.03
        # bridge paragraphs cited through a step 33 -> 31, 0.05: 29, 0.1: 27.
        self.near_best = near_best
        # When no route runs through a quoted sentence, still quote the first chain the walk
        # found from the question's entities (its step sentences, then its end).
        self.any_chain = any_chain
        # Quote in the retrieval's order, which weighs how strongly the walk from the question's
        # entities reached a sentence, not only how much it resembles the question.
        self.by_context_order = by_context_order
        # Five quotes rather than four: a chain takes two, and the two kept sentences must fit
        # beside it (MuSiQue: bridge paragraphs cited 36 -> 41 of 68, gold string 0.42 -> 0.45).
        self.max_sentences = max_sentences
        self.margin = margin  # keep sentences within this cosine distance of the most similar one
        # A chain's next link, continuing a quoted sentence, may be much less like the question
        # than the best sentence ("born in Lyon" shares few words with "Which country is the
        # director of X from?"). 0.8 rather
        # than 0.6 (on MuSiQue: one more bridge paragraph cited, answers with the gold string
        # 0.41 -> 0.42): the link already passes through a quote and no hub.
        self.chain_margin = chain_margin

    def for_graph(self, graph: KnowledgeGraph) -> ExtractiveGenerator:
        """A copy that knows how specific each entity of ``graph`` is (to keep hubs out of chains)."""
        spec = graph.specificity
        bound = copy.copy(self)
        bound.specificity = lambda key: float(spec[graph.index[key]]) if key in graph.index else 1.0
        return bound

    def generate(self, question: str, context: Sequence[ContextItem]) -> Generation:
        """Quote up to ``max_sentences`` statements from ``context``, each with its marker; empty when none is
        a statement."""
        ranked = [c for c in sorted(context, key=lambda c: (-c.score, c.n)) if _is_statement(" ".join(c.span.text.split()))]
        if not ranked:
            return Generation("", self.name, None)
        at = {_where(c): c for c in ranked}
        best = ranked[0].score
        most_similar = ranked[0]
        in_order = sorted(ranked, key=lambda c: c.n)
        if self.by_context_order:
            ranked = in_order
        # Quotes that always keep a place: the most similar sentence, the first of the retrieval's
        # order, and any sentence nearly as similar as the best.
        kept: list[ContextItem] = []
        if self.keep_best:
            kept = list(dict.fromkeys([most_similar, in_order[0],
                                       *(c for c in in_order if c.score >= best - self.near_best)]))
        chosen: list[ContextItem] = []

        def joins_hub(item: ContextItem) -> bool:
            if self.specificity is None or not self.min_join_specificity:
                return False
            return any(self.specificity(s.entity) < self.min_join_specificity for s in item.route.steps)

        def links(item: ContextItem) -> list[ContextItem]:
            """The item's route as quotable sentences: each step's sentence, then the item's."""
            out = [at[w] for w in _step_sentences(item) if w in at and at[w] is not item]
            return [*dict.fromkeys(out), item]

        def room() -> int:
            """Quotes a chain may still take: a place stays free for each kept sentence until it is in."""
            return self.max_sentences - len(chosen) - sum(1 for k in kept if k not in chosen)

        def take(item: ContextItem, *, chain: bool = False) -> None:
            if item in chosen:
                return
            if len(chosen) >= self.max_sentences or (chain and item not in kept and room() <= 0):
                return
            words = _words(item.span.text)
            repeat = next((i for i, c in enumerate(chosen) if _similar(words, _words(c.span.text))), None)
            if repeat is not None:
                # A near-repeat (an old FAQ restating a policy, an older wording): quote only
                # the source with the later effective date, whatever ranked first.
                if (item.effective_date or "") > (chosen[repeat].effective_date or ""):
                    chosen[repeat] = item
                return
            chosen.append(item)

        def reached_strength(item: ContextItem) -> float:
            """How strongly the walk reached the item's entity, among routes through one quoted
            sentence: their seed and steps are shared, so it is the entity's specificity."""
            return self.specificity(item.route.end) if self.specificity is not None else 0.0

        def extension() -> ContextItem | None:
            """Of the items whose route went through a sentence already quoted, those reaching the
            entity the walk reached most strongly (the first in the retrieval's order on a tie:
            "Jefferson County" rather than "Iowa" from "... is located in Jefferson County,
            Iowa"); of their sentences, the one most like the question."""
            quoted = {_where(c) for c in chosen}
            found = [c for c in in_order
                     if c not in chosen and c.score >= best - self.chain_margin and not joins_hub(c)
                     and any(w in quoted for w in _step_sentences(c))]
            if not found:
                return None
            return _most_like_the_question(found, max(found, key=lambda c: (reached_strength(c), -c.n)))

        def about_question(item: ContextItem) -> bool:
            """A chain worth quoting: its route has steps whose sentences are in the context, no
            hub, and one of its sentences is as close to the question as any other quote: through
            a generic entity ("Larkspur", named everywhere) the first chain the walk found quoted
            invoice sentences for a security question."""
            chain = links(item)
            return (bool(item.route.steps) and len(chain) > 1 and not joins_hub(item)
                    and max(c.score for c in chain) >= best - self.margin)

        opening = in_order[0]
        chains = [c for c in in_order if about_question(c)] if self.chain_first else []
        if chains:
            opening = _most_like_the_question(chains, chains[0])
        for item in links(opening):
            take(item, chain=True)
        nxt = extension()
        if nxt is None and self.any_chain:
            nxt = next((c for c in in_order if c not in chosen and about_question(c)), None)
        for _ in range(self.chain_links):
            if nxt is None:
                break
            for item in links(nxt):
                take(item, chain=True)
            nxt = extension()
        for item in kept:
            take(item)
        for cand in ranked[1:]:
            if len(chosen) >= self.max_sentences:
                break
            if cand.score < best - self.margin:
                continue  # ranked by similarity, nothing later is closer; by context order, it may be
            for item in links(cand):
                take(item)
        text = " ".join(_with_marker(" ".join(c.span.text.split()), c.n) for c in chosen)
        return Generation(text, self.name, None)
