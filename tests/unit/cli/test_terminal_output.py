"""Control sequences in documents, names and questions never reach the terminal as such: every command's output
(stdout, stderr, logs, argparse's messages) passes one escaping stream, and --json stays exact."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graphrag.cli import main
from graphrag.cli.common import escape_controls
from graphrag.ingest.documents import Source
from graphrag.language.sentences import normalise
from graphrag.model import PUBLIC, VerdictLabel
from graphrag.store import DocumentWrite, Store
from seeds import judge, recorded_answer, write_version

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


def test_a_csv_written_to_stdout_is_the_file_out_writes_byte_for_byte(tmp_path: Path) -> None:
    """A CSV row ends with CR LF (the csv module's line end): on stdout it was written `\\u000d`."""
    store = tmp_path / "s.db"
    with Store(store) as s:
        write_version(s, ["Exports are kept for thirty days.", "Zoë signs, naïvely: «oui»; 東京."])
        answer = recorded_answer(s, [0.9, 0.2, 0.6])
        judge(s, answer, "ana", [VerdictLabel.SUPPORTED, VerdictLabel.PARTIAL, VerdictLabel.UNSUPPORTED])
    for argv in (["export"], ["audit", "export"]):
        out, twin = tmp_path / f"{argv[-1]}.csv", tmp_path / f"{argv[-1]}.db"
        shutil.copy(store, twin)  # an export is itself audited: each run reads the store as it was
        run = [sys.executable, "-c", "import sys; from graphrag.cli import main; sys.exit(main())", *argv]
        shown = subprocess.run([*run, "--store", str(store)], capture_output=True, check=True, timeout=120).stdout
        assert subprocess.run([*run, "--store", str(twin), "--out", str(out)], capture_output=True,
                              timeout=120).returncode == 0
        written = out.read_bytes()
        if argv[0] == "audit":  # its last row is this export's own event, at the time each run made it
            shown, written = shown[:shown.rindex(b"\n", 0, -1)], written[:written.rindex(b"\n", 0, -1)]
        assert shown == written, argv
        assert shown.count(b"\r\n") >= 4 and b"\\u000d" not in shown


def test_a_progress_bar_redraws_and_text_handed_to_it_stays_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    """tqdm starts each redraw with a carriage return (the model-loading bars print through it too): that one is the
    product's own and passes; one in what a command prints, in tqdm.write's text or inside the bar does not."""
    from tqdm import tqdm

    from graphrag.cli.common import safe_terminal

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with safe_terminal():
        tqdm.write(f"\rover{HOSTILE}", file=sys.stderr)
        print("\rover", file=sys.stderr)
        print("a", "\rover", file=sys.stderr)
        sys.stderr.write("\r\n")
        bar = tqdm(total=3, desc="Loading weights", mininterval=0)  # its file: sys.stderr, as a library's bar
        for _ in range(3):
            bar.update(1)
        bar.close()
        bar = tqdm(total=1, desc=f"x{HOSTILE}", mininterval=0, leave=False)
        bar.update(1)
        bar.close()
    shown = err.getvalue()
    printed = f"{escape_controls(chr(13) + 'over' + HOSTILE)}\n\\u000dover\na \\u000dover\n\r\n"
    assert shown.startswith(printed)
    bars = shown[len(printed):]
    assert bars.count("\rLoading weights:") >= 4  # redrawn in place, from 0 % to 100 %
    for redraw in bars.split("\r")[1:]:  # every carriage return left is one tqdm starts a redraw or a clear with
        assert redraw.startswith(("Loading weights:", "x\\u001b[31mred\\u009b2J\\u0007\\u001b]0;owned\\u0007\\u000dover")) \
            or not redraw.strip(), repr(redraw)
