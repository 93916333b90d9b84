"""Plain-JSON views of records, shared by the CLI (--json), the exports and the pages."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphrag.answer.generate.abstention import closest_statements
from graphrag.model import (
    Answer,
    Citation,
    Claim,
    ClaimFlag,
    ContextItem,
    Entity,
    Relation,
    Route,
    RouteStart,
    SpanLayout,
    Support,
    disagreement_json,
)

if TYPE_CHECKING:
    from graphrag.answer.reader.read import Reading

# What a checker score cannot say about a verbatim quote, so a person must.
VERBATIM_CHECKS = ("Does the quoted sentence answer the question?",
                   "Is its source the current version, and still in force?")
# (document id, version, sentence index) -> where that sentence sits in its PDF/HTML/DOCX file
Layouts = Mapping[tuple[str, int, int], SpanLayout]

NOT_CHECKED = {"score": None, "label": "not_checked", "checker": None, "reason": "not checked"}


def support_json(s: Support | None) -> dict[str, object]:
    """A support score as JSON; "not checked" when there is none."""
    if s is None:
        return dict(NOT_CHECKED)
    out: dict[str, object] = {"score": round(s.score, 4), "label": s.label.value, "checker": s.checker,
                              "reason": s.reason}
    if s.advisory is not None:  # a model judge's verdict, beside the score that decides
        out["advisory"] = support_json(s.advisory)
    return out


SentenceLookup = Callable[[str, int, int], "str | None"]


def route_json(route: Route, names: Mapping[str, str] | None = None,
               sentence: SentenceLookup | None = None) -> list[dict[str, object]]:
    """A route as steps: where it started (an entity the question names, or similarity), then
    alternating edge and entity steps. Each edge names its type (a relation, or "co-mention")
    and the sentence that states it; ``sentence`` (document, version, index -> text) adds the
    sentence's text."""
    name = (lambda k: names.get(k, k)) if names else (lambda k: k)
    steps: list[dict[str, object]] = [{"entity": name(route.seed), "start": route.start.value}]
    for s in route.steps:
        edge: dict[str, object] = {"relation": s.relation_type, "relation_id": s.relation_id,
                                   "kind": "co-mention" if s.comention else "relation",
                                   "direction": "forward" if s.forward else "backward",
                                   "document": s.document_id, "version": s.version,
                                   "sentence_index": s.sentence_index}
        if sentence is not None and s.document_id is not None and s.version is not None \
                and s.sentence_index is not None:
            edge["sentence"] = sentence(s.document_id, s.version, s.sentence_index)
        steps.append(edge)
        steps.append({"entity": name(s.entity)})
    return steps


def route_text(route: Route, names: Mapping[str, str] | None = None) -> str:
    """"Cancellation -trigger-> Export <-use- Snapshot" for tables and logs; a co-mention is
    "~co-mention~", and a route from similarity (or a theme's entity) says so."""
    name = (lambda k: names.get(k, k)) if names else (lambda k: k)
    out = {RouteStart.SIMILARITY: "(similarity) ", RouteStart.THEME: "(theme) "}.get(route.start, "") + name(route.seed)
    for s in route.steps:
        if s.comention:
            out += f" ~{s.relation_type}~ "
        else:
            out += f" -{s.relation_type}-> " if s.forward else f" <-{s.relation_type}- "
        out += name(s.entity)
    return out


VERBATIM = {"score": None, "label": "verbatim_quote", "checker": None,
            "reason": "the claim is its cited sentence word for word; a support score would only measure the copy"}


def is_verbatim(claim: Claim) -> bool:
    """Whether the claim quotes its evidence word for word."""
    return ClaimFlag.VERBATIM_QUOTE in claim.flags


def layout_json(layout: SpanLayout | None) -> dict[str, object]:
    """Page fields of a citation: null when the document has no pages (text, Markdown); ``ocr_confidence`` only for
    a sentence read by OCR from a scan."""
    if layout is None:
        return {"page": None, "page_end": None, "page_label": None, "boxes": None, "heading_path": None,
                "paragraph": None, "span_kind": None, "ocr_confidence": None}
    return {"page": layout.page, "page_end": layout.page_end, "page_label": layout.page_label,
            "boxes": [list(b) for b in layout.boxes] if layout.page is not None else None,
            "heading_path": layout.heading_path, "paragraph": layout.paragraph,
            # "caption", "table row", "body text": a quote of a picture's caption says what it is
            "span_kind": layout.kind_words, "ocr_confidence": layout.ocr_confidence}


