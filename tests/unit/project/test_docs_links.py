"""The documentation holds together: the README stays a newcomer's page (within 300 lines, linking every page
of docs/), every relative link in it and in docs/ reaches an existing file and heading, and every command of
``graphrag`` is named somewhere in it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from docs_helpers import ROOT, Link, anchors, broken, doc_files, documentation, relative_links, section, slug
from graphrag.cli import build_parser

pytestmark = pytest.mark.unit


def test_every_relative_link_reaches_an_existing_file_and_heading() -> None:
    links = [link for path in doc_files() for link in relative_links(path)]
    assert len(links) > 10  # the README links every docs page, so an empty list means the scan is broken
    assert [why for link in links if (why := broken(link))] == []


def test_a_missing_heading_or_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "team.md").write_text("# Team mode\n\n## Choosing a store: SQLite or PostgreSQL\n")
    readme = tmp_path / "README.md"
    readme.write_text("[a](docs/team.md#choosing-a-store-sqlite-or-postgresql) [b](#known-limits)\n"
                      "[c](docs/gone.md) `[d](#in-code)`\n\n```\n[e](#in-a-fence)\n```\n\n## Known limits\n")
    assert [broken(link) for link in relative_links(readme)] == [None, None, "README.md:2: docs/gone.md: no file docs/gone.md"]
    renamed = Link(readme, 1, "docs/team.md#choosing-a-store")
    assert broken(renamed) == "README.md:1: docs/team.md#choosing-a-store: no heading #choosing-a-store in team.md"


@pytest.mark.parametrize(("heading", "anchor"), [
    ("Team mode: sign-in, access from identity, roles", "team-mode-sign-in-access-from-identity-roles"),
    ("PDF, HTML and DOCX", "pdf-html-and-docx"),
    ("A checker that learns from the team (`graphrag checker`, `graphrag eval support --learn-from`)",
     "a-checker-that-learns-from-the-team-graphrag-checker-graphrag-eval-support---learn-from"),
    ("Real PDFs (`lab/eval_real_pdfs.py`)", "real-pdfs-labeval_real_pdfspy"),
])
def test_anchors_follow_githubs_rules(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_a_repeated_heading_gets_a_numbered_anchor_and_a_fenced_comment_is_no_heading() -> None:
    assert anchors("# Notes\n\n## Notes\n\n```toml\n# .streamlit/secrets.toml\n```\n") == {"notes", "notes-1"}


def test_the_readme_stays_short_and_links_every_page_of_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    linked = {link.target.partition("#")[0] for link in relative_links(ROOT / "README.md")}
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert pages and pages <= linked, sorted(pages - linked)
    more = section(readme, "More")
    assert all(f"]({page})" in more for page in pages), "each docs page has its line in the README's More list"


def command_paths(parser: argparse.ArgumentParser, prefix: str = "graphrag") -> list[str]:
    """Every runnable command line, e.g. 'graphrag review mark', walking the subcommands."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [prefix]
    return [path for name, sub in subs[0].choices.items() for path in command_paths(sub, f"{prefix} {name}")]


def test_every_command_is_named_in_the_documentation() -> None:
    paths = command_paths(build_parser())
    assert "graphrag review mark" in paths and "graphrag store setup" in paths
    text = documentation()
    assert [p for p in paths if p not in text] == []
