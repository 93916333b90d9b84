"""The command line is a package of commands: each module registers its command and runs it, the backend
choices come from the registries, review's subcommands take only their own options, and the benchmarks
behind `graphrag bench` are plain functions. No model is needed."""

from __future__ import annotations

import argparse
import json
import pkgutil
from pathlib import Path

import pytest

import graphrag.cli
from graphrag.cli import COMMANDS, build_parser, main
from lab import bench

pytestmark = pytest.mark.unit


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The parser's message for a command line it refuses (exit code 2)."""
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    assert exit_.value.code == 2
    return capsys.readouterr().err


def test_every_command_module_registers_one_command_that_help_lists(capsys: pytest.CaptureFixture[str]) -> None:
    # a module of the package that is not in COMMANDS would be a command nobody can run
    modules = {m.name for m in pkgutil.iter_modules(graphrag.cli.__path__)} - {"common"}
    assert modules == {c.__name__.rsplit(".", 1)[1] for c in COMMANDS}
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    listed = capsys.readouterr().out
    commands = _subcommands(build_parser())
    for module in COMMANDS:
        assert module.register.__doc__ and module.run.__doc__, module.__name__
        alone = argparse.ArgumentParser()
        module.register(alone.add_subparsers())
        (name,) = _subcommands(alone)
        assert f"\n    {name} " in listed, name
        assert commands[name].get_default("run") is module.run


def test_review_mark_without_a_reviewer_is_refused_naming_the_option(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.db"
    err = _refused(capsys, "review", "mark", "--answer", "1", "--claim", "1", "--verdict", "supported",
                   "--store", str(store))
    assert "graphrag review mark: error: the following arguments are required: --reviewer" in err
    assert not store.exists()


def test_review_subcommands_take_only_their_own_options(capsys) -> None:
    assert "unrecognized arguments: --verdict" in _refused(capsys, "review", "list", "--verdict", "supported")
    assert "unrecognized arguments: --access" in _refused(capsys, "review", "policy", "--access", "internal")
    assert "unrecognized arguments: --required" in _refused(capsys, "review", "disputes", "--required", "2")
    assert "invalid choice: 'lsit'" in _refused(capsys, "review", "lsit")
    assert set(_subcommands(_subcommands(build_parser())["review"])) == {"list", "disputes", "mark", "policy"}


def test_a_test_double_is_not_a_choice_of_the_product(tmp_path: Path, capsys) -> None:
    err = _refused(capsys, "ingest", str(tmp_path), "--extractor", "scripted", "--store", str(tmp_path / "s.db"))
    assert "argument --extractor: invalid choice: 'scripted' (choose from 'rules', 'ollama')" in err
    err = _refused(capsys, "ask", "q", "--generator", "scripted")
    assert "(choose from 'extractive', 'ollama')" in err
    assert "(choose from 'embedded', 'ollama')" in _refused(capsys, "eval", "support", "--format", "jsonl",
                                                            "--checker", "nli")


def test_the_choices_are_read_from_the_registries(scripted_backends: None, tmp_path: Path) -> None:
    args = build_parser().parse_args(["ingest", str(tmp_path), "--extractor", "scripted"])
    assert args.extractor == "scripted"
    ingest_help = _subcommands(build_parser())["ingest"].format_help()
    assert "{rules,ollama,scripted}" in ingest_help


def test_a_benchmark_is_a_function_of_plain_arguments(capsys) -> None:
    assert bench.bench_ask(sizes=[60], queries=3) == 0
    figures = json.loads(capsys.readouterr().out)
    (size,) = figures["sizes"]
    assert (size["entities"], size["queries"]) == (60, 3) and size["p50_ms"] > 0
    assert "after_ingest" not in size  # no corpus, no ingest round


@pytest.mark.unit
def test_a_command_reads_the_configuration_once_and_its_flags_are_named_as_such(tmp_path, monkeypatch) -> None:
    """The command line reads the environment once, in main; --store given on the line is recorded as a flag
    (what the sidebar and `describe()` show), and without it the configured store is used."""
    from graphrag.cli.common import apply_config
    from graphrag.config import Config

    monkeypatch.setenv("GRAPHRAG_STORE", str(tmp_path / "from-env.db"))
    parser = build_parser()
    args = parser.parse_args(["export", "--store", str(tmp_path / "given.db")])
    apply_config(args, Config.from_env())
    assert args.store.path == tmp_path / "given.db" and args.config.source("store") == "flag"
    args = parser.parse_args(["export"])
    apply_config(args, Config.from_env())
    assert args.store.path == tmp_path / "from-env.db" and args.config.source("store") == "environment"


@pytest.mark.unit
def test_checker_actions_are_subcommands_with_their_own_options(tmp_path, capsys) -> None:
    store = str(tmp_path / "s.db")
    with pytest.raises(SystemExit) as exit_:
        main(["checker", "fit", "--store", store])  # where to learn from must be said
    assert exit_.value.code == 2 and "--from-verdicts" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["checker", "list", "--to", "1", "--store", store])  # --to belongs to rollback
    assert exit_.value.code == 2 and "--to" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()


def test_review_list_names_its_columns_and_says_when_the_queue_is_empty(tmp_path: Path, capsys) -> None:
    """Issue 60: `graphrag review list` printed rows with no column headers, and nothing at all for an empty queue."""
    from graphrag.store import Store
    from helpers import write_document_rows
    from seeds import recorded_answer

    path = tmp_path / "s.db"
    with Store(path) as s:
        write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
    assert main(["review", "list", "--store", str(path), "--access", "public"]) == 0
    assert capsys.readouterr().out == "nothing in the queue\n"
    with Store(path) as s:
        answer = recorded_answer(s, [0.9, 0.2])
    assert main(["review", "list", "--store", str(path), "--access", "public"]) == 0
    head, *rows = capsys.readouterr().out.splitlines()
    assert head.split() == ["answer", "claim", "check", "verdicts", "(or", "status)", "claim", "text"], head
    assert len(rows) == 2 and all(r.split()[:2] in ([str(answer.id), "1"], [str(answer.id), "2"]) for r in rows), rows  # from 1
    # each column starts where its header does
    assert all(r.index(r.split()[2]) == head.index("check") for r in rows), (head, rows)
