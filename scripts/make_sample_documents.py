"""Generate the PDF, HTML and DOCX documents of the Larkspur sample corpus.

    python scripts/make_sample_documents.py [--out sample_corpus]

The PDF is laid out here, word by word, with reportlab's canvas (BSD licence), so the box of
every sentence on every line is known exactly: ``pdf_layout()`` returns them, and the tests
compare the boxes the product stores with these. Running the script again gives the same files
byte for byte (fixed creation date, no random ids), so re-ingesting them is a no-op.

The PDF has four pages: a preface labelled "i", then pages labelled 1 to 3; a running header and
a page-number footer on every page; a two-column page (3) whose left column continues mid-sentence
into the right one; a sentence that crosses from page 3 to page 4; and a hyphenated line break.
"""

from __future__ import annotations

import argparse
import io
from dataclasses import dataclass, field
from pathlib import Path

PAGE_W, PAGE_H = 612.0, 792.0  # US letter, points
MARGIN = 72.0
BODY_FONT, BODY_SIZE, LEADING = "Helvetica", 10.5, 14.5
HEAD_FONT, HEAD_SIZE = "Helvetica-Bold", 14.0
TITLE_SIZE = 22.0
HEADER_TEXT = "Larkspur Security Handbook - 2026 edition"
LABELS = ["i", "1", "2", "3"]
PDF_NAME, HTML_NAME, DOCX_NAME = "security-handbook.pdf", "billing-help.html", "sso-setup.docx"

# (kind, text): kind is "title", "heading", "para" or "frame" (go to the next frame). A soft
# hyphen (\u00ad) marks where a word may be broken with a hyphen at the end of a line.
HANDBOOK: list[tuple[str, str]] = [
    ("title", "Larkspur Security Handbook"),
    ("para", ("This handbook describes how Larkspur protects customer workspaces and what customers can expect "
             "when something goes wrong. It applies to every plan from 1 March 2026 and replaces the security "
             "pages of the old FAQ.")),
    ("para", ("Each chapter states a rule first and then explains it. Questions about this handbook go to the "
             "support team.")),
    ("frame", ""),
    ("heading", "Encryption"),
    ("para", ("All traffic between browsers and Larkspur is encrypted with TLS 1.3. Workspace data is encrypted at "
             "rest with AES-256, and encryption keys are rotated every 90 days. Customer-managed keys are available "
             "on the Enterprise plan.")),
    ("heading", "Single sign-on"),
    ("para", ("Single sign-on is available on the Business and Enterprise plans. Larkspur supports SAML 2.0 and "
             "OpenID Connect identity providers. The single sign-on setup guide explains how an owner connects an "
             "identity provider.")),
    ("heading", "Two-factor authentication"),
    ("para", ("Owners can require two-factor authentication for every member of a workspace. Members without a "
             "second factor are asked to add one at their next sign-in.")),
    ("frame", ""),
    ("heading", "Incident response"),
    ("frame", ""),
    ("para", ("A security incident is any event that exposes customer data to someone who should not see it. The "
             "on-call engineer opens an incident record as soon as an alert or a customer report suggests one. "
             "Larkspur notifies affected customers within 72 hours of confirming a security incident. The notice "
             "names the affected work\u00adspaces, the kind of data involved and the steps already taken to contain the "
             "incident. Owners receive the notice by email and on the status page. During the investi\u00adgation "
             "the secu\u00adrity team keeps the in\u00adcident record up to date and posts a sum\u00admary for each affected account "
             "owner every day until the incident is closed. A written report follows within 30 days of closing the "
             "incident, and it lists the root cause and the changes made to pre\u00advent a repeat. Customers on the "
             "Enterprise plan can ask for a call with the secu\u00adrity team to go through the report, and Larkspur "
             "keeps every incident record for three years so that later audits can check how each incident was "
             "handled from the first alert to the final report. Incident records are "
             "stored apart from customer workspaces, and only the security team and the on-call engineer can open "
             "them while an incident is still being investigated.")),
    ("heading", "Access reviews"),
    ("para", ("Larkspur reviews staff access to production systems every quarter. An engineer keeps production "
             "access only while their team needs it.")),
    ("heading", "Audit logs"),
    ("para", ("Audit logs record every sign-in, export and permission change in a workspace. Owners and admins can "
             "download the audit log from the security page. Audit logs are kept for one year, as the retention "
             "policy sets out.")),
]


