"""The embedded generator: an answer composed from the context sentences, no server.

The answer reads as an answer: for a fact question (who, when, where, how many, how long...)
it opens with the short answer, a phrase taken from the best evidence sentence as a claim of
its own citing that sentence, then that sentence quoted; then at most two more quotes, each
only when it answers nearly as well or is a chain link the question needs. Which sentence answers
is the reader's judgement (``graphrag.answer.reader``: its ``Reading`` of the candidates holds the
quotes' order, their scores and their typed short answers, ``reader.quotes``); the generator
composes the answer from it. Only statements are quoted (``reader.rank.kinds``): never a FAQ's
question, a heading, a caption, a table row, a reference entry or an author line. When quoted sources from different documents or
versions state different values about the same thing, the answer says so in words, the
current source first (``graphrag.verify.disagreement``).

Chains: a context item reached through the graph names the sentences of the steps that
reached it. A step's sentence is quoted after the best one when it covers words of the
question the best one lacks (the film's sentence names the director the question asks
about); an item whose route went through a quoted sentence continues the chain when the
quotes so far do not hold the kind of phrase the question asks for (the director's sentence
gives the birthplace). A chain never passes through a hub (an entity most sentences name).
Nothing is written that a source does not say: each quote is a source sentence with its own
marker, and the short answer is a phrase of the sentence it cites.

Bridge questions keep the whole chain (``_bridge_chain``): when the walk went from an entity the question
names, through a sentence of one short page, to another short page (another title: paragraphs of one article
are one page) about an entity the question does not name,
the answer is the short answer (from the chain's last link, or from the best sentence when its phrase is not the
bridge entity) and then the chain's sentences in order, up to five quotes. Every other question keeps the short
shape, and so does a chain whose dated sources disagree (said in the short shape).

``generate`` runs in named steps: take the statements in the reader's order (``_rank``), read a bridge question as its chain
(``_bridge_answer``), quote the best sentence and the links the question needs (``_quote_links_the_question_needs``),
follow the chain for a fact question (``_follow_the_chain``), add close answers (``_quote_close_answers``) and both
sides of a disagreement (``_quote_both_sides``), then compose. What the generator may know of the graph is one
record, ``GraphFacts`` (``facts.py``); its tuned numbers are one frozen record, ``ExtractiveSettings``
(``extractive_settings.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphrag.answer.generate.base import Generation
from graphrag.answer.generate.extractive_settings import ExtractiveSettings
from graphrag.answer.generate.facts import GraphFacts, TitleOf, graph_facts
from graphrag.answer.reader.quotes import QuoteReading, ShortAnswers, read_quotes
from graphrag.answer.reader.short_answer import AnswerType, ShortAnswer, answer_type
from graphrag.language.lexical import content_stems
from graphrag.language.sentences import ends_with_abbreviation, mentioned_in
from graphrag.model import ContextItem, Disagreement, RouteStart
from graphrag.verify.disagreement import disagreement_sentence, find_disagreements

if TYPE_CHECKING:
    from graphrag.answer.reader.read import Reading
    from graphrag.answer.retrieval.graph import KnowledgeGraph

__all__ = ["ExtractiveGenerator", "ExtractiveSettings", "GraphFacts", "TitleOf"]

_WORD = re.compile(r"\w+")
_VALUE_KEY = re.compile(r"^\d[\d,.]*\s*(?:%|[a-z]+)$")  # a measure ("30 day", "5 %"): a number and its unit
Where = tuple[str | None, int | None, int | None]  # a sentence's place: document, version, sentence index


# The reader's short answer for a quote answering by itself, given the quote's typed phrase.
Opening = Callable[[ContextItem, ShortAnswer | None], ShortAnswer | None]


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _similar(a: set[str], b: set[str], overlap: float) -> bool:
    return len(a & b) / max(len(a | b), 1) > overlap


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


def _where(item: ContextItem) -> Where:
    return item.span.document_id, item.span.version, item.span.sentence_index


def _step_sentences(item: ContextItem) -> list[Where]:
    """Where each step of the item's route was stated, as ``_where`` places a sentence."""
    return [(s.document_id, s.version, s.sentence_index) for s in item.route.steps]


