"""Records shared by every part of the core.

Frozen dataclasses only: a record never changes after it is made, and the store is the one
place that persists them. The invariants that matter are stated next to each record.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

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


# --- extraction -------------------------------------------------------------------------


class ExtractionStatus(str, Enum):
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
    status: ExtractionStatus
    extractor: str
    entities: tuple[ExtractedEntity, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()
    error: str | None = None
    model_calls: int = 0  # calls actually sent to a model server (cache hits excluded)


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
    key: str  # normalised name: the identity
    name: str  # display name (first surface form seen)
    type: str
    mentions: tuple[Mention, ...] = ()

    @property
    def implied(self) -> bool:
        return bool(self.mentions) and all(m.implied for m in self.mentions)


@dataclass(frozen=True)
class Relation:
    id: int
    source: str  # entity key
    target: str  # entity key
    type: str
    description: str
    span: Span
    extractor: str
    superseded: bool = False


# --- retrieval --------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteStep:
    """One step of a route: the relation followed and the entity it reached."""

    relation_id: int
    relation_type: str
    entity: str  # entity key reached
    forward: bool  # True when the relation was followed in its extracted direction


@dataclass(frozen=True)
class Route:
    """How retrieval reached an entity: a seed, then relation/entity steps."""

    seed: str
    steps: tuple[RouteStep, ...] = ()

    @property
    def end(self) -> str:
        return self.steps[-1].entity if self.steps else self.seed

    @property
    def depth(self) -> int:
        return len(self.steps)

    def entities(self) -> tuple[str, ...]:
        return (self.seed, *(s.entity for s in self.steps))


@dataclass(frozen=True)
class Seed:
    entity: str
    score: float


@dataclass(frozen=True)
class ContextItem:
    """A numbered piece of evidence given to the generator: one sentence and how it was found."""

    n: int  # 1-based marker number
    span: Span
    route: Route
    score: float  # relevance to the question
    via: str  # "mention" or "relation" (reached by the walk), or "similarity"
    superseded: bool = False
    effective_date: str | None = None  # of the span's document, to prefer current sources


# --- answers and attribution ------------------------------------------------------------


class SupportLabel(str, Enum):
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


class ClaimFlag(str, Enum):
    UNCITED = "uncited"
    INVALID_MARKER = "invalid_marker"  # a number past the context
    MALFORMED_MARKER = "malformed_marker"  # bracket content that is not a list of numbers
    LOW_SUPPORT = "low_support"
    SUPERSEDED_SOURCE = "superseded_source"
    IRRELEVANT_CITATION = "irrelevant_citation"


@dataclass(frozen=True)
class Citation:
    marker: str  # the marker as written, e.g. "3"
    valid: bool
    item: ContextItem | None = None  # None when the marker does not resolve
    support: Support | None = None  # None means "not checked"
    irrelevant: bool = False  # adds nothing beyond the claim's other citations


@dataclass(frozen=True)
class Claim:
    index: int
    text: str  # the answer's sentence, markers stripped
    start: int  # offsets of the sentence (with markers) in the answer's raw text
    end: int
    citations: tuple[Citation, ...] = ()
    flags: tuple[ClaimFlag, ...] = ()
    support: Support | None = None  # the claim against all its valid citations joined


@dataclass(frozen=True)
class AskSettings:
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
    # Below this best question-sentence similarity nothing visible is about the question, and
    # any answer would be about something else. Answerable MuSiQue and handbook questions all
    # reached 0.44 or more; off-topic ones against the handbook at most 0.31
    # (`graphrag eval retrieval` prints the on-topic side).
    min_relevance: float = 0.35


class AnswerStatus(str, Enum):
    CITED = "cited"  # markers resolved (or flagged), support not yet scored everywhere
    AUTO_CHECKED = "auto-checked"  # every claim scored by a checker
    VERIFIED = "verified"  # a reviewer judged every claim


@dataclass(frozen=True)
class Answer:
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


# --- review -----------------------------------------------------------------------------


class VerdictLabel(str, Enum):
    SUPPORTED = "supported"
    PARTIAL = "partially_supported"
    UNSUPPORTED = "unsupported"


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
    stale: bool = False  # the judged span's document has since been superseded
    role: str = "reviewer"  # "adjudicator" for a verdict that settles a disputed claim


@dataclass(frozen=True)
class Progress:
    """Progress reporting shared by the CLI and the pages: a callback receives these."""

    done: int
    total: int
    message: str = ""
