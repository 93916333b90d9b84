"""What a viewer asks: the answer door's use case.

It takes ``(store, viewer, config)`` like every door's use case, checks the viewer's role, and answers only from what
the viewer's labels can see: the labels an answer is asked with are the viewer's, whatever a surface put in the
settings. An answer is stored, but asking writes no audit row: the answer is not yet part of the verification
record (a verdict on it is, and is audited). Where the team holds answers back until they are verified, a reader
below reviewer gets the question and where it stands in the review queue instead (``held_back``, graphrag.verify.held).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from graphrag.access.identity import VIEWER, Viewer, require
from graphrag.config import Config
from graphrag.model import AskSettings

if TYPE_CHECKING:
    from graphrag.answer.ask import Asker, AskOutcome
    from graphrag.answer.overview import Overview
    from graphrag.store import Store
    from graphrag.verify.policy import ReviewViewer


def answer_question(store: Store, viewer: Viewer, config: Config, question: str, settings: AskSettings = AskSettings(),
                    *, asker: Asker | None = None, fresh: bool = False) -> AskOutcome:
    """Answer ``question`` from the documents ``viewer`` may see, and store the answer. Needs the viewer role.
    ``asker``: one already prepared on ``store`` (a ``Workspace`` keeps one, with its models loaded); without one, an
    asker with the models and backends ``config`` describes.

    A question asked before (its words normalised, under the same labels, scope and mode) whose newest verified
    answer cites only sentences unchanged since is answered with that answer, nothing stored (``earlier``, not
    outdated), unless ``fresh``; when one of its sentences changed, the question is answered afresh and ``earlier``
    names the verified answer as outdated (graphrag.verify.reuse)."""
    from graphrag.answer.ask import Asker, AskOutcome
    from graphrag.verify.reuse import verified_before
    from graphrag.verify.review import review_viewer

    require(viewer, VIEWER, "ask questions")
    settings = replace(settings, access=tuple(sorted(viewer.labels)))
    earlier = None if fresh else verified_before(store, question, settings, viewer.labels, review_viewer(viewer))
    if earlier is not None and not earlier.outdated:
        outcome = AskOutcome(earlier.answer, earlier=earlier)
    else:
        runner = asker if asker is not None else Asker(store, config=config)
        outcome = runner.ask(question, settings)
        if earlier is not None:  # outdated: named beside the fresh answer
            outcome = replace(outcome, earlier=earlier)
    return held_back(store, viewer, outcome)


def held_back(store: Store, viewer: Viewer, outcome: AskOutcome) -> AskOutcome:
    """``outcome`` as ``viewer`` may read it: where the team holds unverified answers back from readers
    (graphrag.verify.held), an answer not yet verified keeps only its question and id, and says why it waits."""
    from graphrag.answer.ask import AskOutcome
    from graphrag.verify.held import held_answer, withheld

    held = held_answer(store, viewer, outcome.answer)
    if held is None:
        return outcome
    # a new outcome, not a copy: nothing else it carries (warnings, the reader's reading) reaches the reader
    return AskOutcome(withheld(outcome.answer), held=held)


def viewer_overview(store: Store, viewer: Viewer, config: Config, onlooker: ReviewViewer) -> Overview:
    """What the sidebar counts for ``viewer``: only what their labels can see, and the verdicts ``onlooker`` (the
    viewer under blind review: ``review_viewer``) may be shown, never the whole store's."""
    from graphrag.answer.overview import overview

    return overview(store, viewer.labels, onlooker)
