"""The `graphrag` command: ingest, entity, ask, review, delete, export, store, checker, eval, bench.

Every command prints a readable report, or one JSON object with --json. Errors a user can
act on are printed as one line on stderr with exit code 2 (bad input) or 1 (backend/store).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Never, TextIO

from tqdm import tqdm

from graphrag.access import Access
from graphrag.config import Config, ConfigError
from graphrag.documents import DEFAULT_MAX_BYTES
from graphrag.errors import GraphRAGError, InputError
from graphrag.identity import local_principal
from graphrag.jobs import EtaClock, format_eta
from graphrag.model import PUBLIC, AskSettings, AuditEvent, Progress
from graphrag.store import DEFAULT_STORE, Store, StoreURL, UnsupportedStore, parse_store


def default_store() -> str:
    """The store to use: GRAPHRAG_STORE, else the default SQLite file (see graphrag/config.py)."""
    try:
        return Config.from_env().store
    except ConfigError as exc:  # a wrong setting stops every command before it starts, named, as bad input
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def store_value(value: str) -> StoreURL:
    """--store: a file path (SQLite), sqlite:///path or postgresql+psycopg://...; anything else refused."""
    try:
        return parse_store(value)
    except UnsupportedStore as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", type=store_value, default=default_store(),
                   help="the store: a SQLite file, sqlite:///path or postgresql+psycopg://user:password@host:port/db "
                        f"(default: the environment variable GRAPHRAG_STORE, else {DEFAULT_STORE})")


def _access_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--access", nargs="+", default=[PUBLIC], metavar="LABEL",
                   help="the asker's access labels (default: public)")


class IngestProgress:
    """Ingest progress on stderr, updated per window: a tqdm bar with an ETA on a terminal, plain
    lines (at most one every ``every_s`` seconds, and the last) when stderr is piped. Counts only:
    a document's name is never printed here."""

    def __init__(self, stream: TextIO | None = None, every_s: float = 2.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every_s = every_s
        self._bar: tqdm[Never] | None = None  # a bar over no iterable: updated by counts
        self._t0 = time.perf_counter()
        self._clock = EtaClock()
        self._last = -float("inf")
        self._ended = False

    def __call__(self, p: Progress) -> None:
        """Show progress: a bar on a terminal, else a line now and then with the ETA."""
        if self.tty:
            if self._bar is None:
                self._bar = tqdm(total=p.total, unit="doc", desc="ingest", file=self.stream, dynamic_ncols=True)
            self._bar.update(p.done - self._bar.n)
            if p.done >= p.total:
                self._bar.close()
            return
        self._clock.update(p.done)
        now = time.perf_counter()
        final = p.done >= p.total
        if p.done == 0 or self._ended or (not final and now - self._last < self.every_s):
            return
        self._last, self._ended = now, final
        elapsed = now - self._t0
        eta = "" if final else f", {format_eta(self._clock.eta(p.done, p.total))}"
        print(f"ingest: {p.done:,}/{p.total:,} documents, {elapsed:.0f} s elapsed{eta}", file=self.stream, flush=True)


# --- commands ---------------------------------------------------------------------------


def cmd_ingest(a: argparse.Namespace) -> int:
    """``graphrag ingest``: read files or folders, extract and store them, and print the report."""
    from graphrag.extract import make_extractor
    from graphrag.ingest import Ingestor

    options: dict[str, object] = {}
    if a.model:
        options["model"] = a.model
    if a.host:
        options["host"] = a.host
    with Store(a.store) as store:
        if a.extractor == "ollama":
            options["cache"] = store.reply_cache()
        report = Ingestor(store, make_extractor(a.extractor, **options)).ingest_paths(a.paths, IngestProgress(),
                                                                                   a.max_bytes)
        store.add_audit(AuditEvent("ingest", None, None, {"via": "cli", "paths": [str(p) for p in a.paths],
                                                          **report.totals()}))
    if a.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for p in report.problems:
            print(f"warning: {p}", file=sys.stderr)
        print(f"{'document':<32} {'ver':>3} {'status':<18} {'sent':>5} {'ent':>5} {'rel':>5} {'impl':>5}  note")
        for d in report.documents:
            note = d.error or d.note or (f"supersedes v{d.supersedes}" if d.supersedes else "")
            print(f"{d.id[:32]:<32} {d.version or '-':>3} {d.status:<18} {d.sentences:>5} {d.entities:>5} "
                  f"{d.relations:>5} {d.implied_entities:>5}  {note}")
        t = report.totals()
        print("totals: " + ", ".join(f"{k} {v}" for k, v in t.items()))
    bad = sum(d.status in ("failed", "model_unavailable") for d in report.documents)
    return 1 if bad and bad == len(report.documents) else 0


def cmd_entity(a: argparse.Namespace) -> int:
    """``graphrag entity``: an entity's mentions and relations in the documents the access labels can see; 2
    when no entity has that name."""
    from graphrag.serialize import entity_json
    from graphrag.text import normalise

    with Store(a.store) as store:
        key = normalise(a.name)
        entity = store.entity(key)
        if entity is None:
            print(f"no entity named {a.name!r} (key {key!r})", file=sys.stderr)
            return 2
        viewer = Access.of(a.access, include_superseded=True)  # superseded mentions are shown, marked
        visible = {(d.id, d.version) for d in store.documents() if viewer.sees(d.access, d.superseded)}
        mentions = tuple(m for m in entity.mentions if (m.span.document_id, m.span.version) in visible)
        relations = [r for r in store.relations_of(key) if (r.span.document_id, r.span.version) in visible]
        if not mentions:
            print(f"no entity named {a.name!r} (key {key!r})", file=sys.stderr)
            return 2
        names = store.entity_names()
    data = entity_json(replace(entity, mentions=mentions), relations)
    if a.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"{data['name']} ({data['type']}), key {key!r}: {len(mentions)} mentions, {len(relations)} relations")
    for m in data["mentions"]:
        sup = " [superseded]" if m["superseded"] else ""
        print(f"  mention  {m['document']} v{m['version']}{sup} [{m['start']}:{m['end']}] {m['sentence']}")
    for r in relations:
        sup = " [superseded]" if r.superseded else ""
        print(f"  relation {names.get(r.source, r.source)} -{r.type}-> {names.get(r.target, r.target)}   "
              f"({r.span.document_id} v{r.span.version}{sup}) {r.span.text}")
    return 0


