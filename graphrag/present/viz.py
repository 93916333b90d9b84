"""pyvis drawings of a route or an entity's neighbourhood, as self-contained, offline HTML.

pyvis assembles the nodes, edges and options; the page is rendered with our own minimal
template instead of pyvis's, because pyvis 0.3.2 links Bootstrap from a CDN even in its
``in_line`` mode. The vis-network script that ships inside pyvis is inlined, a
Content-Security-Policy forbids every network fetch, and all document-derived text travels
as JSON data (``<``, ``>`` and ``&`` escaped) and is shown as plain text: labels are drawn
on the canvas and tooltips are built with ``textContent``, so a document containing
``<script>`` or ``onerror=`` runs nothing.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyvis
from pyvis.network import Network

from graphrag.access import Viewer
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.language.sentences import counted
from graphrag.model import ContextItem, Route, RouteStart, Span

VIS_JS = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js"
MAX_LABEL = 32
# One colour per role, chosen to be told apart by colour-blind readers too (shape differs as well).
STYLE: dict[str, dict[str, object]] = {
    "seed": {"color": {"background": "#f9c98f", "border": "#b8641f"}, "shape": "box", "borderWidth": 2},
    "cited": {"color": {"background": "#b9e4b9", "border": "#2d7a2d"}, "shape": "box", "borderWidth": 4},
    "seed+cited": {"color": {"background": "#b9e4b9", "border": "#2d7a2d"}, "shape": "box", "borderWidth": 4},
    "node": {"color": {"background": "#dce9f5", "border": "#4f7cac"}, "shape": "box", "borderWidth": 1},
    # Neighbourhood nodes are boxes too: the physics keeps whole boxes (names included) apart, where a dot's
    # label hangs below it, outside what the layout keeps apart, and runs into its neighbours' labels.
    "centre": {"color": {"background": "#f4a259", "border": "#b8641f"}, "shape": "box", "borderWidth": 3,
               "font": {"size": 16}},
    "around": {"color": {"background": "#dce9f5", "border": "#4f7cac"}, "shape": "box", "borderWidth": 1},
}
# Route nodes are boxes with the name inside (edge labels then never sit on a name); the seed
# is also marked with a star and the cited entity with a thick border, not by colour alone.
PREFIX = {"seed": "★ ", "seed+cited": "★ "}


@functools.lru_cache(maxsize=1)
def _vis_js() -> str:
    # The bundle never contains "</script" (checked in tests), so it is safe inside a script element.
    return VIS_JS.read_text(encoding="utf-8")


def short(text: str, limit: int = MAX_LABEL) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def script_json(value: object) -> str:
    """JSON that is inert inside a <script> element: no tag, comment or entity can form."""
    return (json.dumps(value, ensure_ascii=False)
            .replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline';
 style-src 'unsafe-inline'; img-src data: blob:; font-src data:; connect-src 'none'; form-action 'none'">
<style>
html, body { margin: 0; padding: 0; background: #fff; font-family: sans-serif; }
#net { width: 100%; height: __HEIGHT__px; border: 1px solid #e4e4e4; border-radius: 6px; box-sizing: border-box; }
#legend { font-size: 12px; color: #555; padding: 2px 4px; }
.vis-tooltip { position: absolute; max-width: 340px; padding: 6px 8px; white-space: pre-wrap;
  font-size: 12px; background: #fffbe6; border: 1px solid #c9b458; border-radius: 4px;
  box-shadow: 2px 2px 6px rgba(0,0,0,.2); pointer-events: none; }
</style>
<script>__VIS__</script>
</head><body>
<div id="net" role="img"></div><div id="legend"></div>
<script>
(function () {
  var data = __DATA__;
  // Tooltips become DOM nodes filled with textContent: document text is never parsed as HTML.
  function tip(text) { var d = document.createElement("div"); d.textContent = text; return d; }
  data.nodes.forEach(function (n) { if (n.title) { n.title = tip(n.title); } });
  data.edges.forEach(function (e) { if (e.title) { e.title = tip(e.title); } });
  var box = document.getElementById("net");
  box.setAttribute("aria-label", data.caption);
  document.getElementById("legend").textContent = data.legend;
  var network = new vis.Network(box, {nodes: new vis.DataSet(data.nodes), edges: new vis.DataSet(data.edges)},
                                data.options);
  // Freeze once laid out, so the drawing stops moving while the reviewer reads it; then fit
  // the whole drawing into the frame (a long route would otherwise be cut at the edges).
  // never smaller than __MINZOOM__ of the labels' size: a route drawn for a narrow column is laid out to fit it
  function fit() {
    network.fit();
    if (network.getScale() < __MINZOOM__) { network.moveTo({scale: __MINZOOM__}); }
    window.graphScale = network.getScale();
  }
  network.once("stabilizationIterationsDone", function () { network.setOptions({physics: false}); fit(); });
  network.once("afterDrawing", function () { fit(); window.graphReady = true; });
})();
</script>
</body></html>
"""


