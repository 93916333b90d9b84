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
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyvis
from pyvis.network import Network

from graphrag.graph import KnowledgeGraph
from graphrag.model import ContextItem, Relation
from graphrag.text import counted

VIS_JS = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js"
MAX_LABEL = 32
# One colour per role, chosen to be told apart by colour-blind readers too (shape differs as well).
STYLE: dict[str, dict[str, object]] = {
    "seed": {"color": {"background": "#f9c98f", "border": "#b8641f"}, "shape": "box", "borderWidth": 2},
    "cited": {"color": {"background": "#b9e4b9", "border": "#2d7a2d"}, "shape": "box", "borderWidth": 4},
    "seed+cited": {"color": {"background": "#b9e4b9", "border": "#2d7a2d"}, "shape": "box", "borderWidth": 4},
    "node": {"color": {"background": "#dce9f5", "border": "#4f7cac"}, "shape": "box", "borderWidth": 1},
    "centre": {"color": {"background": "#f4a259", "border": "#b8641f"}, "shape": "dot", "size": 22},
    "around": {"color": {"background": "#a7c7e7", "border": "#4f7cac"}, "shape": "dot", "size": 14},
}
# Route nodes are boxes with the name inside (edge labels then never sit on a name); the seed
# is also marked with a star and the cited entity with a thick border, not by colour alone.
PREFIX = {"seed": "★ ", "seed+cited": "★ "}


@functools.lru_cache(maxsize=1)
def _vis_js() -> str:
    # The bundle never contains "</script" (checked in tests), so it is safe inside a script element.
    return VIS_JS.read_text(encoding="utf-8")


def short(text: str, limit: int = MAX_LABEL) -> str:
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
  network.once("stabilizationIterationsDone", function () { network.setOptions({physics: false}); network.fit(); });
  network.once("afterDrawing", function () { network.fit(); window.graphReady = true; });
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


def render(d: Drawing) -> str:
    nodes, edges, _heading, _h, _w, options = d.net.get_network_data()
    data = {"nodes": nodes, "edges": edges, "options": json.loads(options), "caption": d.caption,
            "legend": d.legend}
    values = {"HEIGHT": str(int(d.height)), "DATA": script_json(data), "VIS": _vis_js()}
    # One pass over the template only: text inside the data is never scanned for placeholders.
    return re.sub(r"__(HEIGHT|DATA|VIS)__", lambda m: values[m.group(1)], _PAGE)


def _network(options: dict[str, object]) -> Network:
    net = Network(directed=True, cdn_resources="in_line")
    net.options = options  # a dict: pyvis passes it through as JSON
    return net


def _add_node(net: Network, key: str, name: str, role: str, title: str) -> None:
    net.add_node(key, label=PREFIX.get(role, "") + short(name), title=title, **STYLE[role])  # type: ignore[arg-type]


def _edge_style(highlight: bool, index: int | None) -> dict[str, object]:
    # Parallel relations between one pair get different curvature so each stays visible;
    # a route (index None) is a simple path, drawn straight.
    smooth: dict[str, object] = ({"enabled": False} if index is None
                                 else {"enabled": True, "type": "curvedCW", "roundness": 0.15 + 0.2 * index})
    if highlight:
        return {"color": "#2d7a2d", "width": 4, "smooth": smooth}
    return {"color": "#7d8fa3", "width": 1.5, "smooth": smooth}


_FONT = {"face": "sans-serif", "size": 14, "strokeWidth": 3, "strokeColor": "#ffffff"}


def route_drawing(item: ContextItem, names: Mapping[str, str], relations: Mapping[int, Relation],
                  height: int = 280) -> Drawing:
    """The path retrieval took to a context item: seed, relation steps, and the cited entity.

    The seed is a star, the entity whose mention or relation supplied the cited span is green;
    when the cited sentence is the one stating the last relation, that edge is green too.
    """
    route = item.route
    keys = route.entities()
    net = _network({
        # Top-down: a route's levels stack vertically, so long names and relation labels stay
        # readable in a narrow column.
        "layout": {"hierarchical": {"enabled": True, "direction": "UD", "sortMethod": "directed",
                                    "levelSeparation": 110, "nodeSpacing": 160}},
        "physics": {"enabled": False},
        "interaction": {"hover": True, "dragView": True, "zoomView": False},
        "nodes": {"font": {"face": "sans-serif", "size": 14}, "margin": 8},
        "edges": {"font": {"size": 12, "align": "horizontal", "background": "#ffffff", "strokeWidth": 0},
                  "arrows": {"to": {"enabled": True, "scaleFactor": 0.7}}},
    })
    for level, key in enumerate(keys):
        role = "node"
        if level == 0:
            role = "seed+cited" if len(keys) == 1 else "seed"
        elif level == len(keys) - 1:
            role = "cited"
        what = {"seed": "seed (matched the question)", "seed+cited": "seed; the cited sentence mentions it",
                "cited": "the cited sentence mentions it", "node": "reached on the way"}[role]
        _add_node(net, key, names.get(key, key), role, f"{names.get(key, key)}\n{what}")
        net.nodes[-1]["level"] = level
    prev = route.seed
    for i, step in enumerate(route.steps):
        rel = relations.get(step.relation_id)
        src, dst = (prev, step.entity) if step.forward else (step.entity, prev)
        last = i == len(route.steps) - 1
        cited_edge = last and item.via == "relation"
        title = step.relation_type
        if rel is not None:
            title = f"{rel.type}\n“{rel.span.text}”\n({rel.span.document_id} v{rel.span.version})"
        net.add_edge(src, dst, label=short(step.relation_type, 24), title=title, **_edge_style(cited_edge, None))
        prev = step.entity
    path = " → ".join(short(names.get(k, k), 24) for k in keys)
    legend = "★ seed (matched the question) · thick green: the entity whose span is cited" + (
        " · green edge: the cited relation" if item.via == "relation" else "")
    return Drawing(net, f"Route to source [{item.n}]: {path}", legend, height)