def _most_like_the_question(candidates: Sequence[ContextItem], route_of: ContextItem) -> ContextItem:
    """Of the candidates reached by ``route_of``'s route (every sentence naming the entity it
    reached), the one most like the question; the first in the retrieval's order on a tie."""
    return max((c for c in candidates if c.route == route_of.route), key=lambda c: (c.score, -c.n))


def _names_a_bridge(phrase: str, links: Iterable[ContextItem]) -> bool:
    """Whether one of ``links`` names ``phrase`` (``mentioned_in``): the link goes on from what the phrase names
    ("Aurora region" -> "The Aurora region runs in ... Dublin"), so the phrase is the bridge."""
    return any(mentioned_in(phrase, q.span.text) for q in links)


def _text(item: ContextItem) -> str:
    return " ".join(item.span.text.split())


def _merged_into(kept: list[ContextItem], item: ContextItem, overlap: float, *, rivals: bool = True) -> bool:
    """Whether ``item`` nearly repeats a sentence of ``kept`` (an old FAQ restating a policy, an older wording):
    then the one with the later effective date takes that place and True is returned. A near-repeat stating
    another value is a disagreement, not a repeat, when ``rivals`` (both are kept)."""
    words = _words(item.span.text)
    i = next((i for i, c in enumerate(kept) if _similar(words, _words(c.span.text), overlap)), None)
    if i is None or (rivals and find_disagreements([kept[i], item])):
        return False
    if (item.effective_date or "") > (kept[i].effective_date or ""):
        kept[i] = item
    return True


def _newest_of_repeats(ranked: list[ContextItem], overlap: float) -> list[ContextItem]:
    """One of each group of near-repeats saying the same: the newest, in the place of the best ranked."""
    out: list[ContextItem] = []
    for item in ranked:
        if not _merged_into(out, item, overlap):
            out.append(item)
    return out


@dataclass
class _Quotes:
    """The quotes of one answer as they are chosen: at most ``cap``, no near-repeat, chain links marked."""

    cap: int
    overlap: float
    items: list[ContextItem]
    chained: set[ContextItem] = field(default_factory=set)

    def add(self, item: ContextItem, *, chain: bool = False) -> bool:
        if item in self.items or len(self.items) >= self.cap:
            return False
        if _merged_into(self.items, item, self.overlap):  # a near-repeat saying the same: the newer source only
            return False
        self.items.append(item)
        if chain:
            self.chained.add(item)
        return True

    def places(self) -> set[Where]:
        return {_where(c) for c in self.items}

    def stems(self) -> set[str]:
        return {s for q in self.items for s in content_stems(q.span.text)}


@dataclass(frozen=True)
class _Chain:
    """A bridge question's chain: its quotes in order, its last link, and the entities it bridged through."""

    quotes: list[ContextItem]
    last: ContextItem
    bridges: set[str]


