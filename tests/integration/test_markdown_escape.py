"""No string from a document, a manifest, a question or a user reaches Markdown unescaped, and no bare
URL or email address in one becomes a live link.

Streamlit renders Markdown in st.markdown, captions, headings, alerts, toasts, expander and
tab labels, widget labels and help, and pill/radio options. A Markdown image or link there is
fetched or made clickable by the browser (an access label ``![l](http://127.0.0.1:9/x.png)``
made the Ask page fetch another host). Every such string of every page is collected from the
app's element tree and must not hold a live link target from the planted payloads. Bare URLs
(``http://``, ``https://``, ``www.``) and email addresses are linked by Streamlit's Markdown even
when backslash-escaped, so each planted one must reach Markdown with its seam broken. New pages
and elements are covered without listing them: the whole tree is walked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import element_tree as et

from app_helpers import app
from dashboard import session
from doubles.extract import ScriptedExtractor, ScriptEntity, ScriptRelation
from graphrag.answer.ask import Asker
from graphrag.answer.reader.read import Reader
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import AskSettings
from graphrag.store import Store
from graphrag.verify.review import record_verdict
from helpers import write_corpus

pytestmark = [pytest.mark.model, pytest.mark.slow]

LINK = "[mdlink](http://127.0.0.1:9/link)"
IMG = "![mdimg](http://127.0.0.1:9/img.png)"
NAME_LINK = "[up](javascript:alert(1))"  # file names cannot hold a slash
LIVE = ("](http://127.0.0.1:9", "](javascript:")  # what Markdown would turn into a request or a link
# Bare URLs and an address GFM autolinks; file names cannot hold a slash, so they carry the last two.
BARE = "(http://bare.example/h),(HTTPS://bare.example/s),(www.bare.example),(ana@bare.example)"
NAME_BARE = "(www.bare.example)(ana@bare.example)"
# One of the planted forms still whole once Markdown's backslash escapes are resolved: a live link.
LIVE_BARE = re.compile(r"(?i)(?:https?://|www\.)bare\.example|@bare\.example")
MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
LABEL = f"team{IMG}{BARE}"
ENTITY = f"Export{LINK}{BARE}"
QUESTION = f"How long do exports stay available {LINK} {BARE}?"


def markdown_strings(at: et.ElementTree) -> Iterator[tuple[str, str]]:
    """(where, text) for every string of the tree that Streamlit renders as Markdown."""
    for node in at._tree:
        kind = type(node).__name__
        if isinstance(node, (et.Markdown, et.HeadingBase, et.AlertBase, et.Toast)):
            yield kind, str(node.value)
        label = getattr(node, "label", None)
        if isinstance(label, str):
            yield f"{kind} label", label
        help_text = getattr(node, "help", None)
        if isinstance(help_text, str):
            yield f"{kind} help", help_text
        if isinstance(node, (et.ButtonGroup, et.Radio)):
            for option in getattr(node.proto, "options", ()):
                yield f"{kind} option", str(getattr(option, "content", option))


def live_bare_link(text: str) -> bool:
    """Whether Markdown would link a planted bare URL or address in ``text`` (escapes do not stop it)."""
    return LIVE_BARE.search(MD_ESCAPE.sub(r"\1", text)) is not None


def assert_escaped(at: et.ElementTree, page: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    strings = list(markdown_strings(at))
    live = [(where, text) for where, text in strings if any(m in text for m in LIVE)]
    assert not live, f"{page}: payload reached Markdown unescaped: {live}"
    linked = [(where, text) for where, text in strings if live_bare_link(text)]
    assert not linked, f"{page}: a bare URL or address would be a live link: {linked}"


@pytest.fixture(scope="module")
def evil_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("md")
    corpus = write_corpus(tmp / "corpus", {
        "exports.md": f"# Exports {LINK} {BARE}\n\nExports stay available for 30 days {IMG} after cancellation "
                      f"{BARE}. Exports use the latest snapshot {LINK} {BARE}.\n",
    }, f"""