def _unit_interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}")
    return value


def _settings(a: argparse.Namespace) -> AskSettings:
    return AskSettings(k=a.k, hops=a.hops, direction=a.direction, access=tuple(sorted(set(a.access))),
                       include_superseded=a.include_superseded, max_context=a.max_context,
                       generator=a.generator, generator_model=a.model, checker=a.checker,
                       checker_model=a.checker_model, min_relevance=a.min_relevance)


def cmd_ask(a: argparse.Namespace) -> int:
    """``graphrag ask``: answer a question with cited claims and print it (or JSON)."""
    from graphrag.ask import Asker
    from graphrag.serialize import (
        VERBATIM,
        VERBATIM_CHECKS,
        answer_json,
        cited_keys,
        is_verbatim,
        route_text,
        support_json,
    )

    empty = (f"error: the store {a.store} holds no documents; ingest some first, e.g. `graphrag ingest "
             "sample_corpus/` (or point --store / GRAPHRAG_STORE at another store)")
    if a.store.kind == "sqlite" and not (a.store.path and a.store.path.is_file()):  # asking never creates a store
        print(empty, file=sys.stderr)
        return 2
    with Store(a.store) as store:
        if not store.counts()["versions"]:
            print(empty, file=sys.stderr)
            return 2
        outcome = Asker(store).ask(a.question, _settings(a))
        names = store.entity_names()
        ans = outcome.answer
        layouts = store.span_layouts(cited_keys(ans))
        if a.json:
            def sentence(doc: str, version: int, idx: int) -> str | None:
                span = store.span(doc, version, idx)
                return span.text if span else None

            print(json.dumps(answer_json(ans, names, outcome.warnings, sentence, layouts), indent=2,
                             ensure_ascii=False))
            return 0
    for w in outcome.warnings:
        print(f"note: {w}", file=sys.stderr)
    print(ans.text or "(no answer)")
    print(f"\nanswer {ans.id}: {ans.status.value if ans.claims else 'no answer'}")
    for cl in ans.claims:
        s = support_json(cl.support)
        flags = f"  flags: {', '.join(f.value for f in cl.flags)}" if cl.flags else ""
        if is_verbatim(cl):  # a score of a quote against itself is not evidence
            print(f"\n  claim {cl.index}: {cl.text}\n    verbatim quote: {VERBATIM['reason']}{flags}\n"
                  f"    still for a person: {' '.join(VERBATIM_CHECKS)}")
        else:
            print(f"\n  claim {cl.index}: {cl.text}\n    support: {s['label']} {s['score']}  ({s['reason']}){flags}")
        for c in cl.citations:
            if c.item is None:
                print(f"    [{c.marker}] does not resolve")
                continue
            sp = c.item.span
            lay = layouts.get((sp.document_id, sp.version, sp.sentence_index))
            where = f" ({lay.location_text})" if lay is not None and lay.location_text else ""
            one_line = " ".join(sp.text.split())  # a PDF sentence keeps its line breaks in the store
            print(f"    [{c.marker}] {sp.document_id} v{sp.version}{where} [{sp.start}:{sp.end}] {one_line}")
            print(f"         route: {route_text(c.item.route, names)}")
    return 0


