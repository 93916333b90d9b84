"""Records shared by every part of the core.

Frozen dataclasses only: a record never changes after it is made, and the store is the one
place that persists them. The invariants that matter are stated next to each record.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

PUBLIC = "public"


@dataclass(frozen=True)
class Document:
    """One version of one document. A newer version supersedes it; it is never deleted."""

    id: str
    title: str
    version: int
    text: str
    sha256: str
    effective_date: str | None = None  # ISO date, e.g. "2026-03-01"
    access: tuple[str, ...] = (PUBLIC,)
    path: str | None = None
    superseded: bool = False


@dataclass(frozen=True)
class Span:
    """A sentence of one document version. Invariant: document.text[start:end] == text."""

    document_id: str
    version: int
    sentence_index: int
    start: int
    end: int
    text: str


# A block kind as a reviewer reads it (graphrag.ingest.readers.pdf_kinds.LineKind, tables.ROW); others by their name.
BLOCK_WORDS = {"body": "body text", "caption": "caption", "heading": "heading", "row": "table row", "table": "table row",
               "infobox": "infobox line", "author": "title block"}


@dataclass(frozen=True)
class SpanLayout:
    """Where a span sits in its original file (PDF, HTML, DOCX); absent for plain text.

    Boxes are (page, x0, y0, x1, y1) in PDF points, origin at the page's top-left corner, one
    per printed line the sentence touches: a sentence crossing lines, columns or pages has
    several. ``page_end`` is set only when the sentence ends on a later page than it starts.
    """

    page: int | None = None  # physical page, 1-based
    page_end: int | None = None
    page_label: str | None = None  # the printed label ("xii", "12") where the PDF has one
    boxes: tuple[tuple[int, float, float, float, float], ...] = ()
    heading_path: str | None = None  # HTML/DOCX: "Refunds > Annual plans"
    paragraph: int | None = None  # HTML/DOCX: 1-based paragraph number
    kind: str | None = None  # the reader's block kind ("body", "caption", "heading", "row", ...); None: not known
    # Read by OCR from a picture of the page (a scan): the recogniser's confidence in the least sure line the
    # sentence touches, 0 to 1; None for text from a text layer, HTML or DOCX.
    ocr_confidence: float | None = None

    @property
    def kind_words(self) -> str | None:
        """The kind of block the sentence is in, in a reviewer's words ("body text", "caption", "table row");
        None where the reader gave none (plain text, a store written before kinds were kept)."""
        if self.kind is None:
            return None
        return BLOCK_WORDS.get(self.kind, self.kind.replace("_", " "))

    @property
    def page_text(self) -> str | None:
        """"p. 12" (the printed label when there is one), "pp. 3–4" across a page break."""
        if self.page is None:
            return None
        first = self.page_label or str(self.page)
        if self.page_end is None:
            return f"p. {first}"
        if self.page_label is None or self.page_label.isdigit():  # printed numbers run on with the pages
            return f"pp. {first}–{int(first) + self.page_end - self.page}"
        return f"p. {first} and the next {self.page_end - self.page} page(s)"

    @property
    def location_text(self) -> str | None:
        """Where to look, as a reader says it: "p. 2", or "Refunds > Annual plans, paragraph 4"; a sentence that is
        not body text says what it is first ("caption, p. 2")."""
        if self.page is not None:
            where = self.page_text
        else:
            parts = [self.heading_path, f"paragraph {self.paragraph}" if self.paragraph else None]
            where = ", ".join(p for p in parts if p) or None
        if self.kind is None or self.kind == "body":
            return where
        return f"{self.kind_words}, {where}" if where else self.kind_words

    @property
    def ocr_text(self) -> str | None:
        """"read by OCR, confidence 0.93" for a sentence read from a scan; None otherwise."""
        return None if self.ocr_confidence is None else f"read by OCR, confidence {self.ocr_confidence:.2f}"

    @property
    def source_text(self) -> str | None:
        """Where to look and how the text was read: "p. 2 · read by OCR, confidence 0.93", or the location alone."""
        return " · ".join(p for p in (self.location_text, self.ocr_text) if p) or None


@dataclass(frozen=True)
class PageSize:
    """One page of a PDF as stored: size in points and its printed label, if any."""

    number: int  # 1-based
    width: float
    height: float
    label: str | None = None


# --- extraction -------------------------------------------------------------------------


class ExtractionStatus(str, Enum):
    """How one document's extraction ended."""

    OK = "ok"
    NOTHING_FOUND = "nothing_found"
    MODEL_UNAVAILABLE = "model_unavailable"
    FAILED = "failed"