@dataclass(frozen=True)
class Drawing:
    """A network ready to render: what pyvis built, plus a caption and legend (plain text)."""

    net: Network
    caption: str
    legend: str
    height: int
    min_zoom: float = 0.0  # the drawing is never shrunk below this (a route: its labels stay legible)


def render(d: Drawing) -> str:
    """The drawing as a self-contained HTML page (vis.js inline, no network)."""
    nodes, edges, _heading, _h, _w, options = d.net.get_network_data()
    data = {"nodes": nodes, "edges": edges, "options": json.loads(options), "caption": d.caption,
            "legend": d.legend}
    values = {"HEIGHT": str(int(d.height)), "DATA": script_json(data), "VIS": _vis_js(), "MINZOOM": f"{d.min_zoom:g}"}
    # One pass over the template only: text inside the data is never scanned for placeholders.
    return re.sub(r"__(HEIGHT|DATA|VIS|MINZOOM)__", lambda m: values[m.group(1)], _PAGE)


def _network(options: dict[str, object]) -> Network:
    net = Network(directed=True, cdn_resources="in_line")
    net.options = options  # a dict: pyvis passes it through as JSON
    return net


def _add_node(net: Network, key: str, name: str, role: str, title: str) -> None:
    net.add_node(key, label=PREFIX.get(role, "") + short(name), title=title, **STYLE[role])


def _edge_style(highlight: bool, index: int | None) -> dict[str, object]:
    # Parallel relations between one pair get different curvature so each stays visible;
    # a route (index None) is a simple path, drawn straight.
    smooth: dict[str, object] = ({"enabled": False} if index is None
                                 else {"enabled": True, "type": "curvedCW", "roundness": 0.15 + 0.2 * index})
    if highlight:
        return {"color": "#2d7a2d", "width": 4, "smooth": smooth}
    return {"color": "#7d8fa3", "width": 1.5, "smooth": smooth}


_FONT = {"face": "sans-serif", "size": 14, "strokeWidth": 3, "strokeColor": "#ffffff"}


HIDDEN_STEP = "a step you cannot see"


@dataclass(frozen=True)
class ShownStep:
    """One route step as a reviewer sees it: the edge, the entity reached, and the sentence
    stating the edge; or, for a step from a document the viewer may not see, a placeholder
    that shows none of it."""

    relation: str  # the relation type, or "co-mention"
    entity: str  # entity key reached ("" when hidden)
    forward: bool = True
    comention: bool = False
    sentence: str | None = None  # the sentence that states the edge
    source: str | None = None  # "document v1"
    hidden: bool = False


def hidden_step() -> ShownStep:
    """The placeholder for a step the viewer may not see: it shows nothing of it."""
    return ShownStep(HIDDEN_STEP, "", hidden=True)


def shown_steps(route: Route, span_of: Callable[[str, int, int], Span | None],
                visible: Callable[[str, int], bool] | None = None) -> list[ShownStep]:
    """The route's steps with their sentences read through ``span_of`` (document, version,
    index); a step whose document ``visible`` rejects becomes ``hidden_step()`` unread."""
    out = []
    for s in route.steps:
        if visible is not None and (s.document_id is None or s.version is None
                                    or not visible(s.document_id, s.version)):
            out.append(hidden_step())
            continue
        doc, version, index = s.document_id, s.version, s.sentence_index
        span = span_of(doc, version, index) if doc is not None and version is not None and index is not None else None
        out.append(ShownStep(s.relation_type, s.entity, s.forward, s.comention, span.text if span else None,
                             f"{s.document_id} v{s.version}" if s.document_id is not None else None))
    return out


def route_tag(marker: int, claim: int | None = None) -> str:
    """How a route names what it leads to: the citation's marker as the page writes it, and the claim citing it
    ("claim 3 · [1]"), so a reader matching a claim to its route finds the same numbers on both."""
    return (f"claim {claim} · " if claim is not None else "") + f"[{marker}]"


