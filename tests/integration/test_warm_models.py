"""``Asker.warm`` loads all the first question loads (issue 60: the first question after a restart waited about 5 s,
the English pipeline and the reader's encoders loading on it): after it, a first question loads no pipeline and
builds no encoder session."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.model import AskSettings
from graphrag.store import Store

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_after_warm_the_first_question_loads_nothing(tiny_store: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from app_helpers import copy_store
    from graphrag.answer.ask import Asker
    from graphrag.ingest.extract import rules

    monkeypatch.setattr(rules, "_NLP", None)  # as in a process that just started
    with Store(copy_store(tiny_store, tmp_path / "store.db")) as store:  # the question is saved: not in the shared one
        asker = Asker(store).warm()
        assert rules._NLP is not None  # the English pipeline the question's phrases are found with
        loads: list[object] = []
        monkeypatch.setattr(rules, "_load", lambda names: loads.append(names))
        outcome = asker.ask("How long do snapshot exports remain available?", AskSettings(access=("public",)))
    assert outcome.answer.text and loads == []
