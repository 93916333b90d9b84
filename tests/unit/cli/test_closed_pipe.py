"""``graphrag ... | head``: when what reads the output closes the pipe, the command ends quietly (exit 141, the
status of a command a closed pipe ended), with no BrokenPipeError traceback and no "Exception ignored" at exit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from graphrag.cli import CLOSED_PIPE
from graphrag.model import VerdictLabel
from graphrag.store import Store
from seeds import judge, recorded_answer, write_version

pytestmark = pytest.mark.unit

RUN = [sys.executable, "-c", "import sys; from graphrag.cli import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose export is larger than a pipe's buffer (it breaks mid-write) and whose report is small (it
    breaks when the output is flushed at the end)."""
    path = tmp_path_factory.mktemp("pipe") / "s.db"
    with Store(path) as s:
        write_version(s, ["Exports are kept for thirty days.", "Logs rotate weekly."])
        answer = recorded_answer(s, [0.9] * 300)
        judge(s, answer, "ana", [VerdictLabel.SUPPORTED] * 300)
    return path


@pytest.mark.parametrize("argv", [["export"], ["audit", "export"], ["record", "stats"], ["entity", "export"],
                                  ["export", "--help"]])
def test_a_closed_pipe_ends_the_command_quietly(store: Path, argv: list[str]) -> None:
    proc = subprocess.Popen([*RUN, *argv, "--store", str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the command has written anything (it is still importing)
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err
    assert code in (0, CLOSED_PIPE) if "--help" in argv else code == CLOSED_PIPE, (code, err)


def test_an_open_pipe_still_gets_everything(store: Path) -> None:
    done = subprocess.run([*RUN, "export", "--store", str(store)], capture_output=True, timeout=120, check=True)
    assert done.stdout.count(b"\r\n") == 301 and not done.stderr
