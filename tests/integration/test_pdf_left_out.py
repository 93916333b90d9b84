"""What the PDF reader leaves out of the citable text, and says it left out (issue 24): a margin stamp turned
against the page (arXiv's vertical identifier was read one letter per line into the body), running headers and
footers, page numbers. A page printed sideways keeps all its text."""

from __future__ import annotations

import pytest

from doc_helpers import pdf_with
from graphrag.ingest.readers.pdf import read_pdf
from graphrag.language.sentences import split_sentences
from paper_pdf import STAMP, draw_stamp

# heavy (draws and reads PDFs page by page): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]

BODY = ["Exports are generated automatically every night for each workspace.",
        "The generated files are kept for thirty days and then deleted.",
        "Owners can download them from the settings page at any time."]


def _body(c, x: float = 72, y: float = 700) -> None:
    c.setFont("Helvetica", 11)
    for line in BODY:
        c.drawString(x, y, line)
        y -= 14


@pytest.mark.parametrize("stamp_first", [True, False])
def test_a_margin_stamp_is_left_out_of_the_sentences_and_named_in_the_report(stamp_first: bool) -> None:
    def draw(c, i: int) -> None:
        if stamp_first:  # arXiv draws its stamp before the page's text
            draw_stamp(c)
        _body(c)
        if not stamp_first:
            draw_stamp(c)

    text, _, layout = read_pdf(pdf_with(draw))
    assert [s.text for s in split_sentences(text)] == BODY
    assert "arXiv" not in text and "cs.CL" not in text
    (note,) = layout.notes
    assert "turned text on page 1" in note and STAMP in note


def test_a_page_printed_sideways_keeps_its_text() -> None:
    def draw(c, i: int) -> None:
        c.saveState()
        c.translate(560, 72)
        c.rotate(90)
        _body(c, x=0, y=0)
        c.restoreState()

    text, _, layout = read_pdf(pdf_with(draw))
    # Nothing is set aside (the page's own direction is sideways); lines read across a turned page are not
    # yet put back in order, so only the characters are compared.
    assert sorted("".join(text.split())) == sorted("".join("".join(BODY).split()))
    assert not any("left out" in n for n in layout.notes)


def test_running_headers_and_page_numbers_are_counted_in_the_report() -> None:
    def draw(c, i: int) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(72, 760, "Larkspur administration guide")
        c.drawString(300, 30, str(i + 1))
        _body(c)

    text, _, layout = read_pdf(pdf_with(draw, pages=3))
    assert "administration guide" not in text
    (note,) = layout.notes
    assert "3 running header or footer lines" in note and "3 page numbers" in note


PROSE = ("Owners can restore a snapshot from the settings page within the retention window. "
         "Restores replace the workspace's current data, so an export is taken first. ")
ENTRIES = ['1. "Snapshot policy" (https://example.org/snapshots). Example Press. Retrieved 3 May 2018.',
           "2. Doe, Jane (2019). Backups in practice. Example University Press. ISBN 0-8061-2650-7.",
           "3. Roe, R. et al. (2020). Restores at scale. In Proceedings of the Storage Workshop, pp. 1-9."]


def _sectioned(c, i: int, heading_size: float, contents: bool) -> None:
    y = 700  # below the band where a line repeated on every page is a running header
    if i == 0 and contents:  # a table of contents names the section too
        c.setFont("Helvetica", 11)
        for entry in ("Contents", "Restores", "References"):
            c.drawString(72, y, entry)
            y -= 16
        y -= 20
    c.setFont("Helvetica", 11)
    for _ in range(8):
        for part in (PROSE[:82], PROSE[82:]):
            c.drawString(72, y, part.strip())
            y -= 14
        y -= 8
    if i == 1:
        c.setFont("Helvetica-Bold", heading_size)
        c.drawString(72, y - 10, "References")
        y -= 34
        c.setFont("Helvetica", 9)
        for entry in ENTRIES:
            c.drawString(72, y, entry)
            y -= 13


@pytest.mark.parametrize("heading_size", [16, 11])
def test_a_closing_references_section_is_left_out_and_named_in_the_report(heading_size: float) -> None:
    text, _, layout = read_pdf(pdf_with(lambda c, i: _sectioned(c, i, heading_size, contents=True), pages=2))
    assert "Retrieved" not in text and "ISBN" not in text and "Proceedings" not in text
    assert text.count("Owners can restore a snapshot") == 16  # every paragraph of prose kept
    assert text.startswith("Contents\nRestores\nReferences")  # the contents' entry is no section
    (note,) = layout.notes
    assert "4 lines of references and links (References; page 2)" in note


def test_a_larger_heading_after_the_references_ends_the_section() -> None:
    def draw(c, i: int) -> None:
        _sectioned(c, i, 16, contents=False)
        if i == 1:
            c.setFont("Helvetica-Bold", 16)
            c.drawString(72, 200, "Restores in detail")
            c.setFont("Helvetica", 11)
            c.drawString(72, 180, "A restore takes about ten minutes for a workspace of one gigabyte.")

    text, _, _ = read_pdf(pdf_with(draw, pages=2))
    assert "ISBN" not in text
    assert text.rstrip().endswith("Restores in detail\n\nA restore takes about ten minutes for a workspace of one "
                                  "gigabyte.")