def citation_json(c: Citation, names: Mapping[str, str] | None = None, sentence: SentenceLookup | None = None,
                  layouts: Layouts | None = None) -> dict[str, object]:
    """A citation as JSON, with its span, the cited sentence and page fields when known."""
    span = c.item.span if c.item else None
    layout = (layouts or {}).get((span.document_id, span.version, span.sentence_index)) if span else None
    return {
        "marker": c.marker,
        "valid": c.valid,
        "document": span.document_id if span else None,
        "version": span.version if span else None,
        "start": span.start if span else None,
        "end": span.end if span else None,
        "sentence": span.text if span else None,
        "via": c.item.via if c.item else None,
        **layout_json(layout),
        "route": route_json(c.item.route, names, sentence) if c.item else None,
        "support": support_json(c.support),
        "irrelevant": c.irrelevant,
    }


def context_json(c: ContextItem) -> dict[str, object]:
    """A context sentence as JSON, with where it came from and its route."""
    s = c.span
    return {"n": c.n, "document": s.document_id, "version": s.version, "start": s.start, "end": s.end,
            "sentence": s.text, "score": c.score, "via": c.via, "superseded": c.superseded,
            "route": route_json(c.route)}


Place = tuple[str, int, int]  # a sentence's document, version and index


def _place(item: ContextItem) -> Place:
    return item.span.document_id, item.span.version, item.span.sentence_index


def phrase_span(sentence: str, phrase: str) -> tuple[int, int] | None:
    """Where ``phrase`` (a short answer: its spaces collapsed, its first letter raised) stands in ``sentence``, as
    character offsets; None when it is not there."""
    words = phrase.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), sentence, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


class ReaderView:
    """What the reader decided of each context sentence of one ask, found by the sentence's place (the answer is
    numbered in reading order, the reading as retrieval numbered its context): the answer scorer's probability that
    it answers, and its typed short answer with where it stands in the sentence."""

    def __init__(self, reading: Reading, read_from: Sequence[ContextItem]) -> None:
        self.reading = reading
        self._n = {_place(c): c.n for c in read_from}
        quotes = reading.quotes
        self._typed = {_place(c): a for c, a in quotes.typed.items()} if quotes is not None else {}
        self._spans = {_place(c): r for c, r in quotes.spans.items()} if quotes is not None else {}

    def decision_json(self) -> dict[str, object]:
        """Whether the reader found that the documents answer, why in words ("abstained: probability 0.120 <
        threshold 0.310"), and its probability that they do."""
        p = self.reading.probability
        return {"answered": self.reading.answered, "why": self.reading.why.value, "reason": self.reading.reason,
                "probability": None if p is None else round(p, 4)}

    def quote_json(self, item: ContextItem, cited: bool = False) -> dict[str, object]:
        """``item``'s reading: ``answer_probability``, the answer scorer's (null while no scorer ships, or when the
        question was not read), and ``short_answer``, the phrase an answer quoting it first opens with (the span
        reader's where it read the sentence, else the typed phrase: ``text``, ``kind``, and ``start`` and ``end`` in
        the sentence; null when there is none). The reader types the statements most
        like the question; a ``cited`` one it did not is typed here as the answer typed it. ``span_reader``: for the
        first quotes the span reader read, its probability that the sentence states the answer and the answer's span
        in it (``text``, ``start``, ``end``; null when no token was left for one); null for a sentence it did not
        read."""
        place = _place(item)
        scores, n = self.reading.scores, self._n.get(place)
        got = scores.get(n) if scores is not None and n is not None else None
        short = self._typed.get(place)
        quotes = self.reading.quotes
        if place not in self._typed and cited and quotes is not None:
            from graphrag.answer.reader.short_answer import find_short_answers

            short = find_short_answers(quotes.question, [" ".join(item.span.text.split())], quotes.ner)[0]
        span = self._spans.get(place)
        if quotes is not None:  # the phrase the answer opens with when it quotes this sentence first
            from graphrag.answer.reader.quotes import opening_phrase

            short = opening_phrase(quotes.question, item.span.text, span, short)
        where = phrase_span(item.span.text, short.text) if short is not None else None
        at = phrase_span(item.span.text, span.span) if span is not None and span.span else None
        return {"answer_probability": None if got is None else round(got, 4),
                "short_answer": None if short is None or where is None else {
                    "text": short.text, "kind": short.kind.value, "start": where[0], "end": where[1]},
                "span_reader": None if span is None else {
                    "probability": round(span.probability, 4),
                    "span": None if at is None else {"text": item.span.text[at[0]:at[1]], "start": at[0],
                                                     "end": at[1]}}}


def closest_passages(a: Answer, n: int = 3) -> list[ContextItem]:
    """An unanswered question's closest passages: the ``n`` context sentences most like it (passages, not
    claims: nothing cites them), statements first (``closest_statements``: what the answer's words about what the
    documents do say are taken from)."""
    return closest_statements(a.context, n)


def quoted_documents(a: Answer) -> list[tuple[str, int]]:
    """The document versions the answer's citations quote, in the order the answer first cites them."""
    seen: dict[tuple[str, int], None] = {}
    for cl in a.claims:
        for c in cl.citations:
            if c.item is not None:
                seen.setdefault((c.item.span.document_id, c.item.span.version), None)
    return list(seen)


