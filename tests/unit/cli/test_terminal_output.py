"""Control sequences in documents, names and questions never reach the terminal as such: every command's output
(stdout, stderr, logs, argparse's messages) passes one escaping stream, and --json stays exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag.cli import main
from graphrag.cli.common import escape_controls
from graphrag.ingest.documents import Source
from graphrag.language.sentences import normalise
from graphrag.model import PUBLIC
from graphrag.store import DocumentWrite, Store

pytestmark = pytest.mark.unit

# SGR red, a one-byte C1 CSI clearing the screen, BEL, an OSC retitling the window, a carriage return over the
# line, DEL, and a right-to-left override.
HOSTILE = "\x1b[31mred\x9b2J\x07\x1b]0;owned\x07\rover\x7f\u202eevil"
RAW = ("\x1b", "\x9b", "\x07", "\r", "\x7f", "\u202e")


def _clean(text: str) -> None:
    assert not any(c in text for c in RAW), repr(text)


def test_escape_controls_keeps_text_and_layout_and_escapes_every_control() -> None:
    shown = escape_controls(f"Zoë\tnaïve 東京\n{HOSTILE}")
    _clean(shown)
    assert shown.startswith("Zoë\tnaïve 東京\n\\u001b[31mred\\u009b2J\\u0007")
    assert json.loads(f'"{shown[shown.index(chr(10)) + 1:]}"') == HOSTILE  # inside a JSON string it decodes back


def test_an_entity_whose_name_and_sentence_carry_escapes_prints_them_escaped(tmp_path: Path, capsys) -> None:
    store, name, text = tmp_path / "s.db", f"Acme{HOSTILE}", f"Acme{HOSTILE} ships."
    with Store(store) as s:  # as an extractor would store a name read from a document
        s.write_document(DocumentWrite(Source("doc", "Doc", text, access=(PUBLIC,)).as_document(), "scripted", "ok",
                                       [(0, len(text), text)], None, [(normalise(name), name, "thing")], {},
                                       [(normalise(name), 0, "", False)], []))
    assert main(["entity", name, "--store", str(store)]) == 0
    out = capsys.readouterr().out
    _clean(out)
    assert "Acme\\u001b[31mred\\u009b2J" in out and "ships." in out
    assert main(["entity", name, "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == name  # --json is exact once parsed


def test_errors_and_usage_messages_are_escaped(tmp_path: Path, capsys) -> None:
    assert main(["ask", "why?", "--store", str(tmp_path / f"s{HOSTILE}.db")]) == 2  # "the store … holds nothing"
    with pytest.raises(SystemExit):
        main(["review", f"mark{HOSTILE}"])  # argparse echoes an unknown choice
    with pytest.raises(SystemExit):
        main(["entity", "x", f"--{HOSTILE}"])
    shown = capsys.readouterr()
    _clean(shown.out + shown.err)
    assert "\\u001b" in shown.err
