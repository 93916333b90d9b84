"""The project's documentation as the tests read it: the README and the pages under docs/, their headings
with GitHub's anchors, their sections and their relative links (code spans and fenced blocks left out)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md, then every Markdown page in docs/, in name order."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def documentation(root: Path = ROOT) -> str:
    """The text of every documentation file, one after the other."""
    return "\n".join(p.read_text(encoding="utf-8") for p in doc_files(root))


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based number, line) of each line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), start=1):
        marker = re.match(r"\s*(```|~~~)", line)
        if marker:
            fence = None if fence == marker.group(1) else fence or marker.group(1)
            continue
        if fence is None:
            yield number, line


def headings(text: str) -> list[tuple[int, str]]:
    """(level, text) of every ATX heading outside fenced code."""
    found = []
    for _number, line in prose_lines(text):
        m = re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            found.append((len(m.group(1)), m.group(2)))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: link text kept, lower case, punctuation but '-' and '_' dropped,
    each space a '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a page; a repeated heading gets '-1', '-2', ... as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for _level, heading in headings(text):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def section(text: str, title: str) -> str:
    """The section under the heading ``title`` (any level), up to the next heading of the same or a higher level."""
    lines = text.split("\n")
    start = level = None
    for number, line in prose_lines(text):
        m = re.match(r"(#{1,6})\s+(.*?)\s*$", line)
        if not m:
            continue
        if start is None and m.group(2) == title:
            start, level = number, len(m.group(1))
        elif start is not None and level is not None and len(m.group(1)) <= level:
            return "\n".join(lines[start:number - 1])
    if start is None:
        raise LookupError(f"no heading {title!r}")
    return "\n".join(lines[start:])


@dataclass(frozen=True)
class Link:
    """A relative link in a documentation file: where it is and what it points to."""

    source: Path
    line: int
    target: str


def relative_links(path: Path) -> list[Link]:
    """Every Markdown link in ``path`` that is not to another site, outside code spans and fenced blocks."""
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        prose = re.sub(r"(`+).*?\1", "", line)  # a link written inside `code` is text, not a link
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target, flags=re.I):  # http:, mailto:, ...
                found.append(Link(path, number, target))
    return found


def broken(link: Link) -> str | None:
    """Why ``link`` does not resolve (a missing file or heading), or None when it does."""
    file_part, _, anchor = link.target.partition("#")
    target = (link.source.parent / file_part).resolve() if file_part else link.source
    if not target.exists():
        return f"{link.source.name}:{link.line}: {link.target}: no file {file_part}"
    if anchor:
        if target.suffix != ".md":
            return f"{link.source.name}:{link.line}: {link.target}: an anchor into a file that is not Markdown"
        if anchor not in anchors(target.read_text(encoding="utf-8")):
            return f"{link.source.name}:{link.line}: {link.target}: no heading #{anchor} in {target.name}"
    return None
