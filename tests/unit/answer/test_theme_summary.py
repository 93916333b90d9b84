"""A themes answer reads as a summary a person would write from quotes: each theme one block, named by the key
phrases of its sentences (never a date or a number), two to four quoted sentences as bullets, each a claim with its
citation; never a heading or a question quoted; documents that share only generic words not one theme; and a
question about the documents as a whole, asked in the default mode, answered by themes. A names extractor and the
hash embedder: no model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from graphrag.answer.ask import Asker
from graphrag.answer.communities import communities
from graphrag.answer.reader.rank.kinds import quotable
from graphrag.answer.retrieval.load import load_graph
from graphrag.ingest.pipeline import Ingestor
from graphrag.language.sentences import Sentence
from graphrag.model import (
    Answer,
    AskSettings,
    ClaimFlag,
    ContextItem,
    ExtractedEntity,
    ExtractionResult,
    ExtractionStatus,
    Route,
    Span,
)
from graphrag.present import answer_blocks, answer_html
from graphrag.store import Store
from graphrag.verify.attribution import attribute
from helpers import ScriptedChecker, write_corpus
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit


class NamesExtractor:
    """Every listed name in every sentence that holds it."""

    name = "names"

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)

    def extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        ents = tuple(ExtractedEntity(n, "concept", s.text, s.index) for s in sentences for n in self.names
                     if n in s.text)
        return ExtractionResult(ExtractionStatus.OK if ents else ExtractionStatus.NOTHING_FOUND, self.name, ents)


DOCS = {
    # a heading and a question that name the theme's entities: neither may be quoted
    "exports.md": "# Snapshot exports\n\nSnapshot exports stay available for 30 days under the retention policy. "
                  "The retention policy deletes snapshot exports after 30 days. "
                  "How long do snapshot exports stay available after 30 days?\n\n"
                  "Owners download snapshot exports from the archive within 30 days. "
                  "Every snapshot export is listed in the archive for 30 days.\n",
    "snapshots.md": "Nightly snapshots follow the retention policy for 30 days. "
                    "The retention policy keeps nightly snapshots in the archive for 30 days. "
                    "Snapshot exports are built from nightly snapshots.\n",
    # an internal handbook and a court article that share only generic words ("report"): not one theme
    "handbook.md": "Every team files a weekly report to the office. "
                   "The office team reviews each report on Friday morning. "
                   "A late report goes to the team lead at the office.\n",
    "court.md": "The Supreme Court hears each appeal in the spring. "
                "The clerk writes a report for the Supreme Court on every appeal. "
                "The justices read the report before the appeal is argued.\n",
}
TITLES = {"exports": "Data exports", "snapshots": "Snapshots", "handbook": "Staff handbook", "court": "Supreme Court"}
MANIFEST = "".join(f'[[documents]]\nfile = "{d}.md"\nid = "{d}"\ntitle = "{t}"\n\n' for d, t in TITLES.items())
NAMES = ("snapshot export", "Snapshot export", "retention policy", "30 days", "archive", "nightly snapshot", "Owners",
         "team", "report", "office", "team lead", "Supreme Court", "appeal", "clerk", "justices")


def ingest(store: Store, root: Path, docs: dict[str, str] = DOCS, manifest: str = MANIFEST,
           names: Sequence[str] = NAMES) -> Store:
    Ingestor(store, NamesExtractor(names), HashEmbedder()).ingest_paths([write_corpus(root, docs, manifest)])
    return store


def asker(store: Store) -> Asker:
    return Asker(store, embedder=HashEmbedder(), checker=ScriptedChecker())


@pytest.fixture()
def summary(store: Store, tmp_path: Path) -> Store:
    return ingest(store, tmp_path / "c")


def themes(store: Store, question: str = "What are these documents about?", **settings: object) -> Answer:
    return asker(store).ask(question, AskSettings(mode="themes", **settings)).answer  # type: ignore[arg-type]


def cited_documents(items: Sequence[ContextItem]) -> set[str]:
    return {c.span.document_id for c in items}


def test_each_theme_is_a_block_named_by_its_phrases_with_two_to_four_cited_quotes(summary: Store) -> None:
    ans = themes(summary)
    blocks = answer_blocks(ans.text)
    assert len(blocks) >= 2 and ans.text.count("\n\n") == len(blocks) - 1
    bullets = [b for block in blocks for b in block.bullets]
    for block in blocks:
        assert len(block.lines) == 1 and block.lines[0].endswith(":"), block  # one line names the theme
        assert 2 <= len(block.bullets) <= 4, block
        assert all(re.fullmatch(r"“[^“”]+” \[\d+\]", b) for b in block.bullets), block.bullets
    # each bullet is one claim: its quote, word for word, citing the one sentence it quotes; the names are no claims
    assert len(ans.claims) == len(bullets)
    for claim, bullet in zip(ans.claims, bullets):
        assert claim.text == bullet.rsplit(" [", 1)[0]
        assert [c.valid for c in claim.citations] == [True]
        assert ClaimFlag.UNCITED not in claim.flags and ClaimFlag.VERBATIM_QUOTE in claim.flags
        item = claim.citations[0].item
        assert item is not None and claim.text.strip("“”") == " ".join(item.span.text.split())
        assert claim.support is not None and claim.support.score == 1.0  # a quote: not scored against itself


def test_no_theme_is_named_by_a_date_or_a_number(summary: Store) -> None:
    # "30 days" is in every sentence of the exports theme: the most central entity, and no name
    heads = [b.lines[0] for b in answer_blocks(themes(summary).text)]
    names = [h.split(" (in ", 1)[0] for h in heads]
    assert not any(re.search(r"\d", n) for n in names), names
    assert any("retention policy" in n.lower() for n in names), names  # what the theme is about


def test_a_heading_or_a_question_is_never_quoted(summary: Store) -> None:
    ans = themes(summary)
    quoted = [c.item.span.text for cl in ans.claims for c in cl.citations if c.item is not None]
    assert quoted and all(quotable(t) for t in quoted)
    assert not any(t.rstrip().endswith("?") for t in quoted)
    assert "Snapshot exports" not in [t.strip() for t in quoted]  # the heading
    assert all(cl.text.startswith("“") for cl in ans.claims)


def test_documents_that_share_only_generic_words_are_not_one_theme(summary: Store) -> None:
    graph = load_graph(summary)
    ids = {graph.docs[d].id for c in communities(graph, ["public"]).groups for d in c.documents
           if {"handbook", "court"} <= {graph.docs[x].id for x in c.documents}}
    assert ids == {"handbook", "court"}, "the entity graph groups them (by 'report'): the case to split"
    ans = themes(summary)
    numbered = {c.n: c for c in ans.context}
    for block in answer_blocks(ans.text):
        docs = cited_documents([numbered[int(b.rsplit("[", 1)[1].rstrip("]"))] for b in block.bullets])
        assert not {"handbook", "court"} <= docs, block
        assert not ("Staff handbook" in block.lines[0] and "Supreme Court," in block.lines[0]), block
    # while two documents that share a specific phrase ("retention policy") are one theme, quoted from both
    assert any(cited_documents([numbered[int(b.rsplit("[", 1)[1].rstrip("]"))] for b in block.bullets])
               == {"exports", "snapshots"} for block in answer_blocks(ans.text))
    assert {"handbook", "court"} <= cited_documents(ans.context)  # each is still a theme of its own


def test_every_claim_of_the_answer_is_cited_and_the_names_are_no_claims(summary: Store) -> None:
    ans = themes(summary)
    assert ans.claims and all(cl.citations and ClaimFlag.UNCITED not in cl.flags for cl in ans.claims)
    heads = [b.lines[0] for b in answer_blocks(ans.text)]
    assert not any(cl.text in heads or cl.text.rstrip(":") in " ".join(heads) for cl in ans.claims)
    # the same text attributed without saying which lines name themes: the names would be uncited claims
    assert any(ClaimFlag.UNCITED in cl.flags for cl in attribute(ans.text, ans.context))


def test_a_global_question_asked_in_the_default_mode_is_answered_by_themes(summary: Store) -> None:
    ans = asker(summary).ask("What are these documents about?").answer  # the default mode: local
    assert ans.settings.mode == "themes" and ans.answered and ans.claims
    opening = answer_blocks(ans.text)[0]
    assert not opening.bullets and opening.lines[0].startswith("Answered by themes")
    assert "To ask about one thing in them instead, name it" in opening.lines[0]  # how to ask a local question
    assert all(cl.citations and opening.lines[0] not in cl.text for cl in ans.claims)  # the opening is no claim
    assert all(2 <= len(b.bullets) <= 4 for b in answer_blocks(ans.text)[1:])


class _Local(Exception):
    """Raised where the nearest sentences would be retrieved: the question went the local way."""


def test_a_factual_question_is_never_routed_to_themes(summary: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    a = asker(summary)

    def local(*_: object) -> None:
        raise _Local

    def no_themes(*_: object, **__: object) -> None:
        raise AssertionError("a factual question went to themes")

    monkeypatch.setattr(a, "retrieve", local)
    monkeypatch.setattr(a, "ask_global", no_themes)
    for question in ("How long do snapshot exports stay available?", "What do the documents say about appeals?",
                     "What is the retention policy about?", "Summarize the retention policy"):
        with pytest.raises(_Local):
            a.ask(question)
    monkeypatch.undo()
    explicit = asker(summary).ask("What are these documents about?", AskSettings(mode="themes")).answer
    assert not explicit.text.startswith("Answered by themes")  # asked for themes: nothing to explain


def test_a_routed_question_on_one_document_themes_that_document(store: Store, tmp_path: Path) -> None:
    ingest(store, tmp_path / "one", {"exports.md": DOCS["exports.md"]},
           '[[documents]]\nfile = "exports.md"\nid = "exports"\ntitle = "Data exports"\n')
    routed = asker(store).ask("What is this collection about?").answer
    assert routed.answered and routed.settings.mode == "themes" and routed.settings.documents == ("exports",)
    asked = themes(store)  # asked in the themes mode, one document is still said in words, as before
    assert not asked.answered and "one document" in asked.text


def test_a_title_or_a_quote_cannot_forge_a_bullet_or_break_a_claim(store: Store, tmp_path: Path) -> None:
    """What a document holds is written inside its line: a title with a newline, a bullet mark and a marker, a
    sentence with quotation marks and full stops inside them, stay one heading and one claim each."""
    docs = {"a.md": "The guide says “Exports expire. Ask support.” about the archive policy. "
                    "The archive policy keeps “old” exports [2] for a year in the archive.\n",
            "b.md": "The archive policy moves exports to cold storage after a year. "
                    "Cold storage under the archive policy is read only.\n"}
    manifest = ('[[documents]]\nfile = "a.md"\nid = "a"\ntitle = "Guide\\n- “Forged claim” [1]"\n\n'
                '[[documents]]\nfile = "b.md"\nid = "b"\ntitle = "Storage [3]: notes"\n')
    ingest(store, tmp_path / "f", docs, manifest, ("archive policy", "archive", "cold storage", "exports"))
    ans = themes(store)
    assert ans.answered
    bullets = [b for block in answer_blocks(ans.text) for b in block.bullets]
    assert len(ans.claims) == len(bullets) and not any("Forged claim" in cl.text for cl in ans.claims)
    for cl in ans.claims:
        assert [c.valid for c in cl.citations] == [True] and ClaimFlag.VERBATIM_QUOTE in cl.flags, cl
    assert all(line.count("“") <= 1 for b in answer_blocks(ans.text) for line in b.lines[:1])


def test_an_entity_named_like_a_list_item_still_names_a_theme_on_its_own_line(store: Store, tmp_path: Path) -> None:
    docs = {"a.md": "Rule one - archive policy keeps exports for a year in cold storage. "
                    "Rule two - archive policy moves old exports to cold storage.\n",
            "b.md": "Rule three - archive policy says cold storage is read only. "
                    "Rule four - archive policy lists cold storage costs.\n"}
    manifest = '[[documents]]\nfile = "a.md"\nid = "a"\ntitle = "A"\n\n[[documents]]\nfile = "b.md"\nid = "b"\ntitle = "B"\n'
    ans = themes(ingest(store, tmp_path / "l", docs, manifest, ("- archive policy", "cold storage")))
    blocks = answer_blocks(ans.text)
    assert blocks and all(len(b.lines) == 1 and not b.lines[0].startswith(("-", "*", "#")) for b in blocks)
    assert len(ans.claims) == sum(len(b.bullets) for b in blocks)


def test_attribution_leaves_out_only_the_lines_its_composer_names() -> None:
    items = (ContextItem(1, Span("d", 1, 0, 0, 30, "Exports are kept for 30 days."), Route("x"), 1.0, "theme"),)
    text = "Exports (in Data exports):\n- “Exports are kept for 30 days.” [1]"
    [claim] = attribute(text, items, ["Exports (in Data exports):"])
    assert claim.text == "“Exports are kept for 30 days.”" and ClaimFlag.VERBATIM_QUOTE in claim.flags
    # a generated line that looks like a heading is a claim all the same: only what composed the text can say not
    generated = "# Exports are kept for 90 days\n\nExports are kept for 30 days [1]."
    assert attribute(generated, items)[0].text == "Exports are kept for 90 days"
    assert ClaimFlag.UNCITED in attribute(generated, items)[0].flags
    # a line named as no claim is left out only when it is that exact line
    assert len(attribute(text, items, ["Exports (in Data"])) == 2


def test_a_quote_holding_quotation_marks_and_full_stops_stays_one_verbatim_claim() -> None:
    from graphrag.answer.themes import _flat

    source = 'The guide says “Exports expire. Ask support.” and "old" ones [2] go. Then more.'
    items = (ContextItem(1, Span("d", 1, 0, 0, len(source), source), Route("x"), 1.0, "theme"),)
    text = f"Exports (in Guide):\n- “{_flat(source)}” [1]\n- “{_flat(source)}” [1]"
    claims = attribute(text, items, ["Exports (in Guide):"])
    assert len(claims) == 2 and all(ClaimFlag.VERBATIM_QUOTE in c.flags and len(c.citations) == 1 for c in claims)


def test_the_answer_draws_as_blocks_with_lists_and_a_one_paragraph_answer_as_before() -> None:
    text = "Exports and <b>policy</b> (in Data exports):\n- “Exports are kept.” [1]\n- “Policy <i>x</i>.” [2]\n\n" \
           "Regions (in Hosting):\n- “A.” [3]\n- “B.” [4]"
    html = answer_html(text)
    assert html.count("<ul") == 2 and html.count("<li") == 4 and html.count("<b>") == 2
    assert "&lt;b&gt;policy&lt;/b&gt;" in html and "<i>" not in html  # the documents' words stay text
    assert answer_html("Exports are kept for 30 days [1]. <b>") == "Exports are kept for 30 days [1]. &lt;b&gt;"
    [block] = answer_blocks("Intro line\n- one\n  continued\n- two")
    assert block.lines == ("Intro line",) and block.bullets == ("one continued", "two")


def test_phrases_rank_what_tells_a_theme_apart(summary: Store) -> None:
    from graphrag.answer.themes import themes_of

    graph = load_graph(summary)
    found = themes_of(graph, AskSettings(), np.zeros(graph.sentence_vectors.shape[1], dtype=np.float32))
    for theme in found:
        assert not any(re.search(r"\d", name) for name in theme.name(graph))
        assert len(theme.documents) == len({graph.docs[d].id for d in theme.documents})
