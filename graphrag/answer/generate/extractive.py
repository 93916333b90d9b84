"""The embedded generator: an answer composed from the context sentences, no server.

The answer reads as an answer: for a fact question (who, when, where, how many, how long...)
it opens with the short answer, a phrase taken from the best evidence sentence as a claim of
its own citing that sentence, then that sentence quoted; then at most two more quotes, each
only when it answers nearly as well (``quote_rank``) or is a chain link the question needs.
Only statements are quoted (``kinds``): never a FAQ's question, a heading, a caption, a table
row, a reference entry or an author line. When quoted sources from different documents or
versions state different values about the same thing, the answer says so in words, the
current source first (``graphrag.answer.disagreement``).

Chains: a context item reached through the graph names the sentences of the steps that
reached it. A step's sentence is quoted after the best one when it covers words of the
question the best one lacks (the film's sentence names the director the question asks
about); an item whose route went through a quoted sentence continues the chain when the
quotes so far do not hold the kind of phrase the question asks for (the director's sentence
gives the birthplace). A chain never passes through a hub (an entity most sentences name).
Nothing is written that a source does not say: each quote is a source sentence with its own
marker, and the short answer is a phrase of the sentence it cites.

Bridge questions keep the whole chain (``_bridge_chain``, main's rule for a chain about the
question): when the walk went from an entity the question names, through a sentence of one short
page, to another short page about an entity the question does not name, the answer is the short
answer (from the chain's last link, or from the best sentence when its phrase is not the bridge
entity) and then the chain's sentences in order, up to five quotes. Every other question keeps the
short shape, and so does a chain whose dated sources disagree (said in the short shape).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from graphrag.answer.disagreement import disagreement_sentence, find_disagreements
from graphrag.answer.generate.base import Generation
from graphrag.answer.generate.quote_rank import ANSWER_THRESHOLD, QUOTE_MARGIN, SentenceCount, quote_scores
from graphrag.answer.generate.short_answer import AnswerType, ShortAnswer, answer_type, find_short_answers
from graphrag.answer.rank import quotable
from graphrag.model import ContextItem, Disagreement, RouteStart
from graphrag.text import ends_with_abbreviation
from graphrag.verify.support.lexical import content_stems

if TYPE_CHECKING:
    from graphrag.answer.retrieval.graph import KnowledgeGraph

_WORD = re.compile(r"\w+")
_VALUE_KEY = re.compile(r"^\d[\d,.]*\s*(?:%|[a-z]+)$")  # a measure ("30 day", "5 %"): a number and its unit


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _similar(a: set[str], b: set[str]) -> bool:
    return len(a & b) / max(len(a | b), 1) > 0.7


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


def _text(item: ContextItem) -> str:
    return " ".join(item.span.text.split())


TitleOf = Callable[[str, int], "str | None"]


def _merged_into(kept: list[ContextItem], item: ContextItem, *, rivals: bool = True) -> bool:
    """Whether ``item`` nearly repeats a sentence of ``kept`` (an old FAQ restating a policy, an older wording):
    then the one with the later effective date takes that place and True is returned. A near-repeat stating
    another value is a disagreement, not a repeat, when ``rivals`` (both are kept)."""
    words = _words(item.span.text)
    i = next((i for i, c in enumerate(kept) if _similar(words, _words(c.span.text))), None)
    if i is None or (rivals and find_disagreements([kept[i], item])):
        return False
    if (item.effective_date or "") > (kept[i].effective_date or ""):
        kept[i] = item
    return True


def _newest_of_repeats(ranked: list[ContextItem]) -> list[ContextItem]:
    """One of each group of near-repeats saying the same: the newest, in the place of the best ranked."""
    out: list[ContextItem] = []
    for item in ranked:
        if not _merged_into(out, item):
            out.append(item)
    return out

# The other side of a disagreement is quoted when it is this close to the question (cosine) to the
# most similar sentence: the stale FAQ's "7 days" sits 0.2 below the current "30 days" on the sample corpus.
RIVAL_MARGIN = 0.25


class ExtractiveGenerator:
    """An answer with no model: the short answer, then the quotes that answer best, chains kept together."""

    name = "extractive"

    def __init__(self, max_sentences: int = 3, margin: float = QUOTE_MARGIN, chain_margin: float = 0.8,
                 threshold: float = ANSWER_THRESHOLD, specificity: Callable[[str], float] | None = None,
                 min_join_specificity: float = 0.55, title_of: TitleOf | None = None,
                 short_answer: bool = True, ner: bool = True, bridge_chains: bool = True,
                 chain_sentences: int = 5, model: str | None = None) -> None:
        # A chain may only pass through entities at least this specific (KnowledgeGraph.specificity):
        # a hub such as the company's name, named in every document, joins any sentence to any other.
        self.specificity = specificity
        self.min_join_specificity = min_join_specificity
        # Three quotes: the best sentence, and room for a chain link and one more answering sentence
        # (or the other side of a disagreement). Five buried the answer among sentences that did not
        # answer (NQ articles: 4.84 citations per answer).
        self.max_sentences = max_sentences
        self.margin = margin  # a further quote scores within this much of the best one ...
        self.threshold = threshold  # ... and at least this much
        # A chain's next link, continuing a quoted sentence, may be much less like the question than the
        # best sentence ("born in Lyon" shares few words with "Which country is the director of X from?").
        self.chain_margin = chain_margin
        self.title_of = title_of  # document titles for the disagreement sentence (``for_graph``)
        self.sentence_count: SentenceCount | None = None  # sentences per document version (``for_graph``)
        self.short_answer = short_answer
        self.ner = ner  # spaCy's entities for who/where/which answers (False: numbers, durations, dates only)
        # The short answer is looked for in the sentences most like the question only (and in chain
        # links once quoted): spaCy on every context sentence costs more than the rest of the answer.
        self.phrase_candidates = 4
        # A bridge question (the question names an entity, a sentence about it names a second, the
        # answer sentence is about the second) reads as the chain the walk followed, up to
        # ``chain_sentences`` quotes; every other question keeps the short shape.
        self.bridge_chains = bridge_chains
        self.chain_sentences = chain_sentences
        self.chain_links = 2  # links followed after the opening chain (film -> director -> birthplace)
        self.near_best = 0.03  # a sentence this close (cosine) to the most similar keeps a place in a chain answer
        # At most this many sentences in both pages of a bridge step (MuSiQue paragraphs: a few; NQ articles:
        # hundreds; with no limit, 173 of 319 NQ questions took the chain shape, first citation inside 0.25).
        self.bridge_page_sentences = 12
        self.chain_about = 0.3  # a chain is about the question when a sentence of it is this close to the best
        # The reader's answer scorer's score per context item (``with_answer_scores``): blended into the quotes'
        # order (``quote_rank``); None while no scorer ships.
        self.answer_scores: Mapping[int, float] | None = None

    def with_answer_scores(self, scores: Mapping[int, float]) -> ExtractiveGenerator:
        """A copy that orders its quotes with the answer scorer's ``scores`` (per context item number) too."""
        bound = copy.copy(self)
        bound.answer_scores = scores
        return bound

    def for_graph(self, graph: KnowledgeGraph) -> ExtractiveGenerator:
        """A copy that knows how specific each entity of ``graph`` is (to keep hubs out of chains) and the
        documents' titles (to name the sources that disagree)."""
        spec = graph.specificity
        bound = copy.copy(self)
        bound.specificity = lambda key: float(spec[graph.index[key]]) if key in graph.index else 1.0
        titles = {(d.id, d.version): d.title for d in getattr(graph, "docs", ())}
        bound.title_of = lambda doc, version: titles.get((doc, version))
        if hasattr(graph, "sentence_doc"):
            per_doc = graph.doc_sentence_counts
            index = graph.doc_index
            bound.sentence_count = lambda doc, version: int(per_doc[index[(doc, version)]]) if (doc, version) in index else 1
        return bound

    def _joins_hub(self, item: ContextItem) -> bool:
        if self.specificity is None or not self.min_join_specificity:
            return False
        return any(self.specificity(s.entity) < self.min_join_specificity for s in item.route.steps)

    def generate(self, question: str, context: Sequence[ContextItem]) -> Generation:
        """The short answer (for a fact question), the best sentence, and up to ``max_sentences`` quotes in
        all, each with its marker; a disagreement between quoted sources said in words. Empty when no
        context sentence is a statement."""
        candidates = [c for c in context if quotable(_text(c))]
        if not candidates:
            return Generation("", self.name, None)
        by_similarity = sorted(candidates, key=lambda c: (-c.score, c.n))[:self.phrase_candidates]
        found = dict(zip(by_similarity, find_short_answers(question, [_text(c) for c in by_similarity], self.ner)))
        answers: dict[ContextItem, ShortAnswer | None] = {c: found.get(c) for c in candidates}

        def answer_of(item: ContextItem) -> ShortAnswer | None:
            if item not in found:  # a chain link far from the question: looked at once it is quoted
                found[item] = answers[item] = find_short_answers(question, [_text(item)], self.ner)[0]
            return answers[item]
        has = [answers[c] is not None for c in candidates]
        # ``base``: the score the floor and margin below were set on; ``fit`` orders the quotes, blended with the answer
        # scorer's when the reader has one (on its own scale the floor cut most further quotes: NQ dev, 1.81 -> 1.27
        # citations per answer).
        base = dict(zip(candidates, quote_scores(question, candidates, has, self.sentence_count)))
        fit = base if self.answer_scores is None else dict(zip(candidates, quote_scores(
            question, candidates, has, self.sentence_count, [self.answer_scores.get(c.n, 0.0) for c in candidates])))
        ranked = _newest_of_repeats(sorted(candidates, key=lambda c: (-fit[c], c.n)))
        at: dict[tuple[str | None, int | None, int | None], ContextItem] = {_where(c): c for c in candidates}
        best = ranked[0]
        fact = answer_type(question) is not AnswerType.NONE
        # A bridge question (``_bridge_chain``) reads as the chain the walk followed, after the short answer.
        walked = self._bridge_chain(question, candidates) if self.bridge_chains else None
        bridge_text = ""
        if walked is not None:
            chain, last, bridges = walked
            # The best sentence answers by itself when it holds a phrase of the asked-for kind that is not
            # the entity the walk went on from: the short answer cites it, the chain follows. Otherwise (the
            # film's sentence gives the director, the question asks for the director's birthplace) the
            # short answer is taken from the chain's last link.
            phrase = answer_of(best)
            said = phrase.text.casefold() if phrase is not None else ""
            if not fact:
                # A question asking for no phrase: the sentence that answers best opens the chain.
                chain = [best, *(c for c in chain if c is not best)][:self.chain_sentences]
            elif phrase is not None and not any(e in said or said in e for e in bridges):
                last = best  # the short answer cites it; the chain's quotes keep their order
            bridge_text = self._compose_chain(question, chain, last)
        quotes: list[ContextItem] = [best]
        chained: set[ContextItem] = set()
        qstems = set(content_stems(question))

        def add(item: ContextItem, *, chain: bool = False) -> bool:
            if item in quotes or len(quotes) >= self.max_sentences:
                return False
            if _merged_into(quotes, item):  # a near-repeat saying the same: only the newer source is quoted
                return False
            quotes.append(item)
            if chain:
                chained.add(item)
            return True

        def covered() -> set[str]:
            return {s for q in quotes for s in content_stems(q.span.text)}

        # Chain links the question needs: a step sentence of the best one's route that covers
        # question words the quotes lack.
        if not self._joins_hub(best):
            for where in _step_sentences(best):
                link = at.get(where)
                if link is not None and link is not best and (qstems & set(content_stems(link.span.text))) - covered():
                    add(link, chain=True)
        # The chain continues through a quoted sentence when the question asks for a fact and the next
        # link holds a phrase of that kind the quotes do not (the film's sentence names the director; the
        # director's sentence gives the birthplace, or the spouse, another person), or no quote holds one.
        top_similarity = max(c.score for c in candidates)
        chain_answer: ContextItem | None = None
        for _ in range(2 if fact else 0):
            quoted = {_where(c) for c in quotes}
            # ... into a short page only: in a long article every entity is named everywhere, and the next
            # "link" was another article's sentence (NQ articles: first citation inside 0.455 -> 0.49).
            onward = [c for c in candidates
                      if c not in quotes and c.score >= top_similarity - self.chain_margin and not self._joins_hub(c)
                      and not self._long_doc(c.span.document_id, c.span.version)
                      and any(w in quoted for w in _step_sentences(c))]
            if not onward:
                break
            strongest = max(onward, key=lambda c: (self._reached_strength(c), -c.n))
            link = _most_like_the_question(onward, strongest)
            found_here = answer_of(link)
            said = " ".join(_text(q) for q in quotes).casefold()
            # ... new, and reached through an entity a quote names and the question does not: the bridge
            # (the director), not something the question already named ("72 hours" ... "incident" ... a
            # report's "30 days").
            asked = question.casefold()
            steps = {st.entity.casefold() for st in link.route.steps}
            bridged = any(st.entity and st.entity.casefold() in said and st.entity.casefold() not in asked
                          for st in link.route.steps)
            new_fact = found_here is not None and found_here.text.casefold() not in said and bridged
            if not (new_fact or all(answer_of(q) is None for q in quotes)):
                break
            if not add(link, chain=True):
                break
            through_phrase = any(a is not None and any(e and (e in a.text.casefold() or a.text.casefold() in e)
                                                       for e in steps)
                                 for a in (answer_of(q) for q in quotes if q is not link))
            if new_fact and through_phrase:
                chain_answer = link  # the quote's phrase was the bridge ("Aurora region"): the answer is here
        floor = max(self.threshold, base[best] - self.margin)
        for cand in ranked[1:]:
            if len(quotes) >= self.max_sentences:
                break
            # For a fact question a further quote must hold a phrase of the asked-for kind too.
            if base[cand] >= floor and (not fact or answers[cand] is not None):
                add(cand)
        # Sources that disagree about what the quotes say keep places (the reader must know): a
        # sentence of a quoted document version, close to the question, and one of another document or
        # version, as close, stating a different value; in place of quotes that are not chain links.
        if not find_disagreements(quotes):
            near = [c for c in ranked if c.score >= top_similarity - RIVAL_MARGIN]
            quoted_docs = {(q.span.document_id, q.span.version) for q in quotes}
            pair = next(((a, b) for a in near if a in quotes or (a.span.document_id, a.span.version) in quoted_docs
                         for b in near if b is not a and find_disagreements([a, b])), None)
            if pair is not None:
                wanted = [c for c in pair if c not in quotes]
                spare = [q for q in quotes[1:] if q not in chained and q not in pair]
                while len(quotes) + len(wanted) > self.max_sentences and spare:
                    quotes.remove(spare.pop())
                for c in wanted:
                    add(c)
        # Dated sources that disagree (a policy and its older FAQ) are said in the short shape, the current
        # one first: a chain gives way to it. Undated pages (an encyclopedia's) rarely state rival values
        # of one thing: there the chain stays (MuSiQue, any disagreement: bridge cited 0.59 -> 0.53).
        dated = [c for c in [*quotes, *(walked[0] if walked else [])] if c.effective_date]
        if bridge_text and not find_disagreements(dated):
            return Generation(bridge_text, self.name, None)
        for q in quotes:  # a quote that joined late (a disagreement's other side) may give the short answer
            answer_of(q)
        return Generation(self._compose(quotes, answers, chain_answer, chained), self.name, None)

    def _bridge_chain(self, question: str, candidates: list[ContextItem]
                      ) -> tuple[list[ContextItem], ContextItem, set[str]] | None:
        """For a bridge question, the chain's quotes in order and its last link; None otherwise.

        The chain opening the answer is the first in the retrieval's order that is about the question
        (one of its sentences is as close to the question as ``chain_about`` to the best: the sentence
        giving the bridge entity's fact rarely resembles the question: main's rule). It is a bridge when its
        route starts at an entity the question names and steps, from another short page, through one the
        question does not name (``_short_doc``); then the
        walk is followed on from its newest quote (``chain_links`` times), and the sentence most like
        the question and the first of the retrieval's order keep places too.
        """
        by_similarity = sorted(candidates, key=lambda c: (-c.score, c.n))
        at = {_where(c): c for c in by_similarity}
        best = by_similarity[0].score
        most_similar = by_similarity[0]
        in_order = sorted(by_similarity, key=lambda c: c.n)
        asked = question.casefold()

        def links(item: ContextItem) -> list[ContextItem]:
            out = [at[w] for w in _step_sentences(item) if w in at and at[w] is not item]
            return [*dict.fromkeys(out), item]

        def about_question(item: ContextItem) -> bool:
            chain = links(item)
            return (bool(item.route.steps) and len(chain) > 1 and not self._joins_hub(item)
                    and max(c.score for c in chain) >= best - self.chain_about)

        def bridge(item: ContextItem) -> bool:
            route = item.route
            # A step through a measure ("30 days", "5 %") joins two sentences that happen to state the same
            # amount: a coincidence, not a bridge (the reactivation window led to an incident report's
            # "within 30 days", and the short answer cited the report). A date or a year may be one (an
            # event of 1945), so it stays: with every number left out MuSiQue lost a gold answer.
            return (route.start is RouteStart.QUESTION
                    and any(st.entity and st.entity.casefold() not in asked and not _VALUE_KEY.search(st.entity)
                            and st.document_id is not None and st.document_id != item.span.document_id
                            and self._short_doc(item.span.document_id, item.span.version)
                            and self._short_doc(st.document_id, st.version or 0) for st in route.steps))

        chains = [c for c in in_order if about_question(c)]
        if not chains:
            return None
        opening = _most_like_the_question(chains, chains[0])
        if not bridge(opening):
            return None
        kept = list(dict.fromkeys([most_similar, in_order[0],
                                   *(c for c in in_order if c.score >= best - self.near_best)]))
        chosen: list[ContextItem] = []
        cap = self.chain_sentences

        def take(item: ContextItem, *, chain: bool = False) -> bool:
            if item in chosen or len(chosen) >= cap:
                return False
            if chain and item not in kept and cap - len(chosen) - sum(1 for k in kept if k not in chosen) <= 0:
                return False  # a place stays free for each kept sentence
            if _merged_into(chosen, item, rivals=False):  # a chain quotes each thing once, the newest source
                return False
            chosen.append(item)
            return True

        def extension() -> ContextItem | None:
            quoted = {_where(c) for c in chosen}
            found = [c for c in in_order
                     if c not in chosen and c.score >= best - self.chain_margin and not self._joins_hub(c)
                     and any(w in quoted for w in _step_sentences(c))]
            if not found:
                return None
            return _most_like_the_question(found, max(found, key=lambda c: (self._reached_strength(c), -c.n)))

        last = opening
        for item in links(opening):
            take(item, chain=True)
        nxt = extension()
        if nxt is None:  # no route through a quote: the next chain about the question the walk found
            nxt = next((c for c in in_order if c not in chosen and about_question(c)), None)
        for _ in range(self.chain_links):
            if nxt is None:
                break
            for item in links(nxt):
                if take(item, chain=True):
                    last = item
            nxt = extension()
        for item in kept:
            take(item)
        for cand in in_order:
            if len(chosen) >= cap:
                break
            if cand.score >= best - self.chain_about:
                for item in links(cand):
                    take(item)
        bridges = {st.entity.casefold() for st in opening.route.steps if st.entity and st.entity.casefold() not in asked}
        return chosen, (last if last in chosen else chosen[-1]), bridges

    def _compose_chain(self, question: str, chain: list[ContextItem], last: ContextItem) -> str:
        """A bridge answer: the short answer from the chain's last link (else its first sentence holding
        one), then the chain's sentences in order, each a quote with its marker."""
        parts: list[str] = []
        if self.short_answer:
            order = [last, *(c for c in chain if c is not last)]
            for item, short in zip(order, find_short_answers(question, [_text(c) for c in order], self.ner)):
                if short is not None:
                    parts.append(_with_marker(short.text, item.n))
                    break
        parts.extend(_with_marker(_text(q), q.n) for q in chain)
        return " ".join(parts)

    def _short_doc(self, doc: str, version: int) -> bool:
        """A page about one thing (a paragraph, a short note): a walk between such pages is a bridge; within
        and between long articles an entity is named everywhere and a step is rarely one."""
        return self.sentence_count is not None and self.sentence_count(doc, version) <= self.bridge_page_sentences

    def _long_doc(self, doc: str, version: int) -> bool:
        """A page known to be longer than a short one (unknown lengths count as short)."""
        return self.sentence_count is not None and self.sentence_count(doc, version) > self.bridge_page_sentences

    def _reached_strength(self, item: ContextItem) -> float:
        """How strongly the walk reached the item's entity (its specificity), among routes through one
        quoted sentence."""
        return self.specificity(item.route.end) if self.specificity is not None else 0.0

    def _compose(self, quotes: list[ContextItem], answers: dict[ContextItem, ShortAnswer | None],
                 chain_answer: ContextItem | None = None, chained: set[ContextItem] | frozenset[ContextItem] = frozenset()
                 ) -> str:
        """The answer's text: the short answer, its sentence, any disagreement in words, the other quotes.
        ``chain_answer``: the chain's last link that gave a new phrase of the asked-for kind (a bridge
        question's answer may be there, or the first sentence's phrase may be)."""
        disagreements: list[Disagreement] = find_disagreements(quotes, self.title_of)
        older = {s.n for d in disagreements for s in d.sides[1:]}
        # The current side of a disagreement is read first: the short answer is taken from it.
        order = sorted(quotes, key=lambda q: q.n in older)
        # The best quote's older side gives its place to the current side of the same disagreement (not to
        # the next quote, which answers less well).
        current = next((d.sides[0].n for d in disagreements if quotes and quotes[0].n in {s.n for s in d.sides[1:]}),
                       None)
        if current is not None:
            order.sort(key=lambda q: q.n != current)
        # A bridge question whose link was reached through the very phrase a quote gave ("Aurora region"
        # -> "Dublin"): the short answer comes from the link; otherwise from the best quote.
        source = chain_answer if chain_answer in quotes and self.short_answer else None
        # Otherwise from the best quote, or from a chain link the question needed; never from a further
        # quote that merely holds a phrase of the asked-for kind (on NQ articles the actor's sentence
        # "She is famous for portraying Wonder Woman" lost its first place to another article's sentence
        # naming someone: first citation inside the evidence 0.439 -> 0.455).
        if self.short_answer and source is None:
            source = next((q for q in order if answers.get(q) is not None and q.n not in older
                           and (q is order[0] or q in chained)), None)
        if source is not None:
            order.remove(source)
            order.insert(0, source)
        parts: list[str] = []
        if source is not None:
            short = answers[source]
            assert short is not None
            parts.append(_with_marker(short.text, source.n))
        # After the first quote, a side of a disagreement between dated sources is not quoted again: the
        # disagreement sentence says what it says, with its marker and its date. Quoted on its own as well, the
        # stale side read as a plain statement of the answer ("... FAQ (2023) says 14 days [3]. Larkspur keeps
        # nightly snapshots for 14 days [3]."). Undated pages keep their quotes: there a "disagreement" is often
        # two numbers of different things ("five sports" / "2006 Sport"), and the quote was the evidence (MuSiQue:
        # a bridge sentence left only inside such a sentence).
        whole = {s.n for d in disagreements for s in d.sides if s.says == s.sentence}  # quoted whole in it anyway
        sides = whole | {s.n for d in disagreements if all(s.effective_date for s in d.sides) for s in d.sides}
        told = False
        for i, q in enumerate(order):
            if i > 0 and not told and disagreements:
                parts.extend(disagreement_sentence(d) for d in disagreements)
                told = True
            if q.n in sides and i > 0:
                continue
            parts.append(_with_marker(_text(q), q.n))
        if not told:
            parts.extend(disagreement_sentence(d) for d in disagreements)
        return " ".join(parts)
