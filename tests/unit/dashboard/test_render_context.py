"""The cited sentence among its neighbours (Review page, Source column): a heading and its paragraph are not run
together into one line that reads as a stutter ("Annual plans Annual plans can be refunded…")."""

from __future__ import annotations

import re

import pytest

from dashboard.render import context_html
from graphrag.model import Span

pytestmark = pytest.mark.unit

TEXT = ("# Refunds\n\n## Annual plans\n\nAnnual plans can be refunded within 14 days of the first payment. "
        "After 14 days, the annual fee is not refunded.\nInvoices are sent by email.\n\n## Monthly plans\n")


def spans(text: str) -> list[Span]:
    found = [(m.start(), m.end()) for m in re.finditer(r"[^\n.#]+\.|(?<=# )[^\n]+", text)]
    return [Span("billing", 1, i, a + (len(text[a:b]) - len(text[a:b].lstrip())), b,
                  text[a:b].strip()) for i, (a, b) in enumerate(found)]


def test_neighbours_a_blank_line_apart_start_a_new_line_and_one_paragraph_stays_one_line() -> None:
    sents = spans(TEXT)
    assert [s.text for s in sents][:4] == ["Refunds", "Annual plans", "Annual plans can be refunded within 14 days "
                                           "of the first payment.", "After 14 days, the annual fee is not refunded."]
    assert all(TEXT[s.start:s.end] == s.text for s in sents)
    cited = sents[3]
    shown = context_html(sents, cited, text=TEXT)
    # heading | paragraph: a line break; inside the paragraph (a space, or a single line break) one line
    assert shown.count("<br>") == 2, shown
    assert "Annual plans</span><br><span" in shown and "payment.</span> <mark>After 14 days" in shown
    assert "<mark>After 14 days, the annual fee is not refunded.</mark> <span" in shown
    # without the text (as before) everything is joined by spaces: the stutter
    assert "<br>" not in context_html(sents, cited)


def test_the_source_column_reads_only_the_cited_sentences_neighbours_and_shows_the_same(tmp_path) -> None:
    """A long document's every sentence was read to show five; the window read from the store (the neighbours and
    one more) renders exactly as the whole version did, ellipses included, at either end and in the middle."""
    from graphrag.ingest.documents import Source
    from graphrag.store import DocumentWrite, Store

    text = " ".join(f"Step {i} of the runbook rotates key {i}." for i in range(40))
    rows = [(m.start(), m.end(), m.group()) for m in re.finditer(r"Step \d+ [^.]+\.", text)]
    with Store(tmp_path / "s.db") as s:
        s.write_document(DocumentWrite(Source("runbook", "Runbook", text).as_document(), "scripted", "ok", rows, None,
                                       [], {}, [], []))
        whole = s.sentences("runbook", 1)
        assert len(whole) == 40
        for i in (0, 1, 2, 20, 37, 38, 39):
            window = s.sentences("runbook", 1, i - 2, i + 3)
            assert len(window) <= 6 and all(i - 2 <= w.sentence_index <= i + 3 for w in window)
            assert context_html(window, whole[i], text=text) == context_html(whole, whole[i], text=text), i
