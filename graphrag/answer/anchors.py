"""The old place of the question anchors, now ``graphrag.answer.retrieval.anchors``: this name is that very
module (so the tests that patch ``question_phrases`` here patch what retrieval calls). Kept only for the tests
that import it by this path."""

from __future__ import annotations

import sys

from graphrag.answer.retrieval import anchors as _anchors

sys.modules[__name__] = _anchors