ROUTE_WIDTH = 170  # pixels a route's widest box takes: the Review page's route column at 1280 (about 195 wide)
ROUTE_LEVEL = 72  # pixels from one level of a route to the next
ROUTE_MIN_ZOOM = 0.9  # a route is never drawn smaller than this: its 14-pixel labels stay 12.6 pixels or more


def route_height(steps: Sequence[ShownStep] | int) -> int:
    """The pixels a route of these steps (or this many) takes drawn top-down: its start, each entity reached and
    the cited sentence, one level each, at most two lines of label a box."""
    n = steps if isinstance(steps, int) else len(steps)
    return 40 + ROUTE_LEVEL * (n + 2)


def route_drawing(item: ContextItem, names: Mapping[str, str], steps: Sequence[ShownStep],
                  height: int | None = None, *, marker: int | None = None, claim: int | None = None) -> Drawing:
    """The path retrieval took to a context item: where it started, each edge followed (its
    relation or co-mention, the sentence in the tooltip), the entity of the cited sentence,
    and the cited sentence itself.

    The start is a star (named in the question, or found by similarity); the entity whose
    mention or edge supplied the cited sentence has a thick green border, and the cited
    sentence is its own node below it.

    ``marker``: the citation's number as the page shows it (default: retrieval's ``item.n``); ``claim``: the
    number of the claim the route belongs to. Both are written on the cited sentence and in the legend.
    """
    route = item.route
    tag = route_tag(item.n if marker is None else marker, claim)
    net = _network({
        # Top-down: a route's levels stack vertically, so long names and relation labels stay
        # readable in a narrow column. Boxes no wider than the column: a long label wraps in its box instead of
        # widening the drawing, which the frame then shrank to fit, labels and all, to a few pixels.
        "layout": {"hierarchical": {"enabled": True, "direction": "UD", "sortMethod": "directed",
                                    "levelSeparation": ROUTE_LEVEL, "nodeSpacing": 160}},
        "physics": {"enabled": False},
        "interaction": {"hover": True, "dragView": True, "zoomView": False},
        "nodes": {"font": {"face": "sans-serif", "size": 14}, "margin": 6,
                  "widthConstraint": {"maximum": ROUTE_WIDTH}},
        "edges": {"font": {"size": 12, "align": "horizontal", "background": "#ffffff", "strokeWidth": 0},
                  "arrows": {"to": {"enabled": True, "scaleFactor": 0.7}}},
    })
    from_question = route.start is RouteStart.QUESTION
    start_what = ("named in the question" if from_question
                  else "found by similarity (the question names nothing the graph knows)")
    ids = [route.seed or "(no entity)"]
    for i, st in enumerate(steps):
        ids.append(f"hidden:{i}" if st.hidden else st.entity)
    last = len(ids) - 1
    for level, key in enumerate(ids):
        role = "node"
        if level == 0:
            role = "seed+cited" if last == 0 else "seed"
        elif level == last:
            role = "cited"
        if key.startswith("hidden:"):
            _add_node(net, key, "…", "node", HIDDEN_STEP)
        else:
            what = {"seed": start_what, "seed+cited": f"{start_what}; the cited sentence names it",
                    "cited": "the cited sentence names it", "node": "reached on the way"}[role]
            _add_node(net, key, names.get(key, key), role, f"{names.get(key, key)}\n{what}")
        net.nodes[-1]["level"] = level
    for i, st in enumerate(steps):
        prev, here = ids[i], ids[i + 1]
        src, dst = (prev, here) if st.forward else (here, prev)
        if st.hidden:
            net.add_edge(prev, here, label="hidden", title=HIDDEN_STEP, dashes=True, **_edge_style(False, None))
            continue
        title = st.relation + (f"\n“{st.sentence}”" if st.sentence else "") + (f"\n({st.source})" if st.source else "")
        style = _edge_style(i == len(steps) - 1 and item.via in ("relation", "co-mention"), None)
        net.add_edge(src, dst, label=short(st.relation, 24), title=title, dashes=st.comention, **style)
    # The cited sentence, hanging off the entity it names.
    sid = f"sentence:{item.n}"
    net.add_node(sid, label=f"{tag} " + short(item.span.text, 40),
                 title=f"cited sentence, {tag}\n“{item.span.text}”\n({item.span.document_id} v{item.span.version})",
                 shape="box", color={"background": "#fff3b0", "border": "#b59b00"}, borderWidth=2,
                 font={"face": "sans-serif", "size": 13}, level=len(ids))
    net.add_edge(ids[-1], sid, label="named in", dashes=True, arrows={"to": {"enabled": False}},
                 **_edge_style(False, None))
    path = " → ".join(short(names.get(k, k), 24) if not k.startswith("hidden:") else "…" for k in ids)
    legend = (f"{tag.capitalize()}: ★ start ({'named in the question' if from_question else 'from similarity'}) · thick green: the "
              "entity the cited sentence names · yellow: the cited sentence · dashed edge: co-mention")
    return Drawing(net, f"Route to source {tag}: {path}", legend,
                   height if height is not None else route_height(len(ids) - 1), ROUTE_MIN_ZOOM)