def cmd_review(a: argparse.Namespace) -> int:
    """``graphrag review``: the review queue, disputes, recording a verdict, or the review policy."""
    from graphrag.review import record_verdict, review_queue, visible_answer
    from graphrag.review_policy import ReviewPolicy
    from graphrag.serialize import support_json

    with Store(a.store) as store:
        if a.action == "policy":
            if a.required is not None:
                store.set_review_policy(ReviewPolicy(a.required))
            policy = store.review_policy()
            print(json.dumps({"required_verdicts": policy.required, "blind": policy.blind}) if a.json else
                  f"each claim needs {policy.required} independent verdict(s)"
                  + ("; review is blind, disagreements go to the dispute queue" if policy.blind else ""))
            return 0
        if a.action in ("list", "disputes"):
            # Under blind review only this reviewer's own verdicts are listed until they have judged.
            queue = review_queue(store, a.access, reviewer=a.reviewer, answer_id=a.answer,
                                 disputed_only=a.action == "disputes")
            rows: list[dict[str, Any]] = [{"answer_id": q.answer_id, "claim": q.claim_index, "text": q.text, "status": q.state.status.value,
                     "flags": [f.value for f in q.flags], "support": support_json(q.support),
                     "verdicts": [{"reviewer": v.reviewer, "verdict": v.verdict.value, "role": v.role,
                                   "stale": v.stale} for v in q.verdicts]} for q in queue]
            if a.json:
                print(json.dumps(rows, indent=2, ensure_ascii=False))
            for r in rows if not a.json else []:
                done = ", ".join(f"{v['reviewer']}: {v['verdict']}" for v in r["verdicts"]) or r["status"]
                print(f"{r['answer_id']:>4}.{r['claim']:<3} {r['support']['label']:<14} {done:<28} {r['text'][:70]}")
            return 0
        answer = visible_answer(store, a.answer, a.access)
        claim = next((c for c in answer.claims if c.index == a.claim), None)
        if claim is None:
            raise InputError(f"answer {a.answer} has no claim {a.claim}")
        cites = [c for c in claim.citations if c.valid]
        citation = next((c for c in cites if c.marker == a.citation), None) if a.citation else (cites[0] if cites else None)
        # by: the command line acts locally (every role, the labels given); the verdict is audited
        v = record_verdict(store, answer, claim, citation, a.verdict, a.reviewer, a.note or "", adjudicate=a.adjudicate,
                           by=local_principal(a.access))
    print(json.dumps({"verdict_id": v.id, "verdict": v.verdict.value, "reviewer": v.reviewer, "role": v.role})
          if a.json else f"recorded verdict {v.id}: {v.verdict.value} by {v.reviewer}"
          + (" (adjudication)" if a.adjudicate else ""))
    return 0


