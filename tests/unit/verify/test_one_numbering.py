"""One numbering of an answer's sources, decided once as the answer is composed (issue 60): the stored text, its
claims, the verdicts, the pages, `graphrag ask` and the pack all say [1] for the first source the text cites, where
the dashboard said [1]/[2] and the CLI and the pack [3]/[2] for the same answer."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from doubles.generate import ScriptedGenerator
from doubles.reader import always
from graphrag.answer.ask import Asker
from graphrag.answer.reader.read import Reader
from graphrag.cli import main
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings, ContextItem, Route
from graphrag.present import display_numbers, renumbered
from graphrag.store import Store
from graphrag.verify.attribution import in_reading_order
from graphrag.verify.exports import export_pack
from graphrag.verify.review import export_rows, record_verdict
from helpers import ADMIN, ScriptedChecker, reference_corpus, reference_extractor
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit
ANY = AskSettings(min_relevance=0.0)  # every question reaches the reader (hash vectors are far apart)


@pytest.fixture()
def ref_store(store: Store, unparsed_questions: None, tmp_path: Path) -> Store:
    Ingestor(store, reference_extractor(), HashEmbedder()).ingest_paths([reference_corpus(tmp_path / "c")])
    return store


def _ask(store: Store, text: str):
    asker = Asker(store, embedder=HashEmbedder(), generator=ScriptedGenerator(text), checker=ScriptedChecker(),
                  reader=Reader(abstain=always(True)))
    return asker.ask("What do exports use?", ANY).answer


def test_the_answer_is_stored_numbered_as_it_is_read(ref_store: Store, tmp_path: Path, capsys) -> None:
    answer = _ask(ref_store, "Exports use the latest snapshot [3]. They stay for a while [2]. Both hold [3, 2].")
    assert len(answer.context) >= 3
    assert answer.text == "Exports use the latest snapshot [1]. They stay for a while [2]. Both hold [1, 2]."
    assert [[c.marker for c in cl.citations] for cl in answer.claims] == [["1"], ["2"], ["1", "2"]]
    assert sorted(i.n for i in answer.context) == list(range(1, len(answer.context) + 1))
    assert display_numbers(answer) == {n: n for n in display_numbers(answer)}  # every surface shows these
    stored = ref_store.answer(answer.id)
    assert stored is not None and stored.text == answer.text
    # the item cited first is the one retrieval numbered 3: it is [1] now, its score unchanged
    first = stored.claims[0].citations[0].item
    assert first is not None and first.n == 1 and first.span.text
    # a verdict names [1]; the export's citation and the stored marker agree
    record_verdict(ref_store, stored, stored.claims[0], stored.claims[0].citations[0], "supported", "ana")
    (row,) = export_rows(ref_store, ["public", "internal"])
    assert (row["citation"], row["citation_retrieval"]) == ("1", "1")
    # the pack's answers and its report say [1] and [2] as the page does
    pack = export_pack(ref_store, by=ADMIN, config_home=tmp_path / "config")
    with zipfile.ZipFile(__import__("io").BytesIO(pack.data)) as z:
        answers = json.loads(z.read("answers.json"))
        report = z.read("report.html").decode()
    cites = [c["citation"] for a in answers for cl in a["claims"] for c in cl["citations"]]
    assert cites == ["1", "2", "1", "2"]
    assert "<blockquote>[1] " in report and "<blockquote>[3] " not in report


def test_graphrag_ask_prints_the_numbers_the_page_shows(ref_store: Store, monkeypatch: pytest.MonkeyPatch,
                                                        capsys) -> None:
    import graphrag.answer.ask as ask_module

    real = ask_module.Asker

    def scripted(store: Store, *args, **kwargs):  # the CLI's asker, with a generator citing [3] then [2]
        return real(store, embedder=HashEmbedder(), generator=ScriptedGenerator("Exports use the latest snapshot "
                    "[3]. They stay for a while [2]."), checker=ScriptedChecker(), reader=Reader(abstain=always(True)))

    monkeypatch.setattr(ask_module, "Asker", scripted)
    path = ref_store.path
    ref_store.close()
    assert main(["ask", "What do exports use?", "--store", str(path), "--min-relevance", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Exports use the latest snapshot [1]. They stay for a while [2].")
    assert "    [1] " in out and "    [3] " not in out


def test_in_reading_order_leaves_what_it_cannot_renumber(ref_store: Store) -> None:
    span = ref_store.span(*next((d.id, d.version) for d in ref_store.documents()), 0)
    assert span is not None
    items = tuple(ContextItem(n, span, Route("x"), 0.5, "similarity") for n in (1, 2, 3))
    # a number past the context stays as written, flagged on its claim; a malformed marker too
    text, context = in_reading_order("A [3]. B [9]. C [see 2]. D [2-3].", items)
    assert text == "A [1]. B [9]. C [see 2]. D [2, 1]." and [i.n for i in context] == [1, 2, 3]
    # a context not numbered 1..N is left as it is: [2] could be taken for a renumbered item
    gappy = (items[0], ContextItem(5, span, Route("x"), 0.4, "similarity"))
    assert in_reading_order("A [5]. B [2].", gappy) == ("A [5]. B [2].", gappy)
    # already in reading order: the same objects
    assert in_reading_order("A [1]. B [2].", items) == ("A [1]. B [2].", items)
    assert renumbered("A [3].", {3: 1}) == "A [1]."  # the page's helper is the same function