@dataclass(frozen=True)
class ExtractedEntity:
    """An entity as an extractor saw it in one sentence (index into the document's sentences)."""

    name: str
    type: str
    description: str
    sentence_index: int


@dataclass(frozen=True)
class ExtractedRelation:
    """A relation as an extractor saw it in one sentence. Endpoints are surface names."""

    source: str
    target: str
    type: str
    description: str
    sentence_index: int


@dataclass(frozen=True)
class ExtractionResult:
    """One document's extracted entities and relations, with how it ended and any error."""

    status: ExtractionStatus
    extractor: str
    entities: tuple[ExtractedEntity, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()
    error: str | None = None
    model_calls: int = 0  # calls actually sent to a model server (cache hits excluded)
    notes: tuple[str, ...] = ()  # what the ingest report should say (items a check dropped)


# --- stored graph -----------------------------------------------------------------------


@dataclass(frozen=True)
class Mention:
    """One time an entity was mentioned: never replaced by a later mention."""

    entity_key: str
    description: str
    span: Span
    extractor: str
    implied: bool = False  # added only because a relation named it
    superseded: bool = False


@dataclass(frozen=True)
class Entity:
    """A node of the graph: a normalised name with the sentences that mention it."""

    key: str  # normalised name: the identity
    name: str  # display name (first surface form seen)
    type: str
    mentions: tuple[Mention, ...] = ()

    @property
    def implied(self) -> bool:
        """Whether the entity is only implied: every mention was added because a relation named it, none found
        on its own."""
        return bool(self.mentions) and all(m.implied for m in self.mentions)


@dataclass(frozen=True)
class Relation:
    """An extracted edge between two entities, with the sentence that states it."""

    id: int
    source: str  # entity key
    target: str  # entity key
    type: str
    description: str
    span: Span
    extractor: str
    superseded: bool = False


# --- retrieval --------------------------------------------------------------------------


COMENTION = "co-mention"  # the relation type of a step between two entities one sentence names together


@dataclass(frozen=True)
class RouteStep:
    """One step of a route: the edge followed, the sentence that states it, and the entity reached.

    An edge is an extracted relation (``relation_id`` set) or a co-mention: two entities named
    in one sentence, with no relation extracted between them (``relation_id`` None, type
    ``COMENTION``). Either way the step names the sentence it went through.
    """

    relation_id: int | None
    relation_type: str
    entity: str  # entity key reached
    forward: bool  # True when the relation was followed in its extracted direction
    document_id: str | None = None  # the sentence that states the edge
    version: int | None = None
    sentence_index: int | None = None

    @property
    def comention(self) -> bool:
        """Whether the step follows a co-mention (two entities named by one sentence) rather than an extracted
        relation."""
        return self.relation_id is None


class RouteStart(str, Enum):
    """Where a route starts."""

    QUESTION = "question"  # an entity the question names (an anchor)
    SIMILARITY = "similarity"  # the question named nothing known: an entity of a similar sentence
    THEME = "theme"  # a global question: the central entity of the theme (community) the sentence represents


@dataclass(frozen=True)
class Route:
    """How retrieval reached an entity: where it started, then edge/entity steps."""

    seed: str
    steps: tuple[RouteStep, ...] = ()
    start: RouteStart = RouteStart.QUESTION

    @property
    def end(self) -> str:
        """The entity the route reaches."""
        return self.steps[-1].entity if self.steps else self.seed

    @property
    def depth(self) -> int:
        """The number of steps."""
        return len(self.steps)

    def entities(self) -> tuple[str, ...]:
        """Every entity on the route, the seed first."""
        return (self.seed, *(s.entity for s in self.steps))

    def to_record(self) -> dict[str, object]:
        """The stored form (the context item's JSON route column); read back by ``from_record``."""
        return {"seed": self.seed, "start": self.start.value,
                "steps": [[s.relation_id, s.relation_type, s.entity, s.forward, s.document_id, s.version,
                           s.sentence_index] for s in self.steps]}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> Route:
        """A route from its stored form; records written before steps named their sentence hold four fields a
        step."""
        steps = []
        for rel_id, rtype, entity, forward, *where in d["steps"]:  # older records hold 4 fields
            doc, version, idx = [*where, None, None, None][:3]
            steps.append(RouteStep(None if rel_id is None else int(rel_id), rtype, entity, bool(forward), doc,
                                   None if version is None else int(version), None if idx is None else int(idx)))
        return cls(d["seed"], tuple(steps), RouteStart(d.get("start", RouteStart.QUESTION.value)))


@dataclass(frozen=True)
class Seed:
    """Where routes start: an entity the question names (``mention`` is the question's words,
    ``score`` how well they matched the entity), or, when it names nothing known, an entity of
    the sentences most similar to the question (``start`` SIMILARITY, ``score`` its relevance)."""

    entity: str
    score: float
    start: RouteStart = RouteStart.QUESTION
    mention: str = ""
    how: str = ""  # "name", "alias" or "name similarity" for anchors


@dataclass(frozen=True)
class ContextItem:
    """A numbered piece of evidence given to the generator: one sentence and how it was found."""

    n: int  # 1-based marker number
    span: Span
    route: Route
    score: float  # relevance to the question
    via: str  # "mention", "relation" or "co-mention" (reached by the walk), or "similarity"
    superseded: bool = False
    effective_date: str | None = None  # of the span's document, to prefer current sources


# --- answers and attribution ------------------------------------------------------------


class SupportLabel(str, Enum):
    """A support checker's verdict on a (claim, evidence) pair."""

    SUPPORTED = "supported"
    PARTIAL = "partial"
    NOT_SUPPORTED = "not_supported"


@dataclass(frozen=True)
class Support:
    """A measured support score for a claim against cited text."""

    score: float  # in [0, 1]
    label: SupportLabel
    checker: str
    reason: str
    # A model judge's verdict on the same pair, shown beside this one and never deciding (a model can be told
    # what to answer by the text it reads): see graphrag.verify.support.advised.
    advisory: Support | None = None


class ClaimFlag(str, Enum):
    """Something a reviewer should know about a claim before trusting it."""

    UNCITED = "uncited"
    INVALID_MARKER = "invalid_marker"  # a number past the context
    MALFORMED_MARKER = "malformed_marker"  # bracket content that is not a list of numbers
    LOW_SUPPORT = "low_support"
    SUPERSEDED_SOURCE = "superseded_source"
    IRRELEVANT_CITATION = "irrelevant_citation"
    # The claim is its cited sentence, word for word: a support score would only measure the
    # copy. What a person must still judge is whether the quote answers the question and
    # whether its source is the current one.
    VERBATIM_QUOTE = "verbatim_quote"
    # A document the answer drew on was removed: the claim's text is gone with it (it may quote
    # the removed text), its verdicts stay in the record.
    SOURCE_REMOVED = "source_removed"


@dataclass(frozen=True)
class Citation:
    """A claim's reference to a context item by its marker, with the support the checker found."""

    marker: str  # the marker as written, e.g. "3"
    valid: bool
    item: ContextItem | None = None  # None when the marker does not resolve
    support: Support | None = None  # None means "not checked"
    irrelevant: bool = False  # adds nothing beyond the claim's other citations


@dataclass(frozen=True)
class Claim:
    """One sentence of an answer with its citations and flags."""

    index: int
    text: str  # the answer's sentence, markers stripped
    start: int  # offsets of the sentence (with markers) in the answer's raw text
    end: int
    citations: tuple[Citation, ...] = ()
    flags: tuple[ClaimFlag, ...] = ()
    support: Support | None = None  # the claim against all its valid citations joined


@dataclass(frozen=True)
class DisagreementSide:
    """What one source says in a disagreement: its marker, document version and the value (or
    sentence) that differs."""

    n: int  # the context item's marker
    document_id: str
    version: int
    title: str
    effective_date: str | None
    superseded: bool
    says: str  # the differing value as written ("14 days"), or the whole sentence
    sentence: str


@dataclass(frozen=True)
class Disagreement:
    """Cited sentences of different documents or versions stating different values about the same
    thing; the current source (not superseded, newest effective date) first."""

    sides: tuple[DisagreementSide, ...]


def disagreement_json(d: Disagreement) -> dict[str, Any]:
    """The stored and ``ask --json`` form of a disagreement (beside its record, so the store and the
    JSON views share one codec without either importing the answer package that finds disagreements)."""
    return {"sides": [{"n": s.n, "document": s.document_id, "version": s.version, "title": s.title,
                       "effective_date": s.effective_date, "superseded": s.superseded, "says": s.says,
                       "sentence": s.sentence} for s in d.sides]}


def disagreement_from_json(raw: dict[str, Any]) -> Disagreement:
    """A disagreement from ``disagreement_json``'s form."""
    return Disagreement(tuple(DisagreementSide(int(s["n"]), s["document"], int(s["version"]), s["title"],
                                               s.get("effective_date"), bool(s.get("superseded")), s["says"],
                                               s.get("sentence", "")) for s in raw["sides"]))


@dataclass(frozen=True)
class AskSettings:
    """What an ask runs with: retrieval depth, direction and context size, the asker's access, the backends
    and their models, and the relevance floor."""

    k: int = 3
    hops: int = 2
    direction: str = "both"  # "both" or "out"
    access: tuple[str, ...] = (PUBLIC,)
    include_superseded: bool = False
    max_context: int = 12
    generator: str = "extractive"
    generator_model: str | None = None
    checker: str = "embedded"
    checker_model: str | None = None
    # Answer only from these document ids (empty: every visible document); applied inside
    # retrieval, like the access labels, so nothing outside the scope is ever a context item.
    documents: tuple[str, ...] = ()
    # Below this best question-sentence similarity nothing visible is about the question, and
    # any answer would be about something else. Answerable MuSiQue and handbook questions all
    # reached 0.44 or more; off-topic ones against the handbook at most 0.31
    # (`graphrag eval retrieval` prints the on-topic side).
    min_relevance: float = 0.35
    # "local" (the sentences nearest the question), "themes" (a global question answered from the graph's
    # communities) or "changes" (what two documents, or two versions of one, in ``documents`` state differently)
    mode: str = "local"


class AnswerStatus(str, Enum):
    """Where an answer stands: cited, checked by the checker, reviewed or verified by reviewers, or withdrawn."""

    CITED = "cited"  # markers resolved (or flagged), support not yet scored everywhere
    AUTO_CHECKED = "auto-checked"  # every claim scored by a checker
    VERIFIED = "verified"  # every claim reviewed (as the review policy asks) and judged supported
    REVIEWED = "reviewed"  # every claim reviewed, and not every one judged supported
    # A document it drew on was removed: text, claims' text, routes and context are gone; the
    # question, the claims' scores and every verdict stay (graphrag.ingest.removal).
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True)
class Answer:
    """A question's saved answer: text, claims, the context and routes it was drawn from, and the settings
    used."""

    question: str
    settings: AskSettings
    text: str
    seeds: tuple[Seed, ...]
    reached: tuple[Route, ...]
    context: tuple[ContextItem, ...]
    claims: tuple[Claim, ...]
    status: AnswerStatus = AnswerStatus.CITED
    id: int | None = None
    created_at: str | None = None
    generator_model: str | None = None
    disagreements: tuple[Disagreement, ...] = ()  # cited sources that state different values
    # False when the documents do not answer (the reader abstained, or nothing visible is about the question):
    # the text says so in words, there are no claims, and the context items are the closest passages only.
    answered: bool = True
    answerable: float | None = None  # the reader's probability that the documents answer (None: not read)

    @property
    def seeding(self) -> RouteStart:
        """Whether routes started at entities the question names, or (naming nothing known)
        at entities of the most similar sentences."""
        return seeding(self.seeds)