def cmd_delete(a: argparse.Namespace) -> int:
    """Remove a document (every version, or one): asks first on a terminal, needs --yes otherwise."""
    from graphrag.removal import clean_actor, describe, preview_removal, remove_document

    actor = clean_actor(a.by or _os_user())
    with Store(a.store) as store:
        plan = preview_removal(store, a.id, a.version)  # an unknown id or version stops here
        if not a.yes:
            if not sys.stdin.isatty():
                raise InputError("refusing to remove a document without confirmation: stdin is not a terminal; "
                                 "add --yes to remove it")
            for line in describe(plan, done=False):
                print(line)
            if input("This cannot be undone. Remove it? [y/N] ").strip().lower() not in ("y", "yes"):
                print("nothing removed")
                return 1
        done = remove_document(store, a.id, a.version, actor=actor, reason=a.reason or "")
    if a.json:
        print(json.dumps(asdict(done), indent=2, ensure_ascii=False))
    else:
        for line in describe(done):
            print(line)
    return 0


def _os_user() -> str:
    import getpass

    try:
        return f"{getpass.getuser()} (command line)"
    except (KeyError, OSError):  # no name for this uid (a container): still say where it came from
        return "command line"


def cmd_export(a: argparse.Namespace) -> int:
    """``graphrag export``: every visible verdict with its claim and cited span, as CSV or JSON."""
    from graphrag.review import export_rows, rows_to_csv, rows_to_json

    with Store(a.store) as store:
        rows = export_rows(store, a.access)
        store.add_audit(AuditEvent("export", None, None, {"via": "cli", "what": "verification record",
                                                          "format": a.format, "rows": len(rows)}))
    text = rows_to_csv(rows) if a.format == "csv" else rows_to_json(rows)
    return _write_out(text, a.out, f"{len(rows)} verdicts")


def cmd_audit(a: argparse.Namespace) -> int:
    """The audit log, for whoever holds the store (the CLI runs with the store's own access)."""
    from graphrag.audit import audit_to_csv, audit_to_json

    with Store(a.store) as store:
        events = store.audit(a.since)
    text = audit_to_csv(events) if a.format == "csv" else audit_to_json(events)
    return _write_out(text, a.out, f"{len(events)} audit events")


