"""A disagreement between sources is said only about what the question asks: asked what the final export holds,
the answer does not bring in two sources' rival download windows (30 days against 7) that another sentence of the
same topic states."""

from __future__ import annotations

import pytest

from graphrag.answer.ask import Asker
from graphrag.ingest.extract.rules import RulesExtractor
from graphrag.ingest.pipeline import Ingestor
from helpers import ScriptedChecker, write_corpus

pytestmark = pytest.mark.model

DOCS = {
    "cancellation.md": "# Cancelling your account\n\nCancellation triggers a final export of the account. "
                       "The final export contains every project, dashboard definition and uploaded file. "
                       "Larkspur emails a download link to the owner when the export is ready.\n",
    "exports.md": "# Data exports\n\nExports are delivered as CSV or JSON files inside a single archive. "
                  "Snapshot exports remain available for 30 days after an account is cancelled.\n",
    "faq.md": "# Frequently asked questions\n\nHow long can I download my data after cancelling? "
              "Snapshot exports remain available for 7 days after an account is cancelled.\n",
}
MANIFEST = """
[[documents]]
file = "cancellation.md"
id = "cancellation"
title = "Cancelling your account"
effective_date = "2026-01-10"

[[documents]]
file = "exports.md"
id = "exports"
title = "Data exports"
effective_date = "2026-02-01"

[[documents]]
file = "faq.md"
id = "faq"
title = "Frequently asked questions (2023)"
effective_date = "2023-04-01"
"""


@pytest.fixture()
def asker(store, embedder, tmp_path) -> Asker:
    Ingestor(store, RulesExtractor(), embedder).ingest_paths([write_corpus(tmp_path / "c", DOCS, MANIFEST)])
    return Asker(store, embedder=embedder, checker=ScriptedChecker())


def test_a_disagreement_about_another_fact_is_not_said(asker: Asker) -> None:
    answer = asker.ask("What does the final export contain when an account is cancelled?").answer
    assert answer.answered, answer.text
    assert "Sources disagree" not in answer.text and not answer.disagreements, answer.text
    assert "30 days" not in answer.text and "7 days" not in answer.text, answer.text
    # The question that asks for the window still hears that the sources disagree about it.
    window = asker.ask("How long do exports stay available after cancellation?").answer
    assert "Sources disagree" in window.text and window.disagreements, window.text
