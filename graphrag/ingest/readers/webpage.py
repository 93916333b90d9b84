"""HTML reader: the page's main text as plain text, each block with its heading path.

BeautifulSoup (with lxml) parses; scripts, styles, iframes, forms, navigation and other
non-content elements are dropped, and nothing but text leaves this module (the dashboard never
renders a document's HTML). The main text is the page's <main> or <article> when it has one,
else its <body>. When the page has exactly one <h1>, it is the title, not part of heading paths.
A table with a worded header row is read row by row, each row one paragraph that carries its header
("Plan: Enterprise; Price per seat: 40 EUR", ``tables``); any other table a row a block, cells apart.
"""

from __future__ import annotations

import re
import warnings

from bs4 import (
    BeautifulSoup,
    MarkupResemblesLocatorWarning,
    XMLParsedAsHTMLWarning,
)
from bs4.element import Comment, NavigableString, Tag

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.budget import CharBudget
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import HTML, Layout, join_blocks, sha256_bytes
from graphrag.ingest.readers.limits import LIMITS, ReadLimits
from graphrag.ingest.readers.tables import ROW, TableTally, clean, has_header, row_statement, too_wide
from graphrag.language.sentences import without_footnote_marks

_DROP = {"script", "style", "iframe", "frame", "frameset", "noscript", "template", "object", "embed", "svg",
         "canvas", "form", "button", "select", "textarea", "input", "nav", "head", "meta", "link", "audio", "video",
         "map", "dialog"}
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_CELLS = {"td", "th"}  # a table row is one block, its cells separated by spaces
_CAPTIONS = {"caption", "figcaption"}
_CAPTION = "caption"  # Block.kind of a caption (as the PDF reader's LineKind.CAPTION)
_BLOCKS = {"p", "li", "dt", "dd", "blockquote", "pre", "caption", "figcaption", "address", "summary",
           "div", "section", "article", "main", "aside", "header", "footer", "ul", "ol", "dl", "table", "tr",
           "tbody", "thead", "body", "html", "details", "figure", *(_HEADINGS)}
_SPACES = re.compile(r"\s+")
def _row_cells(tr: Tag) -> list[str]:
    """A table row's cells by column: a cell spanning columns fills the first and leaves the rest empty."""
    out: list[str] = []
    for cell in tr.find_all(list(_CELLS), recursive=False):
        out.append(" ".join(cell.get_text(" ").split()))
        span = str(cell.get("colspan") or "1")
        out.extend([""] * (min(int(span), LIMITS.table_columns + 1) - 1 if span.isdigit() and int(span) > 1 else 0))
    return out


def _own_rows(table: Tag) -> list[Tag]:
    """A table's rows, its sections' included, not those of a table nested in a cell."""
    return [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]


def _table_rows(table: Tag, tally: TableTally) -> list[tuple[str, str]] | None:
    """A table with a worded header row as (text, kind) paragraphs: the header's cells apart with tabs, then
    each row as a statement carrying the header (``tables.row_statement``). None for any other table (no
    header, a single row, or wider than the column bound): the walk reads it as before, a row a block."""
    rows = _own_rows(table)
    if len(rows) < 2:
        return None
    columns = max(len(tr.find_all(list(_CELLS), recursive=False)) for tr in rows)
    if too_wide(columns):
        tally.wide += 1
        tally.widest = max(tally.widest, columns)
        return None
    header = _row_cells(rows[0])
    if not has_header(header):
        return None
    tally.tables += 1
    out = [("\t".join(clean(h) for h in header if clean(h)), "body")]
    for tr in rows[1:]:
        if statement := row_statement(header, _row_cells(tr)):
            out.append((statement, ROW))
            tally.rows += 1
    return out


