"""Every bound on reading a document besides its text, in one place, with why each value.

The character limit (GRAPHRAG_MAX_DOCUMENT_CHARS, counted by ``budget.CharBudget``) bounds the text a
document keeps. What a reader does to find that text is bounded here: a DOCX archive's parts, their bytes,
compression and XML elements; HTML markup; a PDF's pages, the objects and glyphs each page draws and the
time spent on them; the words the parser will be given. Each format checks them in one function, before its
parser loads anything whole: ``word.check_archive``, ``webpage.check_markup``, ``pdf_survey`` (run in a child
process with a memory and time ceiling, since PDFium parses a page's content before anything can be counted),
``picture_child`` (pictures are decoded only in such a child, after their headers are checked) and
``budget.check_words`` for the text of every format. The target they serve: any file up to the upload
limit (50 MB) is refused or read within about 20 s and 1 GB; the values were measured with hostile files
(tests/integration/test_large_documents.py) and a real 300-page manual.
"""

from __future__ import annotations

from dataclasses import dataclass

MB = 1_000_000


@dataclass(frozen=True)
class ReadLimits:
    """The declared bounds; ``LIMITS`` is the one set the readers use (tests pass smaller ones)."""

    # --- DOCX: a ZIP archive, checked from its central directory before any part is unpacked. zipfile never
    # unpacks past the size the directory declares (a part that would is a CRC error), so the directory is
    # trusted. python-docx reads every part into memory and parses each XML part into a tree.
    docx_parts: int = 2_000  # Word writes 10 to 30 parts; one more per picture or embedded object
    docx_unpacked: int = 200 * MB  # all parts together: python-docx holds each one's bytes at once
    docx_body_bytes: int = 64 * MB  # word/document.xml: a 300-page manual's is 5 to 15 MB
    docx_xml_part_bytes: int = 16 * MB  # any other XML part (styles, numbering, headers, notes): Word's are under 1 MB
    docx_binary_part_bytes: int = 64 * MB  # a picture or embedded file (never parsed, only held)
    # A part that packs more than this many times smaller is a bomb: Word's XML packs 5 to 20 times (a
    # 150 MB styles.xml packed 300 times into 509 KB took 156 s and 2.2 GB). Parts under the floor are
    # too small to matter whatever their ratio.
    docx_ratio: int = 100
    docx_ratio_floor: int = 1 * MB
    # XML elements of any part but the body (whose bound is the character limit: a document's text needs
    # fewer elements than characters): lxml keeps about 150 bytes an element; Word's styles.xml has about
    # 5,000, a long document's footnotes tens of thousands.
    docx_part_elements: int = 500_000

    # --- HTML: BeautifulSoup keeps a Python object per element (298,000 took 381 MB and 38 s), so the element
    # count bounds its memory and time; markup may be larger than its text (tags, attributes) by this factor.
    html_elements: int = 150_000
    html_markup_per_char: int = 3

    # --- PDF: PDFium parses a whole page's content when the page is loaded (a 122 KB file with one page of
    # 2.5 M drawing operators took 1.7 s and 714 MB), so every page is first loaded in a child process under
    # these ceilings, and the reader proper only loads pages that passed.
    pdf_pages: int = 2_000
    pdf_page_objects: int = 100_000  # drawn objects on one page (about 30 MB in PDFium); a dense map has 20,000
    pdf_page_glyphs: int = 100_000  # a page of 6-point text holds 15,000
    pdf_page_seconds: float = 3.0  # processor time to load one page and its text; a dense page takes 0.05 s
    pdf_survey_seconds: float = 20.0  # processor time for the whole check; 2,000 plain pages take about 10 s
    pdf_survey_wall_seconds: float = 90.0  # the same by the clock, for a loaded machine
    pdf_survey_memory: int = 800 * MB  # the child's address space: PDFium past it fails (the reader process beside it stays under 200 MB)
    # Processor time for the reader proper (characters and boxes); a 1.06 M-character manual took 12.2 s of it
    # (54 s by the clock on the loaded machine), so this only stops what the counts above missed.
    pdf_read_seconds: float = 120.0

    # --- every format's text: the parser's work is per word, not per character. English runs about 6
    # characters a word, tables of figures 3; a run of one glyph and a space is 2 ("A A A ..."), which made
    # a 4 KB PDF cost as much parsing as a 4 M-character book. The bound is a share of the character limit.
    chars_per_word: int = 3

    # --- OCR (``ocr``): a page without a text layer is rendered and read by the OCR engine, which takes seconds a
    # page (17 to 31 s by the clock for an A4 page at 150 dots an inch on this 2-core machine under a heavy load). A document's OCR
    # pages, each page's pixels, and the time per page and in all are bounded; an image upload's size too,
    # before it is decoded (a 20,000 x 20,000 picture is 1.2 GB of pixels).
    ocr_pages: int = 100  # pages read by OCR in one document (a scan of 2,000 blank pages is refused at once)
    ocr_dpi: int = 150  # render scale: body text at 10 points is about 20 pixels high, what the recogniser needs
    ocr_page_pixels: int = 6_000_000  # rendered pixels a page at most (an A4 page at 150 dpi is 2.2 M)
    # Processor time (the process's, the engine's threads included: the clock would refuse pages on a loaded
    # machine, where one took 61 s by the clock at a load of 29 on 2 cores).
    ocr_page_seconds: float = 60.0  # for one page's OCR
    ocr_seconds: float = 900.0  # for a document's OCR in all
    image_pixels: int = 40_000_000  # an uploaded picture's width x height (a 600 dpi A4 scan is 35 M)
    # A line the recogniser is less sure of than this is kept out of the citable text and listed in the reading
    # report: on the test scans (rendered, turned and speckled) every real line scored over 0.8, specks and
    # smudges read as a letter or two under 0.6.
    ocr_confidence_floor: float = 0.6

    # --- pictures (``picture_child``): an upload's frames are decoded, and a scanned page drawn for OCR, only in a
    # child process under these ceilings, after every frame's header (size, colour mode, frame count) and a JPEG's
    # scans are checked. A decoder's time need not follow the file's size (a 0.7 MB progressive JPEG of 10,000
    # scans took 36 s), nor its memory the first frame's (a TIFF's later frames).
    jpeg_scans: int = 100  # scans in one JPEG picture: each is a pass over the whole picture; encoders write about 10
    # (libtiff stops at 100 too); 99 scans of 40 M pixels took 3.9 s
    picture_frame_seconds: float = 20.0  # processor time to decode one page and store it losslessly (40 M pixels of
    # noise, the worst a photo can be: about 10 s; a 300 dpi A4 page of text: 0.1 s)
    picture_seconds: float = 300.0  # for all of an upload's pages (21 pages of 40 M blank pixels: about 18 s)
    picture_render_seconds: float = 15.0  # to draw one scanned page for OCR (a picture of 40 M pixels: about 2 s)
    picture_memory: int = 1_500 * MB  # the child's address space (a 40 M-pixel photo of noise needs 1.2 GB of it)
    picture_wall_seconds: float = 900.0  # the upload's decoding by the clock, for a loaded machine
    picture_render_wall_seconds: float = 90.0  # one page's drawing by the clock

    # --- tables: each row is read with its header's labels (``tables``), so a row's text grows with the table's
    # width; past this many columns a row keeps its cells only. Real tables have a few to a few dozen.
    table_columns: int = 64


LIMITS = ReadLimits()