def route_list_html(item: ContextItem, names: Mapping[str, str], steps: Sequence[ShownStep],
                    question_words: str = "", *, marker: int | None = None, claim: int | None = None) -> str:
    """The route as a list a reviewer can read without hovering: the start, each step with the sentence
    that states it, then the cited sentence, named by ``marker`` and ``claim`` as in route_drawing. The list is
    not numbered by step: its numbers would be read as markers or claims. All text escaped."""
    def e(t: object) -> str:
        return html.escape(str(t), quote=True)

    route = item.route
    def name(key: str) -> str:
        return names.get(key, key)

    if route.start is RouteStart.QUESTION:
        first = f"★ <b>{e(name(route.seed))}</b> — named in the question" + (
            f" (“{e(question_words)}”)" if question_words else "")
    else:
        first = (f"★ <b>{e(name(route.seed) or 'no entity')}</b> — found by similarity alone"
                 " (the question names nothing the graph knows)")
    lis = [first]
    prev = route.seed
    for st in steps:
        if st.hidden:
            lis.append(f"<i>{e(HIDDEN_STEP)}</i>")
            prev = ""
            continue
        arrow = (f" ~{e(st.relation)}~ " if st.comention
                 else (f" —{e(st.relation)}→ " if st.forward else f" ←{e(st.relation)}— "))
        text = f"“{e(st.sentence)}”" if st.sentence else "<i>(sentence no longer stored)</i>"
        src = f' <span style="color:#888">({e(st.source)})</span>' if st.source else ""
        what = "named together in" if st.comention else "stated in"
        lis.append(f"<b>{e(name(prev) if prev else '…')}</b>{arrow}<b>{e(name(st.entity))}</b>, {what}: {text}{src}")
        prev = st.entity
    sp = item.span
    tag = route_tag(item.n if marker is None else marker, claim)
    lis.append(f'Cited <b>{e(tag)}</b>, which names <b>{e(name(route.end) if route.end else "…")}</b>: '
               f'<mark>“{e(sp.text)}”</mark> <span style="color:#888">({e(sp.document_id)} v{sp.version})</span>')
    return ('<ol class="gr-route" style="font-size:0.88rem;line-height:1.45;padding-left:1.2rem;margin:0;'
            'list-style:disc">' + "".join(f"<li>{x}</li>" for x in lis) + "</ol>")


@dataclass(frozen=True)
class Neighbourhood:
    """Entities within some hops of a centre entity, the edges between them, and whether the drawing was cut.
    """

    centre: str
    depth: dict[str, int]  # entity key -> hops from the centre
    edges: tuple[tuple[str, str, int, str, str], ...]  # source, target, relation id, type, document id
    truncated: bool


def neighbourhood(kg: KnowledgeGraph, centre: str, by: Viewer, *, hops: int = 1,
                  relation_types: Iterable[str] | None = None, documents: Iterable[str] | None = None,
                  include_superseded: bool = False, max_nodes: int = 60) -> Neighbourhood:
    """Entities within ``hops`` of ``centre`` over visible relations, optionally filtered.

    Only relations from document versions ``by`` can see are followed (the same rule
    as retrieval), so an invisible document never contributes a node or an edge.
    """
    visible_docs, _ = kg.visibility(by.labels, include_superseded)
    types = set(relation_types) if relation_types is not None else None
    docs = set(documents) if documents is not None else None

    def ok(attrs: Mapping[str, Any]) -> bool:  # an edge's attributes in the networkx graph
        doc = kg.docs[int(attrs["doc"])]
        return (bool(visible_docs[int(attrs["doc"])]) and (types is None or attrs["type"] in types)
                and (docs is None or doc.id in docs))

    depth = {centre: 0}
    frontier = [centre]
    truncated = False
    for d in range(1, hops + 1):
        nxt: list[str] = []
        for node in frontier:
            between: dict[str, list[Mapping[str, object]]] = {}  # neighbour -> relations either way
            for src, dst, _, attrs in kg.relations_at(node):
                between.setdefault(dst if src == node else src, []).append(attrs)
            for nbr in sorted(between):
                if nbr in depth:
                    continue
                if not any(ok(a) for a in between[nbr]):
                    continue
                if len(depth) >= max_nodes:
                    truncated = True
                    break
                depth[nbr] = d
                nxt.append(nbr)
        frontier = nxt
    edges = []
    for node in depth:
        for src, dst, rel_id, attrs in kg.relations_at(node, incoming=False):
            if dst in depth and ok(attrs):
                edges.append((src, dst, int(rel_id), str(attrs["type"]), kg.docs[int(attrs["doc"])].id))
    return Neighbourhood(centre, depth, tuple(sorted(edges, key=lambda e: e[2])), truncated)


