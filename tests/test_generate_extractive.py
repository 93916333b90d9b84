"""The embedded generator reads as an answer: relevant sentences, each with its marker, no repeats."""

from __future__ import annotations

from graphrag.attribution import attribute
from graphrag.generate.extractive import ExtractiveGenerator
from graphrag.model import ContextItem, Route, Span


def item(n: int, text: str, score: float, date: str | None = None) -> ContextItem:
    return ContextItem(n, Span("d", 1, n, 0, len(text), text), Route("e"), score, "mention", effective_date=date)


def test_quotes_relevant_sentences_with_markers_and_a_cap() -> None:
    ctx = [item(1, "Exports use the latest snapshot.", 0.8), item(2, "Snapshots follow the retention policy.", 0.75),
           item(3, "Billing", 0.9), item(4, "Support is open on weekdays only.", 0.3),
           item(5, "Exports are CSV files.", 0.74), item(6, "Exports are JSON files too.", 0.73)]
    text = ExtractiveGenerator(max_sentences=3).generate("q", ctx).text
    assert text == ("Exports use the latest snapshot [1]. Snapshots follow the retention policy [2]. "
                    "Exports are CSV files [5].")  # heading skipped, the far less relevant one dropped, capped
    claims = attribute(text, ctx)
    assert [c.citations[0].item.n for c in claims] == [1, 2, 5]  # type: ignore[union-attr]


def test_near_repeat_keeps_the_newer_source() -> None:
    ctx = [item(1, "Snapshot exports remain available for 7 days after an account is cancelled.", 0.9, "2023-04-01"),
           item(2, "Snapshot exports remain available for 30 days after an account is cancelled.", 0.88, "2026-02-01")]
    text = ExtractiveGenerator().generate("How long?", ctx).text
    assert text == "Snapshot exports remain available for 30 days after an account is cancelled [2]."


def test_no_context_gives_no_answer() -> None:
    assert ExtractiveGenerator().generate("q", []).text == ""
