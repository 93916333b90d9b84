"""Plain-JSON views of records, shared by the CLI (--json), the exports and the pages."""

from __future__ import annotations

from collections.abc import Mapping

from graphrag.model import Answer, Citation, ContextItem, Entity, Relation, Route, SpanLayout, Support

# (document id, version, sentence index) -> where that sentence sits in its PDF/HTML/DOCX file
Layouts = Mapping[tuple[str, int, int], SpanLayout]

NOT_CHECKED = {"score": None, "label": "not_checked", "checker": None, "reason": "not checked"}


def support_json(s: Support | None) -> dict[str, object]:
    if s is None:
        return dict(NOT_CHECKED)
    return {"score": round(s.score, 4), "label": s.label.value, "checker": s.checker, "reason": s.reason}


def route_json(route: Route, names: Mapping[str, str] | None = None) -> list[dict[str, object]]:
    """A route as steps: the seed entity, then alternating relation and entity steps."""
    name = (lambda k: names.get(k, k)) if names else (lambda k: k)
    steps: list[dict[str, object]] = [{"entity": name(route.seed)}]
    for s in route.steps:
        steps.append({"relation": s.relation_type, "relation_id": s.relation_id,
                      "direction": "forward" if s.forward else "backward"})
        steps.append({"entity": name(s.entity)})
    return steps


def route_text(route: Route, names: Mapping[str, str] | None = None) -> str:
    """"Cancellation -trigger-> Export <-use- Snapshot" for tables and logs."""
    name = (lambda k: names.get(k, k)) if names else (lambda k: k)
    out = name(route.seed)
    for s in route.steps:
        out += f" -{s.relation_type}-> " if s.forward else f" <-{s.relation_type}- "
        out += name(s.entity)
    return out


def layout_json(layout: SpanLayout | None) -> dict[str, object]:
    """Page fields of a citation: null when the document has no pages (text, Markdown)."""
    if layout is None:
        return {"page": None, "page_end": None, "page_label": None, "boxes": None, "heading_path": None,
                "paragraph": None}
    return {"page": layout.page, "page_end": layout.page_end, "page_label": layout.page_label,
            "boxes": [list(b) for b in layout.boxes] if layout.page is not None else None,
            "heading_path": layout.heading_path, "paragraph": layout.paragraph}


def citation_json(c: Citation, names: Mapping[str, str] | None = None, layouts: Layouts | None = None
                  ) -> dict[str, object]:
    span = c.item.span if c.item else None
    layout = (layouts or {}).get((span.document_id, span.version, span.sentence_index)) if span else None
    return {
        "marker": c.marker,
        "valid": c.valid,
        "document": span.document_id if span else None,
        "version": span.version if span else None,
        "start": span.start if span else None,
        "end": span.end if span else None,
        "sentence": span.text if span else None,
        **layout_json(layout),
        "route": route_json(c.item.route, names) if c.item else None,
        "support": support_json(c.support),
        "irrelevant": c.irrelevant,
    }


def context_json(c: ContextItem) -> dict[str, object]:
    s = c.span
    return {"n": c.n, "document": s.document_id, "version": s.version, "start": s.start, "end": s.end,
            "sentence": s.text, "score": c.score, "via": c.via, "superseded": c.superseded}


def cited_keys(a: Answer) -> list[tuple[str, int, int]]:
    """The sentences an answer's citations point at, to look their layout up in the store."""
    return [(c.item.span.document_id, c.item.span.version, c.item.span.sentence_index)
            for cl in a.claims for c in cl.citations if c.item is not None]


def answer_json(a: Answer, names: Mapping[str, str] | None = None, warnings: tuple[str, ...] = (),
                layouts: Layouts | None = None) -> dict[str, object]:
    return {
        "answer_id": a.id,
        "question": a.question,
        "answer": a.text,
        "status": a.status.value,
        "warnings": list(warnings),
        "claims": [
            {"index": cl.index, "text": cl.text, "start": cl.start, "end": cl.end,
             "flags": [f.value for f in cl.flags], "support": support_json(cl.support),
             "citations": [citation_json(c, names, layouts) for c in cl.citations]}
            for cl in a.claims
        ],
        "retrieval": {
            "seeds": [{"entity": s.entity, "score": s.score} for s in a.seeds],
            "reached": [{"entity": r.end, "depth": r.depth, "route": route_json(r, names)} for r in a.reached],
        },
        "context": [context_json(c) for c in a.context],
    }


def entity_json(e: Entity, relations: list[Relation]) -> dict[str, object]:
    return {
        "name": e.name,
        "key": e.key,
        "type": e.type,
        "mentions": [
            {"document": m.span.document_id, "version": m.span.version, "superseded": m.superseded,
             "start": m.span.start, "end": m.span.end, "sentence": m.span.text, "description": m.description,
             "extractor": m.extractor, "implied": m.implied}
            for m in e.mentions
        ],
        "relations": [
            {"source": r.source, "type": r.type, "target": r.target, "document": r.span.document_id,
             "version": r.span.version, "superseded": r.superseded, "start": r.span.start, "end": r.span.end,
             "sentence": r.span.text, "description": r.description}
            for r in relations
        ],
    }