def seeding(seeds: tuple[Seed, ...]) -> RouteStart:
    """How the routes started: at entities the question names, if any seed did; at themes' entities (a theme
    answer); else from similarity."""
    if any(s.start is RouteStart.QUESTION for s in seeds):
        return RouteStart.QUESTION
    if seeds and all(s.start is RouteStart.THEME for s in seeds):
        return RouteStart.THEME
    return RouteStart.SIMILARITY


# --- review -----------------------------------------------------------------------------


class VerdictLabel(str, Enum):
    """A reviewer's judgement of a claim against its cited evidence."""

    SUPPORTED = "supported"
    PARTIAL = "partially_supported"
    UNSUPPORTED = "unsupported"


class VerdictKind(str, Enum):
    """What a verdict judges. A claim in the answer's own words is judged on whether its source backs it; a
    verbatim quote backs itself by construction, so it is judged on whether it answers the question. The label
    (``VerdictLabel``) is yes / partly / no for either question; ``VERDICT_WORDS`` says it in the kind's words."""

    BACKS = "backs"  # "Does the source back it?" (every verdict given before kinds existed means this)
    ANSWERS = "answers"  # "Does this answer the question?"

    @property
    def question(self) -> str:
        """The question a reviewer answers with a verdict of this kind."""
        return "Does the source back it?" if self is VerdictKind.BACKS else "Does this answer the question?"


