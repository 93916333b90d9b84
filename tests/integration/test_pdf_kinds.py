"""Every printed line of a PDF gets its kind (issue 24): body text, heading, caption, table row, figure label,
footnote, equation, title block, references, running header or footer, page number, turned text. Only body
text reads as prose; headings become the heading path of the sentences under them; sentences never cross
from one kind of block into another. Measured on generated documents whose every line's kind and box are
known: a two-column paper, a report whose table runs onto a second page and an encyclopedia page with an infobox."""

from __future__ import annotations

from collections import Counter

import pytest

from doc_helpers import iou
from graphrag.ingest.readers.pdf import read_pdf
from graphrag.language.sentences import split_sentences
from paper_pdf import (
    ARTICLE_LINES,
    ARTICLE_SENTENCES,
    BODY_SENTENCES,
    INFOBOX,
    LINES,
    NOT_PROSE,
    REPORT_LINES,
    REPORT_SENTENCES,
    STAMP,
    Drawn,
    article_drawn,
    paper_drawn,
    report_drawn,
)

# heavy (draws and reads PDFs page by page): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]


def _key(text: str) -> str:
    return " ".join(text.split())


def _read(drawn_doc: tuple[bytes, list[Drawn]]):
    data, drawn = drawn_doc
    return (*read_pdf(data), drawn)


def test_each_kind_of_line_is_found_with_precision_and_recall_of_at_least_095() -> None:
    expected = Counter((kind, _key(t)) for kind, t in [*LINES, *REPORT_LINES, *ARTICLE_LINES])
    got: Counter[tuple[str, str]] = Counter()
    for doc in (paper_drawn(), report_drawn(), article_drawn()):
        _, _, layout, _ = _read(doc)
        got.update((r.kind, _key(r.text)) for r in layout.read)
    kinds = {k for k, _ in expected}
    assert kinds == {"body", "heading", "caption", "table", "infobox", "figure_label", "footnote", "equation",
                     "author", "reference", "running", "page_number", "stamp"}, "the documents hold every kind"
    for kind in sorted(kinds):
        want = Counter({line: n for (k, line), n in expected.items() if k == kind})
        found = Counter({line: n for (k, line), n in got.items() if k == kind})
        hit = sum((want & found).values())
        precision = hit / sum(found.values()) if found else 0.0
        recall = hit / sum(want.values())
        assert precision >= 0.95 and recall >= 0.95, (kind, precision, recall, sorted((found - want).elements()),
                                                       sorted((want - found).elements()))


def test_each_line_is_boxed_where_it_was_drawn() -> None:
    for doc in (paper_drawn(), report_drawn(), article_drawn()):
        _, _, layout, drawn = _read(doc)
        covered: set[int] = set()
        for r in layout.read:
            if r.kind == "stamp":
                continue
            # what was drawn on the line's baseline as part of it (a table row is drawn cell by cell)
            parts = [i for i, d in enumerate(drawn)
                     if d.page == r.page and abs(d.box[1] - r.box[1]) < 3 and d.text in _key(r.text)]
            assert " ".join(drawn[i].text for i in parts) == _key(r.text)
            box = (min(drawn[i].box[0] for i in parts), drawn[parts[0]].box[1], max(drawn[i].box[2] for i in parts),
                   drawn[parts[0]].box[3])
            assert iou(r.box, box) >= 0.9, (r.text, r.box, box)
            covered.update(parts)
        assert covered == set(range(len(drawn))), "every drawn line is read, as one line"


def test_only_body_text_reads_as_prose_and_nothing_is_glued_to_it() -> None:
    text, _, layout, _ = _read(paper_drawn())
    sentences = split_sentences(text)
    prose = [_key(s.text) for s in sentences if layout.kind_at(s.start) == "body"]
    assert prose == BODY_SENTENCES
    assert not [s for s in prose for junk in [*NOT_PROSE, STAMP] if junk in s]
    kinds = {_key(s.text): layout.kind_at(s.start) for s in sentences}
    assert kinds["Table 3: BLEU by system and test year"] == "caption"
    assert kinds["MNMT 23.1 24.5 25.0"] == "table"
    assert kinds["Ana Lima, Ben Okafor, Chen Wei"] == "author"
    # left out of the text: the equation, figure labels, footnote, references and the stamp
    for gone in ("log p", "Epochs", "available from the authors", "Doe, J.", "arXiv"):
        assert gone not in text


def test_a_table_running_onto_the_next_page_stays_a_table_and_the_prose_after_it_stands_alone() -> None:
    text, _, layout, _ = _read(report_drawn())
    sentences = split_sentences(text)
    assert [_key(s.text) for s in sentences if layout.kind_at(s.start) == "body"] == REPORT_SENTENCES
    assert [s.text for s in sentences if layout.kind_at(s.start) == "table"] == ["Region\tJan\tFeb\tMar"]
    # Each row under it, on either page, reads with the header that page 1 printed.
    rows = [s.text for s in sentences if layout.kind_at(s.start) == "row"]
    assert rows[0] == "Region: North; Jan: 100; Feb: 110; Mar: 120." and len(rows) == 8
    assert rows[-1] == "Region: Lakes; Jan: 149; Feb: 145; Mar: 141."
    note, tables = layout.notes
    assert note.startswith("read 2 pages: 13 sentences, 10 of them citable (body text and table rows), from 4 body lines, "
                           "1 heading, 1 caption line, 9 table rows; left out of the text: 2 running header or footer "
                           "lines, 2 page numbers, 1 footnote line")
    assert tables == "1 table: 8 rows read as statements (each row with its header)"


def test_headings_become_the_heading_path_of_the_sentences_under_them() -> None:
    text, _, layout, _ = _read(paper_drawn())
    paths = {_key(s.text): layout.span_layout(s.start, s.end).heading_path for s in split_sentences(text)}
    assert paths["We train one model for one hundred languages."] == "Abstract"
    assert paths["Training takes eleven days on eight accelerators."] == "2 Models"
    assert paths["It loses on the six pairs with the least training data."] == "3 Results"
    assert paths["1 Introduction"] == "1 Introduction"  # a heading's own path ends with itself
    assert paths["Multilingual Translation at Scale"] is None  # the title is the document's, not a section's
    text, _, layout, _ = _read(report_drawn())
    paths = {_key(s.text): layout.span_layout(s.start, s.end).heading_path for s in split_sentences(text)}
    assert paths[REPORT_SENTENCES[1]] == "1 Overview"  # across the page break


def test_an_infobox_beside_the_prose_reads_as_label_and_value_never_as_prose() -> None:
    text, _, layout, _ = _read(article_drawn())
    sentences = split_sentences(text)
    assert [_key(s.text) for s in sentences if layout.kind_at(s.start) == "body"] == ARTICLE_SENTENCES
    rows = [s.text for s in sentences if layout.kind_at(s.start) == "infobox"]
    assert rows == [f"{label}\t{value}" for label, value in INFOBOX]
    assert "5 infobox lines" in layout.notes[0]
