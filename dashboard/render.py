"""Rendering helpers shared by the pages.

Document and answer text is never handed to Markdown (a document line such as
``![x](https://host/x.png)`` would become an external image request): it is escaped with
``html.escape`` and shown through ``st.html``, which renders HTML without Markdown.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import pandas as pd
import streamlit as st

from graphrag.access import Forbidden
from graphrag.answer import Overview
from graphrag.ingest import IngestReport
from graphrag.language.sentences import counted, spreadsheet_safe
from graphrag.model import (
    VERDICT_WORDS,
    Claim,
    ClaimFlag,
    Disagreement,
    Span,
    SpanLayout,
    Support,
    Verdict,
    VerdictKind,
    VerdictLabel,
)
from graphrag.verify import ClaimState, ClaimStatus, reviewer_key

FLAG_TEXT = {
    ClaimFlag.INVALID_MARKER: "invalid marker",
    ClaimFlag.MALFORMED_MARKER: "malformed marker",
    ClaimFlag.UNCITED: "uncited",
    ClaimFlag.LOW_SUPPORT: "low support",
    ClaimFlag.SUPERSEDED_SOURCE: "superseded source",
    ClaimFlag.IRRELEVANT_CITATION: "irrelevant citation",
    ClaimFlag.VERBATIM_QUOTE: "verbatim quote",
}
# What a verbatim quote still needs from a person: a checker score of a copy says nothing.
VERBATIM_NOTE = ("Verbatim quote of its source: a support score would only measure the copy. Still for you: "
                 "does the quote answer the question? Is its source the current version?")



@contextmanager
def stop_if_forbidden() -> Iterator[None]:
    """Around a page's call of a use case, which checks the role itself (with who is signed in now): a refusal is
    shown and ends the run, as a page's own role gate does."""
    try:
        yield
    except Forbidden as exc:
        st.error(plain(exc))
        st.stop()


CSS = """<style>
.gr-box { font-size: 0.95rem; line-height: 1.55; padding: 0.6rem 0.8rem; border: 1px solid #e6e6e6;
          border-radius: 0.5rem; background: #fafafa; }
.gr-box mark { background: #ffe58a; padding: 0 2px; border-radius: 3px; }
.gr-dim { color: #888; }
.gr-meta { font-size: 0.82rem; color: #555; margin-bottom: 0.3rem; }
.gr-warn { font-size: 0.85rem; line-height: 1.45; padding: 0.5rem 0.7rem; border-radius: 0.5rem;
           background: #fff6dd; color: #6b4e00; margin-top: 0.2rem; }
.gr-warn ul { margin: 0.25rem 0 0 1rem; padding: 0; }
.gr-marker { font-size: 0.75em; vertical-align: super; color: #1f5fa8; font-weight: 600; }
</style>"""