# The label said in each kind's words: what the Review, the Record and the exports show.
VERDICT_WORDS: dict[VerdictKind, dict[VerdictLabel, str]] = {
    VerdictKind.BACKS: {VerdictLabel.SUPPORTED: "backed", VerdictLabel.PARTIAL: "partly backed",
                        VerdictLabel.UNSUPPORTED: "not backed"},
    VerdictKind.ANSWERS: {VerdictLabel.SUPPORTED: "answers", VerdictLabel.PARTIAL: "partly answers",
                          VerdictLabel.UNSUPPORTED: "does not answer"},
}


def asked_kind(flags: Iterable[ClaimFlag | str]) -> VerdictKind:
    """The judgement a claim is asked for: *answers* for a verbatim quote of its source, *backs* otherwise."""
    quote = any(getattr(f, "value", f) == ClaimFlag.VERBATIM_QUOTE.value for f in flags)
    return VerdictKind.ANSWERS if quote else VerdictKind.BACKS


@dataclass(frozen=True)
class Verdict:
    """A reviewer's judgement of one claim against one cited span. Append-only."""

    answer_id: int
    claim_index: int
    verdict: VerdictLabel
    reviewer: str
    span_sha256: str  # hash of the span text judged, so a later change is visible
    marker: str | None = None
    document_id: str | None = None
    version: int | None = None
    start: int | None = None
    end: int | None = None
    note: str = ""
    created_at: str | None = None
    id: int | None = None
    stale: bool = False  # the judged span's document has since been superseded (or removed)
    role: str = "reviewer"  # "adjudicator" for a verdict that settles a disputed claim
    source_removed: bool = False  # the judged span's document version was removed (graphrag.ingest.removal)
    subject: str | None = None  # team mode: the signed-in reviewer's identity-provider subject
    email: str | None = None  # ... and email (None in local mode, where ``reviewer`` is a typed name)
    claim_sha256: str | None = None  # hash of the claim's words judged (None: a verdict before schema 8)
    tampered: str = ""  # why the words judged are not the stored ones any more ("" when they are, or unchecked)
    kind: VerdictKind = VerdictKind.BACKS  # the question judged (schema 10; every earlier verdict: backs)

    # Carry-over (graphrag.verify.carry), derived on read, never stored: the verdict row this one is carried from
    # (same claim words, same cited sentence, another claim) and its answer; or, for a verdict on a superseded
    # version, the current version that keeps its sentence byte for byte (so it is not stale).
    carried_from: int | None = None
    carried_answer: int | None = None
    kept_in_version: int | None = None

    @property
    def words(self) -> str:
        """The verdict in its kind's words ("backed", "partly answers", ...)."""
        return VERDICT_WORDS[self.kind][self.verdict]


@dataclass(frozen=True)
class AuditEvent:
    """One line of the audit log: an event ("sign-in", "ingest", "export", "verdict", ...), who
    (the identity provider's subject and email; None in local mode) and what, as plain values."""

    event: str
    subject: str | None
    email: str | None
    detail: dict[str, Any] = field(default_factory=dict)
    at: str | None = None
    id: int | None = None


@dataclass(frozen=True)
class Progress:
    """Progress reporting shared by the CLI and the pages: a callback receives these."""

    done: int
    total: int
    message: str = ""  # e.g. LOADING_MODELS, READING, "starting", a document's id, "done"
    detail: str = ""  # what the reader is doing inside a file while READING: "page 3 of 12 read by OCR"


LOADING_MODELS = "loading the models"  # the message while an ingest waits for MiniLM and the parser
READING = "reading the files"  # the message while files are read, before any is stored (OCR takes seconds a page)