@dataclass
class Word:
    text: str
    sentence: int
    x: float
    width: float


@dataclass
class PlacedLine:
    page: int  # 1-based
    baseline: float  # from the top of the page
    font: str
    size: float
    words: list[Word] = field(default_factory=list)


@dataclass(frozen=True)
class Frame:
    page: int
    x: float
    top: float
    width: float
    bottom: float


FRAMES = [
    Frame(1, MARGIN, 110, PAGE_W - 2 * MARGIN, PAGE_H - 90),
    Frame(2, MARGIN, 100, PAGE_W - 2 * MARGIN, PAGE_H - 90),
    Frame(3, MARGIN, 100, PAGE_W - 2 * MARGIN, 130),  # the full-width heading above the columns
    Frame(3, MARGIN, 140, 224, 330),  # left column
    Frame(3, MARGIN + 244, 140, 224, 330),  # right column
    Frame(4, MARGIN, 100, PAGE_W - 2 * MARGIN, PAGE_H - 90),
]


def _sentences(text: str) -> list[str]:
    """The paragraph's sentences as the generator knows them (". " followed by a capital or a digit)."""
    out, cur = [], []
    words = text.split(" ")
    for i, w in enumerate(words):
        cur.append(w)
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w.endswith(".") and (not nxt or nxt[:1].isupper()):
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


def pdf_layout() -> tuple[list[PlacedLine], list[str]]:
    """Every line placed on its page, and the text of every sentence (index = Word.sentence)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines: list[PlacedLine] = []
    sentences: list[str] = []
    frames = iter(FRAMES)
    frame = next(frames)
    y = frame.top

    def new_line(font: str, size: float, lead: float) -> PlacedLine:
        nonlocal frame, y
        if y + lead > frame.bottom:
            frame = next(frames)
            y = frame.top
        y += lead
        ln = PlacedLine(frame.page, y, font, size)
        lines.append(ln)
        return ln

    for kind, text in HANDBOOK:
        if kind == "frame":
            frame = next(frames)
            y = frame.top
            continue
        font, size, lead = {"title": (HEAD_FONT, TITLE_SIZE, 30.0), "heading": (HEAD_FONT, HEAD_SIZE, 22.0),
                            "para": (BODY_FONT, BODY_SIZE, LEADING)}[kind]
        parts = _sentences(text) if kind == "para" else [text]
        tokens: list[tuple[str, int]] = []
        for s in parts:
            sentences.append(s.replace("\u00ad", ""))
            tokens.extend((w, len(sentences) - 1) for w in s.split(" "))
        space = stringWidth(" ", font, size)
        ln = new_line(font, size, lead)
        x = 0.0
        queue = list(tokens)
        while queue:
            word, sid = queue.pop(0)
            clean = word.replace("\u00ad", "")
            w = stringWidth(clean, font, size)
            start = x + (space if ln.words else 0.0)
            if start + w > frame.width and ln.words:
                if "\u00ad" in word:  # break the word with a hyphen
                    head, tail = word.split("\u00ad", 1)
                    hw = stringWidth(head + "-", font, size)
                    if start + hw <= frame.width:
                        ln.words.append(Word(head + "-", sid, frame.x + start, hw))
                        queue.insert(0, (tail, sid))
                        ln = new_line(font, size, LEADING)
                        x = 0.0
                        continue
                ln = new_line(font, size, LEADING)
                x, start = 0.0, 0.0
            ln.words.append(Word(clean, sid, frame.x + start, w))
            x = start + w
        y += lead * 0.5 if kind != "title" else 6.0  # space after the block
    return lines, sentences


def expected_boxes() -> dict[str, list[tuple[int, float, float, float, float]]]:
    """Sentence text -> one (page, x0, y0, x1, y1) per line it occupies, top-left origin, points.

    y0/y1 are the font's ascent and descent around the baseline, as PDF viewers box a line."""
    from reportlab.pdfbase.pdfmetrics import getAscentDescent

    lines, sentences = pdf_layout()
    out: dict[str, list[tuple[int, float, float, float, float]]] = {s: [] for s in sentences}
    for ln in lines:
        asc, desc = getAscentDescent(ln.font, ln.size)
        by_sentence: dict[int, list[Word]] = {}
        for w in ln.words:
            by_sentence.setdefault(w.sentence, []).append(w)
        for sid, ws in by_sentence.items():
            out[sentences[sid]].append((ln.page, ws[0].x, ln.baseline - asc, ws[-1].x + ws[-1].width,
                                        ln.baseline - desc))
    return out