def test_the_reading_measure_counts_junk_sentences_and_what_was_left_out(tmp_path) -> None:
    from lab.evaluate.pdf_reading import junk_reason, measure

    assert junk_reason("a r X i v 1 9 1 2 automatically generated text.") == "one-letter debris"
    assert junk_reason("Doe, Jane (2019). Backups in practice. Example University Press. ISBN 0-8061-2650-7.") == \
        "reference"
    assert junk_reason("Owners can restore a snapshot from the settings page.") is None
    path = tmp_path / "guide.pdf"
    path.write_bytes(pdf_with(lambda c, i: _sectioned(c, i, 16, contents=False), pages=2))
    row = measure(path)
    assert row["pages"] == 2 and row["junk"] == 0 and row["sentences"] == 32
    assert "references and links" in row["left_out"][0]


def test_a_table_and_its_caption_are_never_glued_to_the_prose_around_them() -> None:
    lines = ["Both systems were trained on the same data and scored on the same test set.",
             "Table 3: BLEU by system and test year",
             "MNMT 23.1 24.5 25.0 26.2",
             "Bilingual 22.0 23.4 24.1 25.3",
             "Pivot 21.7 22.9 23.5 24.8",
             "The multilingual model gains about one point in every year"]

    def draw(c, i: int) -> None:
        c.setFont("Helvetica", 11)
        for k, line in enumerate(lines):  # one line spacing throughout: no gap tells the table apart
            c.drawString(72, 700 - 14 * k, line + ("." if k == len(lines) - 1 else ""))

    text, _, _ = read_pdf(pdf_with(draw))
    sentences = [" ".join(s.text.split()) for s in split_sentences(text)]
    prose = [s for s in sentences if "multilingual model gains" in s]
    assert prose == ["The multilingual model gains about one point in every year."]
    caption = [s for s in sentences if s.startswith("Table 3")]
    assert caption == ["Table 3: BLEU by system and test year"]
    assert all("23.1" not in s for s in sentences if "trained" in s or "gains" in s)


def test_a_bold_heading_at_the_body_size_is_not_glued_to_its_first_sentence() -> None:
    def draw(c, i: int) -> None:
        c.setFont("Helvetica-Bold", 11)
        c.drawString(72, 700, "A. Models")
        c.setFont("Helvetica", 11)
        c.drawString(72, 686, "We train two models on the same data. The first one is")
        c.drawString(72, 672, "a transformer and the second one a recurrent network.")
        c.drawString(72, 658, "Both use the")  # a bold phrase inside a sentence is no heading
        c.setFont("Helvetica-Bold", 11)
        c.drawString(140, 658, "same vocabulary")
        c.setFont("Helvetica", 11)
        c.drawString(230, 658, " of words.")

    text, _, _ = read_pdf(pdf_with(draw))
    assert [" ".join(s.text.split()) for s in split_sentences(text)] == [
        "A. Models", "We train two models on the same data.",
        "The first one is a transformer and the second one a recurrent network.",
        "Both use the same vocabulary of words."]


def test_a_papers_title_authors_and_addresses_are_lines_of_their_own() -> None:
    def draw(c, i: int) -> None:
        c.setFont("Helvetica-Bold", 16)
        c.drawString(150, 740, "Multilingual Translation at Scale")
        c.setFont("Helvetica", 11)
        for k, line in enumerate(["Ana Lima, Ben Okafor, Chen Wei", "Example University, Department of Computing",
                                  "ana@example.edu ben@example.edu"]):
            c.drawString(150, 715 - 14 * k, line)
        c.setFont("Helvetica-Bold", 11)
        c.drawString(72, 660, "Abstract")
        c.setFont("Helvetica", 11)
        c.drawString(72, 646, "We train one model for one hundred languages. It matches")
        c.drawString(72, 632, "bilingual baselines on most pairs.")

    text, _, _ = read_pdf(pdf_with(draw))
    assert [" ".join(s.text.split()) for s in split_sentences(text)] == [
        "Multilingual Translation at Scale", "Ana Lima, Ben Okafor, Chen Wei",
        "Example University, Department of Computing", "ana@example.edu ben@example.edu", "Abstract",
        "We train one model for one hundred languages.", "It matches bilingual baselines on most pairs."]


def test_a_generated_two_column_paper_gives_prose_only_as_quotable_sentences() -> None:
    from graphrag.answer.reader.rank import quotable
    from paper_pdf import BODY_SENTENCES, NOT_PROSE, paper_pdf

    text, _, layout = read_pdf(paper_pdf())
    sentences = [" ".join(s.text.split()) for s in split_sentences(text)]
    assert [s for s in sentences if s in BODY_SENTENCES] == BODY_SENTENCES  # each once, in reading order
    quotable_lines = [s for s in sentences if quotable(s)]
    assert quotable_lines == BODY_SENTENCES, [s for s in quotable_lines if s not in BODY_SENTENCES]
    assert not [s for s in sentences for junk in NOT_PROSE if junk in s and quotable(s)]
    assert "arXiv" not in text and "Proceedings" not in text
    (note,) = layout.notes
    assert STAMP in note and "references and links (References; page 1)" in note