[[documents]]
file = "exports.md"
id = "exports{LINK}{BARE}"
title = 'Exports {IMG} {BARE}'
access = ["public", "{LABEL}"]
""")
    x = ScriptedExtractor(
        [ScriptEntity(ENTITY, "30 days", description=LINK + BARE),
         ScriptEntity(f"Snapshot{IMG}{BARE}", "latest snapshot")],
        [ScriptRelation(ENTITY, f"uses{LINK}{BARE}", f"Snapshot{IMG}{BARE}", "latest snapshot")])
    path = tmp / "store.db"
    with Store(path) as store:
        report = Ingestor(store, x).ingest_paths([corpus])
        assert [d.status for d in report.documents] == ["ok"], report
        # The reader without its span reader: the typed short answer opens the answer, so it makes two claims and one
        # is left for the Review page after the verdict below (the span reader does not trust a question this full of
        # links, and would leave one claim, judged).
        shipped = Reader.load()
        reader = Reader(shipped.scorer, check=shipped.check)
        answer = Asker(store, reader=reader).ask(QUESTION, AskSettings(access=("public", LABEL))).answer
        assert len(answer.claims) > 1, answer.text
        claim = answer.claims[0]
        record_verdict(store, answer, claim, claim.citations[0], "supported", f"Mallory{LINK}{BARE}",
                       f"note {IMG} {BARE}")
    return path


def test_no_page_renders_a_planted_string_as_markdown(monkeypatch: pytest.MonkeyPatch, evil_store: Path,
                                                       tmp_path: Path) -> None:
    at = app(monkeypatch, evil_store)
    at.session_state[session.ACCESS] = ["public", LABEL]
    at.session_state[session.REVIEWER] = f"Eve{LINK}{BARE}"
    at.session_state[session.ANSWER_ID] = 1
    at.session_state[session.ANSWER_WARNINGS] = [f"warning about {LINK} {BARE}"]
    at.session_state[session.EXTRACTOR] = "ollama"
    at.session_state[session.EXTRACT_MODEL] = f"model{IMG}{BARE}"
    at = at.run()
    assert_escaped(at, "ask")
    assert any("Answer #1" in str(s.value) for s in at.subheader)  # the answer is on the page

    # An ask that fails names the (user-typed) model in its error.
    at.session_state[session.GENERATOR] = "ollama"
    at.session_state[session.GENERATE_MODEL] = f"gen{IMG}{BARE}"
    at.text_area(key="_w_question").set_value(QUESTION)
    at = next(b for b in at.button if b.label == "Ask").click().run()
    assert_escaped(at, "ask (ollama error)")

    at.switch_page("views/review.py")
    at = at.run()
    assert_escaped(at, "review")
    assert any("Claim 1 of" in str(m.value) for m in at.markdown)

    at.switch_page("views/graph.py")
    at = at.run()
    at.text_input(key="graph_query").set_value("export")
    at = at.run()
    assert_escaped(at, "graph")
    assert at.subheader, "the entity's heading is shown"
    assert any("bare" in str(h.value) for h in at.subheader), "the heading carries the planted URLs"

    at.switch_page("views/record.py")
    at = at.run()
    assert_escaped(at, "record")
    assert any("Verification record" in str(t.value) for t in at.title)

    at.switch_page("views/ingest.py")
    at = at.run()
    at.file_uploader(key="ingest_uploads").set_value([
        (f"notes{NAME_LINK}{NAME_BARE}.md", b"# Notes\n\nExports are mailed weekly.\n", "text/markdown"),
        (f"bad{NAME_LINK}{NAME_BARE}.txt", b"\x00\x01 binary", "text/plain"),
    ])
    at = at.run()
    at = at.button(key="ingest_go").click().run()
    assert_escaped(at, "ingest")
