"""The command line applies the same visibility as the pages, and names reviewers safely.

`graphrag review mark` used to ignore --access (a public user could record a verdict on an
answer they cannot see) and told a hidden answer from a missing one; the reviewer defaulted to
the OS account and accepted invisible characters. No model is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.cli import main
from graphrag.errors import InputError
from graphrag.store import Store
from graphrag.verify.review import clean_reviewer
from helpers import internal_route_answer

pytestmark = pytest.mark.unit


@pytest.fixture()
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    with Store(path) as store:
        internal_route_answer(store)
    return path


def _mark(store: Path, answer: int, *extra: str) -> list[str]:
    return ["review", "mark", "--store", str(store), "--answer", str(answer), "--claim", "1",
            "--verdict", "supported", *extra]


def test_review_mark_refuses_an_answer_the_viewer_cannot_see(store_path: Path, capsys) -> None:
    assert main(_mark(store_path, 1, "--reviewer", "eve", "--access", "public")) == 2
    hidden = capsys.readouterr().err
    assert main(_mark(store_path, 99, "--reviewer", "eve", "--access", "public")) == 2
    missing = capsys.readouterr().err
    # The same words for both, apart from the number asked for: nothing tells them apart.
    assert hidden.replace("1", "N") == missing.replace("99", "N")
    with Store(store_path) as s:
        assert s.verdicts() == []
    assert main(_mark(store_path, 1, "--reviewer", "ana", "--access", "internal", "public")) == 0
    with Store(store_path) as s:
        assert [v.reviewer for v in s.verdicts()] == ["ana"]


def test_review_list_hides_it_too(store_path: Path, capsys) -> None:
    assert main(["review", "list", "--store", str(store_path), "--access", "public", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"


def test_review_mark_needs_a_reviewer_name(store_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("USER", "root")  # the OS account is not taken for a name
    with pytest.raises(SystemExit) as exit_:  # refused by the parser, before the store is opened
        main(_mark(store_path, 1, "--access", "internal", "public"))
    assert exit_.value.code == 2
    assert "the following arguments are required: --reviewer" in capsys.readouterr().err
    with Store(store_path) as s:
        assert s.verdicts() == []


@pytest.mark.parametrize("name", ["ana\u200b", "\u202eana", "ana\x1b[31m", "a\u2066na", "ana\x00"])
def test_names_with_invisible_or_control_characters_are_refused(name: str) -> None:
    with pytest.raises(InputError, match="control or invisible"):
        clean_reviewer(name)


def test_names_are_normalised_so_lookalikes_are_one_reviewer() -> None:
    assert clean_reviewer("  Ana   Lima ") == "Ana Lima"
    assert clean_reviewer("\uff21na") == "Ana"  # a full-width A is the same letter (NFKC)
    with pytest.raises(InputError):
        clean_reviewer("   ")


def test_cli_refuses_an_invisible_reviewer_name_without_writing(store_path: Path, capsys) -> None:
    assert main(_mark(store_path, 1, "--reviewer", "ana\u200b", "--access", "internal", "public")) == 2
    assert "invisible" in capsys.readouterr().err
    with Store(store_path) as s:
        assert s.verdicts() == []
