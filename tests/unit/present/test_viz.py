"""graphrag.present.viz: the drawings are offline (nothing fetched from any other host) and inert (escaped)."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import numpy as np
import pytest

from graphrag.access import library_viewer
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import DocVersion
from graphrag.model import COMENTION, ContextItem, Route, RouteStart, RouteStep, Span
from graphrag.present.viz import (
    HIDDEN_STEP,
    VIS_JS,
    neighbourhood,
    neighbourhood_html,
    route_html,
    route_list_html,
    route_tag,
    script_json,
    shown_steps,
)

pytestmark = pytest.mark.unit

EVIL = "<script>alert(1)</script>"
EVIL_IMG = '"><img src=x onerror=alert(2)>'
# http(s) strings inside the vendored vis-network bundle that are never fetched: an XML
# namespace identifier and licence/credit notices in comments or error messages.
INERT_BUNDLE_URLS = {
    "http://www.w3.org/2000/svg", "http://almende.com", "http://opensource.org/licenses/MIT",
    "http://www.apache.org/licenses/LICENSE-2.0", "https://github.com/visjs", "https://visjs.github.io/vis-network/",
    "https://github.com/zloirock/core-js", "https://github.com/zloirock/core-js/blob/v3.21.1/LICENSE",
    "https://github.com/uuidjs/uuid#getrandomvalues-not-supported",
}
URL = re.compile(r"https?://[^\s\"'<>()\\]+", re.IGNORECASE)


def _span(text: str, doc: str = "doc", idx: int = 0) -> Span:
    return Span(doc, 1, idx, 0, len(text), text)


ROUTE = Route("export", (RouteStep(7, f"uses {EVIL}", "snap", True, "doc", 1, 0),
                         RouteStep(8, "kept by", "retention", False, "doc", 1, 1)))
SENTENCES = {0: _span(f"Export {EVIL} uses snapshot {EVIL_IMG}."), 1: _span(f"Retention keeps snap {EVIL_IMG}.", idx=1)}
NAMES = {"export": f"Export {EVIL}", "snap": f"Snap{EVIL_IMG}", "retention": "Retention"}


def _item(route: Route = ROUTE) -> ContextItem:
    return ContextItem(1, SENTENCES[1], route, 0.5, "relation")


def _span_of(doc: str, version: int, idx: int) -> Span | None:
    return SENTENCES.get(idx) if (doc, version) == ("doc", 1) else None


def _route_page() -> str:
    return route_html(_item(), NAMES, shown_steps(ROUTE, _span_of))


def _kg() -> KnowledgeGraph:
    keys = ["export", "snap", "retention", "secret"]
    docs = [DocVersion("pub", 1, frozenset({"public"}), False, EVIL, None),
            DocVersion("int", 1, frozenset({"internal"}), False, "Internal", None)]
    # sentence rows: 0,1 in "pub"; 2 in "int"
    return KnowledgeGraph(
        keys, [f"Export {EVIL}", "Snapshot", "Retention", "Secret"], np.zeros((4, 384), np.float32), docs,
        mention_entity=np.array([0, 1, 2, 3]), mention_row=np.array([0, 0, 1, 2]),
        sentence_doc=np.array([0, 0, 1]), sentence_idx=np.array([0, 1, 0]),
        sentence_vectors=np.zeros((3, 384), np.float32),
        relations=[(1, "export", "snap", "uses", 0, 0), (2, "export", "snap", "related to", 0, 0),
                   (3, "snap", "retention", "kept by", 0, 1), (4, "retention", "secret", "guarded by", 1, 2)],
    )


def _external_urls(page: str) -> set[str]:
    return {u for u in URL.findall(page) if urlsplit(u).hostname not in ("localhost", "127.0.0.1")}


@pytest.mark.parametrize("make", [_route_page, lambda: neighbourhood_html(
    neighbourhood(_kg(), "export", library_viewer(["public"]), hops=2), {"export": EVIL, "snap": EVIL_IMG, "retention": "R"})])
def test_drawing_is_offline(make) -> None:
    page = make()
    # Nothing is loaded by reference: no src/href attribute, CSS url() or @import points anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    assert not re.search(r"url\(\s*[\"']?\s*(https?:)?//", page, re.IGNORECASE)
    assert "@import" not in page
    assert "cdn" not in page.lower().replace("vis-network", "")  # pyvis's CDN links are gone
    # The only http(s) strings are the bundle's inert namespace and licence notices.
    assert _external_urls(page) <= INERT_BUNDLE_URLS, _external_urls(page) - INERT_BUNDLE_URLS
    # And a Content-Security-Policy forbids any fetch should anything try.
    assert "default-src 'none'" in page and "connect-src 'none'" in page
    assert VIS_JS.read_text(encoding="utf-8") in page  # vis-network inlined, not linked


def test_vendored_bundle_urls_are_only_the_known_inert_ones() -> None:
    bundle = VIS_JS.read_text(encoding="utf-8")
    assert _external_urls(bundle) <= INERT_BUNDLE_URLS
    assert "</script" not in bundle.lower()  # safe to inline in a script element


def test_document_text_is_escaped_in_route() -> None:
    page = _route_page()
    assert EVIL not in page and "<img" not in page
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in page  # present, as inert JSON text
    # Outside the vendored bundle, exactly the template's two script elements.
    assert page.replace(VIS_JS.read_text(encoding="utf-8"), "").lower().count("<script") == 2
    # Tooltips are filled with textContent, never innerHTML.
    assert "textContent" in page and "innerHTML" not in page.split("<script>")[-1]


def test_script_json_cannot_close_the_script() -> None:
    text = "</script><!-- & \u2028"
    out = script_json({"t": text})
    assert "<" not in out and ">" not in out and "&" not in out and "\u2028" not in out
    assert json.loads(out)["t"] == text


def _data(page: str) -> dict:
    raw = page.rsplit("var data = ", 1)[1].split(";\n", 1)[0]  # the drawing's, after the bundle
    return json.loads(raw)


def test_route_marks_start_cited_entity_sentence_and_relation_labels() -> None:
    data = _data(_route_page())
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["export"]["label"].startswith("★")  # the start, named in the question
    assert "named in the question" in nodes["export"]["title"]
    assert nodes["retention"]["borderWidth"] == 4  # the entity the cited sentence names
    assert nodes["sentence:1"]["label"].startswith("[1] Retention keeps")  # the cited sentence, its own node
    labels = [e["label"] for e in data["edges"]]
    assert labels[1] == "kept by" and labels[0].startswith("uses")
    # Each edge's tooltip holds the sentence that states it.
    assert "Retention keeps snap" in data["edges"][1]["title"]
    # A backward step is drawn in the relation's own direction.
    assert (data["edges"][1]["from"], data["edges"][1]["to"]) == ("retention", "snap")
    assert data["edges"][1]["width"] == 4  # found via that relation: the cited edge is highlighted
    assert [n["level"] for n in data["nodes"]] == [0, 1, 2, 3]


def test_route_list_names_every_step_sentence_escaped() -> None:
    steps = shown_steps(ROUTE, _span_of)
    page = route_list_html(_item(), NAMES, steps, question_words="export")
    assert page.count("<li>") == 4  # start, two steps, the cited sentence
    assert "named in the question" in page and "uses snapshot" in page and "Retention keeps snap" in page
    assert EVIL not in page and "<img" not in page and "&lt;script&gt;" in page


def test_hidden_steps_show_a_placeholder_and_nothing_of_the_step() -> None:
    """A step from a document the viewer may not see is drawn and listed as a placeholder."""
    steps = shown_steps(ROUTE, _span_of, visible=lambda doc, version: False)
    assert all(s.hidden and s.sentence is None and s.entity == "" for s in steps)
    page = route_list_html(_item(), NAMES, steps)
    assert page.count(HIDDEN_STEP) == 2 and "uses snapshot" not in page and "Snap" not in page
    data = _data(route_html(_item(), NAMES, steps))
    assert not {"snap", "retention"} & {n["id"] for n in data["nodes"]}
    assert "uses" not in json.dumps(data["edges"])


def test_comention_and_similarity_routes_say_what_they_are() -> None:
    route = Route("export", (RouteStep(None, COMENTION, "snap", True, "doc", 1, 0),))
    item = ContextItem(2, SENTENCES[0], route, 0.5, "co-mention")
    steps = shown_steps(route, _span_of)
    assert steps[0].comention and "named together in" in route_list_html(item, NAMES, steps)
    data = _data(route_html(item, NAMES, steps))
    assert data["edges"][0]["label"] == "co-mention" and data["edges"][0]["dashes"] is True
    alone = ContextItem(3, SENTENCES[0], Route("export", (), RouteStart.SIMILARITY), 0.4, "similarity")
    assert "found by similarity alone" in route_list_html(alone, NAMES, [])
    assert "similarity" in _data(route_html(alone, NAMES, []))["nodes"][0]["title"]


def test_neighbourhood_respects_access_and_keeps_parallel_relations() -> None:
    kg = _kg()
    nb = neighbourhood(kg, "export", library_viewer(["public"]), hops=3)
    assert set(nb.depth) == {"export", "snap", "retention"}  # "secret" only via an internal document
    assert [e[2] for e in nb.edges] == [1, 2, 3]  # both export->snap relations survive
    nb = neighbourhood(kg, "export", library_viewer(["public", "internal"]), hops=3)
    assert "secret" in nb.depth
    only = neighbourhood(kg, "export", library_viewer(["public"]), hops=2, relation_types=["related to"])
    assert set(only.depth) == {"export", "snap"} and [e[2] for e in only.edges] == [2]
    one = neighbourhood(kg, "export", library_viewer(["public"]), hops=1)
    assert one.depth == {"export": 0, "snap": 1}
    page = neighbourhood_html(nb, {k: k for k in nb.depth})
    edges = _data(page)["edges"]
    assert len(edges) == 4
    rounds = [e["smooth"]["roundness"] for e in edges if {e["from"], e["to"]} == {"export", "snap"}]
    assert len(set(rounds)) == 2  # parallel edges drawn apart


def test_a_route_carries_the_numbers_of_its_claim_and_marker_as_the_page_shows_them() -> None:
    # Retrieval numbered the item 1; the page shows its marker as [4] and the claim citing it is claim 3.
    steps = shown_steps(ROUTE, _span_of)
    assert route_tag(4, 3) == "claim 3 · [4]" and route_tag(4) == "[4]"
    data = _data(route_html(_item(), NAMES, steps, marker=4, claim=3))
    assert {n["id"]: n for n in data["nodes"]}["sentence:1"]["label"].startswith("claim 3 · [4] Retention keeps")
    assert data["legend"].startswith("Claim 3 · [4]:") and data["caption"].startswith("Route to source claim 3 · [4]")
    listed = route_list_html(_item(), NAMES, steps, marker=4, claim=3)
    assert "Cited <b>claim 3 · [4]</b>" in listed and "[1]" not in listed
    assert "list-style:disc" in listed  # the steps carry no numbers of their own to be taken for claims


def test_a_route_fits_a_narrow_column_at_its_labels_size() -> None:
    """Issue 60: a route was drawn 160 pixels a level apart with a box as wide as its cited sentence's label, in a
    frame 95 pixels a level tall; in the Review page's 195-pixel column the frame shrank it to fit, labels to a few
    pixels. Boxes are no wider than the column, the frame about as tall as the route's levels, and the drawing is
    never shrunk below 0.9 of its labels' size."""
    from graphrag.present.viz import ROUTE_MIN_ZOOM, ROUTE_WIDTH, route_height

    steps = shown_steps(ROUTE, _span_of)
    page = route_html(_item(), NAMES, steps)
    data = _data(page)
    assert data["options"]["nodes"]["widthConstraint"]["maximum"] == ROUTE_WIDTH <= 180
    assert f"network.getScale() < {ROUTE_MIN_ZOOM:g}" in page and ROUTE_MIN_ZOOM >= 0.9
    # a seed, two steps and the cited sentence: four levels in under 330 pixels (it was 470)
    assert route_height(steps) == route_height(2) < 330 and f"height: {route_height(steps)}px" in page