def check_markup(text: str, max_chars: int, limits: ReadLimits = LIMITS) -> None:
    """Every HTML bound before BeautifulSoup parses: the markup's size (a multiple of the character limit)
    and its elements (BeautifulSoup keeps a Python object each); nesting depth is bounded by the walk."""
    most = limits.html_markup_per_char * max_chars
    if len(text) > most:
        raise ReadError(f"the HTML file has {len(text):,} characters of markup; the limit is {most:,} "
                        f"({limits.html_markup_per_char} times the {max_chars:,}-character limit on a document's "
                        "text): split it")
    tags = text.count("<") - text.count("</")  # opening tags: an upper bound on the elements
    if tags > limits.html_elements:
        raise ReadError(f"the HTML file has {tags:,} tags; the limit is {limits.html_elements:,} elements: split it")


def read_html(data: bytes, text: str | None = None, max_chars: int = MAX_DOCUMENT_CHARS
              ) -> tuple[str, str | None, Layout]:
    """(text, title, layout). ``text`` is the decoded file when the caller already decoded it. The
    markup is refused before parsing when it is too large or has too many tags, and the text block
    by block once it passes ``max_chars`` characters."""
    if text is None:
        text = data.decode("utf-8", errors="replace")
    check_markup(text, max_chars)
    budget = CharBudget(max_chars)
    with warnings.catch_warnings():  # a short page that looks like a file name or URL is still a page
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)  # XHTML is read as HTML on purpose
        soup = BeautifulSoup(text, "lxml")
    if soup.find(True) is None:
        raise ReadError("not HTML: no elements found; rename it to .txt if it is plain text")
    title_tag = soup.find("title")
    title = " ".join(title_tag.get_text(" ").split()) if title_tag else None
    for el in soup.find_all(list(_DROP)):
        el.decompose()
    for c in soup.find_all(string=lambda s: isinstance(s, Comment)):
        c.extract()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    h1s = root.find_all("h1")
    skip_h1 = len(h1s) == 1
    if skip_h1:
        title = " ".join(h1s[0].get_text(" ").split()) or title

    blocks: list[tuple[str, str, str]] = []  # (text, heading path, kind)
    path: list[tuple[int, str]] = []
    buf: list[str] = []
    tally = TableTally()

    def flush(kind: str = "body") -> None:
        # footnote marks ("[12]", a Wikipedia reference's <sup>) out, as every reader takes them (graphrag.language.sentences)
        t = without_footnote_marks(_SPACES.sub(" ", "".join(buf)).strip())
        buf.clear()
        if t:
            budget.add(len(t) + 2, f"block {len(blocks) + 1:,}")
            blocks.append((t, " > ".join(h for _, h in path), kind))

    def walk(node: Tag) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                buf.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name.lower()
            if name in _HEADINGS:
                flush()
                level = _HEADINGS[name]
                heading = " ".join(child.get_text(" ").split())
                while path and path[-1][0] >= level:
                    path.pop()
                if not (skip_h1 and level == 1):
                    path.append((level, heading))
                    if heading:  # a heading's own path ends with itself
                        budget.add(len(heading) + 2, f"block {len(blocks) + 1:,}")
                        blocks.append((heading, " > ".join(h for _, h in path), "body"))
                continue
            if name == "br":
                buf.append(" ")
                continue
            if name == "table" and (rows := _table_rows(child, tally)) is not None:
                flush()
                for t, kind in rows:
                    budget.add(len(t) + 2, f"table {tally.tables:,}")
                    blocks.append((t, " > ".join(h for _, h in path), kind))
                continue
            if name in _CELLS:
                buf.append(" ")
                walk(child)
                buf.append(" ")
                continue
            if name in _BLOCKS:
                flush()
                walk(child)
                flush(_CAPTION if name in _CAPTIONS else "body")  # a picture's or table's caption says so when cited
            else:
                walk(child)

    try:
        walk(root)
    except RecursionError:  # the walk recurses once per nesting level; real pages nest a few dozen deep
        raise ReadError("the HTML nests its elements too deeply to read (hundreds of levels): it is malformed "
                        "or built to exhaust the reader") from None
    flush()
    if not blocks:
        raise ReadError("the HTML page has no text once scripts, styles and navigation are removed")
    text, spans = join_blocks(blocks)
    note = tally.note()
    return text, title, Layout(HTML, sha256_bytes(data), blocks=spans, notes=(note,) if note else ())