def esc(text: object) -> str:
    """``text`` escaped for HTML, quotes included."""
    return html.escape(str(text), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")
# Where GFM's autolinking starts a link in bare text: "://" (http, https), "www." and "@" (an email
# address, mailto:). Streamlit's Markdown links these whatever is backslash-escaped, so an invisible
# word joiner is put into each seam instead: the text reads the same and no link can form.
WORD_JOINER = "\u2060"
_AUTOLINK_SEAMS = re.compile(r"(?<=:)(?=//)|(?i:(?<=www))(?=\.)|(?<=@)")


def unlinked(text: str) -> str:
    """``text`` with a word joiner in every seam where Markdown would turn a bare URL or email into a link."""
    return _AUTOLINK_SEAMS.sub(WORD_JOINER, text)


def plain(text: object) -> str:
    """Text that Markdown shows literally (for st.error/st.info/captions, headings, labels): every special char
    escaped and no bare URL or email address made a live link."""
    return _MD_SPECIAL.sub(r"\\\1", unlinked(" ".join(str(text).split())))


def kind_note(layout: SpanLayout | None) -> str | None:
    """What a reviewer must know of a cited sentence that is not body text (a picture's caption, a table row), or
    None for body text and sentences whose kind is not known."""
    if layout is None or layout.kind in (None, "body"):
        return None
    if layout.kind == "caption":
        return ("Quoted from a caption (the words printed with a picture or table), not from the body text: "
                "judge what it says of its picture.")
    return f"The cited sentence is a {layout.kind_words}, not body text."


def box(inner_html: str, meta: str = "") -> None:
    """A bordered text box; ``inner_html`` must already be escaped."""
    st.html(CSS + (f'<div class="gr-meta">{meta}</div>' if meta else "") + f'<div class="gr-box">{inner_html}</div>')


def warn_box(headline: str, items: Sequence[tuple[str, str]]) -> None:
    """A compact warning listing (where, quoted text) pairs; all text escaped here."""
    lis = "".join(f"<li><b>{esc(where)}</b>: “{esc(text)}”</li>" for where, text in items)
    st.html(CSS + f'<div class="gr-warn">⚠ {esc(headline)}<ul>{lis}</ul></div>')


def disagreement_box(d: Disagreement, headline: str = "Sources disagree — the current one first:",
                     numbers: Mapping[int, int] | None = None) -> None:
    """A disagreement between cited sources: each side's document, version and date, and what it says.
    ``numbers``: the markers as the page shows them (graphrag.present.display_numbers)."""
    warn_box(headline, [(f"[{(numbers or {}).get(s.n, s.n)}] {s.title} v{s.version}, "
                         f"effective {s.effective_date or 'no date'}"
                         + (" (superseded)" if s.superseded else ""), s.sentence or s.says) for s in d.sides])


def answer_html(text: str, claim: Claim | None = None, shown: Callable[[str], str] = str) -> str:
    """The answer with one claim's sentence highlighted (by the claim's offsets in the answer). ``shown``
    rewrites each part before it is escaped (the markers renumbered for reading): the offsets index the stored
    text, so the parts are cut first."""
    if claim is None or not (0 <= claim.start <= claim.end <= len(text)):
        return esc(shown(text))
    before, mine, after = text[:claim.start], text[claim.start:claim.end], text[claim.end:]
    return (f'<span class="gr-dim">{esc(shown(before))}</span><mark>{esc(shown(mine))}</mark>'
            f'<span class="gr-dim">{esc(shown(after))}</span>')


_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


CONTEXT_AROUND = 2  # sentences shown on each side of a cited one


def context_html(sentences: Sequence[Span], cited: Span, around: int = CONTEXT_AROUND, text: str | None = None) -> str:
    """The cited sentence highlighted among its neighbours (same document version; ``sentences`` may be the
    version's window from ``cited`` - around to ``cited`` + around + 1, the extra one saying whether more follow).
    With the version's ``text``, neighbours a blank line apart (a heading and its paragraph, two paragraphs) start
    a new line: run together, "Annual plans" and "Annual plans can be refunded…" read as a stutter."""
    idx = next((i for i, s in enumerate(sentences) if s.sentence_index == cited.sentence_index), None)
    if idx is None:
        return f"<mark>{esc(cited.text)}</mark>"
    lo, hi = max(0, idx - around), min(len(sentences), idx + around + 1)
    out = '<span class="gr-dim">… </span>' if lo > 0 or sentences[lo].sentence_index > 0 else ""
    for i, s in enumerate(sentences[lo:hi]):
        if i:
            gap = text[sentences[lo + i - 1].end:s.start] if text is not None else ""
            out += "<br>" if _BLANK_LINE.search(gap) else " "
        out += (f"<mark>{esc(s.text)}</mark>" if s.sentence_index == cited.sentence_index
                 else f'<span class="gr-dim">{esc(s.text)}</span>')
    if hi < len(sentences):
        out += '<span class="gr-dim"> …</span>'
    return out


def support_text(s: Support | None) -> str:
    """A support score in words: label, score and the checker that gave it."""
    if s is None:
        return "not checked"
    text = f"{s.label.value.replace('_', ' ')} · score {s.score:.2f} ({s.checker})"
    if s.advisory is not None:  # beside, never deciding
        text += f"; model judge, advisory: {support_text(s.advisory)}"
    return text


# The colours st.badge accepts.
BadgeColour = Literal["red", "orange", "yellow", "blue", "green", "violet", "gray", "grey", "primary"]
STATUS_COLOURS: dict[str, BadgeColour] = {"verified": "green", "auto-checked": "blue"}  # an answer's status


def claim_status(claim: Claim, verdicts: Sequence[Verdict],
                 state: ClaimState | None = None) -> tuple[str, BadgeColour]:
    """(status, colour): judged (in the verdicts' words) when reviewed as the review policy asks, disputed or in review,
    auto-checked when scored, else cited / uncited. ``verdicts``: those the viewer may see."""
    if state is not None and state.status == ClaimStatus.DISPUTED:
        return "disputed · awaiting an adjudicator", "red"
    if state is not None and state.status == ClaimStatus.IN_REVIEW:
        return f"in review · {state.reviews} of {counted(state.required, 'verdict')}", "orange"
    tampered = next((v.tampered for v in verdicts if v.tampered), "")
    if tampered:  # before any other state: the verdict no longer judges the words shown
        return f"{judged_text(verdicts)} · {tampered}", "red"
    if verdicts:
        stale = (" (stale: source removed)" if any(v.source_removed for v in verdicts)
                 else " (stale: source superseded)" if any(v.stale for v in verdicts) else "")
        return judged_text(verdicts) + stale, "orange" if stale else "green"
    if ClaimFlag.VERBATIM_QUOTE in claim.flags:
        return "verbatim quote · needs a reader", "violet"
    if claim.support is not None and any(c.valid for c in claim.citations):
        return f"auto-checked · {claim.support.score:.2f}", "blue"
    if any(c.valid for c in claim.citations):
        return "cited · not checked", "gray"
    return "uncited", "red"


# A verdict after "judged" or "settled as", in its kind's words.
_JUDGED_AS = {VerdictKind.BACKS: VERDICT_WORDS[VerdictKind.BACKS],
              VerdictKind.ANSWERS: {VerdictLabel.SUPPORTED: "answering", VerdictLabel.PARTIAL: "partly answering",
                                    VerdictLabel.UNSUPPORTED: "not answering"}}


def judged_as(v: Verdict) -> str:
    """"backed", "not backed", "answering", "partly answering" ...: what ``v`` judged, to follow "judged"."""
    return _JUDGED_AS[v.kind][v.verdict]


def judged_text(verdicts: Sequence[Verdict]) -> str:
    """What happened to a claim, in its kind's words: "judged not backed by ana", "judged answers by ana and bo",
    "settled as backed by carl (adjudicator)"."""
    settled = [v for v in verdicts if v.role == "adjudicator"]
    if settled:
        v = settled[-1]
        return f"settled as {judged_as(v)} by {_names([v.reviewer])} (adjudicator)"
    by_words: dict[str, list[str]] = {}
    for v in verdicts:
        by_words.setdefault(judged_as(v), []).append(v.reviewer)
    return "; ".join(f"judged {said} by {_names(names)}" for said, names in by_words.items())


def _names(names: Sequence[str]) -> str:
    # a typed name is shown as written: Markdown-escaped, brackets left to st.badge (which escapes them itself)
    names = sorted({plain(n).replace("\\[", "[").replace("\\]", "]") for n in names})
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def badges(claim: Claim, verdicts: Sequence[Verdict] = (), state: ClaimState | None = None) -> None:
    """Show a claim's review status and its flags as badges on one line."""
    status, colour = claim_status(claim, verdicts, state)
    with st.container(horizontal=True, gap="small"):
        st.badge(status, color=colour)
        for f in claim.flags:
            if f == ClaimFlag.VERBATIM_QUOTE:
                continue  # the status badge says it
            st.badge(FLAG_TEXT.get(f, f.value), color="orange" if f == ClaimFlag.LOW_SUPPORT else "red",
                     icon=":material/flag:")


def counts_text(o: Overview) -> str:
    """The store's sizes as one viewer may see them, in the words the sidebar and the first start share."""
    return (f"{counted(o.documents, 'document')} ({counted(o.versions, 'version')}) · "
            f"{counted(o.entities, 'entity', 'entities')} · {counted(o.relations, 'relation')} · "
            f"{counted(o.answers, 'answer')} · {counted(o.verdicts, 'verdict')} that your labels show")


def marked_html(text: str, ranges: Sequence[tuple[int, int]]) -> str:
    """``text`` escaped, with the character ``ranges`` (in order, not overlapping) in <mark>."""
    out, at = [], 0
    for a, b in ranges:
        out.append(f"{esc(text[at:a])}<mark>{esc(text[a:b])}</mark>")
        at = b
    return "".join(out) + esc(text[at:])


PROBLEM_FLAGS = (ClaimFlag.UNCITED, ClaimFlag.INVALID_MARKER, ClaimFlag.MALFORMED_MARKER, ClaimFlag.LOW_SUPPORT,
                 ClaimFlag.SUPERSEDED_SOURCE, ClaimFlag.IRRELEVANT_CITATION)


def automatic_check(claims: Sequence[Claim]) -> str:
    """What the automatic check did to an answer's claims, in a reader's words ("3 quotes, checked automatically",
    "2 claims, 1 not checked automatically (1 flagged)")."""
    n = len(claims)
    quotes = sum(ClaimFlag.VERBATIM_QUOTE in c.flags for c in claims)
    unchecked = sum(c.support is None and ClaimFlag.VERBATIM_QUOTE not in c.flags for c in claims)
    flagged = sum(any(f in PROBLEM_FLAGS for f in c.flags) for c in claims)
    kinds = (counted(n, "quote") if quotes == n else counted(n, "claim") if not quotes
             else f"{counted(n, 'claim')}, {quotes} of them quoted word for word")
    check = f"{kinds}, checked automatically" if not unchecked else f"{kinds}, {unchecked} not checked automatically"
    return check + (f" ({flagged} flagged)" if flagged else "")


def answer_summary(claims: Sequence[Claim], states: Sequence[ClaimState],
                   verdicts: Sequence[Verdict]) -> tuple[str, BadgeColour]:
    """One status for a whole answer, in a reader's words: what the automatic check did, then where review
    stands ("3 quotes, checked automatically; not yet reviewed", "verified by 2 reviewers", "1 of 3 claims
    judged unsupported"). ``states``: each claim's, in order; ``verdicts``: the current ones the viewer may see."""
    n = len(claims)
    flagged = sum(any(f in PROBLEM_FLAGS for f in c.flags) for c in claims)
    check = automatic_check(claims)
    judged = {v.claim_index for v in verdicts}
    unsupported = len({v.claim_index for v in verdicts if v.verdict == VerdictLabel.UNSUPPORTED})
    reviewed = sum(s.status == ClaimStatus.REVIEWED for s in states)
    partly = [s for s in states if s.status == ClaimStatus.REVIEWED and s.verdict == VerdictLabel.PARTIAL]
    disputed = sum(s.status == ClaimStatus.DISPUTED for s in states)
    stale = sum(s.status == ClaimStatus.STALE for s in states)
    of = (lambda k: f"{k} of {counted(n, 'claim')}") if n > 1 else (lambda k: "the claim")
    if unsupported:  # "not answering" for a quote, "not backed" for a claim in other words
        said = " or ".join(sorted({judged_as(v) for v in verdicts if v.verdict == VerdictLabel.UNSUPPORTED}))
        return f"{check}; {of(unsupported)} judged {said}", "red"
    if disputed:
        return f"{check}; {of(disputed)} disputed, awaiting an adjudicator", "red"
    if n and reviewed == n and partly:  # reviewed, not verified: "verified" is only what reviewers found supported
        said = " or ".join(sorted({judged_as(v) for v in verdicts if v.verdict == VerdictLabel.PARTIAL}))
        return f"{check}; reviewed: {of(len(partly))} judged {said}", "orange"
    if n and reviewed == n:
        reviewers = len({reviewer_key(v.reviewer) for v in verdicts if v.role != "adjudicator"})
        return f"{check}; verified by {counted(reviewers, 'reviewer')}", "green"
    if stale:
        return f"{check}; {of(stale)} judged on a version since superseded: to review again", "orange"
    if judged:
        return f"{check}; {len(judged)} of {counted(n, 'claim')} reviewed so far", "orange"
    return f"{check}; not yet reviewed", "orange" if flagged else "blue"


def claim_review(state: ClaimState, verdicts: Sequence[Verdict]) -> str | None:
    """What review says of one claim ("judged supported by ada"), or None before any verdict."""
    if not verdicts:
        return None
    said = "; ".join(f"judged {judged_as(v)} by {v.reviewer}" for v in verdicts)
    if state.status == ClaimStatus.DISPUTED:
        return f"disputed ({said}): awaiting an adjudicator"
    if state.status == ClaimStatus.IN_REVIEW:
        return f"{said} ({state.reviews} of {counted(state.required, 'verdict')} needed)"
    if state.status == ClaimStatus.STALE:
        return f"{said}, on a version since superseded"
    return said


def marker_label(marker: str) -> str:
    """A citation marker for display: digits as written, anything else as "[?]"."""
    # Markers come from generated text: show numbers as written, anything else generically.
    return f"[{marker}]" if marker.isdigit() and len(marker) < 6 else "[?]"


def table(data: pd.DataFrame, **options: Any) -> None:
    """``st.dataframe`` for every table a page shows: the grid's own "Download as CSV" (and a copy into a
    spreadsheet) must not hand it cells it would run as formulas, so text cells are made spreadsheet-safe
    first, as the product's exports are. ``options`` go to ``st.dataframe``."""
    safe = data.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(spreadsheet_safe)
    st.dataframe(safe, **options)


def report_table(report: IngestReport) -> None:
    """The ingest report: a table, then the outcomes that need attention, each kind apart."""
    rows = [{
        "document": d.id, "title": d.title, "version": d.version, "status": d.status,
        "supersedes": f"v{d.supersedes}" if d.supersedes else "", "sentences": d.sentences,
        "entities": d.entities, "relations": d.relations, "implied": d.implied_entities,
        "message": d.error or d.note or "",
    } for d in report.documents]
    table(pd.DataFrame(rows), hide_index=True, width="stretch")
    for p in report.problems:
        st.warning(f"Manifest: {plain(p)}")
    for d in report.documents:
        name = plain(d.id)
        if d.status == "model_unavailable":
            st.error(f"{name}: model unavailable — {plain(d.error)}. Nothing was written; fix it and ingest again.")
        elif d.status == "failed":
            st.error(f"{name}: extraction failed — {plain(d.error)}. Nothing was written; ingest again to retry.")
        elif d.status == "rejected":
            st.error(f"{name}: rejected — {plain(d.error)}")
        elif d.status == "refused":
            st.error(f"{name}: refused — {plain(d.error)}. Nothing was written.")
        elif d.status == "nothing_found":
            st.info(f"{name}: no entities or relations found. Its sentences are stored and searchable.")
        elif d.supersedes:
            st.info(f"{name}: version {d.version} supersedes version {d.supersedes} (kept, marked superseded)."
                    + (f" {plain(d.note)}." if d.note else ""))
        elif d.note:
            st.caption(f"{name}: {plain(d.note)}")
    t = report.totals()
    st.caption("Totals: " + ", ".join(f"{k} {v}" for k, v in t.items()))
