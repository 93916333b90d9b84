"""Verdicts that carry over: a verdict judges a pair, the claim's words and the exact sentence it cites.

The pair is (the claim's words normalised: case, punctuation and whitespace ignored; the cited document; the
SHA-256 of the cited sentence's text). Two ways a verdict reaches further than the row it was given on, both
derived here when the record is read, never written (the verdict table stays append-only; no audit row is written,
because nothing was judged again):

- across answers: another claim holding the same pair shows the verdict as its reviewer's (``carried_from`` the
  row, ``carried_answer`` its answer), unless that reviewer has a row of their own on it (their own verdict, or an
  undo of it), so it is not queued for them again and the review policy counts it like a fresh one;
- across versions: a verdict on a superseded version is not stale when the document's current version keeps the
  sentence byte for byte (``kept_in_version``). When it does not, the verdict stays stale and ``changed_sentence``
  gives the current version's closest sentence: what changed.

A verdict carries only from an answer that whoever sees the receiving answer may see too (judged by the document
versions each shows and their labels), so no one learns of an answer or a reviewer they may not see. Anything else in the words (another word,
a number) is another claim, and a verdict carries only to a claim
asked the same question (whether a quote answers, or whether the source backs a claim). A verdict of the *answers*
kind judged a quote against its answer's question: it carries only to an answer asked the same question (its words
compared as claim words are: ``claim_words``), never to another ("does not answer" where it was born is no answer to
when). A *backs* verdict judged the claim against its source, whatever was asked, and carries to any question.
Adjudications and tampered or retracted
verdicts do not carry: an adjudication settles one dispute, and a tampered verdict judged words no longer there.

``old_rule_carries`` says what the rule before issue 60 carried besides (an *answers* verdict to another question):
``graphrag record carried`` counts it in a store.
"""

from __future__ import annotations

import difflib
import json
import unicodedata
from collections.abc import Iterable
from dataclasses import replace

from graphrag.access.rule import Footprint
from graphrag.model import Verdict, VerdictKind, asked_kind
from graphrag.store import Store, sha256_text
from graphrag.verify.policy import REVIEWER, latest, person

Pair = tuple[str, str, str]  # (normalised claim words, document id, sentence digest)


def claim_words(text: str) -> str:
    """A claim's words as a pair compares them: NFKC, case-folded, punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(" " if unicodedata.category(ch).startswith(("P", "Z")) or ch.isspace() else ch for ch in text)
    return " ".join(kept.split())


class _Versions:
    """The current version of each document and the digests of its sentences, each read once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, tuple[int, dict[str, str]] | None] = {}

    def current(self, doc_id: str) -> tuple[int, dict[str, str]] | None:
        """(current version, {sentence digest: sentence}) of ``doc_id``; None when it has no current version."""
        if doc_id not in self._cache:
            doc = self.store.current_document(doc_id)
            self._cache[doc_id] = None if doc is None else (
                doc.version, {sha256_text(s.text): s.text for s in self.store.sentences(doc_id, doc.version)})
        return self._cache[doc_id]

    def keeps(self, v: Verdict) -> int | None:
        """The current version keeping the sentence ``v`` judged, when ``v`` judged a superseded version."""
        if not v.stale or v.source_removed or v.document_id is None:
            return None
        cur = self.current(v.document_id)
        return cur[0] if cur is not None and cur[0] != v.version and v.span_sha256 in cur[1] else None


def _kept(rows: Iterable[Verdict], versions: _Versions) -> list[Verdict]:
    out = []
    for v in rows:
        kept = versions.keeps(v)
        out.append(v if kept is None else replace(v, stale=False, kept_in_version=kept))
    return out


def verdict_rows(store: Store, answer_id: int | None = None, claim_index: int | None = None) -> list[Verdict]:
    """The verdict rows of one claim, one answer or all (history included, oldest first), with carry-over: the
    stored rows (a verdict whose sentence the current version keeps is not stale) and, after them, the verdicts
    carried from other claims with the same pair. What every reader of verdicts goes through."""
    return _rows(store, answer_id, claim_index, same_question=True)


