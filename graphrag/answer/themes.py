"""Answers to global questions, drawn from the graph's communities rather than the few sentences nearest the question.

``theme_draft`` ("What are these documents about?"): the themes the question concerns (all of them when it is about
everything), each one block as a person would summarise it from quotes: a line naming the theme by the key phrases
of its sentences and the documents it spans, then two to four of its most representative sentences as bullets,
each quoted word for word and cited (documents no block has quoted yet first, so the answer covers the store).
Only a statement is quoted: never a question, a heading, a caption, a table row, a reference or a link (the rule
the extractive answers follow, ``reader.rank.kinds.quotable``). A theme is one community of the entity graph,
split where its documents share only generic words: two documents belong to one theme when they name one of its
specific entities together (not a number or a date, not a single common word, not a word most documents use).
The naming lines (and, for a question routed here from the default mode, the opening that says so) are no claims;
each bullet is one, a verbatim quote of the sentence it cites. ``changes_draft`` ("What changed between A and
B?"): for two documents, or two versions of one, the statements one states and the other does not, and those that
disagree, cited on both sides. Both only write text with ``[n]`` markers over numbered context items:
``graphrag.answer.ask`` attributes, checks and stores them like any answer, so theme claims go through the same
review, record and exports.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphrag.access.identity import Viewer
from graphrag.answer.communities import Community, communities
from graphrag.answer.reader.rank.kinds import quotable
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import DocVersion
from graphrag.errors import InputError
from graphrag.language.encoding import Embedder
from graphrag.language.sentences import normalise
from graphrag.model import AskSettings, ContextItem, Route, RouteStart, Seed, Span
from graphrag.store import Store
from graphrag.verify.disagreement import differing_values, disagreement_sentence, find_disagreements
from graphrag.verify.quotations import ONLY_OPENING

LOCAL, THEMES, CHANGES = "local", "themes", "changes"
MODES = (LOCAL, THEMES, CHANGES)

MAX_THEMES = 16
MIN_QUOTES = 2  # a theme with fewer quotable sentences is not shown: one sentence is that sentence, not a theme
QUOTES_PER_THEME = 3  # a theme quotes this many sentences, and up to MAX_QUOTES while they come from documents no
MAX_QUOTES = 4  # block has quoted yet (so the answer covers the store)
MAX_QUOTE_CHARS = 320  # a longer sentence (an infobox run together, a list) is not quoted in a summary
MIN_QUOTE_WORDS = 5  # nor a shorter one (a fragment: "Pom Klementieff (born c.")
READ_PER_THEME = 40  # sentences read from the store per theme, the most representative first, to find its quotes
MIN_ROWS = 2  # a community named by one sentence is that sentence, not a theme
DOCUMENT_SHARE = 0.2  # a theme spans a document holding at least this share of the rows its top document holds
# An entity that more than this share of the visible documents name (when there are at least GENERIC_MIN_DOCUMENTS)
# is a generic word: two documents sharing only such words are not one theme.
GENERIC_SHARE = 0.5
GENERIC_MIN_DOCUMENTS = 6
KIN_SIMILARITY = 0.3  # two documents' sentences in a theme less alike than this (cosine of centroids) are not kin
KIN_MAX_DOCUMENTS = 64  # an entity more documents of a community name than this joins none of them (bounded work)
NAME_PHRASES = 3  # key phrases in a theme's name
NAME_WORDS = 4  # a longer entity name ("Gimli in The Lord of the Rings") is a clause, not a key phrase
NAME_FLOOR = 0.3  # a phrase scoring less than this share of the theme's first one does not name it
SPLIT_SHARE = 0.25  # a part split off a community holding less than this share of its rows stands as a theme only
# when one of its documents is in no other theme
NEAR_DUPLICATE = 0.9  # a sentence this like one a block quotes already (cosine), or holding this share of its
SAME_WORDS = 0.7  # words (of the shorter one), says the same: not quoted again
# A question whose best theme is less like it than this is about everything ("What are these documents about?");
# otherwise the themes within MARGIN of the best one are the ones it concerns.
ABOUT_EVERYTHING = 0.3
MARGIN = 0.1
NAMED_DOCUMENTS = 4  # documents a theme's line names before "and N more"
# changes: a sentence of one side whose nearest sentence of the other is less similar than this (and that does not
# disagree with it) is stated only on its side
ONLY_BELOW = 0.75
MAX_CHANGES = 6  # statements per side, and disagreements

_WORD = re.compile(r"\w+")
# A date, a number or a measure names no theme ("30 days", "2021", "March", "three years").
_NOT_A_NAME = re.compile(
    r"\d|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|"
    r"thousand|million|billion|first|second|third|half|dozen|percent|per\s+cent|"
    r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centur(?:y|ies))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Draft:
    """What a theme or change answer says (text with markers over ``context``), where its routes start, and
    whether it answers (False: the text says in words why not, and makes no claim). ``headings``: the lines of the
    text that are no claims (a theme's name and documents; the opening of a question routed to themes)."""

    text: str
    context: tuple[ContextItem, ...] = ()
    seeds: tuple[Seed, ...] = ()
    warnings: tuple[str, ...] = ()
    answered: bool = True
    settings: AskSettings | None = None  # the settings actually used, when they differ from those asked with
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Theme:
    """A theme of the visible documents: the community it comes from, the documents it spans and its rows in
    them, their centroid, how like the question it is, the community's entities its rows name (the most central
    first) and, once it is shown, its name: the key phrases of its sentences (entity indices, the most telling
    first; ``_phrases``)."""

    community: Community
    documents: tuple[int, ...]
    rows: np.ndarray
    centroid: np.ndarray
    relevance: float
    entities: tuple[int, ...] = ()
    phrases: tuple[int, ...] = ()

    def name(self, graph: KnowledgeGraph) -> tuple[str, ...]:
        """The theme's key phrases as the documents write them."""
        return tuple(graph.names[e] for e in self.phrases)


def _flat(text: str) -> str:
    """Text as a line of an answer: one line, brackets as parentheses (they would read as markers), double
    quotation marks as single ones (inside a quotation they would end it)."""
    text = text.replace("[", "(").replace("]", ")").replace("“", "‘").replace("”", "’").replace('"', "'")
    return " ".join(text.split())


def _quote(text: str) -> str:
    """A sentence as quoted in a statement: one line, brackets as parentheses (they would read as markers), no
    closing full stop."""
    return " ".join(text.replace("[", "(").replace("]", ")").split()).rstrip(" .!?")


def _named(titles: Sequence[str]) -> str:
    shown = list(titles[:NAMED_DOCUMENTS])
    more = len(titles) - len(shown)
    if more:
        return ", ".join(shown) + f" and {more} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


@dataclass(frozen=True)
class _Words:
    """What the visible documents say of each entity: in how many visible sentences and documents it is named,
    whether it can name a theme (not a number or a date) and whether it is a generic word."""

    rows: np.ndarray  # visible sentences naming it
    documents: np.ndarray  # visible documents naming it
    n_rows: int
    nameable: np.ndarray
    generic: np.ndarray
    short: np.ndarray  # at most NAME_WORDS words: a phrase that can name a theme in a line


_name_kinds: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[np.ndarray, np.ndarray, np.ndarray]] = \
    weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _kinds_of_names(graph: KnowledgeGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per entity, from its name alone: whether it can name a theme (three letters, no number or date), whether
    it is one lowercase word, and whether it is short enough to name one; read once per graph."""
    with _lock:
        hit = _name_kinds.get(graph)
    if hit is None:
        names = graph.names
        hit = (np.array([len(re.findall(r"[^\W\d_]", name)) >= 3 and not _NOT_A_NAME.search(name) for name in names],
                        dtype=bool),
               np.array([" " not in name.strip() and name == name.lower() for name in names], dtype=bool),
               np.array([len(name.split()) <= NAME_WORDS for name in names], dtype=bool))
        with _lock:
            _name_kinds[graph] = hit
    return hit


def _words(graph: KnowledgeGraph, visible_docs: np.ndarray) -> _Words:
    n = len(graph.keys)
    m = graph.mentions
    seen = visible_docs[m.doc] if len(m.doc) else np.zeros(0, dtype=bool)
    ent, row, doc = m.entity[seen].astype(np.int64), m.row[seen].astype(np.int64), m.doc[seen].astype(np.int64)
    rows = np.bincount(np.unique(ent * max(len(graph.sentence_doc), 1) + row) // max(len(graph.sentence_doc), 1),
                       minlength=n) if len(ent) else np.zeros(n, dtype=np.int64)
    docs = np.bincount(np.unique(ent * max(len(graph.docs), 1) + doc) // max(len(graph.docs), 1),
                       minlength=n) if len(ent) else np.zeros(n, dtype=np.int64)
    nameable, common, short = _kinds_of_names(graph)
    n_docs = int(visible_docs.sum())
    widespread = (docs > GENERIC_SHARE * n_docs) if n_docs >= GENERIC_MIN_DOCUMENTS else np.zeros(n, dtype=bool)
    return _Words(rows, docs, max(int(visible_docs[graph.sentence_doc].sum()), 1), nameable,
                  ~nameable | common | widespread, short)


def _kin(graph: KnowledgeGraph, community: Community, rows: np.ndarray, words: _Words) -> list[list[int]]:
    """The community's documents in groups of kin, the groups holding most rows first. Two documents are kin when
    they name together specific entities of the community (not generic words: ``_words``), one of two words or
    more ("retention policy", "Aurora region") or two single words ("Halley" and "Sun"), and their sentences in it
    are alike (their centroids at least ``KIN_SIMILARITY``): a shared "London" or "English" alone does not make
    one theme of a talent show and a musical, nor a shared "report" or "court" one of a handbook and a judgment.
    A document with no kin is a group of its own."""
    docs_of_rows = graph.documents_of(rows).astype(np.int64)
    ent, at = graph.mentions.entities_of_rows(rows)
    keep = np.isin(ent, np.asarray(community.entities, dtype=np.int64)) & ~words.generic[ent]
    n_docs = max(len(graph.docs), 1)
    codes = np.unique(ent[keep].astype(np.int64) * n_docs + docs_of_rows[at[keep]])  # (entity, document), once
    ents, docs = codes // n_docs, codes % n_docs
    starts = np.flatnonzero(np.r_[True, ents[1:] != ents[:-1]]) if len(ents) else np.zeros(0, dtype=np.int64)
    shared: dict[tuple[int, int], list[int]] = {}  # document pairs and the specific entities they share
    for a0, b0 in zip(starts.tolist(), np.r_[starts[1:], len(ents)].tolist()):
        if 1 < b0 - a0 <= KIN_MAX_DOCUMENTS:
            naming = docs[a0:b0].tolist()
            for i, a in enumerate(naming):
                for b in naming[i + 1:]:
                    shared.setdefault((a, b), []).append(int(ents[a0]))
    present = np.unique(docs_of_rows).tolist()
    parent = {d: d for d in present}

    def root(d: int) -> int:
        while parent[d] != d:
            parent[d] = parent[parent[d]]
            d = parent[d]
        return d

    by_doc = np.argsort(docs_of_rows, kind="stable")
    bounds = np.searchsorted(docs_of_rows[by_doc], [present, np.asarray(present) + 1])
    place = {d: (int(lo), int(hi)) for d, lo, hi in zip(present, bounds[0], bounds[1])}
    centroid: dict[int, np.ndarray] = {}
    for (a, b), es in shared.items():
        if len(es) < 2 and " " not in graph.names[es[0]].strip():
            continue  # one shared word: a place, a nationality, a first name
        for d in (a, b):
            if d not in centroid:
                lo, hi = place[d]
                v = np.asarray(graph.sentence_vectors[rows[by_doc[lo:hi]]], dtype=np.float32).mean(axis=0)
                centroid[d] = v / max(float(np.linalg.norm(v)), 1e-9)
        if float(centroid[a] @ centroid[b]) >= KIN_SIMILARITY:
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for d in present:
        groups.setdefault(root(d), []).append(d)
    per_doc = np.bincount(docs_of_rows, minlength=len(graph.docs))
    return sorted(groups.values(), key=lambda g: (-int(per_doc[g].sum()), min(g)))


def _phrases(graph: KnowledgeGraph, rows: np.ndarray, words: _Words, quoted: Sequence[int] = ()) -> tuple[int, ...]:
    """The theme's key phrases: the entities its sentences name that are most telling of it (named by many of its
    sentences and by few others: their count here times the log of how rare they are among the visible
    sentences; half as much again for a phrase of two words or more, and when a quoted sentence names it), never a
    number or a date, each sharing no word with a phrase before it and scoring at least ``NAME_FLOOR`` of the
    first."""
    if not len(rows):
        return ()
    ent, at = graph.mentions.entities_of_rows(rows)
    mine = words.nameable[ent] & words.short[ent]
    if not mine.any():
        return ()
    pairs = np.unique(ent[mine].astype(np.int64) * len(rows) + at[mine])
    cand, tf = np.unique(pairs // len(rows), return_counts=True)
    score = tf * np.log1p(words.n_rows / np.maximum(words.rows[cand], 1))
    score = score * np.array([1.5 if " " in graph.names[e].strip() else 1.0 for e in cand.tolist()])
    if len(quoted):
        in_quotes = set(np.concatenate([graph.entities_in_row(r) for r in quoted]).tolist())
        score = score * np.array([1.5 if e in in_quotes else 1.0 for e in cand.tolist()])
    if (tf >= 2).any():
        score = np.where(tf >= 2, score, -1.0)  # a phrase one sentence names tells little of a theme
    chosen: list[int] = []
    taken: set[str] = set()
    top = float(score.max())
    for i in np.lexsort((cand, -score)).tolist():
        if score[i] < max(0.0, NAME_FLOOR * top) or len(chosen) == NAME_PHRASES:
            break
        tokens = set(normalise(graph.names[int(cand[i])]).split())
        if tokens & taken:
            continue  # "export" after "snapshot export": the same thing twice
        chosen.append(int(cand[i]))
        taken |= tokens
    return tuple(chosen)


def themes_of(graph: KnowledgeGraph, settings: AskSettings, qvec: np.ndarray,
              words: _Words | None = None) -> list[Theme]:
    """The visible communities as themes (those of at least ``MIN_ROWS`` sentences), each split where its documents
    share only generic words (``_kin``), the largest first."""
    found = communities(graph, settings.access, settings.include_superseded, settings.documents)
    if words is None:
        words = _words(graph, graph.visibility(settings.access, settings.include_superseded, settings.documents)[0])
    out: list[Theme] = []
    splinters: list[Theme] = []
    for c in found.groups:
        all_rows = np.asarray(c.rows, dtype=np.int64)
        if len(all_rows) < MIN_ROWS:
            continue
        for i, group in enumerate(_kin(graph, c, all_rows, words)):
            rows = all_rows[np.isin(graph.documents_of(all_rows), group)]
            per_doc = np.bincount(graph.documents_of(rows), minlength=len(graph.docs))
            top = per_doc.max()
            docs = tuple(d for d in c.documents if per_doc[d] >= max(1.0, DOCUMENT_SHARE * top))
            rows = rows[np.isin(graph.documents_of(rows), docs)]
            if len(rows) < MIN_ROWS:
                continue
            centroid = np.asarray(graph.sentence_vectors[rows], dtype=np.float32).mean(axis=0)
            centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
            named = np.isin(np.asarray(c.entities, dtype=np.int64), graph.mentions.entities_of_rows(rows)[0])
            entities = tuple(e for e, n in zip(c.entities, named.tolist()) if n)
            theme = Theme(c, docs, rows, centroid, float(centroid @ qvec), entities)  # named when shown
            (out if i == 0 or len(rows) >= SPLIT_SHARE * len(all_rows) else splinters).append(theme)
    # a small part split off a community (its documents share only generic words with the rest) is a theme of its
    # own where it is all a document has; else its document is themed already, by what it shares with others
    covered = {d for t in out for d in t.documents}
    for t in sorted(splinters, key=lambda t: -len(t.rows)):
        if not covered.issuperset(t.documents):
            out.append(t)
            covered.update(t.documents)
    out.sort(key=lambda t: -len(t.rows))  # stable: a community's groups keep their order
    return out


def concerned(themes: Sequence[Theme]) -> list[Theme]:
    """The themes a question concerns: all of them when none is much like it, else those near the best."""
    if not themes:
        return []
    best = max(t.relevance for t in themes)
    if best < ABOUT_EVERYTHING:
        return list(themes)
    return [t for t in themes if t.relevance >= best - MARGIN]


def _seed_of(graph: KnowledgeGraph, theme: Theme, row: int) -> str:
    """The theme's most telling entity that the sentence names (the route's one node): a key phrase first, then
    the most central."""
    named = set(graph.entities_in_row(row).tolist())
    for e in (*theme.phrases, *theme.entities):
        if e in named:
            return graph.entity_key(e)
    return graph.entity_key((theme.phrases or theme.entities or theme.community.entities)[0])


def _item(store: Store, graph: KnowledgeGraph, n: int, row: int, seed: str, score: float) -> ContextItem:
    doc = graph.document(row)
    span = store.span(doc.id, doc.version, graph.sentence_index(row))
    if span is None:
        raise InputError(f"sentence {graph.sentence_index(row)} of {doc.id} v{doc.version} is gone from the store; "
                         "ask again")
    return ContextItem(n, span, Route(seed, (), RouteStart.THEME), round(score, 4), "theme", doc.superseded,
                       doc.effective_date)


def _visible(graph: KnowledgeGraph, settings: AskSettings) -> list[DocVersion]:
    vis = graph.visibility(settings.access, settings.include_superseded, settings.documents)[0]
    return [d for d, v in zip(graph.docs, vis.tolist()) if v]


def _quotable_rows(store: Store, graph: KnowledgeGraph, theme: Theme, skip: set[int]) -> list[tuple[float, int]]:
    """The theme's sentences that a block may quote, the most representative first (their likeness to the theme's
    centroid): statements (``quotable``) of ``MIN_QUOTE_WORDS`` words to ``MAX_QUOTE_CHARS`` characters, not
    quoted by a block before, not near copies of one another; at most ``READ_PER_THEME`` are read from the store."""
    scores = np.asarray(graph.sentence_vectors[theme.rows], dtype=np.float32) @ theme.centroid
    order = np.argsort(-scores, kind="stable")
    out: list[tuple[float, int]] = []
    kept: list[tuple[np.ndarray, set[str]]] = []
    read = 0
    for i in order.tolist():
        row = int(theme.rows[i])
        if row in skip:
            continue
        if read == READ_PER_THEME:
            break
        read += 1
        doc = graph.document(row)
        span = store.span(doc.id, doc.version, graph.sentence_index(row))
        text = " ".join(span.text.split()) if span is not None else ""
        if len(_WORD.findall(text)) < MIN_QUOTE_WORDS or len(text) > MAX_QUOTE_CHARS or not quotable(text):
            continue
        vec = np.asarray(graph.sentence_vectors[row], dtype=np.float32)
        vec = vec / max(float(np.linalg.norm(vec)), 1e-9)
        said = set(_WORD.findall(text.lower()))
        if any(float(vec @ k) >= NEAR_DUPLICATE or len(said & w) >= SAME_WORDS * min(len(said), len(w))
               for k, w in kept):
            continue  # says again what a quote before it says
        kept.append((vec, said))
        out.append((float(scores[i]), row))
    return out


def _picks(graph: KnowledgeGraph, theme: Theme, candidates: list[tuple[float, int]],
           quoted: set[int]) -> list[tuple[float, int]]:
    """The block's quotes: each document's best sentence, documents no block has quoted yet first (up to
    ``MAX_QUOTES``), then the theme's other best sentences up to ``QUOTES_PER_THEME``, in the theme's order."""
    best: dict[int, tuple[float, int]] = {}
    for score, row in candidates:
        best.setdefault(int(graph.documents_of(row)), (score, row))
    order = sorted(best, key=lambda d: (d in quoted, theme.documents.index(d) if d in theme.documents else 0))
    fresh = [best[d] for d in order if d not in quoted][:MAX_QUOTES]
    picks = fresh + [best[d] for d in order if d in quoted][:max(0, QUOTES_PER_THEME - len(fresh))]
    for c in candidates:
        if len(picks) >= QUOTES_PER_THEME:
            break
        if c not in picks:
            picks.append(c)
    return picks


def theme_draft(store: Store, graph: KnowledgeGraph, embedder: Embedder, question: str,
                settings: AskSettings, routed: bool = False) -> Draft:
    """The themes ``question`` concerns, each one block of cited quotes (see the module's docstring). ``routed``:
    the question was asked in the default mode and answered here because it asks about the documents as a whole
    (``graphrag.answer.global_question``): the answer opens by saying so, and one document is themed on its own."""
    docs = _visible(graph, settings)
    used: AskSettings | None = None
    if not docs:
        return Draft("", warnings=("No documents you can see: there are no themes to find. Ingest documents, or "
                                   "add access labels.",), answered=False)
    if len({d.id for d in docs}) == 1 and not settings.documents:
        if not routed:
            return Draft(f"The documents you can see are one document, “{docs[0].title}”: there are no themes "
                         "across documents to draw. Ask about it directly, or choose it as the scope to see its "
                         "themes.", answered=False)
        used = settings = replace(settings, documents=(docs[0].id,))  # its own themes
    qvec = embedder.encode([question])[0]
    words = _words(graph, graph.visibility(settings.access, settings.include_superseded, settings.documents)[0])
    concerns = concerned(themes_of(graph, settings, qvec, words))
    quoted: set[int] = set()  # documents quoted so far, and their rows
    quoted_rows: set[int] = set()
    taken: dict[int, list[tuple[float, int]]] = {}  # theme (its place in ``concerns``) -> its quotes
    # the blocks that quote a document no block quotes yet first, so the answer covers the store; then the others,
    # the largest first, up to MAX_THEMES; they are written in the themes' order
    for fresh_only in (True, False):
        for at, theme in enumerate(concerns):
            if len(taken) == MAX_THEMES:
                break
            if at in taken or (fresh_only and quoted.issuperset(theme.documents)):
                continue
            picks = _picks(graph, theme, _quotable_rows(store, graph, theme, quoted_rows), quoted)
            if len(picks) < MIN_QUOTES:
                continue  # fewer than two statements to quote: no block
            taken[at] = picks
            quoted.update(int(graph.documents_of(r)) for _, r in picks)
            quoted_rows.update(r for _, r in picks)
    context: list[ContextItem] = []
    seeds: dict[str, Seed] = {}
    blocks: list[str] = []
    headings: list[str] = []
    first_phrase = last_resort = ""
    for at in sorted(taken):
        theme, picks = concerns[at], taken[at]
        phrases = _phrases(graph, theme.rows, words, [r for _, r in picks])
        named = replace(theme, phrases=phrases)
        label = named.name(graph)
        titles = [_flat(graph.docs[d].title) for d in theme.documents]
        # a name never opens like a list item or a heading mark: the line stays the theme's name
        name = _flat(", ".join(label[:-1]) + " and " + label[-1] if len(label) > 1 else "".join(label)).lstrip(
            "-*•#>+0123456789.) ")
        heading = (f"{name[:1].upper()}{name[1:]} (in {_named(titles)}):" if name
                   else f"In {_named(titles)}:")
        # the example of a question about one thing: the first key phrase of two words or more ("retention
        # policy"), else the first one
        first_phrase = first_phrase or next((_flat(p) for p in label if " " in p.strip()), "")
        last_resort = last_resort or (_flat(label[0]) if label else "")
        lines = [heading]
        for score, row in picks:
            item = _item(store, graph, len(context) + 1, row, _seed_of(graph, named, row), score)
            context.append(item)
            lines.append(f"- “{_flat(item.span.text)}” [{item.n}]")
        for e in phrases or theme.entities[:NAME_PHRASES]:
            key = graph.entity_key(e)
            seeds.setdefault(key, Seed(key, round(theme.relevance, 4), RouteStart.THEME, name, "theme"))
        headings.append(heading)
        blocks.append("\n".join(lines))
    if not blocks:
        return Draft("The documents you can see name too few things together to group into themes.",
                     answered=False, settings=used)
    if routed:
        first_phrase = first_phrase or last_resort
        example = (f" For example: “What do the documents say about {first_phrase}?”" if first_phrase else "")
        opening = ("Answered by themes, because the question asks about the documents as a whole: each theme "
                   "below quotes the sentences that best represent it. To ask about one thing in them instead, "
                   f"name it in the question.{example}")
        headings.insert(0, opening)
        blocks.insert(0, opening)
    return Draft("\n\n".join(blocks), tuple(context), tuple(seeds.values()), settings=used,
                 headings=tuple(headings))


def compared_versions(graph: KnowledgeGraph, settings: AskSettings) -> tuple[DocVersion, DocVersion]:
    """The two document versions a change question compares: the current visible version of each of two
    documents, or the two newest visible versions of one (older first)."""
    ids = list(dict.fromkeys(settings.documents))
    if len(ids) not in (1, 2):
        raise InputError("“what changed” compares two documents or two versions of one: choose two documents "
                         f"(or one with several versions) as the scope; {len(ids)} chosen")
    vis = graph.visibility(settings.access, True)[0]
    seen = [d for d, v in zip(graph.docs, vis.tolist()) if v and d.id in ids]
    if len(ids) == 2:
        newest = {}
        for d in sorted(seen, key=lambda d: d.version):
            newest[d.id] = d
        missing = [i for i in ids if i not in newest]
        if missing:
            raise InputError(f"no document you can see has the id {', '.join(map(repr, missing))}")
        return newest[ids[0]], newest[ids[1]]
    versions = sorted(seen, key=lambda d: d.version)
    if len(versions) < 2:
        raise InputError(f"{ids[0]!r} has {len(versions)} version(s) you can see: choose two documents to compare, "
                         "or a document with an older version")
    return versions[-2], versions[-1]


def _doc_label(d: DocVersion, other: DocVersion) -> str:
    return f"{d.title} v{d.version}" if d.id == other.id else d.title


def changes_draft(store: Store, graph: KnowledgeGraph, settings: AskSettings) -> Draft:
    """What one of two document versions states that the other does not, and where they disagree."""
    a, b = compared_versions(graph, settings)
    used = settings if a.id != b.id else replace(settings, include_superseded=True)
    spans = {d: store.sentences(d.id, d.version) for d in (a, b)}
    rows = {d: [graph.row_of(d.id, d.version, s.sentence_index) for s in spans[d]] for d in (a, b)}
    if not rows[a] or not rows[b] or None in rows[a] + rows[b]:
        raise InputError("one of the two versions has no sentences in the graph; ask again after its ingest ends")
    va, vb = (np.asarray(graph.sentence_vectors[np.array(rows[d], dtype=np.int64)], dtype=np.float32) for d in (a, b))
    sims = va @ vb.T
    context: list[ContextItem] = []

    def item(d: DocVersion, s: Span, score: float) -> ContextItem:
        route = Route(_route_seed(graph, d, s), (), RouteStart.THEME)
        context.append(ContextItem(len(context) + 1, s, route, round(score, 4), "theme", d.superseded,
                                   d.effective_date))
        return context[-1]

    titles = {(a.id, a.version): a.title, (b.id, b.version): b.title}  # the sentence adds version and date
    statements: list[str] = []
    pairs = []
    same_date = bool(a.effective_date) and a.effective_date == b.effective_date
    for i, j in zip(range(len(spans[a])), sims.argmax(axis=1).tolist()):
        if differing_values(spans[a][i].text, spans[b][j].text, same_date=same_date) is not None:
            pairs.append((float(sims[i, j]), i, j))
    paired: tuple[set[int], set[int]] = (set(), set())  # sentences of a and of b in a stated disagreement
    for _, i, j in sorted(pairs, reverse=True):
        if j in paired[1] or len(paired[0]) >= MAX_CHANGES:
            continue  # the other side's sentence is in a disagreement already
        x, y = item(a, spans[a][i], float(sims[i, j])), item(b, spans[b][j], float(sims[i, j]))
        found = find_disagreements([x, y], lambda doc, v: titles.get((doc, v)))
        if found:
            statements.append(disagreement_sentence(found[0]))
            paired[0].add(i)
            paired[1].add(j)
        else:
            context[-2:] = []
    for side, other, best, skip in ((a, b, sims.max(axis=1), paired[0]), (b, a, sims.max(axis=0), paired[1])):
        only = [(float(s), i) for i, s in enumerate(best.tolist()) if s < ONLY_BELOW and i not in skip]
        for s, i in sorted(only)[:MAX_CHANGES]:
            it = item(side, spans[side][i], s)
            statements.append(f"{ONLY_OPENING}{_doc_label(side, other)} says “{_quote(it.span.text)}” [{it.n}].")
    if not statements:
        return Draft(f"{_doc_label(a, b)} and {_doc_label(b, a)} state the same things: every sentence of one has a "
                     "close match in the other.", answered=False, settings=used)
    seeds = {c.route.seed: Seed(c.route.seed, c.score, RouteStart.THEME, "", "changes") for c in context
             if c.route.seed}
    return Draft("\n\n".join(statements), tuple(context), tuple(seeds.values()), settings=used)


def _route_seed(graph: KnowledgeGraph, d: DocVersion, s: Span) -> str:
    """An entity the sentence names (its most specific), or "" when it names none."""
    row = graph.row_of(d.id, d.version, s.sentence_index)
    named = graph.entities_in_row(row) if row is not None else np.zeros(0, dtype=np.int64)
    if not len(named):
        return ""
    return graph.entity_key(int(named[np.argmax(graph.specificity[named])]))


@dataclass(frozen=True)
class ThemeView:
    """A theme as the Graph page lists it: its number, name (its key phrases), entities (most central first), the
    documents it spans and its most representative sentences, all visible to the viewer."""

    number: int
    label: tuple[str, ...]
    entities: tuple[str, ...]  # keys
    documents: tuple[str, ...]  # titles
    sentences: tuple[Span, ...]


def visible_themes(store: Store, graph: KnowledgeGraph, viewer: Viewer, limit: int = MAX_THEMES,
                   sentences: int = 5) -> tuple[list[ThemeView], dict[str, int]]:
    """The themes of what ``viewer``'s labels see, the largest first (at most ``limit``), and every visible entity's
    theme number (an index into that list; entities of smaller themes are left out)."""
    settings = AskSettings(access=tuple(viewer.labels))
    words = _words(graph, graph.visibility(settings.access)[0])
    shown = [replace(t, phrases=_phrases(graph, t.rows, words)) for t in
             themes_of(graph, settings, np.zeros(graph.sentence_vectors.shape[1], dtype=np.float32), words)[:limit]]
    views: list[ThemeView] = []
    of: dict[str, int] = {}
    for n, theme in enumerate(shown):
        scores = np.asarray(graph.sentence_vectors[theme.rows], dtype=np.float32) @ theme.centroid
        rows = theme.rows[np.argsort(-scores, kind="stable")[:sentences]].tolist()
        got = (store.span(graph.document(r).id, graph.document(r).version, graph.sentence_index(r)) for r in rows)
        spans = tuple(s for s in got if s is not None)
        keys = tuple(graph.entity_key(e) for e in theme.entities)
        titles = tuple(graph.docs[d].title for d in theme.documents)
        views.append(ThemeView(n, theme.name(graph) or theme.community.label(graph), keys, titles, spans))
        for key in keys:  # an entity two themes of one community name keeps the larger one's colour
            of.setdefault(key, n)
    return views, of