class ExtractiveGenerator:
    """An answer with no model: the short answer, then the quotes that answer best, chains kept together."""

    name = "extractive"

    def __init__(self, settings: ExtractiveSettings | None = None, facts: GraphFacts | None = None,
                 model: str | None = None) -> None:
        self.settings = settings or ExtractiveSettings()
        self.facts = facts or GraphFacts()

    def knowing(self, facts: GraphFacts) -> ExtractiveGenerator:
        """A copy that knows ``facts`` of the graph (hubs kept out of chains, titles, page lengths)."""
        return ExtractiveGenerator(self.settings, facts)

    def for_graph(self, graph: KnowledgeGraph) -> ExtractiveGenerator:
        """A copy that knows what ``graph`` can tell a generator (``graph_facts``)."""
        return self.knowing(graph_facts(graph))

    # --- one answer, step by step ---------------------------------------------------------------------------

    def generate(self, question: str, context: Sequence[ContextItem], reading: Reading | None = None) -> Generation:
        """The short answer (for a fact question), the best sentence, and up to ``max_sentences`` quotes in
        all, each with its marker; a disagreement between quoted sources said in words. Empty when no
        context sentence is a statement. The quotes' order and short answers are the reader's ``reading`` of
        ``context``; without one (a test, a lab sweep) the statements are read here as the reader reads them
        without its answer scorer (``reader.quotes.read_quotes``)."""
        quoting = reading.quotes if reading is not None else None
        if quoting is None:
            quoting = read_quotes(question, context, sentence_count=self.facts.sentence_count,
                                  phrase_candidates=self.settings.phrase_candidates, ner=self.settings.ner)
        candidates = list(quoting.candidates)
        if not candidates:
            return Generation("", self.name, None)
        phrases = quoting.phrases()
        chain = self._bridge_chain(question, candidates) if self.settings.bridge_chains else None
        base, ranked = self._rank(quoting, bridged=chain is not None)
        best = ranked[0]
        fact = answer_type(question) is not AnswerType.NONE
        bridge_text = self._bridge_answer(chain, best, phrases, fact) if chain is not None else ""
        quotes = _Quotes(self.settings.max_sentences, self.settings.repeat_overlap, [best])
        self._quote_links_the_question_needs(question, candidates, quotes)
        chain_answer = self._follow_the_chain(question, candidates, quotes, phrases) if fact else None
        self._quote_close_answers(ranked, base, quotes, phrases, fact)
        self._quote_both_sides(candidates, ranked, quotes)
        # Dated sources that disagree (a policy and its older FAQ) are said in the short shape, the current
        # one first: a chain gives way to it. Undated pages (an encyclopedia's) rarely state rival values
        # of one thing: there the chain stays (MuSiQue, any disagreement: bridge cited 0.59 -> 0.53).
        dated = [c for c in [*quotes.items, *(chain.quotes if chain else [])] if c.effective_date]
        if bridge_text and not find_disagreements(dated):
            return Generation(bridge_text, self.name, None)
        for q in quotes.items:  # a quote that joined late (a disagreement's other side) may give the short answer
            phrases.of(q)
        return Generation(self._compose(quotes.items, phrases.known, chain_answer, quotes.chained, quoting.opening),
                          self.name, None)

    def _rank(self, quoting: QuoteReading, bridged: bool = False) -> tuple[dict[ContextItem, float], list[ContextItem]]:
        """Each statement's quote score, and the statements in the reader's order of the quotes (for a question a
        bridge chain answers when ``bridged``), one of each near-repeat. ``base`` is the score the floor and margin
        of further quotes were set on."""
        ranked = _newest_of_repeats(quoting.ranked(bridged), self.settings.repeat_overlap)
        return dict(quoting.base), ranked

    def _bridge_answer(self, chain: _Chain, best: ContextItem, phrases: ShortAnswers, fact: bool) -> str:
        """A bridge question's answer text: the short answer, then the chain the walk followed.

        The best sentence answers by itself when it holds a phrase of the asked-for kind that is not the entity
        the walk went on from: the short answer cites it, the chain follows. Otherwise (the film's sentence gives
        the director, the question asks for the director's birthplace) the short answer is taken from the
        chain's last link."""
        quotes, last = chain.quotes, chain.last
        phrase = phrases.of(best)
        said = phrase.text.casefold() if phrase is not None else ""
        if not fact:
            # A question asking for no phrase: the sentence that answers best opens the chain.
            quotes = [best, *(c for c in quotes if c is not best)][:self.settings.chain_sentences]
        elif phrase is not None and not any(e in said or said in e for e in chain.bridges):
            last = best  # the short answer cites it; the chain's quotes keep their order
        return self._compose_chain(quotes, last, phrases)

    def _quote_links_the_question_needs(self, question: str, candidates: list[ContextItem], quotes: _Quotes) -> None:
        """A step sentence of the best quote's route that covers question words the quotes lack (the film's
        sentence names the director the question asks about) is quoted after it."""
        best = quotes.items[0]
        if self._joins_hub(best):
            return
        at = {_where(c): c for c in candidates}
        asked = set(content_stems(question))
        for where in _step_sentences(best):
            link = at.get(where)
            if link is not None and link is not best and (asked & set(content_stems(link.span.text))) - quotes.stems():
                quotes.add(link, chain=True)

    def _follow_the_chain(self, question: str, candidates: list[ContextItem], quotes: _Quotes, phrases: ShortAnswers
                          ) -> ContextItem | None:
        """For a fact question, the chain continues through a quoted sentence when the next link holds a phrase
        of the asked-for kind the quotes do not (the film's sentence names the director; the director's
        sentence gives the birthplace, or the spouse, another person), or no quote holds one. Returns the link
        whose phrase answers when the quote's own phrase was the bridge ("Aurora region" -> "Dublin")."""
        top_similarity = max(c.score for c in candidates)
        chain_answer: ContextItem | None = None
        asked = question.casefold()
        for _ in range(self.settings.fact_links):
            quoted = quotes.places()
            # ... into a short page only: in a long article every entity is named everywhere, and the next
            # "link" was another article's sentence (NQ articles: first citation inside 0.455 -> 0.49). An article
            # stored a paragraph a document is such a page: no link from one of its paragraphs to another
            # (SQuAD 2.0 dev choose articles: first citation holds the gold answer 0.614 -> 0.669).
            onward = [c for c in candidates
                      if c not in quotes.items and c.score >= top_similarity - self.settings.chain_margin
                      and not self._joins_hub(c) and not self._long_doc(c.span.document_id, c.span.version)
                      and any(w in quoted and not self._other_part(c, w) for w in _step_sentences(c))]
            if not onward:
                break
            strongest = max(onward, key=lambda c: (self._reached_strength(c), -c.n))
            link = _most_like_the_question(onward, strongest)
            found_here = phrases.of(link)
            said = " ".join(_text(q) for q in quotes.items).casefold()
            # ... new, and reached through an entity a quote names and the question does not: the bridge
            # (the director), not something the question already named ("72 hours" ... "incident" ... a
            # report's "30 days").
            steps = {st.entity.casefold() for st in link.route.steps}
            bridged = any(st.entity and st.entity.casefold() in said and st.entity.casefold() not in asked
                          for st in link.route.steps)
            new_fact = found_here is not None and found_here.text.casefold() not in said and bridged
            if not (new_fact or all(phrases.of(q) is None for q in quotes.items)):
                break
            if not quotes.add(link, chain=True):
                break
            through_phrase = any(a is not None and any(e and (e in a.text.casefold() or a.text.casefold() in e)
                                                       for e in steps)
                                 for a in (phrases.of(q) for q in quotes.items if q is not link))
            if new_fact and through_phrase:
                chain_answer = link  # the quote's phrase was the bridge ("Aurora region"): the answer is here
        return chain_answer

    def _quote_close_answers(self, ranked: list[ContextItem], base: dict[ContextItem, float], quotes: _Quotes,
                             phrases: ShortAnswers, fact: bool) -> None:
        """Further quotes in the quotes' order, each scoring within ``margin`` of the best and at least
        ``threshold``; for a fact question each must hold a phrase of the asked-for kind too."""
        floor = max(self.settings.threshold, base[ranked[0]] - self.settings.margin)
        for cand in ranked[1:]:
            if len(quotes.items) >= self.settings.max_sentences:
                break
            if base[cand] >= floor and (not fact or phrases.known[cand] is not None):
                quotes.add(cand)

    def _quote_both_sides(self, candidates: list[ContextItem], ranked: list[ContextItem], quotes: _Quotes) -> None:
        """Sources that disagree about what the quotes say keep places (the reader must know): a sentence of a
        quoted document version, close to the question, and one of another document or version, as close,
        stating a different value; in place of quotes that are not chain links."""
        if find_disagreements(quotes.items):
            return
        top_similarity = max(c.score for c in candidates)
        near = [c for c in ranked if c.score >= top_similarity - self.settings.rival_margin]
        quoted_docs = {(q.span.document_id, q.span.version) for q in quotes.items}
        pair = next(((a, b) for a in near if a in quotes.items or (a.span.document_id, a.span.version) in quoted_docs
                     for b in near if b is not a and find_disagreements([a, b])), None)
        if pair is None:
            return
        wanted = [c for c in pair if c not in quotes.items]
        spare = [q for q in quotes.items[1:] if q not in quotes.chained and q not in pair]
        while len(quotes.items) + len(wanted) > self.settings.max_sentences and spare:
            quotes.items.remove(spare.pop())
        for c in wanted:
            quotes.add(c)

    # --- what the steps ask of the graph and of a chain ------------------------------------------------------

    def _joins_hub(self, item: ContextItem) -> bool:
        """Whether the item's route passes through a hub (an entity less specific than ``min_join_specificity``)."""
        specificity, floor = self.facts.specificity, self.settings.min_join_specificity
        if specificity is None or not floor:
            return False
        return any(specificity(s.entity) < floor for s in item.route.steps)

    def _bridge_chain(self, question: str, candidates: list[ContextItem]) -> _Chain | None:
        """For a bridge question, the chain's quotes in order and its last link; None otherwise.

        The chain opening the answer is the first in the retrieval's order that is about the question
        (one of its sentences is as close to the question as ``chain_about`` to the best: the sentence
        giving the bridge entity's fact rarely resembles the question). It is a bridge when its
        route starts at an entity the question names and steps, from another short page of another title,
        through one the question does not name (``_short_doc``, ``_one_page``); then the
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
                    and max(c.score for c in chain) >= best - self.settings.chain_about)

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
                            and self._short_doc(st.document_id, st.version or 0)
                            and not self._one_page(item.span.document_id, item.span.version, st.document_id,
                                                   st.version or 0) for st in route.steps))

        chains = [c for c in in_order if about_question(c)]
        if not chains:
            return None
        opening = _most_like_the_question(chains, chains[0])
        if not bridge(opening):
            return None
        kept = list(dict.fromkeys([most_similar, in_order[0],
                                   *(c for c in in_order if c.score >= best - self.settings.near_best)]))
        chosen: list[ContextItem] = []
        cap = self.settings.chain_sentences

        def take(item: ContextItem, *, chain: bool = False) -> bool:
            if item in chosen or len(chosen) >= cap:
                return False
            if chain and item not in kept and cap - len(chosen) - sum(1 for k in kept if k not in chosen) <= 0:
                return False  # a place stays free for each kept sentence
            if _merged_into(chosen, item, self.settings.repeat_overlap, rivals=False):  # a chain quotes each thing once, the newest source
                return False
            chosen.append(item)
            return True

        def extension() -> ContextItem | None:
            quoted = {_where(c) for c in chosen}
            found = [c for c in in_order
                     if c not in chosen and c.score >= best - self.settings.chain_margin and not self._joins_hub(c)
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
        for _ in range(self.settings.chain_links):
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
            if cand.score >= best - self.settings.chain_about:
                for item in links(cand):
                    take(item)
        bridges = {st.entity.casefold() for st in opening.route.steps if st.entity and st.entity.casefold() not in asked}
        return _Chain(chosen, last if last in chosen else chosen[-1], bridges)

    def _compose_chain(self, chain: list[ContextItem], last: ContextItem, phrases: ShortAnswers) -> str:
        """A bridge answer: the short answer from the chain's last link (else its first sentence holding
        one), then the chain's sentences in order, each a quote with its marker."""
        parts: list[str] = []
        if self.settings.short_answer:
            order = [last, *(c for c in chain if c is not last)]
            for item, short in zip(order, phrases.each(order)):
                if short is not None:
                    parts.append(_with_marker(short.text, item.n))
                    break
        parts.extend(_with_marker(_text(q), q.n) for q in chain)
        return " ".join(parts)

    def _short_doc(self, doc: str, version: int) -> bool:
        """A page about one thing (a paragraph, a short note): a walk between such pages is a bridge; within
        and between long articles an entity is named everywhere and a step is rarely one."""
        count = self.facts.sentence_count
        return count is not None and count(doc, version) <= self.settings.bridge_page_sentences

    def _one_page(self, doc: str, version: int, other: str, other_version: int) -> bool:
        """Whether two documents carry one title: paragraphs of one article stored apart are one page about one
        thing, and a step between them is no bridge (a single article's store read its one-fact questions as
        chains)."""
        title = self.facts.title
        if title is None:
            return False
        mine = (title(doc, version) or "").strip().casefold()
        return bool(mine) and mine == (title(other, other_version) or "").strip().casefold()

    def _other_part(self, item: ContextItem, where: Where) -> bool:
        """Whether the sentence at ``where`` is in another document of the item's page (another paragraph of one
        article stored apart): such a page is long, and as in a long article a step within it is no link."""
        doc, version, _ = where
        return (doc is not None and doc != item.span.document_id
                and self._one_page(item.span.document_id, item.span.version, doc, version or 0))

    def _long_doc(self, doc: str, version: int) -> bool:
        """A page known to be longer than a short one (unknown lengths count as short)."""
        count = self.facts.sentence_count
        return count is not None and count(doc, version) > self.settings.bridge_page_sentences

    def _reached_strength(self, item: ContextItem) -> float:
        """How strongly the walk reached the item's entity (its specificity), among routes through one
        quoted sentence."""
        return self.facts.specificity(item.route.end) if self.facts.specificity is not None else 0.0

    def _compose(self, quotes: list[ContextItem], answers: dict[ContextItem, ShortAnswer | None],
                 chain_answer: ContextItem | None = None, chained: set[ContextItem] | frozenset[ContextItem] = frozenset(),
                 opening: Opening | None = None) -> str:
        """The answer's text: the short answer, its sentence, any disagreement in words, the other quotes.
        ``chain_answer``: the chain's last link that gave a new phrase of the asked-for kind (a bridge
        question's answer may be there, or the first sentence's phrase may be); ``opening``: the reader's short
        answer for the best quote answering by itself (``QuoteReading.opening``: the span reader's span where it
        read the quote), in place of its typed phrase, and in place of a chain link's phrase when it trusts the best
        quote (unless the link goes on from the span: ``_names_a_bridge``); a bridge's link keeps its phrase."""
        disagreements: list[Disagreement] = find_disagreements(quotes, self.facts.title)
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
        source = chain_answer if chain_answer in quotes and self.settings.short_answer else None
        # Otherwise from the best quote, or from a chain link the question needed; never from a further
        # quote that merely holds a phrase of the asked-for kind (on NQ articles the actor's sentence
        # "She is famous for portraying Wonder Woman" lost its first place to another article's sentence
        # naming someone: first citation inside the evidence 0.439 -> 0.455).
        linked = source is not None  # the bridge's answer, not a phrase looked for below
        if self.settings.short_answer and source is None:
            source = next((q for q in order if answers.get(q) is not None and q.n not in older
                           and (q is order[0] or q in chained)), None)
        short = answers[source] if source is not None else None
        if self.settings.short_answer and opening is not None and order and order[0].n not in older:
            if source in (None, order[0]):
                short = opening(order[0], answers.get(order[0]))
                source = order[0] if short is not None else None
            elif (not linked and (trusted := opening(order[0], None)) is not None
                  and not _names_a_bridge(trusted.text, chained)):
                # The span reader takes the best quote to state the answer: its span opens the answer, not the
                # typed phrase of a link quoted after it (which then took the first citation from it). Unless the
                # span is the entity the link was reached through: then it is the bridge ("Aurora region"), and
                # the link's phrase ("Dublin") answers.
                short, source = trusted, order[0]
        if source is not None:
            order.remove(source)
            order.insert(0, source)
        parts: list[str] = []
        if source is not None:
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