def old_rule_carries(store: Store) -> list[Verdict]:
    """The verdicts the carry-over rule before issue 60 showed on claims they did not judge, which this rule does not:
    an *answers* verdict carried to a quote of an answer to another question. Each as that rule carried it (its
    ``carried_from`` the row, ``carried_answer`` its answer). Derived, like every carried verdict: nothing is stored."""
    now = {_carry_key(v) for v in _rows(store, None, None, same_question=True) if v.carried_from is not None}
    return [v for v in _rows(store, None, None, same_question=False)
            if v.carried_from is not None and _carry_key(v) not in now]


def _carry_key(v: Verdict) -> tuple[int, int, int | None, str]:
    return v.answer_id, v.claim_index, v.carried_from, v.kind.value


def _rows(store: Store, answer_id: int | None, claim_index: int | None, *, same_question: bool) -> list[Verdict]:
    versions = _Versions(store)
    cites = store.claim_citations(None if answer_id is None else [answer_id])
    if answer_id is None:
        pool = _kept(store.verdicts(), versions)
        own = [v for v in pool if claim_index is None or v.claim_index == claim_index]
    else:
        # One answer: its own rows, and the whole history of the other claims that judged one of its sentences
        # (so a later change of mind there counts), not the whole table.
        own = _kept(store.verdicts(answer_id, claim_index), versions)
        shas = sorted({sha256_text(r["sentence"]) for r in cites})
        others = sorted({v.answer_id for v in store.verdicts(spans=shas)} - {answer_id}) if shas else []
        pool = own + [v for aid in others for v in _kept(store.verdicts(aid), versions)]
    # Only verdicts on a cited sentence of the claims asked about can carry to them: their claims' words are read.
    # A stale one carries too, stale: a claim citing the same changed sentence was verified by it as much as the
    # claim it was given on, and its answer is as much *source changed* (not "waiting for review", as if never
    # judged, and missing from the changed sources' listing).
    cited = {(r["doc_id"], sha256_text(r["sentence"])) for r in cites}
    candidates = [v for v in latest(pool) if v.role == REVIEWER and v.document_id is not None and not v.tampered
                  and (v.document_id, v.span_sha256) in cited]
    if not candidates:
        return own
    more = sorted({v.answer_id for v in candidates} - {answer_id}) if answer_id is not None else []
    rows = [*cites, *(store.claim_citations(more) if more else [])]
    words = {(r["answer_id"], r["claim_idx"]): claim_words(r["claim_text"]) for r in rows}
    questions = {r["answer_id"]: claim_words(r["question"] or "") for r in rows}
    sources: dict[Pair, list[Verdict]] = {}
    for v in candidates:
        if (v.answer_id, v.claim_index) in words:
            sources.setdefault((words[(v.answer_id, v.claim_index)], v.document_id or "", v.span_sha256), []).append(v)
    has_rows: dict[tuple[int, int], set[str]] = {}
    for v in own if answer_id is not None else pool:
        has_rows.setdefault((v.answer_id, v.claim_index), set()).add(person(v))
    carried: dict[tuple[int, int, str], Verdict] = {}
    fps = store.answer_footprints()
    labels = store.version_labels()
    for r in cites:
        key = (r["answer_id"], r["claim_idx"])
        if (answer_id is not None and key[0] != answer_id) or (claim_index is not None and key[1] != claim_index):
            continue
        asked = asked_kind(json.loads(r["claim_flags"] or "[]"))
        for src in sources.get((words[key], r["doc_id"], sha256_text(r["sentence"])), ()):
            who = person(src)
            # a verdict answers one question (graphrag.model.VerdictKind): it carries to a claim asked the same one
            if (src.answer_id, src.claim_index) == key or who in has_rows.get(key, set()) or src.kind != asked:
                continue
            # whether a quote answers is a question of the question asked: it carries to the same question only
            if same_question and src.kind is VerdictKind.ANSWERS and questions[src.answer_id] != questions[key[0]]:
                continue
            if not _within(fps.get(src.answer_id), fps.get(key[0]), labels):
                continue
            prior = carried.get((*key, who))
            if prior is None or (prior.created_at or "", prior.carried_from or 0) < (src.created_at or "", src.id or 0):
                carried[(*key, who)] = replace(
                    src, answer_id=key[0], claim_index=key[1], marker=r["marker"], document_id=r["doc_id"],
                    version=r["version"], start=r["start"], end=r["end"], id=None, stale=bool(r["superseded"]),
                    source_removed=False, kept_in_version=None, carried_from=src.id, carried_answer=src.answer_id)
    extra = _kept(sorted(carried.values(), key=lambda v: (v.created_at or "", v.carried_from or 0)), versions)
    return own + extra