def _write_out(text: str, out: str | None, what: str) -> int:
    """Write an export to ``out`` (saying so on stderr) or to stdout; the command's exit code."""
    if out:
        Path(out).write_text(text, encoding="utf-8")
        print(f"wrote {what} to {out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_record(a: argparse.Namespace) -> int:
    """``graphrag record stats``: progress, agreement, calibration and source quality of the review record."""
    from graphrag.record import RecordFilter, record_stats

    flt = RecordFilter(a.since, a.until, a.reviewer, a.document, a.question)
    with Store(a.store) as store:
        stats = record_stats(store, a.access, flt)
    data = stats.to_json()
    if a.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    p, g, c = data["progress"], data["agreement"], data["checker"]
    print(f"claims {p['claims']}: {p['unreviewed']} unreviewed, {p['verified']} verified, {p['disputed']} disputed, "
          f"{p['stale']} stale, {p['source_removed']} whose source was removed ({p['verdicts']} current verdicts)")
    print(f"agreement: Krippendorff's alpha (nominal) {g['krippendorff_alpha_nominal']} over {g['alpha_claims']} "
          f"claims judged twice or more; reviewers: {', '.join(g['reviewers']) or 'none'}")
    for pair in g["cohen_kappa_pairs"]:
        print(f"  Cohen's kappa {' / '.join(pair['reviewers'])}: {pair['kappa']} (n={pair['n']})")
    print(f"checker vs reviewers (n={c['n']}): AUROC {c['auroc']}, balanced accuracy {c['balanced_accuracy']}, "
          f"unsupported found in the first 20% of the queue {c['triage_unsupported_in_first_20pct']} "
          f"(random {c['triage_random']})")
    for b in c["reliability"]:
        print(f"  score {b['low']:.1f}-{b['high']:.1f}: n={b['n']}, judged supported {b['judged_supported']}")
    for src in data["sources"][:10]:
        print(f"  {src['document']} v{src['version']}: {src['unsupported']} of {src['judged']} unsupported")
    return 0


def cmd_checker(a: argparse.Namespace) -> int:
    """Versions of the embedded checker's parameters: fit from the team's verdicts, list, roll back."""
    from graphrag.support.learn import RefitRefused

    with Store(a.store) as store:
        if a.action == "list":
            rows = store.checker_versions()
            if a.json:
                print(json.dumps([{"version": v.version, "created_at": v.created_at, "source": v.source,
                                   "active": v.active, "activated_at": v.activated_at, "metrics": v.metrics}
                                  for v in rows], indent=2))
                return 0
            active = next((v.version for v in rows if v.active), None)
            print(f"  shipped  parameters in the package{'  (active)' if active is None else ''}")
            for v in rows:
                m = v.metrics
                print(f"  {v.version:>7}  {v.created_at}  {v.source}{'  (active)' if v.active else ''}")
                if "refit" not in m:
                    continue
                print(f"           cross-validated by answer: balanced accuracy {m['refit']['balanced_accuracy']:.3f} "
                      f"vs shipped {m['shipped']['balanced_accuracy']:.3f} (gain {m['gain_balanced_accuracy']['mean']:+.3f}"
                      f" ± {m['gain_balanced_accuracy']['sd']:.3f}); AUROC {m['refit']['auroc']:.3f} vs "
                      f"{m['shipped']['auroc']:.3f}")
            return 0
        if a.action == "rollback":
            now_active = store.rollback_checker(a.to)
            print(f"active support checker: embedded@{now_active or 'shipped'}")
            return 0
        if not a.from_verdicts:
            raise InputError("graphrag checker fit: say where to learn from: --from-verdicts")
        from graphrag.support.team import fit_from_verdicts

        try:
            outcome = fit_from_verdicts(store)
        except RefitRefused as exc:
            if a.json:
                print(json.dumps({"adopted": False, "reason": str(exc), "report": exc.report}, default=float))
            _print_fit(exc.report, sys.stderr)
            print(f"not adopted: {exc}", file=sys.stderr)
            return 2
        if a.json:
            print(json.dumps({"adopted": True, "version": outcome.version, "report": outcome.report}, default=float))
        else:
            _print_fit(outcome.report, sys.stdout)
            print(f"adopted: support scores from now on are made by embedded@{outcome.version} "
                  f"(undo with: graphrag checker rollback)")
    return 0


def _print_fit(report: dict[str, Any], out: TextIO) -> None:
    if "refit" not in report:
        return
    print(f"{report['n']} judged pairs ({report['n_supported']} supported; partial and unsupported count as not) "
          f"from {report['answers']} answers; {len(report['folds'])} folds by answer", file=out)
    for name in ("shipped", "refit"):
        m = report[name]
        print(f"  {name:<8} balanced accuracy {m['balanced_accuracy']:.3f}  AUROC {m['auroc']:.3f}", file=out)
    g = report["gain_balanced_accuracy"]
    print(f"  gain per fold: {g['mean']:+.3f} ± {g['sd']:.3f} (balanced accuracy)", file=out)
    for reason, count in (report.get("skipped") or {}).items():
        print(f"  left out: {count} ({reason})", file=out)


def cmd_eval(a: argparse.Namespace) -> int:
    """``graphrag eval``: the support checker on labelled pairs (or its learning curve), or retrieval on
    multi-hop questions."""
    if a.what == "support":
        if a.learn_from:
            from graphrag.evaluate.learning import cli_learning_curve

            if not a.start_from or not a.start_format:
                raise InputError("--learn-from needs --start-from and --start-format: the model to start from is "
                                 "fitted on that other labelled file, so it never saw the scored claims")
            return cli_learning_curve(a.learn_from, a.format, a.start_from, a.start_format, sizes=a.sizes,
                                      draws=a.draws, seed=a.seed, cache=a.cache, as_json=a.json)
        if not a.data:
            raise InputError("graphrag eval support: give --data (or --learn-from for a learning curve)")
        from graphrag.evaluate.support import cli_eval_support

        return cli_eval_support(a.data, a.format, a.checker, a.json, limit=a.limit)
    from graphrag.evaluate.retrieval import cli_eval_retrieval

    return cli_eval_retrieval(a.questions, a.corpus, as_json=a.json, limit=a.limit, store_path=a.eval_store,
                              off_topic_dir=a.off_topic)


def cmd_store(a: argparse.Namespace) -> int:
    """``graphrag store migrate``: copy one store into another, empty one and print the verified table counts.
    """
    from graphrag.store.transfer import copy_store

    def progress(p: Progress) -> None:  # one line per table copied
        print(f"store migrate: {p.done}/{p.total} tables ({p.message})", file=sys.stderr)

    report = copy_store(a.source, a.target, progress)
    if a.json:
        print(json.dumps(report.to_json(), indent=2))
        return 0
    print(f"copied {report.source} -> {report.target} (generation {report.generation}); verified:")
    for t in report.tables:
        print(f"  {t.table:<14} {t.rows:>9,} rows  sha256 {t.sha256[:16]}…  equal")
    return 0


def cmd_bench(a: argparse.Namespace) -> int:
    """``graphrag bench``: run the chosen benchmark."""
    if a.what == "support":
        from graphrag.evaluate.support import cli_bench_support

        return cli_bench_support(as_json=True)
    if a.what == "scale":
        from graphrag.bench_scale import bench_scale

        return bench_scale(a)
    from graphrag import bench

    return {"ingest": bench.bench_ingest, "ask": bench.bench_ask, "load": bench.bench_load,
            "review": bench.bench_review, "documents": bench.bench_documents}[a.what](a)


# --- parser -----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every ``graphrag`` command."""
    p = argparse.ArgumentParser(prog="graphrag", description="Local GraphRAG with source attribution")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ingest", help="ingest text, Markdown, PDF, HTML and DOCX files or folders "
                                      "(a manifest.toml beside them is read)")
    s.add_argument("paths", nargs="+", metavar="PATH")
    _store_arg(s)
    s.add_argument("--extractor", choices=["rules", "ollama"], default="rules")
    s.add_argument("--model", help="model name for the ollama extractor")
    s.add_argument("--host", help="Ollama host (default: OLLAMA_HOST or http://127.0.0.1:11434)")
    s.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help="reject files larger than this (default %(default)s: about a minute of work per file)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_ingest)

    s = sub.add_parser("entity", help="every mention and relation of an entity")
    s.add_argument("name")
    _store_arg(s)
    _access_arg(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_entity)

    s = sub.add_parser("ask", help="ask a question; every claim is cited and checked")
    s.add_argument("question")
    _store_arg(s)
    _access_arg(s)
    s.add_argument("--k", type=int, default=3, help="similarity seeds when the question names no known entity (default 3)")
    s.add_argument("--hops", type=int, default=2, help="walk depth (default 2)")
    s.add_argument("--direction", choices=["both", "out"], default="both")
    s.add_argument("--include-superseded", action="store_true", help="also use superseded document versions")
    s.add_argument("--max-context", type=int, default=12)
    s.add_argument("--min-relevance", type=_unit_interval, default=AskSettings.min_relevance,
                   help="answer only when a visible sentence is at least this similar to the question "
                        f"(default {AskSettings.min_relevance})")
    s.add_argument("--generator", choices=["extractive", "ollama"], default="extractive")
    s.add_argument("--model", help="model for the ollama generator")
    s.add_argument("--checker", choices=["embedded", "ollama"], default="embedded")
    s.add_argument("--checker-model", help="model for the ollama support checker")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_ask)

    s = sub.add_parser("review", help="the review queue, the dispute queue, a verdict, the review policy")
    s.add_argument("action", choices=["list", "disputes", "mark", "policy"],
                   help="list: the queue; disputes: claims whose reviewers disagree; mark: record a verdict; "
                        "policy: show or set (--required N) how many independent verdicts a claim needs")
    s.add_argument("--answer", type=int)
    s.add_argument("--claim", type=int)
    s.add_argument("--citation", help="the citation marker judged (default: the claim's first valid one)")
    s.add_argument("--verdict", choices=["supported", "partial", "unsupported"])
    s.add_argument("--reviewer", help="your name, recorded with the verdict (required for mark)")
    s.add_argument("--note")
    s.add_argument("--adjudicate", action="store_true", help="mark: settle a disputed claim as its adjudicator")
    s.add_argument("--required", type=int, help="policy: independent verdicts each claim needs (1 to 5)")
    _store_arg(s)
    _access_arg(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_review)

    s = sub.add_parser("delete", help="remove a document (every version, or one); its verdicts stay, "
                                      "marked \"source removed\"")
    s.add_argument("id", metavar="ID", help="the document id")
    _store_arg(s)
    s.add_argument("--version", type=int, action="append", metavar="N",
                   help="remove only this version; repeat for several, removed together (default: every version)")
    s.add_argument("--yes", action="store_true", help="do not ask for confirmation (needed when stdin is not a "
                                                     "terminal)")
    s.add_argument("--reason", help="why, kept in the removal record")
    s.add_argument("--by", help="who removes it, kept in the removal record (default: this OS account)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_delete)

    s = sub.add_parser("export", help="export the verification record (one row per verdict)")
    s.add_argument("--format", choices=["csv", "json"], default="csv")
    s.add_argument("--out", help="file to write (default: stdout)")
    _store_arg(s)
    _access_arg(s)
    s.set_defaults(fn=cmd_export)

    s = sub.add_parser("audit", help="the audit log: sign-ins, ingests, exports, verdicts (who and when)")
    au = s.add_subparsers(dest="audit_cmd", required=True)
    ae = au.add_parser("export", help="every event, oldest first")
    ae.add_argument("--format", choices=["csv", "json"], default="csv")
    ae.add_argument("--out", help="write to this file (default: standard output)")
    ae.add_argument("--since", help="only events from this ISO date or time on")
    _store_arg(ae)
    s.set_defaults(fn=cmd_audit)

    s = sub.add_parser("record", help="the verification record as a measurement")
    r = s.add_subparsers(dest="what", required=True)
    rs = r.add_parser("stats", help="progress, reviewer agreement, the checker against reviewers, bad sources")
    rs.add_argument("--since", help="verdicts at or after this ISO time")
    rs.add_argument("--until", help="verdicts before this ISO time")
    rs.add_argument("--reviewer")
    rs.add_argument("--document", help="verdicts on citations of this document id")
    rs.add_argument("--question", help="answers whose question contains this text")
    _store_arg(rs)
    _access_arg(rs)
    rs.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_record)

    s = sub.add_parser("eval", help="measure on public labelled data")
    e = s.add_subparsers(dest="what", required=True)
    es = e.add_parser("support", help="support checker accuracy on claim/evidence pairs")
    es.add_argument("--data")
    es.add_argument("--format", choices=["wice", "expertqa", "jsonl"], required=True)
    es.add_argument("--checker", default="embedded")
    es.add_argument("--limit", type=int)
    es.add_argument("--json", action="store_true")
    es.add_argument("--learn-from", metavar="DATA",
                    help="learning curve: treat this file's labels as a team's verdicts, refit on --sizes of them "
                         "and score the rest (with --format)")
    es.add_argument("--start-from", metavar="OTHER_DATA", help="the labelled file the starting model is fitted on")
    es.add_argument("--start-format", choices=["wice", "expertqa", "jsonl"])
    es.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400])
    es.add_argument("--draws", type=int, default=5, help="random draws per size (default 5)")
    es.add_argument("--seed", type=int, default=0)
    es.add_argument("--cache", help="feature cache folder (default: a folder in the temporary directory)")
    er = e.add_parser("retrieval", help="supporting-paragraph recall of the context, beside a dense baseline")
    er.add_argument("--questions", required=True)
    er.add_argument("--corpus", required=True)
    er.add_argument("--limit", type=int)
    er.add_argument("--eval-store", help="reuse this store for the ingested corpus (default: a temporary file)")
    er.add_argument("--off-topic", metavar="FOLDER",
                    help="also ask the questions against these documents, which cannot answer them, and count "
                         "how many the relevance floor refuses (e.g. sample_corpus)")
    er.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_eval)

    s = sub.add_parser("store", help="store administration: copy a SQLite store into PostgreSQL")
    st_ = s.add_subparsers(dest="what", required=True)
    sm = st_.add_parser("migrate", help="copy every row (original ids and times) into an empty database, "
                                        "then verify counts and hashes; all or nothing")
    sm.add_argument("--from", dest="source", type=store_value, required=True, help="the store to copy (a SQLite file)")
    sm.add_argument("--to", dest="target", type=store_value, required=True,
                    help="an empty database, e.g. postgresql+psycopg://user:password@host:5432/graphrag")
    sm.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_store)

    s = sub.add_parser("checker", help="the embedded support checker's versions: fit from verdicts, list, roll back")
    s.add_argument("action", choices=["fit", "list", "rollback"])
    s.add_argument("--from-verdicts", action="store_true",
                   help="fit: learn from the team's verdicts in the store (supported = 1; partial and unsupported = 0)")
    s.add_argument("--to", type=int, help="rollback: the version to make active (0 = the shipped parameters; "
                                         "default: the one before the active one)")
    _store_arg(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_checker)

    s = sub.add_parser("bench", help="benchmarks that print figures (JSON)")
    b = s.add_subparsers(dest="what", required=True)
    bi = b.add_parser("ingest", help="ingest a {title, text} JSON corpus with the rules extractor")
    bi.add_argument("--corpus", default="../shared/data/musique_train_corpus.json")
    bi.add_argument("--limit", type=int)
    bi.add_argument("--no-bulk", action="store_true", help="skip measuring the bulk limit (the models alone)")
    ba = b.add_parser("ask", help="ask latency without generation on synthetic graphs")
    ba.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ba.add_argument("--queries", type=int, default=50)
    ba.add_argument("--after-ingest", type=int, default=100, metavar="N",
                    help="then ingest N paragraphs of --corpus and time the first answer after it (0: skip)")
    ba.add_argument("--after-ingest-rounds", type=int, default=3, metavar="R",
                    help="times to do so, with new paragraphs each time")
    ba.add_argument("--corpus", default="../shared/data/musique_train_corpus.json")
    b.add_parser("support", help="embedded support checker latency per pair")
    bl = b.add_parser("load", help="concurrent verdict writers and ask latency during an ingest")
    bl.add_argument("--writers", type=int, default=8)
    bl.add_argument("--store", type=store_value, help="an empty store to load (default: a temporary SQLite file); "
                    "e.g. postgresql+psycopg://user:password@host:5432/graphrag_bench")
    bl.add_argument("--verdicts", type=int, default=250)
    br = b.add_parser("review", help="review-queue build time as answers accumulate")
    br.add_argument("--answers", type=int, nargs="+", default=[100, 1_000, 5_000])
    br.add_argument("--rounds", type=int, default=5)
    bd = b.add_parser("documents", help="a generated PDF through the reader and ingest; cited-page render time")
    bd.add_argument("--pages", type=int, default=200)
    bd.add_argument("--renders", type=int, default=20)
    from graphrag.bench_scale import add_parser as add_scale_parser

    add_scale_parser(b)
    s.set_defaults(fn=cmd_bench)
    return p


def _not_utf8(argv: Sequence[str]) -> str | None:
    """The first argument holding bytes that are not UTF-8 (Python surrogate-escapes them), shown safely."""
    from graphrag.folders import printable

    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return printable(arg)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit code is 0 on success, 2 for bad input, 1 for other failures, 130 when
    interrupted."""
    argv = sys.argv[1:] if argv is None else list(argv)
    bad = _not_utf8(argv)
    if bad is not None:
        # Paths, questions and names are stored and printed as UTF-8: say which argument, once.
        print(f"error: an argument is not valid UTF-8 text: '{bad}'; use UTF-8 (e.g. rename the file, "
              "or convert the text with iconv)", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.command == "review" and args.action == "mark":
        missing = [n for n in ("answer", "claim", "verdict", "reviewer") if getattr(args, n) is None]
        if missing:
            print(f"graphrag review mark: missing --{', --'.join(missing)}", file=sys.stderr)
            return 2
    try:
        return int(args.fn(args))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except GraphRAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: documents already written are kept; re-run to resume", file=sys.stderr)
        return 130
