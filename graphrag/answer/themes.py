"""Answers to global questions, drawn from the graph's communities rather than the few sentences nearest the question.

``theme_draft`` ("What are these documents about?"): the communities the question concerns (all of them when it
is about everything), and for each one statement that quotes its most representative sentences, each document's
best, documents not yet quoted first, so the answer covers the store; the statement names the theme by its most
central entities and the documents it spans. ``changes_draft`` ("What changed between A and B?"): for two documents,
or two versions of one, the statements one states and the other does not, and those that disagree, cited on both
sides. Both only write text with ``[n]`` markers over numbered context items: ``graphrag.answer.ask`` attributes,
checks and stores them like any answer, so theme claims go through the same review, record and exports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphrag.access.identity import Viewer
from graphrag.answer.communities import Community, communities
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import DocVersion
from graphrag.errors import InputError
from graphrag.language.encoding import Embedder
from graphrag.model import AskSettings, ContextItem, Route, RouteStart, Seed, Span
from graphrag.store import Store
from graphrag.verify.disagreement import differing_values, disagreement_sentence, find_disagreements
from graphrag.verify.quotations import ONLY_OPENING, THEME_OPENING

LOCAL, THEMES, CHANGES = "local", "themes", "changes"
MODES = (LOCAL, THEMES, CHANGES)

MAX_THEMES = 16
QUOTES_PER_THEME = 3  # a theme quotes this many documents, and up to MAX_QUOTES while they are documents no
MAX_QUOTES = 5  # statement has quoted yet (so the answer covers the store)
MIN_ROWS = 2  # a community named by one sentence is that sentence, not a theme
DOCUMENT_SHARE = 0.2  # a theme spans a document holding at least this share of the rows its top document holds
# A question whose best theme is less like it than this is about everything ("What are these documents about?");
# otherwise the themes within MARGIN of the best one are the ones it concerns.
ABOUT_EVERYTHING = 0.3
MARGIN = 0.1
NAMED_DOCUMENTS = 4  # documents a statement names before "and N more"
# changes: a sentence of one side whose nearest sentence of the other is less similar than this (and that does not
# disagree with it) is stated only on its side
ONLY_BELOW = 0.75
MAX_CHANGES = 6  # statements per side, and disagreements


@dataclass(frozen=True)
class Draft:
    """What a theme or change answer says (text with markers over ``context``), where its routes start, and
    whether it answers (False: the text says in words why not, and makes no claim)."""

    text: str
    context: tuple[ContextItem, ...] = ()
    seeds: tuple[Seed, ...] = ()
    warnings: tuple[str, ...] = ()
    answered: bool = True
    settings: AskSettings | None = None  # the settings actually used, when they differ from those asked with


@dataclass(frozen=True)
class Theme:
    """One community as a theme of the visible documents: its rows in the documents it spans, their centroid,
    and how like the question it is."""

    community: Community
    documents: tuple[int, ...]
    rows: np.ndarray
    centroid: np.ndarray
    relevance: float


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


def themes_of(graph: KnowledgeGraph, settings: AskSettings, qvec: np.ndarray) -> list[Theme]:
    """The visible communities as themes (those of at least ``MIN_ROWS`` sentences), the largest first."""
    found = communities(graph, settings.access, settings.include_superseded, settings.documents)
    out = []
    for c in found.groups:
        rows = np.asarray(c.rows, dtype=np.int64)
        if len(rows) < MIN_ROWS:
            continue
        per_doc = np.bincount(graph.documents_of(rows), minlength=len(graph.docs))
        top = per_doc.max()
        docs = tuple(d for d in c.documents if per_doc[d] >= max(1.0, DOCUMENT_SHARE * top))
        rows = rows[np.isin(graph.documents_of(rows), docs)]
        centroid = np.asarray(graph.sentence_vectors[rows], dtype=np.float32).mean(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
        out.append(Theme(c, docs, rows, centroid, float(centroid @ qvec)))
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
    """The theme's most central entity that the sentence names (the route's one node)."""
    named = set(graph.entities_in_row(row).tolist())
    for e in theme.community.entities:
        if e in named:
            return graph.entity_key(e)
    return graph.entity_key(theme.community.entities[0])


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


def theme_draft(store: Store, graph: KnowledgeGraph, embedder: Embedder, question: str,
                settings: AskSettings) -> Draft:
    """The themes ``question`` concerns, each one cited statement (see the module's docstring)."""
    docs = _visible(graph, settings)
    if not docs:
        return Draft("", warnings=("No documents you can see: there are no themes to find. Ingest documents, or "
                                   "add access labels.",), answered=False)
    if len({d.id for d in docs}) == 1 and not settings.documents:
        return Draft(f"The documents you can see are one document, “{docs[0].title}”: there are no themes across "
                     "documents to draw. Ask about it directly, or choose it as the scope to see its themes.",
                     answered=False)
    qvec = embedder.encode([question])[0]
    chosen = concerned(themes_of(graph, settings, qvec))[:MAX_THEMES]
    if not chosen:
        return Draft("The documents you can see name too few things together to group into themes.",
                     answered=False)
    counts = graph.doc_sentence_counts
    quoted: set[int] = set()  # documents quoted so far, and their rows
    quoted_rows: set[int] = set()
    context: list[ContextItem] = []
    seeds: dict[str, Seed] = {}
    statements = []
    for theme in chosen:
        scores = np.asarray(graph.sentence_vectors[theme.rows], dtype=np.float32) @ theme.centroid
        best: dict[int, tuple[float, int]] = {}  # per document its most representative row
        for row, score in zip(theme.rows.tolist(), scores.tolist()):
            d = int(graph.documents_of(row))
            if row in quoted_rows:
                continue  # a sentence an earlier theme quotes already
            if d not in best or score > best[d][0]:
                best[d] = (score, row)
        # documents no statement quotes yet first, so the answer covers the store; then the theme's main ones
        order = sorted(best, key=lambda d: (d in quoted, theme.documents.index(d), -counts[d]))
        fresh = [d for d in order if d not in quoted][:MAX_QUOTES]
        picks = fresh + [d for d in order if d in quoted][:max(0, QUOTES_PER_THEME - len(fresh))]
        if not picks:
            continue
        label = theme.community.label(graph)
        parts = []
        for d in picks:
            score, row = best[d]
            item = _item(store, graph, len(context) + 1, row, _seed_of(graph, theme, row), score)
            context.append(item)
            quoted.add(d)
            quoted_rows.add(row)
            parts.append(f"{graph.docs[d].title} says “{_quote(item.span.text)}” [{item.n}]")
        for e in theme.community.entities[:len(label)]:
            key = graph.entity_key(e)
            seeds.setdefault(key, Seed(key, round(theme.relevance, 4), RouteStart.THEME, ", ".join(label), "theme"))
        spans = _named([graph.docs[d].title for d in theme.documents])
        statements.append(f"{THEME_OPENING}{_named(list(label))} (in {spans}): " + "; ".join(parts) + ".")
    return Draft("\n\n".join(statements), tuple(context), tuple(seeds.values()))


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
    """A theme as the Graph page lists it: its number, name, entities (most central first), the documents it
    spans and its most representative sentences, all visible to the viewer."""

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
    shown = themes_of(graph, settings, np.zeros(graph.sentence_vectors.shape[1], dtype=np.float32))[:limit]
    views: list[ThemeView] = []
    of: dict[str, int] = {}
    for n, theme in enumerate(shown):
        scores = np.asarray(graph.sentence_vectors[theme.rows], dtype=np.float32) @ theme.centroid
        rows = theme.rows[np.argsort(-scores, kind="stable")[:sentences]].tolist()
        got = (store.span(graph.document(r).id, graph.document(r).version, graph.sentence_index(r)) for r in rows)
        spans = tuple(s for s in got if s is not None)
        keys = tuple(graph.entity_key(e) for e in theme.community.entities)
        titles = tuple(graph.docs[d].title for d in theme.documents)
        views.append(ThemeView(n, theme.community.label(graph), keys, titles, spans))
        of.update(dict.fromkeys(keys, n))
    return views, of
