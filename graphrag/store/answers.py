"""Answers with their context items, claims and citations."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from sqlalchemy import Connection, bindparam, text

from graphrag.access.rule import Footprint, footprint_of_routes, withdrawn_footprint
from graphrag.model import (
    Answer,
    AnswerStatus,
    AskSettings,
    Citation,
    Claim,
    ClaimFlag,
    ContextItem,
    Route,
    Span,
    disagreement_from_json,
    disagreement_json,
)
from graphrag.store.codec import now, route, route_json, seed, seed_json, support, support_json


def save(c: Connection, a: Answer) -> int:
    """Insert an answer with its claims, citations and context; returns its id."""
    aid = int(c.execute(text(
        "INSERT INTO answers (question, settings, text, status, generator, generator_model, seeds, reached, "
        "created_at, disagreements, answered, answerable) VALUES (:q, :settings, :text, :status, :gen, :model, "
        ":seeds, :reached, :at, :disagree, :answered, :answerable) RETURNING id"),
        {"q": a.question, "settings": json.dumps(asdict(a.settings)), "text": a.text, "status": a.status.value,
         "gen": a.settings.generator, "model": a.generator_model,
         "seeds": json.dumps([seed_json(s) for s in a.seeds]),
         "reached": json.dumps([route_json(r) for r in a.reached]), "at": now(),
         "disagree": json.dumps([disagreement_json(d) for d in a.disagreements]), "answered": int(a.answered),
         "answerable": a.answerable}).scalar_one())
    if a.context:
        c.execute(text("INSERT INTO context_items (answer_id, n, doc_id, version, sentence_idx, route, score, via) "
                       "VALUES (:a, :n, :d, :v, :i, :route, :score, :via)"),
                  [{"a": aid, "n": x.n, "d": x.span.document_id, "v": x.span.version, "i": x.span.sentence_index,
                    "route": json.dumps(route_json(x.route)), "score": float(x.score), "via": x.via}
                   for x in a.context])
    if a.claims:
        c.execute(text('INSERT INTO claims (answer_id, idx, text, start, "end", flags, support) '
                       "VALUES (:a, :i, :t, :s, :e, :flags, :support)"),
                  [{"a": aid, "i": cl.index, "t": cl.text, "s": cl.start, "e": cl.end,
                    "flags": json.dumps([f.value for f in cl.flags]), "support": support_json(cl.support)}
                   for cl in a.claims])
    cites = [{"a": aid, "ci": cl.index, "pos": pos, "marker": c_.marker, "valid": int(c_.valid),
              "n": c_.item.n if c_.item else None, "support": support_json(c_.support), "irr": int(c_.irrelevant)}
             for cl in a.claims for pos, c_ in enumerate(cl.citations)]
    if cites:
        c.execute(text("INSERT INTO citations (answer_id, claim_idx, pos, marker, valid, n, support, irrelevant) "
                       "VALUES (:a, :ci, :pos, :marker, :valid, :n, :support, :irr)"), cites)
    return aid


def ids(c: Connection, limit: int) -> list[dict[str, Any]]:
    """The newest ``limit`` answers' id, question, time and status, newest first."""
    return [dict(r) for r in c.execute(text("SELECT id, question, created_at, status FROM answers ORDER BY id DESC "
                                            "LIMIT :n"), {"n": limit}).mappings()]


def load(c: Connection, answer_id: int) -> Answer | None:
    """The answer with this id, rebuilt from its rows, or None."""
    a = c.execute(text("SELECT * FROM answers WHERE id=:a"), {"a": answer_id}).mappings().first()
    if a is None:
        return None
    stored: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(a["settings"]).items()}
    settings = AskSettings(**stored)
    items: dict[int, ContextItem] = {}
    for r in c.execute(text(
            'SELECT c.*, s.start, s."end", s.text, d.superseded, d.effective_date FROM context_items c '
            "JOIN sentences s ON s.doc_id=c.doc_id AND s.version=c.version AND s.idx=c.sentence_idx "
            "JOIN documents d ON d.doc_id=c.doc_id AND d.version=c.version WHERE c.answer_id=:a ORDER BY c.n"),
            {"a": answer_id}).mappings():
        sp = Span(r["doc_id"], r["version"], r["sentence_idx"], r["start"], r["end"], r["text"])
        items[r["n"]] = ContextItem(r["n"], sp, route(json.loads(r["route"])), r["score"], r["via"],
                                    bool(r["superseded"]), r["effective_date"])
    cites: dict[int, list[Citation]] = {}
    for r in c.execute(text("SELECT * FROM citations WHERE answer_id=:a ORDER BY claim_idx, pos"),
                       {"a": answer_id}).mappings():
        cites.setdefault(r["claim_idx"], []).append(
            Citation(r["marker"], bool(r["valid"]), items.get(r["n"]) if r["n"] is not None else None,
                     support(r["support"]), bool(r["irrelevant"])))
    claims = tuple(
        Claim(r["idx"], r["text"], r["start"], r["end"], tuple(cites.get(r["idx"], [])),
              tuple(ClaimFlag(f) for f in json.loads(r["flags"])), support(r["support"]))
        for r in c.execute(text("SELECT * FROM claims WHERE answer_id=:a ORDER BY idx"), {"a": answer_id}).mappings()
    )
    status = AnswerStatus(a["status"])  # as saved: "verified" is derived in graphrag.verify.status
    return Answer(
        question=a["question"], settings=settings, text=a["text"],
        seeds=tuple(seed(x) for x in json.loads(a["seeds"])),
        reached=tuple(route(r) for r in json.loads(a["reached"])),
        context=tuple(items[n] for n in sorted(items)), claims=claims, status=status,
        id=a["id"], created_at=a["created_at"], generator_model=a["generator_model"],
        disagreements=tuple(disagreement_from_json(d) for d in json.loads(a.get("disagreements") or "[]")),
        answered=a.get("answered") != 0, answerable=a.get("answerable"),
    )


