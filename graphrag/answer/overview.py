"""What the store holds, as one viewer may see it: the sidebar's counts.

Every figure is computed over what the viewer's labels show, by the rules the pages use: document
versions through ``Access.sees`` (the graph's cached visibility), answers through ``answer_visible``
(as the review queue: an answer citing a superseded version stays visible), verdicts as
``visible_verdicts`` shows them (under blind review, others' only on claims the viewer has judged).
A public viewer's counts therefore say nothing about internal documents, questions or reviews.

The sidebar draws them on every rerun, so results are kept per store, viewer and activity mark (one
index lookup tells whether anything changed), and an answer's visibility per generation and labels
(a stored answer changes only by a removal, which moves the generation).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from graphrag.access.rule import Access, answer_visible
from graphrag.answer.retrieval.load import load_graph
from graphrag.store import Store
from graphrag.verify.policy import ANYONE, ReviewViewer, visible_verdicts
from graphrag.verify.status import current_verdicts, review_policy

KEEP = 256  # results and visibility tables kept (per store, labels and reviewer): least recently used go first


@dataclass(frozen=True)
class Overview:
    """Sizes of what one viewer may see."""

    documents: int  # current document versions
    versions: int  # every version, superseded ones too
    entities: int  # entities with a mention in a visible version
    relations: int  # relations stated in a visible version
    answers: int  # answers with claims that the viewer may see whole
    verdicts: int  # current verdicts on those answers that the viewer may see


_lock = threading.Lock()
_results: OrderedDict[tuple[object, ...], Overview] = OrderedDict()
_answer_sight: OrderedDict[tuple[object, ...], dict[int, bool]] = OrderedDict()


def overview(store: Store, labels: Iterable[str], reviewer: ReviewViewer = ANYONE) -> Overview:
    """The store's sizes as a viewer holding ``labels`` (and shown verdicts as ``reviewer``) may see them."""
    labels = frozenset(labels)
    key = (store.url.key, store.activity_mark(), labels, reviewer)
    with _lock:
        hit = _results.get(key)
        if hit is not None:
            _results.move_to_end(key)
            return hit
    result = _count(store, labels, reviewer)
    with _lock:
        _results[key] = result
        while len(_results) > KEEP:
            _results.popitem(last=False)
    return result


def _count(store: Store, labels: frozenset[str], reviewer: ReviewViewer) -> Overview:
    kg = load_graph(store)
    current, _ = kg.visibility(labels, include_superseded=False)
    versions, entities = kg.visibility(labels, include_superseded=True)
    per_version = store.relation_counts()
    relations = sum(per_version.get((d.id, d.version), 0) for d, seen in zip(kg.docs, versions, strict=True) if seen)
    answers = visible_answer_ids(store, labels)
    return Overview(int(current.sum()), int(versions.sum()), int(entities.sum()), relations, len(answers),
                    _shown_verdicts(store, answers, reviewer))


def visible_answer_ids(store: Store, labels: Iterable[str]) -> set[int]:
    """Ids of the answers with claims that a viewer holding ``labels`` may see whole; each answer is judged
    once per generation and label set."""
    labels = frozenset(labels)
    fps = store.answer_footprints()
    key = (store.url.key, store.generation(), labels)
    with _lock:
        known = dict(_answer_sight.get(key, {}))
    new = {aid: fp for aid, fp in fps.items() if aid not in known}
    if new:
        viewer = Access.of(labels, include_superseded=True)  # as the review queue: stale verdicts stay in view
        sources = store.visibility_sources(new.values())
        known.update({aid: answer_visible(fp, viewer, sources) for aid, fp in new.items()})
        with _lock:
            _answer_sight[key] = known
            _answer_sight.move_to_end(key)
            while len(_answer_sight) > KEEP:
                _answer_sight.popitem(last=False)
    return {aid for aid in fps if known.get(aid)}


def _shown_verdicts(store: Store, answers: set[int], reviewer: ReviewViewer) -> int:
    if not answers:
        return 0
    current = [v for v in current_verdicts(store) if v.answer_id in answers]
    return len(visible_verdicts(current, review_policy(store), reviewer))
