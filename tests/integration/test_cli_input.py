"""Bytes that are not UTF-8 in arguments and in file names give one line, never a traceback (the real command in a
subprocess: the file-name case loads the models, so neither belongs in the unit tier)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def graphrag(*args: str | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "graphrag", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=120)


def test_an_argument_that_is_not_utf8_is_one_line_of_error(tmp_path: Path) -> None:
    store = str(tmp_path / "s.db")
    for args in ([b"ingest", b"/tmp/pay\xffroll.md", b"--store", store.encode()],
                 [b"ask", b"what is \xe9t\xe9?", b"--store", store.encode()]):
        done = graphrag(*args, cwd=tmp_path)
        err = done.stderr.decode("utf-8")
        assert done.returncode == 2, err
        assert err.count("\n") == 1 and "Traceback" not in err and "not valid UTF-8" in err
        assert "\\xff" in err or "\\xe9" in err  # the offending bytes are shown, escaped
    assert not Path(store).exists()  # nothing was created


@pytest.mark.model
def test_a_file_name_that_is_not_utf8_is_reported_not_crashed_on(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    with open(os.path.join(os.fsencode(corpus), b"bad\xffname.md"), "wb") as f:
        f.write(b"Bad1 uses Name2.\n")
    done = graphrag("ingest", str(corpus), "--store", str(tmp_path / "s.db"), cwd=tmp_path)
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    # Nothing was ingested: the command says why and exits 1, as when every document fails (the Ingest page
    # counts the same documents "with problems": one definition, DocumentReport.not_ingested).
    assert done.returncode == 1 and "Traceback" not in err, err
    assert "bad\\xffname" in out and "not valid UTF-8" in out and "rejected" in out
    (corpus / "good.md").write_text("Good3 uses Name4.\n", encoding="utf-8")
    done = graphrag("ingest", str(corpus), "--store", str(tmp_path / "s.db"), cwd=tmp_path)
    assert done.returncode == 0 and "rejected" in done.stdout.decode("utf-8")  # one ingested: a partial success
