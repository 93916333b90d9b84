"""Read models: what a page draws, built here from the store for one viewer, so a page only draws them and sends
back what the person did. Each builder takes ``(store, viewer, config)`` like every use case and reads only what
the viewer's labels show; none writes. Tested without a page (tests/unit/present/test_boards.py).

- ``review_board``: the Review page's frame (the answers to filter by, the claims, the policy, what the viewer's
  role lets them do there) and ``review_items`` its queue under the page's filters; ``claim_review``: one claim as a reviewer sees it (its answer, numbers, the
  disagreements it cites, its verdict history, the entity names of its routes); ``cited_source``: the source of
  one of its citations (the route's steps, the document, the sentences around, the PDF page, a newer version,
  possible conflicts).
- ``ask_scope``: the documents the Ask page offers to limit a question to.
- ``graph_entity``: the Graph page's entity (its mentions and relations, with names).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphrag.access.identity import ADJUDICATOR, ADMIN, REVIEWER, Viewer
from graphrag.access.rule import Access
from graphrag.answer.entities import EntityView, visible_entity
from graphrag.answer.retrieval.load import load_graph
from graphrag.config import Config
from graphrag.model import (
    Answer,
    Citation,
    Claim,
    ContextItem,
    Disagreement,
    Document,
    Span,
    SpanLayout,
    Verdict,
)
from graphrag.present.conflicts import Conflict, possible_conflicts
from graphrag.present.reading import display_numbers
from graphrag.present.sheets import route_steps
from graphrag.present.viz import ShownStep
from graphrag.verify.policy import ReviewPolicy, ReviewViewer, parties
from graphrag.verify.review import (
    QueueItem,
    review_queue,
    reviewable,
    visible_answer_questions,
    visible_claims,
    visible_history,
    visible_unanswered,
)
from graphrag.verify.status import review_policy

if TYPE_CHECKING:
    from graphrag.store import Store


@dataclass(frozen=True)
class ReviewBoard:
    """The Review page's frame for one viewer: what they may filter, see and do there."""

    policy: ReviewPolicy
    answers: dict[int, str]  # answer id -> question: the answers with claims left to judge that the viewer sees
    claims: list[dict[str, Any]]  # the visible claims' summaries (the queue is built from them)
    unanswered: list[Answer]  # the newest visible questions the documents did not answer (no claim to queue), each
    # question once (its newest answer), at most UNANSWERED_SHOWN of them
    unanswered_more: int  # how many more such questions (told apart the same way) were asked before them
    any_answers: bool  # whether the store holds any answer (else: "ask a question first")
    total_verdicts: int | None  # the store's verdict count, only for an exporter and where blind review hides nothing
    may_judge: bool  # the reviewer role
    may_export: bool  # the admin role
    may_adjudicate: bool  # the adjudicator role
    role: str | None
    team: bool


UNANSWERED_SHOWN = 5  # questions the documents did not answer that the Review page names
_UNANSWERED_READ = 40  # newest unanswered answers read to find them (and to count the rest among them)


def question_key(question: str) -> str:
    """A question as the Review page tells questions apart: the same words in any case, spacing or closing
    punctuation are one question."""
    return " ".join(question.casefold().split()).rstrip(" ?!.")


def distinct_questions(answers: list[Answer], shown: int = UNANSWERED_SHOWN) -> tuple[list[Answer], int]:
    """``answers`` (newest first) with each question once, its newest answer: the first ``shown`` of them and how
    many more there are."""
    seen: dict[str, Answer] = {}
    for a in answers:
        seen.setdefault(question_key(a.question), a)
    distinct = list(seen.values())
    return distinct[:shown], max(0, len(distinct) - shown)


