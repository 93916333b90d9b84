"""The pages' one helper for text that goes through Markdown (``dashboard.render.plain``): special
characters escaped and no bare URL or email address left for Markdown to link. The whole-app walk
over every page's Markdown strings is tests/integration/test_markdown_escape.py."""

from __future__ import annotations

import re

import pytest

from dashboard.render import plain

pytestmark = pytest.mark.unit

WORD_JOINER = "\u2060"  # invisible, and no line break at it
MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
# What GFM autolinks in bare text (the forms Chromium showed as links through st.markdown, captions,
# headings and expander labels with the shipped Streamlit, backslash escapes or not).
AUTOLINK = re.compile(r"(?i)(?:https?://|www\.)\w|\w@\w")


def as_markdown_reads(shown: str) -> str:
    """The text Markdown's autolinker sees: backslash escapes resolved."""
    return MD_ESCAPE.sub(r"\1", shown)


@pytest.mark.parametrize("text", [
    "see http://a.example/x", "HTTPS://A.EXAMPLE", "www.a.example", "WWW.a.example", "ana@a.example",
    "mailto:ana@a.example", "(http://a.example),(www.b.example)", "x [l](https://a.example) y",
])
def test_plain_breaks_every_autolink_seam_and_keeps_the_words(text: str) -> None:
    shown = plain(text)
    assert not AUTOLINK.search(as_markdown_reads(shown)), shown
    assert as_markdown_reads(shown).replace(WORD_JOINER, "") == text  # reads the same, joiners are invisible


def test_plain_leaves_text_without_a_seam_alone() -> None:
    assert WORD_JOINER not in plain("Exports stay 30 days: see section 4.2 (www is a prefix).")
