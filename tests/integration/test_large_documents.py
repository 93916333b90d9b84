"""A long manual is read whole under the default bound. Minutes on a loaded machine, so it runs in the full suite,
not in the unit tier (the bound's refusals, which stop within seconds, stay in tests/unit/ingest/test_document_bounds.py)."""

from __future__ import annotations

import pytest

from doc_helpers import shared_stream_pdf
from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers import read_document


@pytest.mark.slow
def test_a_300_page_manual_is_read_under_the_default_bound() -> None:
    """300 pages of 53 lines, 3,500 characters a page: 1.06 M characters (210 s on the loaded 2-core machine)."""
    read = read_document(shared_stream_pdf(300, lines=53), ".pdf")
    assert len(read.layout.pages) == 300 and 1_000_000 < len(read.text) < MAX_DOCUMENT_CHARS