def make_pdf() -> bytes:
    from reportlab.pdfgen import canvas

    lines, _ = pdf_layout()
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H), invariant=1, pageCompression=1)
    c.setTitle("Larkspur Security Handbook")
    c.addPageLabel(0, style="ROMAN_LOWER", start=1)
    c.addPageLabel(1, style="ARABIC", start=1)
    for page in range(1, len(LABELS) + 1):
        c.setFont(BODY_FONT, 9)
        c.drawString(MARGIN, PAGE_H - 40, HEADER_TEXT)
        c.drawCentredString(PAGE_W / 2, 40, LABELS[page - 1])
        for ln in (ln for ln in lines if ln.page == page):
            c.setFont(ln.font, ln.size)
            for w in ln.words:
                c.drawString(w.x, PAGE_H - ln.baseline, w.text)
        c.showPage()
    c.save()
    return buf.getvalue()


HTML_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Larkspur help centre: refunds and invoices</title>
<style>body { font-family: sans-serif; }</style>
<script>document.title = "tracking";</script>
</head>
<body>
<nav><a href="/">Help centre</a> | <a href="/billing">Billing</a> | <a href="javascript:alert('hi')">Chat</a></nav>
<main>
<h1>Refunds and invoices</h1>
<p>This page explains when Larkspur refunds a payment and how invoices are corrected.</p>
<h2>Refunds</h2>
<h3>Monthly plans</h3>
<p>Monthly plans are not refunded. Cancelling a monthly plan ends billing at the end of the current month.</p>
<h3>Annual plans</h3>
<p>Annual plans can be refunded within 14 days of the first payment. After 14 days, the annual fee is not refunded, but the plan stays usable until the end of the year.</p>
<p>To ask for a refund, the account owner writes to the support team from the billing form.</p>
<h2>Invoices</h2>
<p>Invoices show the company name and tax number entered on the billing page. A corrected invoice can be issued within 60 days of the original one.</p>
<iframe src="https://example.invalid/chat-widget"></iframe>
</main>
<footer>Copyright Larkspur. <a href="/privacy">Privacy</a></footer>
</body>
</html>
"""


def make_docx() -> bytes:
    import datetime as dt

    import docx

    d = docx.Document()
    props = d.core_properties
    props.title = "Setting up single sign-on"
    props.author = "Larkspur"
    props.created = props.modified = dt.datetime(2026, 3, 1, 9, 0, 0)
    props.last_modified_by = "Larkspur"
    props.revision = 1
    d.add_heading("Setting up single sign-on", level=0)
    d.add_heading("Before you start", level=1)
    d.add_paragraph("Single sign-on can be set up by the account owner only. The workspace must be on the Business "
                    "or Enterprise plan.")
    d.add_paragraph("You need the metadata URL of your identity provider and a test member who can sign in there.")
    d.add_heading("Connecting the identity provider", level=1)
    d.add_heading("SAML 2.0", level=2)
    d.add_paragraph("Paste the metadata URL on the security page and choose Verify. Larkspur reads the signing "
                    "certificate from the metadata.")
    d.add_heading("OpenID Connect", level=2)
    d.add_paragraph("Enter the issuer URL, the client ID and the client secret on the security page.")
    d.add_heading("After the switch", level=1)
    d.add_paragraph("Once single sign-on is enforced, members sign in through the identity provider only. Owners "
                    "keep a password so they can still sign in if the identity provider is down.")
    buf = io.BytesIO()
    d.save(buf)
    return _stable_zip(buf.getvalue())


def _stable_zip(data: bytes) -> bytes:
    """The same archive with fixed entry times, so the file is identical on every run."""
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 3, 1, 9, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "sample_corpus")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / PDF_NAME).write_bytes(make_pdf())
    (a.out / HTML_NAME).write_text(HTML_PAGE, encoding="utf-8")
    (a.out / DOCX_NAME).write_bytes(make_docx())
    print(f"wrote {PDF_NAME}, {HTML_NAME} and {DOCX_NAME} in {a.out}")


if __name__ == "__main__":
    main()