# One fill per theme (community) when the Graph page colours by theme: distinct, light enough for black names.
THEME_FILLS = ("#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#bebada", "#80b1d3",
               "#fccde5", "#d9d9d9", "#ccebc5")


def neighbourhood_drawing(nb: Neighbourhood, names: Mapping[str, str], height: int = 460,
                          themes: Mapping[str, int] | None = None) -> Drawing:
    """Draw a neighbourhood: its entities (the centre set apart) and the relations between them; with ``themes``
    (entity key -> theme number, -1 for none), each entity filled with its theme's colour."""
    net = _network({
        # Long springs and overlap avoidance spread the boxes so no two names overlap and each edge has room
        # for its label; the drawing is frozen once stable (see _PAGE) and fitted to the frame.
        "physics": {"enabled": True, "solver": "forceAtlas2Based",
                    "forceAtlas2Based": {"gravitationalConstant": -150, "centralGravity": 0.01,
                                         "springLength": 210, "springConstant": 0.05, "avoidOverlap": 1},
                    "stabilization": {"enabled": True, "iterations": 600}},
        "layout": {"improvedLayout": True, "randomSeed": 7},  # the same entity draws the same way each visit
        "interaction": {"hover": True, "zoomView": True, "navigationButtons": False},
        "nodes": {"font": _FONT, "margin": 8, "widthConstraint": {"maximum": 220}},
        # Edge labels stay horizontal on a white box: readable at any edge angle, never struck through.
        "edges": {"font": {"size": 13, "align": "horizontal", "background": "#ffffff", "strokeWidth": 0,
                           "color": "#333333"},
                  "arrows": {"to": {"enabled": True, "scaleFactor": 0.6}}},
    })
    for key, d in sorted(nb.depth.items(), key=lambda kv: (kv[1], kv[0])):
        name = names.get(key, key)
        theme = themes.get(key, -1) if themes is not None else -1
        _add_node(net, key, name, "centre" if key == nb.centre else "around",
                  f"{name}\n{d} hop{'s' if d != 1 else ''} from {names.get(nb.centre, nb.centre)}"
                  + (f"\ntheme {theme + 1}" if theme >= 0 else ""))
        if theme >= 0:
            net.get_node(key)["color"] = {"background": THEME_FILLS[theme % len(THEME_FILLS)], "border": "#333333"}
    seen: dict[tuple[str, str], int] = {}
    for src, dst, rel_id, rtype, doc in nb.edges:
        pair = (min(src, dst), max(src, dst))
        seen[pair] = seen.get(pair, -1) + 1
        net.add_edge(src, dst, id=rel_id, label=short(rtype, 22), title=f"{rtype}\n(from {doc})",
                     **_edge_style(False, seen[pair]))
    legend = f"{counted(len(nb.depth), 'entity', 'entities')}, {counted(len(nb.edges), 'relation')}" + (" (cut at the node limit)" if nb.truncated
                                                                         else "")
    return Drawing(net, f"Neighbourhood of {names.get(nb.centre, nb.centre)}", legend, height)


def route_html(item: ContextItem, names: Mapping[str, str], steps: Sequence[ShownStep],
               height: int | None = None, *, marker: int | None = None, claim: int | None = None) -> str:
    """A context item's route as an HTML page (``marker``, ``claim``: as in route_drawing)."""
    return render(route_drawing(item, names, steps, height, marker=marker, claim=claim))


def neighbourhood_html(nb: Neighbourhood, names: Mapping[str, str], height: int = 460,
                       themes: Mapping[str, int] | None = None) -> str:
    """A neighbourhood as an HTML page (``themes``: as in neighbourhood_drawing)."""
    return render(neighbourhood_drawing(nb, names, height, themes))
