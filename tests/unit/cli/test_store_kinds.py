"""A store is named the same way everywhere: a URL is a URL and a path is a path. A command that builds a store of
its own as a SQLite file refuses a PostgreSQL URL with a message, instead of creating folders named after the URL
under the working directory; ``bench million`` takes either kind. No model or server is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.cli import build_parser, main
from graphrag.store import parse_store
from lab import bench_graph

pytestmark = pytest.mark.unit

URL = "postgresql+psycopg://bench@db.example:5432/graphrag_bench"
SQLITE_ONLY = (
    ["bench", "scale", "--store", URL],
    ["bench", "review", "--browser", "--store", URL],
    ["eval", "retrieval", "--questions", "q.json", "--corpus", "c.json", "--eval-store", URL],
)


@pytest.mark.parametrize("argv", SQLITE_ONLY, ids=lambda a: " ".join(a[:2]))
def test_a_command_building_a_sqlite_store_refuses_a_postgresql_url(argv: list[str], tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "builds its store as a SQLite file" in err and "PostgreSQL URL" in err
    assert "bench@db.example" in err and list(tmp_path.iterdir()) == [], "nothing written under the working folder"


def test_the_graph_benchmark_refuses_a_postgresql_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        bench_graph.main(["--relations", "10", "--store", URL])
    assert exit_.value.code == 2 and "SQLite file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_bench_million_reads_a_url_as_a_url_and_a_path_as_a_path() -> None:
    parser = build_parser()
    pg = parser.parse_args(["bench", "million", "--store", URL]).million_store
    file = parser.parse_args(["bench", "million", "--store", "stores/million.db"]).million_store
    assert pg == parse_store(URL) and pg.kind == "postgresql" and pg.path is None
    assert file.kind == "sqlite" and file.path == Path("stores/million.db")


def test_bench_million_refuses_a_url_it_cannot_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "million", "--store", "postgres://bench@db/graphrag"])
    assert exit_.value.code == 2 and "postgresql+psycopg://" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "dest"), [(["bench", "load"], "load_store"), (["bench", "scale"], "scale_store")],
                         ids=["load", "scale"])
def test_a_benchmark_that_builds_its_own_store_never_takes_the_configured_one(argv: list[str], dest: str) -> None:
    """Without --store, ``bench load`` and ``bench scale`` build a throwaway store: the configured store (the
    person's own documents and record) is filled in only for a command's ``store``, never for theirs."""
    from graphrag.cli.common import apply_config
    from graphrag.config import Config

    args = build_parser().parse_args(argv)
    apply_config(args, Config.from_env({"GRAPHRAG_STORE": "/srv/team/graphrag.db"}))
    assert getattr(args, dest) is None
    given = build_parser().parse_args([*argv, "--store", "/tmp/bench.db"])
    apply_config(given, Config.from_env({"GRAPHRAG_STORE": "/srv/team/graphrag.db"}))
    assert "/tmp/bench.db" in str(getattr(given, dest))
