"""An answer's text as blocks a reader takes in at a glance, and whether a question's answer should offer themes.

An answer of several parts (a theme answer: a line naming each theme, then its quotes as "- " bullets, the parts a
blank line apart) is drawn as those parts: each block its own paragraph, its naming line above its bullets as a
list. A one-paragraph answer (the nearest sentences' quotes) is drawn as before, the text alone.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from graphrag.answer.global_question import may_be_global
from graphrag.model import Answer

BULLETS = ("- ", "• ", "* ")  # how a line of an answer opens as a list item


@dataclass(frozen=True)
class Block:
    """One part of an answer: the lines before its list (a theme's name and documents, or a paragraph), then
    its list items (without their bullet marks)."""

    lines: tuple[str, ...]
    bullets: tuple[str, ...] = ()


def _bullet(line: str) -> str | None:
    stripped = line.lstrip()
    return next((stripped[len(b):].strip() for b in BULLETS if stripped.startswith(b)), None)


def answer_blocks(text: str) -> list[Block]:
    """``text`` in its blocks (parts a blank line apart), each with its leading lines and its list items; a line
    after a list item that is no list item continues that item."""
    blocks: list[Block] = []
    for part in "\n".join(line.rstrip() for line in text.splitlines()).split("\n\n"):
        lines: list[str] = []
        bullets: list[str] = []
        for line in part.split("\n"):
            if not line.strip():
                continue
            item = _bullet(line)
            if item is not None:
                bullets.append(item)
            elif bullets:
                bullets[-1] += " " + line.strip()
            else:
                lines.append(line.strip())
        if lines or bullets:
            blocks.append(Block(tuple(lines), tuple(bullets)))
    return blocks


def answer_html(text: str) -> str:
    """The answer as escaped HTML: a text of one paragraph as it is (escaped); else each block a paragraph, its
    leading lines in bold when a list follows them (a theme's name), its items a bulleted list."""
    esc = html.escape
    if "\n" not in text.strip():
        return esc(text, quote=True)
    out = []
    for b in answer_blocks(text):
        head = "<br>".join(esc(line, quote=True) for line in b.lines)
        if b.bullets:
            items = "".join(f'<li style="margin:0.15rem 0">{esc(i, quote=True)}</li>' for i in b.bullets)
            out.append('<div style="margin:0 0 0.7rem 0">'
                       + (f"<b>{head}</b>" if head else "")
                       + f'<ul style="margin:0.2rem 0 0 1.2rem;padding:0">{items}</ul></div>')
        else:
            out.append(f'<p style="margin:0 0 0.7rem 0">{head}</p>')
    return "".join(out)


def offers_themes(answer: Answer) -> bool:
    """Whether the answer should offer the themes answer in one step: it was answered from the nearest sentences,
    and its question may be about the documents as a whole (``graphrag.answer.global_question.may_be_global``; a
    question that surely is was answered by themes already)."""
    return answer.settings.mode == "local" and may_be_global(answer.question)