def claim_summaries(c: Connection) -> list[dict[str, Any]]:
    """Claims, newest answer first: what a review queue needs without loading whole answers
    (who may see each answer is decided from ``footprints``)."""
    return [
        {"answer_id": r[0], "question": r[1], "index": r[2], "text": r[3],
         "flags": tuple(ClaimFlag(f) for f in json.loads(r[4])), "support": support(r[5]), "answerable": r[6]}
        for r in c.execute(text("SELECT c.answer_id, a.question, c.idx, c.text, c.flags, c.support, a.answerable "
                                "FROM claims c "
                                "JOIN answers a ON a.id=c.answer_id ORDER BY c.answer_id DESC, c.idx"))
    ]


def claim_citations(c: Connection, answer_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Every valid citation of every claim (of ``answer_ids``, when given): the claim's words and flags (JSON), its
    answer's question, and the cited sentence as stored, with its document version and whether that version is
    superseded."""
    where = ""
    params: dict[str, Any] = {}
    if answer_ids is not None:
        where = " WHERE ci.answer_id IN (" + ",".join(f":a{i}" for i in range(len(answer_ids))) + ")"
        params = {f"a{i}": a for i, a in enumerate(answer_ids)}
        if not answer_ids:
            return []
    return [dict(r) for r in c.execute(text(
        "SELECT ci.answer_id, ci.claim_idx, cl.text AS claim_text, cl.flags AS claim_flags, ci.marker, x.doc_id, x.version, s.start, "
        's."end", s.text AS sentence, d.superseded, a.question FROM citations ci JOIN claims cl ON cl.answer_id=ci.answer_id '
        "AND cl.idx=ci.claim_idx JOIN answers a ON a.id=ci.answer_id "
        "JOIN context_items x ON x.answer_id=ci.answer_id AND x.n=ci.n "
        "JOIN sentences s ON s.doc_id=x.doc_id AND s.version=x.version AND s.idx=x.sentence_idx "
        "JOIN documents d ON d.doc_id=x.doc_id AND d.version=x.version" + where + " ORDER BY ci.answer_id, "
        "ci.claim_idx, ci.pos"), params).mappings()]


def unanswered_ids(c: Connection, limit: int) -> list[int]:
    """Ids of the newest ``limit`` answers whose documents did not answer (the reader abstained), newest first."""
    return [int(r[0]) for r in c.execute(text("SELECT id FROM answers WHERE answered = 0 ORDER BY id DESC LIMIT :n"),
                                         {"n": limit})]


def ids_with_claims(c: Connection) -> list[int]:
    """Ids of the answers that have claims."""
    return [int(r[0]) for r in c.execute(text("SELECT DISTINCT answer_id FROM claims"))]


def questions_with_claims(c: Connection) -> list[tuple[int, str]]:
    """(id, question) of every answer that has claims, newest first: one row an answer, not one a claim."""
    return [(int(r[0]), str(r[1] or "")) for r in c.execute(text(
        "SELECT id, question FROM answers WHERE id IN (SELECT DISTINCT answer_id FROM claims) ORDER BY id DESC"))]


def footprints(c: Connection, ids: Sequence[int]) -> dict[int, Footprint]:
    """For these answers, everything each shows as references (see graphrag.access.rule)."""
    docs: dict[int, set[tuple[str, int]]] = {}
    routes: dict[int, list[Route]] = {}
    out: dict[int, Footprint] = {}
    for i in range(0, len(ids), 500):
        chunk = {"ids": list(ids[i:i + 500])}
        for aid, doc_id, version, raw in c.execute(_CONTEXT_ROUTES, chunk):
            docs.setdefault(aid, set()).add((doc_id, version))
            routes.setdefault(aid, []).append(route(json.loads(raw)))
        for aid, seeds, reached, status, settings in c.execute(_SEEDS_REACHED, chunk):
            if status == AnswerStatus.WITHDRAWN.value:
                out[aid] = withdrawn_footprint(json.loads(settings).get("access", ()))
                continue
            walked = [route(x) for x in json.loads(reached)]
            out[aid] = footprint_of_routes(docs.get(aid, ()), [*routes.get(aid, ()), *walked],
                                           (x[0] for x in json.loads(seeds)))
    return out


_CONTEXT_ROUTES = text("SELECT answer_id, doc_id, version, route FROM context_items WHERE answer_id IN :ids"
                       ).bindparams(bindparam("ids", expanding=True))
_SEEDS_REACHED = text("SELECT id, seeds, reached, status, settings FROM answers WHERE id IN :ids").bindparams(
    bindparam("ids", expanding=True))