def review_board(store: Store, viewer: Viewer, config: Config, onlooker: ReviewViewer) -> ReviewBoard:
    """The Review page's frame for ``viewer`` (``onlooker``: the same viewer under blind review). A reader the team
    holds unverified answers from (graphrag.verify.held) gets only the claims of answers verified."""
    from graphrag.verify.held import readable_claims

    claims = readable_claims(store, viewer, visible_claims(store, viewer))
    policy = review_policy(store)
    counts = store.counts()
    may_export = viewer.may(ADMIN)
    unanswered, more = distinct_questions(visible_unanswered(store, viewer, limit=_UNANSWERED_READ))
    return ReviewBoard(
        policy=policy, answers=visible_answer_questions(store, viewer, reviewable(claims)), claims=claims,
        unanswered=unanswered, unanswered_more=more, any_answers=bool(counts["answers"]),
        total_verdicts=counts["verdicts"] if may_export and (not policy.blind or onlooker.oversees) else None,
        may_judge=viewer.may(REVIEWER), may_export=may_export, may_adjudicate=viewer.may(ADJUDICATOR),
        role=viewer.role, team=viewer.team)


def review_items(store: Store, viewer: Viewer, config: Config, board: ReviewBoard, onlooker: ReviewViewer, *,
                 answer_id: int | None = None, flagged_only: bool = False, mine_only: bool = False,
                 disputed_only: bool = False, sample_only: bool = False) -> list[QueueItem]:
    """The review queue of ``board``'s claims under these filters, in the order ``viewer`` should take them, each
    with only the verdicts ``onlooker`` may see (read fresh: a verdict just given moves it). ``sample_only``: the
    claims of the estimate sample in force (what the Record page's estimate waits for)."""
    items = review_queue(store, viewer, viewer=onlooker, answer_id=answer_id, flagged_only=flagged_only,
                         mine_only=mine_only, disputed_only=disputed_only, claims=board.claims, policy=board.policy)
    return [q for q in items if q.sample] if sample_only else items


@dataclass(frozen=True)
class ClaimReview:
    """One claim as a reviewer sees it."""

    answer: Answer
    claim: Claim
    citations: list[Citation]  # its valid citations, in the answer's order
    numbers: dict[int, int]  # retrieval's marker -> the number the page writes (reading order)
    disagreements: list[Disagreement]  # the answer's disagreements one of its citations is a side of
    history: list[Verdict]  # the verdicts on it the viewer may see, oldest first
    names: dict[str, str]  # entity key -> display name, for every entity its routes pass through
    party: bool  # the viewer gave a verdict on it (a party to its dispute cannot settle it)


def claim_review(store: Store, viewer: Viewer, config: Config, item: QueueItem, onlooker: ReviewViewer,
                 policy: ReviewPolicy, me: str) -> ClaimReview | None:
    """The claim ``item`` of the review queue as ``viewer`` sees it (``me``: the reviewer name they judge under);
    None when its answer can no longer be read (the page says to reload)."""
    answer = store.answer(item.answer_id)
    claim = next((c for c in answer.claims if c.index == item.claim_index), None) if answer else None
    if answer is None or claim is None:
        return None
    valid = [c for c in claim.citations if c.valid and c.item is not None]
    cited = {c.item.n for c in claim.citations if c.item is not None}
    graph = load_graph(store)
    keys = {k for c in valid if c.item is not None for k in c.item.route.entities()}
    names = {k: graph.names[graph.index[k]] if k in graph.index else k for k in keys}
    who = {me, viewer.identity.subject if viewer.identity else ""}
    return ClaimReview(
        answer=answer, claim=claim, citations=valid, numbers=display_numbers(answer),
        disagreements=[d for d in answer.disagreements if cited & {side.n for side in d.sides}],
        history=visible_history(store, onlooker, answer.id, claim.index, policy), names=names,
        party=bool(who & parties(item.verdicts)))


@dataclass(frozen=True)
class CitedSource:
    """The source of one citation: its route's steps and the cited document around the sentence."""

    steps: list[ShownStep]  # the route's steps; one from a document the viewer may not see is a placeholder
    span: Span
    document: Document | None
    layout: SpanLayout | None
    pdf: bytes | None  # the original PDF, when the sentence has boxes on a page
    window: list[Span]  # the sentences around it (and one more each side, to tell whether the text goes on)
    current: Document | None  # the version that supersedes the cited one, when it is superseded
    conflicts: list[Conflict]  # other current documents stating a different number (a heuristic)

    @property
    def title(self) -> str:
        """The document's title (its id when the version is gone)."""
        return self.document.title if self.document else self.span.document_id

    @property
    def date(self) -> str:
        """The document's effective date, or "" when it has none (the page then says nothing of a date)."""
        return self.document.effective_date if self.document and self.document.effective_date else ""