def _within(source: Footprint | None, target: Footprint | None,
            labels: dict[tuple[str, int], tuple[str, ...]]) -> bool:
    """Whether whoever may see the target answer may see the source answer, so a carried verdict (which names its
    reviewer and its answer) tells them of nothing hidden: every document version the source shows has, among the
    target's, one whose labels are all its own (a viewer holding one label of that one holds one of the source's;
    routes and seeds are read from those documents)."""
    if source is None or target is None or source.withdrawn_labels is not None or target.withdrawn_labels is not None:
        return False
    held = [frozenset(labels.get(t, ())) for t in target.documents]
    return all(any(h and h <= frozenset(labels.get(d, ())) for h in held) for d in source.documents)


def changed_sentence(store: Store, v: Verdict) -> str | None:
    """For a stale verdict whose sentence the current version does not keep: the current version's sentence most
    like the one judged (what it became), or None (not stale, kept, removed, or nothing alike)."""
    return ChangedSentences(store).of(v)


class ChangedSentences:
    """``changed_sentence`` for many verdicts: each document version read once and each judged sentence matched
    once (an export after a new version matched every stale verdict's sentence against the whole current version,
    most of the export's time)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._texts: dict[tuple[str, int], str | None] = {}
        self._now: dict[str, list[str] | None] = {}
        self._best: dict[tuple[str, str], str | None] = {}

    def of(self, v: Verdict) -> str | None:
        """What the sentence ``v`` judged became in the current version (see ``changed_sentence``)."""
        if not v.stale or v.source_removed or v.document_id is None or v.kept_in_version is not None:
            return None
        if v.version is None or v.start is None or v.end is None:
            return None
        now, old = self._current(v.document_id), self._text(v.document_id, v.version)
        if now is None or old is None:
            return None
        judged = old[v.start:v.end]
        key = (v.document_id, judged)
        if key not in self._best:
            best = difflib.get_close_matches(judged, now, n=1, cutoff=0.5)
            self._best[key] = best[0] if best else None
        return self._best[key]

    def _text(self, doc_id: str, version: int) -> str | None:
        if (doc_id, version) not in self._texts:
            doc = self.store.document(doc_id, version)
            self._texts[(doc_id, version)] = doc.text if doc is not None else None
        return self._texts[(doc_id, version)]

    def _current(self, doc_id: str) -> list[str] | None:
        if doc_id not in self._now:
            doc = self.store.current_document(doc_id)
            self._now[doc_id] = None if doc is None else [s.text for s in self.store.sentences(doc_id, doc.version)]
        return self._now[doc_id]


def carried_json(v: Verdict) -> dict[str, int | None]:
    """What a listing says of a verdict's carry-over."""
    return {"carried_from": v.carried_from, "carried_from_answer": v.carried_answer,
            "kept_in_version": v.kept_in_version}
