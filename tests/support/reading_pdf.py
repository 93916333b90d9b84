"""A generated article shaped like a real print of a legal-scholarship article, for what the PDF reader makes of
its prose: a title over two lines (no Title metadata), case citations whose abbreviations ("v.", "U.S.") fall
inside sentences and at line ends, footnote marks after full stops ("privilege.[202][203] Critics"), compounds
hyphenated at a line break ("state-of-" / "the-art", "best-" / "performing") beside a word the break split
("docu-" / "ment"), a picture beside the text with a caption set small and no "Figure 1:" opening, read between
two lines of a sentence, and a numbered formula. ``reading_pdf()`` returns the PDF; ``SENTENCES`` the body
sentences as the reader is to give them, ``CAPTION`` the caption, ``TITLE`` the title. ``stored_article(path)``
writes a store holding it (no model) and an answer that quotes the caption and cites a body sentence.
"""

from __future__ import annotations

import io
from pathlib import Path

TITLE_LINES = ["The Certiorari Pool and Judicial Review:", "How the Court Chooses Its Cases"]
TITLE = " ".join(TITLE_LINES)
CAPTION_LINES = ["The Supreme Court building", "in Washington, D.C."]
CAPTION = " ".join(CAPTION_LINES)
FORMULA = "q0 = w1 x + b          (2)"
# (x0, text) per printed body line, top to bottom; a sentence crosses lines.
FULL = [
    "The Court's power of judicial review was settled in Marbury v. Madison, 5 U.S. 137 (1803).[12] In United",
    "States v. Nixon, 418 U.S. 683 (1974), the Court rejected an absolute privilege.[202][203] Critics of the",
    "pool call it a state-of-",
]
FULL_2 = [
    "the-art filter for the best-",
    "performing clerks, and the docu-",
    "ment that describes it is short.",
]
BESIDE = [  # beside the picture: narrower lines
    "Justices who leave the pool read every petition",
    "themselves, as Justice Stevens did for most of his",
    "career, and they say that reading them costs each",
    "chamber",
]
BELOW = [
    "little time.[69] The pool itself was created in 1972.",
]
AFTER_FORMULA = [
    "The model starts in state q0 and scales each input by the weight w1 before it ranks the petitions.",
]
SENTENCES = [
    "The Court's power of judicial review was settled in Marbury v. Madison, 5 U.S. 137 (1803).",
    "In United States v. Nixon, 418 U.S. 683 (1974), the Court rejected an absolute privilege.",
    "Critics of the pool call it a state-of-the-art filter for the best-performing clerks, and the document that "
    "describes it is short.",
    "Justices who leave the pool read every petition themselves, as Justice Stevens did for most of his career, "
    "and they say that reading them costs each chamber little time.",
    "The pool itself was created in 1972.",
    "The model starts in state q0 and scales each input by the weight w1 before it ranks the petitions.",
]


def reading_pdf() -> bytes:
    """The article as PDF bytes: one US letter page."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    c.setFont("Times-Bold", 18)
    y = 720.0
    for line in TITLE_LINES:
        c.drawString(72, y, line)
        y -= 22
    y -= 20
    c.setFont("Times-Roman", 10)
    for line in [*FULL, *FULL_2]:
        c.drawString(72, y, line)
        y -= 12.5
    y -= 2
    top = y + 10
    for line in BESIDE:
        c.drawString(72, y, line)
        y -= 12.5
    # the picture and its caption to the right of the lines beside it
    c.rect(330, top - 24, 150, 24)
    c.setFont("Times-Roman", 8)
    for k, line in enumerate(CAPTION_LINES):
        c.drawString(330, top - 34 - 10 * k, line)
    c.setFont("Times-Roman", 10)
    for line in BELOW:
        c.drawString(72, y, line)
        y -= 12.5
    y -= 10
    c.drawString(200, y, FORMULA)
    y -= 22
    for line in AFTER_FORMULA:
        c.drawString(72, y, line)
        y -= 12.5
    c.showPage()
    c.save()
    return buf.getvalue()


QUESTION = "Where is the Supreme Court building?"
BODY_CLAIM = "Judicial review was settled in 1803."


def stored_article(path: Path) -> int:
    """A store at ``path`` holding the article as ``article.pdf`` (access "public"; the scripted extractor names
    "Pool", the hash embedder encodes) and one answer: claim 1 quotes the caption [1], claim 2 cites the first
    body sentence [2], whose printed line runs the page's width. Returns the answer's id."""
    from doubles.extract import ScriptedExtractor, ScriptEntity
    from graphrag.ingest.pipeline import Ingestor
    from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route
    from graphrag.store import Store
    from proc_helpers import HashEmbedder

    docs = path.parent / "article-docs"
    docs.mkdir(exist_ok=True)
    (docs / "article.pdf").write_bytes(reading_pdf())
    with Store(path) as store:
        report = Ingestor(store, ScriptedExtractor([ScriptEntity("Pool", "Justices who leave the pool")]),
                          HashEmbedder()).ingest_paths([docs])
        assert all(d.status == "ok" for d in report.documents), report
        spans = {" ".join(s.text.split()): s for s in store.sentences("article", 1)}
        (seed,) = store.entity_names()
        items = (ContextItem(1, spans[CAPTION], Route(seed), 0.8, "similarity"),
                 ContextItem(2, spans[SENTENCES[0]], Route(seed), 0.7, "similarity"))
        first = f"{CAPTION} [1]"
        text = f"{first} {BODY_CLAIM[:-1]} [2]."
        claims = (Claim(0, CAPTION, 0, len(first), (Citation("1", True, items[0]),)),
                  Claim(1, BODY_CLAIM, len(first) + 1, len(text), (Citation("2", True, items[1]),)))
        answer_id = store.save_answer(Answer(QUESTION, AskSettings(access=("public",)), text, (), (), items, claims))
    return answer_id