def offers_scope(a: Answer) -> bool:
    """Whether the answer should offer to ask again within one document: it was not scoped, and its quotes
    come from more than one document."""
    return (a.answered and not a.settings.documents and a.settings.mode == "local"  # themes span documents
            and len({d for d, _ in quoted_documents(a)}) > 1)


def cited_keys(a: Answer) -> list[tuple[str, int, int]]:
    """The sentences an answer's citations point at, to look their layout up in the store."""
    return [(c.item.span.document_id, c.item.span.version, c.item.span.sentence_index)
            for cl in a.claims for c in cl.citations if c.item is not None]


def status_words(a: Answer) -> str:
    """Where an answer stands, as the command line and ``--json`` say it: "no answer" for an abstention (it makes
    no claim, so "cited" or "verified" would claim what it does not), else its status."""
    return a.status.value if a.claims else "no answer"


def answer_json(a: Answer, names: Mapping[str, str] | None = None, warnings: tuple[str, ...] = (),
                sentence: SentenceLookup | None = None, layouts: Layouts | None = None,
                reading: Reading | None = None, read_from: Sequence[ContextItem] = ()) -> dict[str, object]:
    """An answer as JSON: question, text, status, warnings, claims with their citations and support, the seeds
    and routes, and the context. ``reading``: the reader's reading of this ask's context ``read_from`` (only a fresh
    ask has one: ``AskOutcome.reading``): its decision (``reader``), and each citation's and each passage's
    ``reader`` fields (``ReaderView.quote_json``)."""
    reader = ReaderView(reading, read_from) if reading is not None else None

    def read(item: ContextItem | None, cited: bool = False) -> dict[str, object]:
        return {"reader": reader.quote_json(item, cited)} if reader is not None and item is not None else {}

    return {
        "answer_id": a.id,
        "question": a.question,
        "answer": a.text,
        # False when the documents do not answer: the text says so, there are no claims, and "passages" lists the
        # closest sentences (passages, not claims; nothing to review).
        "answered": a.answered,
        "answerable": None if a.answerable is None else round(a.answerable, 4),
        "mode": a.settings.mode,  # "local", "themes" (one statement per theme) or "changes" (two versions compared)
        "status": status_words(a),
        "warnings": list(warnings),
        "claims": [
            # "number" as every surface shows it and `review mark --claim` takes it; "index" as the Python API does
            {"index": cl.index, "number": cl.index + 1, "text": cl.text, "start": cl.start, "end": cl.end,
             "flags": [f.value for f in cl.flags], "verbatim_quote": is_verbatim(cl),
             # A checker score of a quote against itself says nothing: not presented as evidence.
             "support": VERBATIM if is_verbatim(cl) else support_json(cl.support),
             "still_for_a_person": list(VERBATIM_CHECKS) if is_verbatim(cl) else [],
             "citations": [{**citation_json(c, names, sentence, layouts),
                            **({"support": VERBATIM} if is_verbatim(cl) else {}), **read(c.item, cited=True)}
                           for c in cl.citations]}
            for cl in a.claims
        ],
        "retrieval": {
            # "question": routes start at entities the question names; "similarity": it named
            # nothing the graph knows, and routes start at entities of the most similar sentences.
            "seeding": a.seeding.value,
            "seeds": [{"entity": s.entity, "score": s.score, "start": s.start.value, "question_words": s.mention,
                       "matched_by": s.how} for s in a.seeds],
            "reached": [{"entity": r.end, "depth": r.depth, "route": route_json(r, names)} for r in a.reached],
        },
        "context": [context_json(c) for c in a.context],
        # Cited sources of different documents or versions that state different values; the current first.
        "disagreements": [disagreement_json(d) for d in a.disagreements],
        "passages": [] if a.answered else [{**context_json(c), **read(c)} for c in closest_passages(a)],
        **({"reader": reader.decision_json()} if reader is not None else {}),
        # The documents the quotes come from (each claim's citations name theirs); "offer_scope": the question
        # was not scoped and its evidence spans several documents (ask again with --document ID for one).
        "documents": [{"document": d, "version": v} for d, v in quoted_documents(a)],
        "offer_scope": offers_scope(a),
    }


def entity_json(e: Entity, relations: list[Relation]) -> dict[str, Any]:
    """An entity as JSON with its mentions and relations."""
    return {
        "name": e.name,
        "key": e.key,
        "type": e.type,
        "mentions": [
            {"document": m.span.document_id, "version": m.span.version, "superseded": m.superseded,
             "start": m.span.start, "end": m.span.end, "sentence": m.span.text, "description": m.description,
             "extractor": m.extractor, "implied": m.implied}
            for m in e.mentions
        ],
        "relations": [
            {"source": r.source, "type": r.type, "target": r.target, "document": r.span.document_id,
             "version": r.span.version, "superseded": r.superseded, "start": r.span.start, "end": r.span.end,
             "sentence": r.span.text, "description": r.description}
            for r in relations
        ],
    }