def cited_source(store: Store, viewer: Viewer, config: Config, citation: Citation, *, around: int,
                 look_for_conflicts: bool = True) -> CitedSource:
    """The source of ``citation`` (a valid one) for ``viewer``: superseded versions are shown (marked), steps from
    documents their labels do not show are never read. ``around``: sentences each side of the cited one.
    ``look_for_conflicts``: False when the answer already names a disagreement for it."""
    item = citation.item
    assert item is not None, "only a valid citation has a source"
    sp = item.span
    doc = store.document(sp.document_id, sp.version)
    layout = store.layout(sp.document_id, sp.version, sp.sentence_index)
    stored = store.document_file(sp.document_id, sp.version) if layout is not None and layout.boxes else None
    window = store.sentences(sp.document_id, sp.version, sp.sentence_index - around, sp.sentence_index + around + 1)
    current = store.current_document(sp.document_id) if doc is not None and doc.superseded else None
    conflicts: list[Conflict] = []
    if look_for_conflicts:
        keys = [item.route.end, *store.entities_at(sp.document_id, sp.version, sp.sentence_index)]
        conflicts = possible_conflicts(store, sp, keys, viewer)
    return CitedSource(route_steps(store, viewer, config, item.route), sp, doc, layout,
                       stored[1] if stored else None, window, current, conflicts)


def cited_in_order(answer: Answer) -> list[ContextItem]:
    """The context items ``answer``'s claims cite, in the numbers the pages write them with: [1] first (retrieval's
    order put a sentence cited as [2] first, and the Graph page's route opened on it)."""
    used = {c.item.n for cl in answer.claims for c in cl.citations if c.valid and c.item is not None}
    numbers = display_numbers(answer)
    return sorted((item for item in answer.context if item.n in used), key=lambda item: numbers.get(item.n, item.n))


def changes_scope(store: Store, viewer: Viewer, config: Config, documents: Sequence[str]) -> str | None:
    """Why "what changed" cannot be asked with ``documents`` as its scope, in the Ask page's words; None when it can:
    two documents the viewer sees, or one with two versions they see (the one it compares with the current). Said
    before the question is asked, not as an error after it."""
    ids = list(dict.fromkeys(documents))
    if len(ids) not in (1, 2):
        return ("“What changed” compares two documents, or two versions of one: choose them in “Only these "
                "documents”" + (f" ({len(ids)} chosen)." if ids else "."))
    sees = Access.of(viewer.labels, include_superseded=True)
    versions = {i: sum(d.id == i and sees.sees(d.access, d.superseded) for d in load_graph(store).docs) for i in ids}
    if len(ids) == 1 and versions[ids[0]] < 2:
        return (f"“What changed” compares two versions of one document, and {ids[0]} has one you can see: choose a "
                "second document in “Only these documents”.")
    return None


def ask_scope(store: Store, viewer: Viewer, config: Config) -> dict[str, str]:
    """The documents the Ask page offers to limit a question to: id -> title, for each document with a version the
    viewer's labels show (current ones; a superseded version only when it is the one they see)."""
    sees = Access.of(viewer.labels)
    return {d.id: d.title for d in load_graph(store).docs if sees.sees(d.access, d.superseded)}


@dataclass(frozen=True)
class GraphEntity:
    """The Graph page's entity: its view for the viewer (mentions and relations, superseded ones marked) and the
    display name of every entity its relations name."""

    view: EntityView
    names: dict[str, str]


def graph_entity(store: Store, viewer: Viewer, config: Config, key: str) -> GraphEntity | None:
    """Entity ``key`` as ``viewer`` may see it; None when none of it is visible to them."""
    view = visible_entity(store, key, viewer)
    if view is None:
        return None
    graph = load_graph(store)
    keys = {k for r in view.relations for k in (r.source, r.target)}
    return GraphEntity(view, {k: graph.names[graph.index[k]] if k in graph.index else k for k in keys})