@dataclass(frozen=True)
class Neighbourhood:
    centre: str
    depth: dict[str, int]  # entity key -> hops from the centre
    edges: tuple[tuple[str, str, int, str, str], ...]  # source, target, relation id, type, document id
    truncated: bool


def neighbourhood(kg: KnowledgeGraph, centre: str, access: Iterable[str], *, hops: int = 1,
                  relation_types: Iterable[str] | None = None, documents: Iterable[str] | None = None,
                  include_superseded: bool = False, max_nodes: int = 60) -> Neighbourhood:
    """Entities within ``hops`` of ``centre`` over visible relations, optionally filtered.

    Only relations from document versions the viewer can see are followed (the same rule
    as retrieval), so an invisible document never contributes a node or an edge.
    """
    visible_docs, _ = kg.visibility(access, include_superseded)
    types = set(relation_types) if relation_types is not None else None
    docs = set(documents) if documents is not None else None
    g = kg.graph

    def ok(attrs: Mapping[str, object]) -> bool:
        doc = kg.docs[int(attrs["doc"])]  # type: ignore[arg-type]
        return (bool(visible_docs[int(attrs["doc"])]) and (types is None or attrs["type"] in types)  # type: ignore[arg-type]
                and (docs is None or doc.id in docs))

    depth = {centre: 0}
    frontier = [centre]
    truncated = False
    for d in range(1, hops + 1):
        nxt: list[str] = []
        for node in frontier:
            for nbr in sorted(set(g.successors(node)) | set(g.predecessors(node))):
                if nbr in depth:
                    continue
                pairs = list(g.get_edge_data(node, nbr, default={}).values()) + list(
                    g.get_edge_data(nbr, node, default={}).values())
                if not any(ok(a) for a in pairs):
                    continue
                if len(depth) >= max_nodes:
                    truncated = True
                    break
                depth[nbr] = d
                nxt.append(nbr)
        frontier = nxt
    edges = []
    for src, dst, rel_id, attrs in g.edges(list(depth), keys=True, data=True):
        if dst in depth and ok(attrs):
            edges.append((src, dst, int(rel_id), str(attrs["type"]), kg.docs[int(attrs["doc"])].id))
    return Neighbourhood(centre, depth, tuple(sorted(edges, key=lambda e: e[2])), truncated)


def neighbourhood_drawing(nb: Neighbourhood, names: Mapping[str, str], height: int = 460) -> Drawing:
    net = _network({
        "physics": {"enabled": True, "solver": "forceAtlas2Based",
                    "forceAtlas2Based": {"gravitationalConstant": -60, "springLength": 120},
                    "stabilization": {"enabled": True, "iterations": 300}},
        "interaction": {"hover": True, "zoomView": True},
        "nodes": {"font": _FONT},
        "edges": {"font": {"size": 11, "align": "top", "strokeWidth": 3, "strokeColor": "#ffffff"},
                  "arrows": {"to": {"enabled": True, "scaleFactor": 0.6}}},
    })
    for key, d in sorted(nb.depth.items(), key=lambda kv: (kv[1], kv[0])):
        name = names.get(key, key)
        _add_node(net, key, name, "centre" if key == nb.centre else "around",
                  f"{name}\n{d} hop{'s' if d != 1 else ''} from {names.get(nb.centre, nb.centre)}")
    seen: dict[tuple[str, str], int] = {}
    for src, dst, rel_id, rtype, doc in nb.edges:
        pair = (min(src, dst), max(src, dst))
        seen[pair] = seen.get(pair, -1) + 1
        net.add_edge(src, dst, id=rel_id, label=short(rtype, 22), title=f"{rtype}\n(from {doc})",
                     **_edge_style(False, seen[pair]))
    legend = f"{counted(len(nb.depth), 'entity', 'entities')}, {counted(len(nb.edges), 'relation')}" + (" (cut at the node limit)" if nb.truncated
                                                                         else "")
    return Drawing(net, f"Neighbourhood of {names.get(nb.centre, nb.centre)}", legend, height)


def route_html(item: ContextItem, names: Mapping[str, str], relations: Mapping[int, Relation],
               height: int = 280) -> str:
    return render(route_drawing(item, names, relations, height))


def neighbourhood_html(nb: Neighbourhood, names: Mapping[str, str], height: int = 460) -> str:
    return render(neighbourhood_drawing(nb, names, height))
