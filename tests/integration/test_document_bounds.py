"""One bound on a document's text, whatever its format, counted while the file is read.

Before: a 17 KB PDF whose pages share one content stream read as 9.5 M characters (71 s, 1.9 GB), a
68 KB DOCX unpacked to 14 M characters and its ingest had stored nothing after 180 s, while a
178 KB text file (a Wikipedia article flattened to text) was refused by a 100,000-byte cap.
Now every reader counts page by page or paragraph by paragraph and stops at
GRAPHRAG_MAX_DOCUMENT_CHARS, naming the count and the limit; text files follow the same bound.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from doc_helpers import LINE, docx_bomb, docx_bytes, docx_with_body, html_page, shared_stream_pdf
from graphrag.config import MAX_DOCUMENT_CHARS, Config
from graphrag.ingest.documents import Rejected, Source, collect, source_from_bytes
from graphrag.ingest.readers import ReadError, TooMuchText, read_document
from graphrag.ingest.uploads import Upload, prepare_uploads

# heavy (writes and reads a document of every format past the bound): no model or server, but too slow for the loop while editing.
pytestmark = [pytest.mark.unit, pytest.mark.heavy]

LIMIT_MESSAGE = re.compile(r"the document holds (more than [\d,]+ characters of text \(([\d,]+) by (page|paragraph|"
                           r"block) [\d,]+|([\d,]+) characters of text).*the limit is ([\d,]+) characters")


def count_and_limit(message: str) -> tuple[int, int]:
    m = LIMIT_MESSAGE.search(message)
    assert m, message
    return int((m.group(2) or m.group(4)).replace(",", "")), int(m.group(5).replace(",", ""))


# --- each reader stops at the bound, with the count and the limit -------------------------------------------------

BIG = {  # (file name, bytes) each holding about 60,000 characters of text
    "pdf": ("shared.pdf", lambda: shared_stream_pdf(13)),
    "docx": ("bomb.docx", lambda: docx_bomb(60)),
    "html": ("page.html", lambda: html_page(60)),
    "text": ("notes.md", lambda: (LINE + "\n").encode() * 800),
}


@pytest.mark.parametrize("kind", sorted(BIG))
def test_every_format_is_refused_past_the_bound_with_the_count_and_the_limit(kind: str) -> None:
    name, make = BIG[kind]
    data = make()
    item = source_from_bytes("d", data, name, None, ("public",), None, max_chars=20_000)
    assert isinstance(item, Rejected), kind
    if kind == "text":
        assert "characters" in item.reason and "limit is 20,000" in item.reason
    else:
        count, limit = count_and_limit(item.reason)
        assert limit == 20_000 and 20_000 < count < 25_000, item.reason  # it stopped soon after the bound
    assert "GRAPHRAG_MAX_DOCUMENT_CHARS" in item.reason and "split it" in item.reason
    fits = source_from_bytes("d", data, name, None, ("public",), None, max_chars=200_000)
    assert isinstance(fits, Source) and 50_000 < len(fits.text) <= 200_000, kind


def test_uploads_follow_the_same_bound() -> None:
    class NoDocuments:
        def current_document(self, doc_id: str) -> None:
            return None

    items = prepare_uploads([Upload(name, make()) for name, make in BIG.values()], NoDocuments(),
                            viewer_access=("public",), labels=("public",), max_chars=20_000)
    assert all(isinstance(x, Rejected) and "limit is 20,000 characters" in x.reason for x in items)


def test_files_on_disk_follow_the_configured_bound(tmp_path: Path) -> None:
    for name, make in BIG.values():
        (tmp_path / name).write_bytes(make())
    items = collect([tmp_path], max_chars=20_000).items
    assert len(items) == 4 and all(isinstance(x, Rejected) and "20,000" in x.reason for x in items)
    assert all(isinstance(x, Source) for x in collect([tmp_path]).items)  # the default bound takes them


def test_a_wikipedia_sized_text_file_is_read_now() -> None:
    """178 KB of text (a 26-page article flattened) was refused by the 100,000-byte cap; its PDF was not."""
    data = (LINE + "\n").encode() * 2_400  # 182,400 bytes
    item = source_from_bytes("article", data, "article.txt", None, ("public",), None)
    assert isinstance(item, Source) and len(item.text) > 178_000


def test_the_limit_is_a_setting_and_takes_a_300_page_manual() -> None:
    assert Config().max_document_chars == MAX_DOCUMENT_CHARS
    assert Config.from_env({"GRAPHRAG_MAX_DOCUMENT_CHARS": "5000000"}).max_document_chars == 5_000_000
    # Measured: a 297-page manual (10-point body, letter pages, built with reportlab) reads as 1,198,476
    # characters, 4,035 a page; a Wikipedia article printed to PDF holds about 6,800 a page.
    assert MAX_DOCUMENT_CHARS >= 300 * 6_500


def test_a_docx_of_millions_of_empty_elements_is_refused_before_it_is_parsed() -> None:
    data = docx_with_body("<w:p/>" * 3_000_000)  # 18 MB of XML in 30 KB: no text, but a tree of 3 M elements
    t0 = time.perf_counter()
    with pytest.raises(ReadError, match="times larger than it is packed"):  # from the ZIP directory, unread
        read_document(data, ".docx")
    assert time.perf_counter() - t0 < 10


def test_a_docx_of_many_plain_paragraphs_reads_in_seconds() -> None:
    """Before: python-docx looked the default style up for each paragraph without one (10 ms each):
    5,000 plain paragraphs took 75 s."""
    data = docx_with_body("<w:p><w:r><w:t>Exports are kept.</w:t></w:r></w:p>" * 5_000)
    t0 = time.perf_counter()
    read = read_document(data, ".docx")
    assert time.perf_counter() - t0 < 10 and read.text.count("Exports are kept.") == 5_000
    styled = read_document(docx_bytes([("Heading 1", "Refunds"), ("Normal", "Refunds take 14 days.")]), ".docx")
    assert styled.layout.blocks[1].heading_path == "Refunds"  # headings still come from the style


def test_html_with_too_many_tags_is_refused_before_parsing() -> None:
    with pytest.raises(ReadError, match="tags; the limit is"):
        read_document(b"<html><body>" + b"<b>x</b>" * 400_000 + b"</body></html>", ".html")


def test_the_final_text_is_held_to_the_bound_too() -> None:
    with pytest.raises(TooMuchText):
        read_document(html_page(30), ".html", max_chars=10_000)


def test_html_nested_thousands_deep_is_refused_with_a_message(tmp_path: Path) -> None:
    """Before: a RecursionError out of the reader, which stopped the whole folder's ingest."""
    deep = b"<html><body>" + b"<div>" * 20_000 + b"Deep text." + b"</div>" * 20_000 + b"</body></html>"
    (tmp_path / "deep.html").write_bytes(deep)
    (tmp_path / "fine.md").write_bytes(LINE.encode())
    items = {x.id: x for x in collect([tmp_path]).items}
    assert isinstance(items["deep"], Rejected) and "nests its elements too deeply" in items["deep"].reason
    assert isinstance(items["fine"], Source)
