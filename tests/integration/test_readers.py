"""Readers for PDF, HTML and DOCX: text in reading order, pages and boxes, heading paths, bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doc_helpers import PDF_PATH, SAMPLE, docx_bytes, generator, iou, pdf_with, scanned_pdf
from graphrag.ingest.readers import ReadError, read_document
from graphrag.ingest.readers.pdf import read_pdf
from graphrag.language.sentences import split_sentences

# heavy (draws and reads PDF, DOCX and HTML files, and feeds the readers arbitrary bytes): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]


@pytest.fixture(scope="module")
def handbook():
    read = read_document(PDF_PATH.read_bytes(), ".pdf")
    sentences = split_sentences(read.text)
    return read, sentences, {s.index: read.layout.span_layout(s.start, s.end) for s in sentences}


def test_committed_sample_files_are_what_the_generator_makes() -> None:
    gen = generator()
    assert PDF_PATH.read_bytes() == gen.make_pdf()
    assert (SAMPLE / gen.DOCX_NAME).read_bytes() == gen.make_docx()
    assert (SAMPLE / gen.HTML_NAME).read_text(encoding="utf-8") == gen.HTML_PAGE


def test_every_sentence_box_covers_its_glyphs_on_the_right_page(handbook) -> None:
    _, sentences, layouts = handbook
    expected = generator().expected_boxes()
    assert len(sentences) == len(expected), "every sentence the generator wrote is found, and no other"
    checked = 0
    for s in sentences:
        key = " ".join(s.text.split())
        assert key in expected, f"sentence not in the generated PDF: {key!r}"
        got, want = layouts[s.index].boxes, expected[key]
        assert [b[0] for b in got] == [b[0] for b in want], key  # pages exact, one box per line
        for g, w in zip(got, want):
            assert iou(g[1:], w[1:]) >= 0.9, (key, g, w)
            checked += 1
    assert checked >= 60


def test_pages_labels_and_the_page_break(handbook) -> None:
    read, sentences, layouts = handbook
    assert [(p.number, p.label, p.width, p.height) for p in read.layout.pages] == [
        (1, "i", 612, 792), (2, "1", 612, 792), (3, "2", 612, 792), (4, "3", 612, 792)]
    by_text = {" ".join(s.text.split()): layouts[s.index] for s in sentences}
    notify = by_text["Larkspur notifies affected customers within 72 hours of confirming a security incident."]
    assert (notify.page, notify.page_end, notify.page_label, notify.page_text) == (3, None, "2", "p. 2")
    crossing = next(v for k, v in by_text.items() if k.startswith("Incident records are stored apart"))
    assert (crossing.page, crossing.page_end, crossing.page_text) == (3, 4, "pp. 2–3")  # printed labels
    assert {b[0] for b in crossing.boxes} == {3, 4}
    title = by_text["Larkspur Security Handbook"]
    assert (title.page, title.page_label) == (1, "i")


def test_two_column_page_reads_column_by_column_and_joins_hyphens(handbook) -> None:
    read, sentences, layouts = handbook
    text = " ".join(read.text.split())
    # Left column first, then right: the sentence that runs from the left column's foot into the
    # right column's head is one sentence, with boxes in both columns.
    order = ["A security incident is any event", "Larkspur notifies affected customers",
             "During the investigation the security team", "A written report follows", "Customers on the Enterprise"]
    positions = [text.index(p) for p in order]
    assert positions == sorted(positions)
    crossing = next(s for s in sentences if s.text.startswith("During the investigation"))
    xs = {round(b[1]) for b in layouts[crossing.index].boxes}
    assert min(xs) == 72 and max(xs) == 316  # left column and right column
    assert "security team" in " ".join(crossing.text.split())  # "secu-" + "rity": hyphen joined
    assert "secu-" not in text


def test_running_header_and_page_numbers_are_not_in_the_text(handbook) -> None:
    read, sentences, _ = handbook
    assert "2026 edition" not in read.text
    assert all(s.text.strip() not in {"i", "1", "2", "3"} for s in sentences)


def test_wikipedia_like_page_number_footer_gives_the_printed_label() -> None:
    def draw(c, i):
        c.setFont("Helvetica", 9)
        c.drawString(72, 30, "https://example.org/wiki/Larkspur")
        c.drawRightString(540, 30, f"{i + 1}/3")
        c.setFont("Helvetica", 11)
        c.drawString(72, 700, f"Body text on sheet {i + 1} says something useful.")

    read = read_document(pdf_with(draw, pages=3), ".pdf")
    assert "example.org" not in read.text and "/3" not in read.text
    assert [p.label for p in read.layout.pages] == ["1", "2", "3"]


def test_a_table_cell_year_near_the_foot_is_not_a_page_number() -> None:
    def draw(c, i):
        c.setFont("Helvetica", 11)
        c.drawString(72, 700, "The plan started in the year below.")
        c.drawString(72, 40, "2011" if i == 1 else "Other text")

    read = read_document(pdf_with(draw, pages=3), ".pdf")
    assert "2011" in read.text
    assert [p.label for p in read.layout.pages] == [None, None, None]


@pytest.mark.parametrize(("make", "suffix", "message"), [
    (lambda: pdf_with(lambda c, i: c.drawString(72, 700, "Secret."), encrypt=_encryption("pw")), ".pdf",
     "encrypted: this PDF needs a password"),
    (scanned_pdf, ".pdf", "no text found: this PDF has no text layer, and OCR found no line to read"),
    (lambda: PDF_PATH.read_bytes()[: len(PDF_PATH.read_bytes()) // 2], ".pdf", "corrupt or truncated PDF"),
    (lambda: b"%PDF-1.7\n" + bytes(range(256)) * 20, ".pdf", "corrupt or truncated PDF"),
    (lambda: b"<html><body><p>Hello.</p></body></html>", ".pdf", "the extension says PDF but it looks like an HTML"),
    (lambda: PDF_PATH.read_bytes(), ".docx", "the extension says DOCX but it looks like a PDF"),
    (lambda: PDF_PATH.read_bytes(), ".html", "the extension says HTML but it looks like a PDF"),
    (lambda: b"PK\x03\x04" + b"\x00" * 200, ".docx", "the extension says DOCX but it looks like a ZIP"),
    (lambda: docx_bytes([("Normal", "x")])[:900], ".docx", "corrupt or truncated DOCX"),
    (lambda: b"   ", ".pdf", "empty file"),
])
def test_bad_input_is_rejected_with_its_reason(make, suffix, message) -> None:
    with pytest.raises(ReadError) as err:
        read_document(make(), suffix)
    assert message in str(err.value)


def _encryption(password: str):
    from reportlab.lib import pdfencrypt

    return pdfencrypt.StandardEncryption(password)


def test_owner_password_only_pdf_is_read() -> None:
    from reportlab.lib import pdfencrypt

    data = pdf_with(lambda c, i: c.drawString(72, 700, "Readable without a password."),
                    encrypt=pdfencrypt.StandardEncryption("", ownerPassword="owner"))
    assert read_document(data, ".pdf").text == "Readable without a password."


def test_page_and_character_limits() -> None:
    data = PDF_PATH.read_bytes()
    with pytest.raises(ReadError, match="the PDF has 4 pages; the limit is 3: split it"):
        read_pdf(data, max_pages=3)
    with pytest.raises(ReadError, match=r"page 1 holds [\d,]+ characters; the limit is 100 per page"):
        read_pdf(data, max_chars_per_page=100)


def test_a_page_without_text_among_others_is_noted() -> None:
    def draw(c, i):
        if i == 0:
            c.drawString(72, 700, "Only the first page has text.")

    read = read_document(pdf_with(draw, pages=2), ".pdf")
    assert read.text == "Only the first page has text."
    assert read.layout.notes[1:] == (
        "1 of 2 pages have no text layer and no picture (drawings only) and were skipped",)


def test_html_keeps_text_and_heading_paths_and_drops_active_content() -> None:
    read = read_document((SAMPLE / "billing-help.html").read_bytes(), ".html")
    text = read.text
    for gone in ("document.title", "tracking", "alert", "font-family", "Help centre |", "chat-widget", "Copyright"):
        assert gone not in text
    assert read.title == "Refunds and invoices"
    sentences = {s.text: read.layout.span_layout(s.start, s.end) for s in split_sentences(text)}
    annual = sentences["Annual plans can be refunded within 14 days of the first payment."]
    assert annual.heading_path == "Refunds > Annual plans" and annual.page is None and annual.boxes == ()
    assert sentences["Monthly plans are not refunded."].heading_path == "Refunds > Monthly plans"
    assert sentences["Invoices"].heading_path == "Invoices"
    intro = sentences["This page explains when Larkspur refunds a payment and how invoices are corrected."]
    assert intro.heading_path is None and intro.paragraph == 1


def test_html_with_no_text_is_rejected() -> None:
    with pytest.raises(ReadError, match="no text once scripts"):
        read_document(b"<html><head><script>x()</script></head><body><iframe src=a></iframe></body></html>", ".html")


def test_docx_heading_paths_and_paragraph_numbers() -> None:
    read = read_document((SAMPLE / "sso-setup.docx").read_bytes(), ".docx")
    assert read.title == "Setting up single sign-on"
    got = {s.text: read.layout.span_layout(s.start, s.end) for s in split_sentences(read.text)}
    first = got["Single sign-on can be set up by the account owner only."]
    assert (first.heading_path, first.paragraph) == ("Before you start", 2)
    saml = got["Larkspur reads the signing certificate from the metadata."]
    assert (saml.heading_path, saml.paragraph) == ("Connecting the identity provider > SAML 2.0", 6)
    assert read.layout.notes == ()


def test_docx_tracked_changes_and_pictures_are_read_with_a_note() -> None:
    data = docx_bytes([("Heading 1", "Refunds"), ("Normal", "Annual plans are refundable.")], tracked=True,
                      picture=True)
    read = read_document(data, ".docx")
    assert "Refunds are issued within 14 days." in read.text  # insertion accepted
    assert "within 30 days" not in read.text  # deletion left out
    assert read.layout.notes == ("2 tracked changes read as accepted (insertions kept, deletions left out)",
                                 "1 embedded objects or images not read (text only)")


def test_a_pdf_table_row_reads_with_its_header_and_is_boxed_on_its_cells() -> None:
    rows = [("Year", "Title", "Role"), ("2011", "Black Mirror", "Selma"), ("2012", "Whitechapel", "Roxy"),
            ("2014", "Happy Valley", "Justine")]

    def draw(c, i):
        c.setFont("Helvetica", 11)
        c.drawString(72, 720, "She appeared in these series, listed in the table below.")
        for r, cells in enumerate(rows):
            for x, cell in zip((72, 250, 430), cells):
                c.drawString(x, 690 - 16 * r, cell)

    read = read_document(pdf_with(draw), ".pdf")
    # the header stays a row of cells; every row under it is a statement of its own that carries the header
    assert ("the table below.\n\nYear\tTitle\tRole\n\nYear: 2011; Title: Black Mirror; Role: Selma.\n\n"
            "Year: 2012; Title: Whitechapel; Role: Roxy.") in read.text
    start = read.text.index("Year: 2012")
    lay = read.layout.span_layout(start, read.text.index("Roxy.") + 5)
    assert lay is not None and lay.page == 1
    [(page, x0, y0, x1, y1)] = lay.boxes  # the row's own cells, not the labels' (they are not printed there)
    baseline = 792 - (690 - 16 * 2)  # the 2012 row's, from the page's top
    assert page == 1 and 70 <= x0 <= 74 and 440 < x1 < 470 and baseline - 12 < y0 < baseline < y1
    assert read.layout.kind_at(start) == "row"
    assert "1 table: 3 rows read as statements (each row with its header)" in read.layout.notes


def test_benchmark_pdf_is_read_in_order_without_its_furniture() -> None:
    from lab.bench import _bench_text, bench_pdf

    read = read_document(bench_pdf(3), ".pdf")
    text = " ".join(read.text.split())
    assert "operations handbook" not in text
    assert [p.label for p in read.layout.pages] == ["1", "2", "3"]
    # Page 3 is in two columns: its sentences come in the order they were written.
    found = [text.index(t) for n in range(80) if (t := _bench_text(2, n)) in text]
    assert len(found) >= 45 and found == sorted(found)  # both columns, each sentence whole


def test_ligatures_read_as_their_letters() -> None:
    import os

    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    # Bitstream Vera ships inside reportlab: an embedded TrueType font with the "ﬁ" and "ﬂ" glyphs.
    pdfmetrics.registerFont(TTFont("Vera", os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")))

    def draw(c, i):
        c.setFont("Vera", 12)
        c.drawString(72, 700, "The \ufb01nal report is \ufb02agged.")

    assert read_document(pdf_with(draw), ".pdf").text == "The final report is flagged."


def test_a_pdf_over_the_page_limit_and_a_page_over_the_character_limit_are_refused() -> None:
    many = pdf_with(lambda c, i: c.drawString(72, 700, "x"), pages=2001)
    with pytest.raises(ReadError, match="the PDF has 2,001 pages; the limit is 2,000: split it"):
        read_document(many, ".pdf")

    def dense(c, i):
        c.setFont("Helvetica", 1)
        for row in range(700):
            c.drawString(10, 780 - row, "abcdefghij" * 16)  # 112,000 characters on one page

    with pytest.raises(ReadError, match=r"page 1 holds 11\d,\d{3} characters; the limit is 100,000 per page"):
        read_document(pdf_with(dense), ".pdf")


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=3000), st.sampled_from([".pdf", ".docx", ".html"]), st.integers(0, 8000))
def test_any_bytes_are_read_or_rejected_with_a_reason(noise: bytes, suffix: str, cut: int) -> None:
    """Random bytes, alone or spliced into a real file, never crash a reader with another error."""
    real = {".pdf": PDF_PATH, ".docx": SAMPLE / "sso-setup.docx", ".html": SAMPLE / "billing-help.html"}[suffix]
    data = real.read_bytes()
    for blob in (noise, data[:cut] + noise + data[cut + len(noise):]):
        try:
            read = read_document(blob, suffix)
        except ReadError as exc:
            assert str(exc)
            continue
        for s in split_sentences(read.text):  # whatever is read maps back onto its layout
            lay = read.layout.span_layout(s.start, s.end)
            assert lay is None or all(b[1] <= b[3] and b[2] <= b[4] for b in lay.boxes)


def test_an_html_table_row_reads_with_its_header() -> None:
    page = (b"<html><body><h2>Plans</h2><table><tr><th>Plan</th><th>Refund</th></tr>"
            b"<tr><td>Annual</td><td>within 14 days</td></tr><tr><td>Monthly</td><td>none</td></tr></table>"
            b"</body></html>")
    read = read_document(page, ".html")
    assert read.text == "Plans\n\nPlan\tRefund\n\nPlan: Annual; Refund: within 14 days.\n\nPlan: Monthly; Refund: none."
    assert [b.heading_path for b in read.layout.blocks] == ["Plans"] * 4
    assert [b.kind for b in read.layout.blocks] == ["body", "body", "row", "row"]
    assert read.layout.notes == ("1 table: 2 rows read as statements (each row with its header)",)


def test_a_table_without_a_worded_header_is_read_a_row_a_block() -> None:
    page = b"<html><body><table><tr><td>2011</td><td>12</td></tr><tr><td>2012</td><td>14</td></tr></table></body></html>"
    read = read_document(page, ".html")
    assert read.text == "2011 12\n\n2012 14" and read.layout.notes == ()
