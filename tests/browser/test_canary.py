"""Canaries: nothing of an internal document reaches a public viewer, on any surface.

Internal documents carry a unique token ("qzc...") in their text, title, id, entity names and
relation words. Internal users ask questions whose answers route through internal relations
(one answer's context is all public but its route is not: the case an adversarial review found
on the review page), and judge them with notes. Then a viewer holding only ``public`` goes
through every surface: every CLI command and its errors and logs, both exports, and in Chromium
every page of the app's navigation (pages are read from the sidebar, so a new page joins the
crawl by itself), every expander and tab, every review-queue item, every entity of the graph
page, every iframe and download. Everything the server sends the browser (websocket frames and
HTTP bodies, shown or not) and the server's log are searched too. The token must appear nowhere.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app_helpers import (
    ROOT,
    ask_in_browser,
    chromium_profile,
    require_chromium,
    streamlit_server,
    wait_for_app_run,
)
from doubles.extract import ScriptedExtractor, ScriptEntity, ScriptRelation
from graphrag.answer.ask import Asker
from graphrag.answer.retrieval.load import load_graph
from graphrag.cli import build_parser, main
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import Answer, AskSettings, Citation, Claim, ContextItem, Route, RouteStep, Seed
from graphrag.store import Store
from graphrag.verify.review import record_verdict
from graphrag.verify.status import keep_review_policy
from helpers import ADMIN, write_corpus

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.model]
require_chromium()
sync_api = pytest.importorskip("playwright.sync_api")

CANARY = "qzc"  # every internal token starts with it; nothing public contains it
INTERNAL = ("internal", "public")
PUBLIC = ("public",)

DOCS = {
    "exports.md": "# Data exports\n\nExports use the latest snapshot. Snapshot exports remain available for 30 days "
                  "after an account is cancelled.\n",
    "retention.md": "# Retention\n\nNightly backups are kept for 14 days under the retention policy.\n",
    "ops.md": "# Operations\n\nExports are copied into the Qzcentity vault every night. The Qzcentity vault "
              "qzcrelation the nightly backups. Staff open the vault with the qzctext passphrase.\n",
}
MANIFEST = """
[[documents]]
file = "exports.md"
id = "exports"
title = "Data exports"

[[documents]]
file = "retention.md"
id = "retention"
title = "Retention"

[[documents]]
file = "ops.md"
id = "ops-qzcdocid"
title = "Qzctitle operations"
access = ["internal"]
"""
EXTRACTOR = ScriptedExtractor(
    [ScriptEntity("Export", "Exports use"), ScriptEntity("Snapshot", "latest snapshot"),
     ScriptEntity("Nightly backup", "Nightly backups are kept"), ScriptEntity("Retention policy", "retention policy"),
     ScriptEntity("Export", "copied into"), ScriptEntity("Qzcentity vault", "Qzcentity vault every"),
     ScriptEntity("Nightly backup", "qzcrelation the nightly")],
    [ScriptRelation("Export", "use", "Snapshot", "Exports use"),
     ScriptRelation("Retention policy", "keeps", "Nightly backup", "Nightly backups are kept"),
     ScriptRelation("Export", "copied into", "Qzcentity vault", "copied into"),
     ScriptRelation("Qzcentity vault", "qzcrelation", "Nightly backup", "qzcrelation the nightly")])
INTERNAL_QUESTIONS = ["Where are exports copied every night?", "How long are the nightly backups of exports kept?",
                      "What opens the vault?"]
PUBLIC_QUESTIONS = ["How long do snapshot exports remain available?", *INTERNAL_QUESTIONS]


@dataclass
class Seen:
    """Every text a public viewer was given, by where it was seen."""

    texts: list[tuple[str, str]] = field(default_factory=list)

    def add(self, where: str, text: str | bytes | None) -> None:
        if text is None:
            return
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        self.texts.append((where, text))

    def leaks(self) -> list[str]:
        return [f"{where}: ...{t[max(0, t.lower().find(CANARY) - 80):t.lower().find(CANARY) + 80]}..."
                for where, t in self.texts if CANARY in t.lower()]


def _internal_route_answer(store: Store) -> int:
    """An internal answer whose one context sentence is public but was reached through the
    internal relations Export -copied into-> vault -qzcrelation-> Nightly backup."""
    rels = {r.type: r for r in store.all_relations()}
    route = Route("export", (RouteStep(rels["copied into"].id, "copied into", "qzcentity vault", True),
                             RouteStep(rels["qzcrelation"].id, "qzcrelation", "nightly backup", True)))
    span = store.span("retention", 1, 1)
    assert span is not None and "14 days" in span.text
    item = ContextItem(1, span, route, 0.7, "mention")
    text = span.text
    claim = Claim(0, text, 0, len(text) + 4, (Citation("1", True, item),))
    return store.save_answer(Answer("How long are vaulted backups kept?", AskSettings(access=INTERNAL), text + " [1]",
                                    (Seed("export", 0.9),), (route,), (item,), (claim,)))


@pytest.fixture(scope="module")
def canary_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[int]]]:
    tmp = tmp_path_factory.mktemp("canary")
    corpus = write_corpus(tmp / "corpus", DOCS, MANIFEST)
    path = tmp / "store.db"
    with Store(path) as store:
        report = Ingestor(store, EXTRACTOR).ingest_paths([corpus])
        assert {d.status for d in report.documents} == {"ok"}, report
        internal_ids = [_internal_route_answer(store)]
        asker = Asker(store)
        for q in INTERNAL_QUESTIONS:
            internal_ids.append(asker.ask(q, AskSettings(access=INTERNAL)).answer.id)
        # Internal answers, judged by an internal reviewer whose notes quote the internal text.
        for aid in internal_ids:
            answer = store.answer(aid)
            for claim in answer.claims:
                cit = next((c for c in claim.citations if c.valid), None)
                record_verdict(store, answer, claim, cit, "supported", "Qzcreviewer", "qzcnote: checked the vault")
        # A public answer with a verdict, so public surfaces are not trivially empty.
        public = asker.ask(PUBLIC_QUESTIONS[0], AskSettings(access=PUBLIC)).answer
        record_verdict(store, public, public.claims[0], public.claims[0].citations[0], "supported", "ana", "fine")
        # The planted relations really are on internal routes, and the canary is in the store.
        routed = [store.answer(a) for a in internal_ids]
        assert any(s.relation_type == "qzcrelation" for a in routed for c in a.context for s in c.route.steps)
    yield path, internal_ids


# --- the command line ------------------------------------------------------------------------


def test_no_cli_command_shows_a_public_viewer_an_internal_canary(canary_store, tmp_path: Path, capsys,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    store, internal_ids = canary_store
    work = tmp_path / "store.db"
    work.write_bytes(store.read_bytes())
    s = ["--store", str(work)]
    pub = ["--access", "public"]
    extra = write_corpus(tmp_path / "more", {"notes.md": "# Notes\n\nExports are mailed weekly to owners.\n"})
    commands: list[list[str]] = [
        ["entity", "Qzcentity vault", *s, *pub], ["entity", "Qzcentity vault", *s, *pub, "--json"],
        ["entity", "Export", *s, *pub], ["entity", "Export", *s, *pub, "--json"],
        ["entity", "Nightly backup", *s, *pub, "--json"], ["entity", "Nightly backup", *s, *pub],
        ["review", "list", *s, *pub], ["review", "list", *s, *pub, "--json"],
        ["review", "disputes", *s, *pub, "--json"], ["review", "policy", *s, "--json"],
        ["export", "--format", "csv", *s, *pub], ["export", "--format", "json", *s, *pub],
        ["ingest", str(extra), *s], ["ingest", str(extra), *s, "--json"],
        ["record", "stats", *s, *pub], ["record", "stats", *s, *pub, "--json"],
        ["record", "carried", *s, *pub], ["record", "carried", *s, *pub, "--json"],
        ["record", "changes", *s, *pub], ["record", "changes", *s, *pub, "--json"],
        ["record", "changes", *s, *pub, "--export", "csv"],
        ["checker", "list", *s], ["checker", "list", *s, "--json"],
        # refused (too few verdicts) with its figures, and nothing to roll back to: counts and versions only
        ["checker", "fit", "--from-verdicts", *s], ["checker", "fit", "--from-verdicts", *s, "--json"],
        ["checker", "rollback", *s],
        # the audit log (an administrator's): who did what when, as ids, counts and typed paths
        ["audit", "export", *s], ["audit", "export", "--format", "json", *s],
        # an administrator's copy of the whole store: it prints table names, row counts and hashes only
        ["store", "migrate", "--from", str(work), "--to", str(tmp_path / "copy.db")],
        ["store", "migrate", "--from", str(work), "--to", str(tmp_path / "copy.db"), "--json"],  # refused: not empty
        ["store", "setup", "--owner-url", str(work), "--app-role", "graphrag_app"],  # refused: SQLite has no roles
        ["store", "info", *s], ["store", "info", *s, "--json"],  # counts and where the vectors are searched
        # the reader's passage vectors filled in: model names and counts only
        ["store", "passages", *s], ["store", "passages", *s, "--json"],
        # the estimate of what nobody reviewed (drawing its sample), and the signed pack: made, its key, checked
        ["record", "estimate", *s, *pub], ["record", "estimate", *s, *pub, "--json"],
        ["export", "--format", "pack", "--out", str(tmp_path / "pack.zip"), *s, *pub],
        ["pack", "key", *s], ["pack", "verify", str(tmp_path / "pack.zip")],
    ]
    for q in PUBLIC_QUESTIONS:
        commands += [["ask", q, *s, *pub], ["ask", q, *s, *pub, "--json"]]
    for aid in [*internal_ids, 999]:
        commands.append(["review", "mark", "--answer", str(aid), "--claim", "1", "--verdict", "supported",
                         "--reviewer", "pat", *s, *pub])
    # Removal (an administrator's command, no access labels): an unknown id and version, a refusal
    # without --yes, then real removals, last because they withdraw answers the commands above read;
    # then what a public viewer sees of the record afterwards.
    commands += [["delete", "nonexistent", *s, "--yes"], ["delete", "exports", "--version", "9", *s, "--yes"],
                 ["delete", "ops-qzcdocid", *s], ["delete", "retention", *s, "--yes", "--reason", "crawl"],
                 ["delete", "ops-qzcdocid", *s, "--yes", "--json"], ["delete", "ops-qzcdocid", *s, "--yes"],
                 ["export", "--format", "json", *s, *pub], ["review", "list", *s, *pub, "--json"],
                 ["record", "stats", *s, *pub, "--json"], ["entity", "Nightly backup", *s, *pub, "--json"]]
    # Every command of the CLI (and each subcommand, e.g. review mark) is crawled, or says here why it shows
    # nothing of a store's content: a new command fails this until it is added to one or the other.
    everything = _commands()
    crawled = {" ".join(argv[:2]) if " ".join(argv[:2]) in everything else argv[0] for argv in commands}
    uncrawled = {c for c in everything if c.split()[0] not in NO_STORE_CONTENT}
    assert crawled == uncrawled, uncrawled - crawled
    seen = Seen()
    caplog.set_level(logging.DEBUG)
    for argv in commands:
        main(["-v", *argv])
        out = capsys.readouterr()
        # What the viewer typed may be echoed back (a guessed name); what was not typed must not appear.
        seen.add(f"graphrag {' '.join(argv[:2])} stdout", _unsay(out.out, argv))
        seen.add(f"graphrag {' '.join(argv[:2])} stderr", _unsay(out.err, argv))
    seen.add("log", caplog.text)
    with Store(work) as removed:  # the removals were real, so what came after them was crawled on them
        assert {r.document_id for r in removed.removal_records()} == {"retention", "ops-qzcdocid"}
    # A guessed internal name gets the same answer as a name nobody uses.
    main(["entity", "Qzcentity vault", *s, *pub])
    guessed = capsys.readouterr().err
    main(["entity", "Nonexistent thing", *s, *pub])
    assert guessed.replace("Qzcentity vault", "X").replace("qzcentity vault", "x") == \
        capsys.readouterr().err.replace("Nonexistent thing", "X").replace("nonexistent thing", "x")
    assert not seen.leaks(), "\n".join(seen.leaks())
    # The crawl reached real content: the public answer and its verdict were exported.
    exported = [t for w, t in seen.texts if w.startswith("graphrag export")]
    assert any("ana" in t and "fine" in t for t in exported)
    # ... and the same commands as an internal user do show the canary (the search works).
    main(["export", "--format", "json", *s, "--access", "internal", "public"])
    assert CANARY in capsys.readouterr().out.lower()


# Commands that read no store a viewer shares: eval builds its own store from public data, bench
# times synthetic data.
NO_STORE_CONTENT = {"eval", "bench"}


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next((dict(a.choices) for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})


def _commands() -> set[str]:
    """Every command, as "review mark" for one with subcommands and "ask" for one without."""
    return {f"{name} {sub}" if sub else name for name, parser in _subcommands(build_parser()).items()
            for sub in (_subcommands(parser) or [""])}


def _unsay(text: str, argv: list[str]) -> str:
    for arg in sorted(argv, key=len, reverse=True):
        text = text.replace(arg, "").replace(arg.lower(), "")
    return text


# --- manifests that fail open: nested, misspelt, relabelled (issue 22, findings 1 to 3) ---------------------

# Canary text only in sentences (never in a first line, file name or id: an ingest report names those),
# under a nested manifest, behind misspelt manifests, and in a document relabelled public -> internal.
MANIFEST_CORPUS = {
    "exports.md": DOCS["exports.md"],
    "plan.md": "# Plan\n\nExports are moved to the Qzcrelabel archive after 30 days.\n",
    "nested/manifest.toml": '[defaults]\naccess = ["internal"]\n',
    "nested/vault.md": "# Vault\n\nBackups are sealed in the Qzcnested locker every night.\n",
    "typo-table/manifest.toml": '[[document]]\nfile = "keys.md"\naccess = ["internal"]\n',
    "typo-table/keys.md": "# Keys\n\nBackups are signed with the qzcmisspelt key.\n",
    "typo-default/manifest.toml": '[default]\naccess = ["internal"]\n',
    "typo-default/codes.md": "# Codes\n\nThe door code is qzcdefault.\n",
    "typo-entry/manifest.toml": '[[documents]]\nfile = "pins.md"\nacess = ["internal"]\n',
    "typo-entry/pins.md": "# Pins\n\nThe safe opens with qzcentry.\n",
}
PLAN_DRAFT = "# Plan\n\nExports are moved to the Qzcdraft archive after 60 days.\n"
MANIFEST_EXTRACTOR = ScriptedExtractor(
    [ScriptEntity("Export", "Exports use"), ScriptEntity("Snapshot", "latest snapshot"),
     ScriptEntity("Export", "Exports are moved"), ScriptEntity("Qzcrelabel archive", "Qzcrelabel archive"),
     ScriptEntity("Qzcdraft archive", "Qzcdraft archive"), ScriptEntity("Backup", "Backups are"),
     ScriptEntity("Qzcnested locker", "Qzcnested locker")],
    [ScriptRelation("Export", "use", "Snapshot", "Exports use"),
     ScriptRelation("Export", "moved to", "Qzcrelabel archive", "Qzcrelabel archive"),
     ScriptRelation("Export", "moved to", "Qzcdraft archive", "Qzcdraft archive"),
     ScriptRelation("Backup", "sealed in", "Qzcnested locker", "Qzcnested locker")])
MANIFEST_QUESTIONS = ["Where are exports moved after 30 days?", "Where are exports moved after 60 days?",
                      "Where are backups sealed every night?", "What key signs the backups?",
                      "What is the door code?", "What opens the safe?"]


@pytest.fixture(scope="module")
def manifest_canary_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A store where public viewers asked about a plan (two versions) while it was public, and judged it;
    then the plan's manifest marked it internal and the folder was ingested again (a relabel)."""
    tmp = tmp_path_factory.mktemp("manifest-canary")
    corpus = tmp / "corpus"
    for name, text in {**MANIFEST_CORPUS, "plan.md": PLAN_DRAFT}.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text, encoding="utf-8")
    path = tmp / "store.db"
    with Store(path) as store:
        Ingestor(store, MANIFEST_EXTRACTOR).ingest_paths([corpus])  # the plan's draft: version 1, public
        (corpus / "plan.md").write_text(MANIFEST_CORPUS["plan.md"], encoding="utf-8")
        report = Ingestor(store, MANIFEST_EXTRACTOR).ingest_paths([corpus])
        assert {d.id: d for d in report.documents}["plan"].version == 2
        asker = Asker(store)
        for q in MANIFEST_QUESTIONS[:2]:  # asked while the plan was public, the draft with superseded versions
            answer = asker.ask(q, AskSettings(access=PUBLIC, include_superseded=True)).answer
            assert CANARY in answer.text.lower()
            record_verdict(store, answer, answer.claims[0], answer.claims[0].citations[0], "supported", "ana",
                           "qzcnote: the archive")
        (corpus / "manifest.toml").write_text('[[documents]]\nfile = "plan.md"\naccess = ["internal"]\n',
                                              encoding="utf-8")
        Ingestor(store, MANIFEST_EXTRACTOR).ingest_paths([corpus])  # the relabel (checked after the crawl)
    yield path, corpus


def test_no_cli_command_shows_a_public_viewer_canaries_of_nested_misspelt_or_relabelled_manifests(
        manifest_canary_store, tmp_path: Path, capsys, caplog: pytest.LogCaptureFixture) -> None:
    store, corpus = manifest_canary_store
    work = tmp_path / "store.db"
    work.write_bytes(store.read_bytes())
    s = ["--store", str(work)]
    pub = ["--access", "public"]
    commands: list[list[str]] = [
        ["review", "list", *s, *pub], ["review", "list", *s, *pub, "--json"],
        ["review", "disputes", *s, *pub, "--json"],
        ["export", "--format", "csv", *s, *pub], ["export", "--format", "json", *s, *pub],
        ["record", "stats", *s, *pub], ["record", "stats", *s, *pub, "--json"],
        ["record", "carried", *s, *pub], ["record", "carried", *s, *pub, "--json"],
        ["record", "changes", *s, *pub], ["record", "changes", *s, *pub, "--json"],
        ["ingest", str(corpus), *s], ["ingest", str(corpus), *s, "--json"],  # the report names no canary
        ["audit", "export", *s], ["audit", "export", "--format", "json", *s],
    ]
    for name in ("Qzcrelabel archive", "Qzcdraft archive", "Qzcnested locker", "Export", "Backup"):
        commands += [["entity", name, *s, *pub], ["entity", name, *s, *pub, "--json"]]
    for q in MANIFEST_QUESTIONS:
        commands += [["ask", q, *s, *pub, "--json"], ["ask", q, *s, *pub, "--include-superseded"]]
    seen = Seen()
    caplog.set_level(logging.DEBUG)
    for argv in commands:
        main(["-v", *argv])
        out = capsys.readouterr()
        seen.add(f"graphrag {' '.join(argv[:2])} stdout", _unsay(out.out, argv))
        seen.add(f"graphrag {' '.join(argv[:2])} stderr", _unsay(out.err, argv))
    seen.add("log", caplog.text)
    assert not seen.leaks(), "\n".join(seen.leaks())
    with Store(work) as st:
        assert not [d.id for d in st.documents() if d.id.startswith("typo-")]  # held back: nothing of them stored
        assert st.current_document("nested/vault").access == ("internal",)
        assert [d.access for d in st.documents() if d.id == "plan"] == [("internal",), ("internal",)]
    # The search works: an internal viewer is shown the relabelled answers and the nested vault.
    main(["export", "--format", "json", *s, "--access", "internal", "public"])
    assert "qzcnote" in capsys.readouterr().out.lower()
    main(["ask", MANIFEST_QUESTIONS[2], *s, "--access", "internal"])
    assert "qzcnested" in capsys.readouterr().out.lower()


# --- the dashboard in a real browser -----------------------------------------------------------


def _settle(page) -> None:  # `page`: a Playwright Page
    wait_for_app_run(page)


def _collect_dom(page, seen: Seen, where: str) -> None:
    for i, frame in enumerate(page.frames):
        try:
            seen.add(f"{where} frame {i}", frame.content())
        except sync_api.Error:  # a frame detached by a rerun: its successor is collected later
            pass


def _open_everything(page, seen: Seen, where: str, downloads: bool = False) -> None:
    """Expand every expander, visit every tab, and (once per page: Chromium blocks a site's
    repeated automatic downloads) take every download."""
    # Clicked from the page itself: no wait on an element a rerun may just have replaced.
    page.evaluate("""() => document.querySelectorAll('[data-testid="stExpander"] details:not([open]) summary')
                          .forEach(s => s.click())""")
    for i in range(page.get_by_role("tab").count()):
        page.evaluate("i => document.querySelectorAll('[role=tab]')[i]?.click()", i)
        page.wait_for_timeout(150)
    _settle(page)
    # A download button's text is its icon's name, then its label (which may be several words).
    buttons = page.get_by_test_id("stDownloadButton").all() if downloads else []
    for label in [b.inner_text().split(maxsplit=1)[-1] for b in buttons]:
        with page.expect_download(timeout=60_000) as dl:
            page.get_by_test_id("stDownloadButton").get_by_role("button", name=label, exact=True).click()
        seen.add(f"{where} download {label}", Path(dl.value.path()).read_bytes())
        _settle(page)
    _collect_dom(page, seen, where)


def test_no_page_shows_a_public_viewer_an_internal_canary(canary_store, tmp_path: Path) -> None:
    store, _ = canary_store
    work = tmp_path / "store.db"
    work.write_bytes(store.read_bytes())
    with Store(work) as s:
        kg = load_graph(s)
    _, visible = kg.visibility(PUBLIC, include_superseded=True)
    public_entities = [kg.names[i] for i in range(len(kg.keys)) if visible[i]]
    assert "Export" in public_entities and not any(CANARY in n.lower() for n in public_entities)

    seen = Seen()
    responses = []
    log_path = tmp_path / "server.log"
    with streamlit_server(work, log_path, sample=False) as url, sync_api.sync_playwright() as pw:
        ctx = chromium_profile(pw, tmp_path / "profile", accept_downloads=True,
                               viewport={"width": 1440, "height": 900})
        ctx.on("response", lambda r: responses.append(r))
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: seen.add("websocket", payload)))
        page.goto(url)
        page.get_by_test_id("stSidebarNav").get_by_role("link").first.wait_for()
        _settle(page)
        sidebar = page.get_by_test_id("stSidebar")
        nav = page.get_by_test_id("stSidebarNav").get_by_role("link")
        pages = [link.inner_text().strip() for link in nav.all()]
        assert {"Ask", "Review", "Graph", "Ingest"} <= set(pages), pages
        reviewed = 0
        for name in pages:
            sidebar.get_by_role("link", name=name, exact=True).click()
            _settle(page)
            _open_everything(page, seen, name, downloads=True)
            if name == "Ask":
                for q in PUBLIC_QUESTIONS:
                    ask_in_browser(page, q)
                    # Each click reruns the page: groups and radios are found anew by position each time.
                    groups = page.get_by_role("radiogroup", name="Citations")
                    for g in range(groups.count()):
                        for r in range(groups.nth(g).get_by_role("radio").count()):
                            groups.nth(g).get_by_role("radio").nth(r).click()
                            _settle(page)
                    _open_everything(page, seen, f"Ask: {q}")
            elif name == "Review":
                # Visit every item of the queue ("Claim i of N"), with its route graph and source.
                header = page.get_by_text("Claim 1 of", exact=False)
                header.wait_for()
                total = int(header.inner_text().split(" of ")[1].split()[0])
                for i in range(total):
                    _open_everything(page, seen, f"Review item {i + 1}")
                    reviewed += 1
                    page.get_by_role("button", name="Next").click()
                    _settle(page)
            elif name == "Graph":
                box = page.get_by_label("Find an entity", exact=True)
                for entity in public_entities:
                    box.fill(entity)
                    box.press("Enter")
                    _settle(page)
                    _open_everything(page, seen, f"Graph: {entity}")
        page.screenshot(path=str(ROOT / "test-artifacts" / "08-canary-crawl.png"), full_page=True)
        for r in responses:
            if r.url.startswith(url) and "/static/" not in r.url:
                try:
                    seen.add(f"http {r.url}", r.body())
                except sync_api.Error:  # redirects and aborted requests have no body
                    pass
        ctx.close()
    seen.add("server log", log_path.read_text(encoding="utf-8", errors="replace"))
    assert reviewed >= 1, "the public queue was empty: the crawl saw no review item"
    assert any(w == "websocket" for w, _ in seen.texts)
    assert not seen.leaks(), "\n".join(seen.leaks()[:20])
    # The public answer's verdict was downloadable: the exports were really crawled.
    assert any("download" in w and "fine" in t for w, t in seen.texts)


def test_the_canary_search_finds_internal_text_when_it_is_shown(canary_store) -> None:
    """The crawl's detector is live: the internal export holds the canary in every planted place."""
    store, _ = canary_store
    with Store(store) as s:
        docs = {d.id: d for d in s.documents()}
        rels = [r.type for r in s.all_relations()]
        names = s.entity_names()
    doc = docs["ops-qzcdocid"]
    found = Seen()
    for where, text in (("id", doc.id), ("title", doc.title), ("text", doc.text), ("relation", " ".join(rels)),
                        ("entity", json.dumps(names))):
        found.add(where, text)
    assert {w.split(":")[0] for w in found.leaks()} == {"id", "title", "text", "relation", "entity"}


# --- blind review: nothing of another reviewer's verdict before one's own ----------------------
#
# A store under a blind policy (three verdicts required). Claim 0 has two differing verdicts (not
# yet a dispute), claim 1 one verdict; their reviewers and notes carry the token "qzb". Claim 2 has
# three differing verdicts, a dispute, with the token "qzd": it shows to who may adjudicate it (any
# named reviewer locally, the adjudicator role in team mode) and to nobody else. The viewer has
# judged nothing. Every page of the dashboard (each views/*.py, every queue item under every
# switch, every filter of the Record page) and every command that reads the verification record is
# walked for them; the tokens, and the badges that would give a hidden verdict's count or state
# away, must appear nowhere.

BLIND_HIDDEN = "qzb"  # verdicts on claims still judged blind: never shown to a reviewer who has not judged
BLIND_DISPUTE = "qzd"  # verdicts of the disputed claim: shown only to who may adjudicate it
HIDDEN_STATES = ("in review ·", "of 3 verdicts")  # the state of claims 0 and 1 as their reviewers see it
BLIND_VERDICTS = {0: (("Qzbana", "supported", "qzbnote one"), ("Qzbben", "unsupported", "qzbnote two")),
                  1: (("Qzbana", "partial", "qzbnote three"),),
                  2: (("Qzdcat", "supported", "qzdnote four"), ("Qzddan", "unsupported", "qzdnote five"),
                      ("Qzdeve", "supported", "qzdnote six"))}
TEAM_POLICY = """
[[grant]]
email = "rey@example.com"
labels = ["public"]
role = "reviewer"

[[grant]]
email = "ada@example.com"
labels = ["public"]
role = "adjudicator"
"""
TEAM_AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "c" * 40,
             "client_id": "graphrag", "client_secret": "s",
             "server_metadata_url": "http://127.0.0.1:1/.well-known/openid-configuration"}


@pytest.fixture(scope="module")
def blind_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from graphrag.verify.policy import ReviewPolicy
    from helpers import write_document_rows

    path = tmp_path_factory.mktemp("blind") / "store.db"
    with Store(path) as s:
        text = "Snapshot exports remain available for 30 days."
        write_document_rows(s, "policy", text, ("public",), ["export", "snapshot"], [("export", "use", "snapshot")])
        span = s.span("policy", 1, 0)
        assert span is not None
        item = ContextItem(1, span, Route("export"), 0.9, "similarity")
        claims = tuple(Claim(i, f"claim number {i}: {text}", 0, 1, (Citation("1", True, item),)) for i in range(3))
        aid = s.save_answer(Answer("How long are exports kept?", AskSettings(), text + " [1]", (Seed("export", 0.9),),
                                   (item.route,), (item,), claims))
        keep_review_policy(s, ReviewPolicy(3), by=ADMIN)
        answer = s.answer(aid)
        assert answer is not None
        for index, given in BLIND_VERDICTS.items():
            for reviewer, verdict, note in given:
                record_verdict(s, answer, answer.claims[index], answer.claims[index].citations[0], verdict, reviewer,
                               note)
    return path


def _tree_text(node) -> list[str]:
    """Everything an AppTest element tree holds (labels, values, help, options, table bytes, captions)."""
    proto = getattr(node, "proto", None)
    out = [str(proto)] if proto is not None else []
    for child in getattr(node, "children", {}).values():
        out += _tree_text(child)
    return out


def _walk_pages(at, seen: Seen, who: str) -> list[str]:
    """Every page of views/ the navigation lets ``who`` open, every review-queue item under every
    switch and every Record page filter; returns the pages walked."""
    from app_helpers import ok

    walked = []
    for script in sorted((ROOT / "views").glob("*.py")):
        name = script.stem
        try:
            at.switch_page(f"views/{script.name}")
        except ValueError:  # not in this user's navigation (the Ingest page for a reviewer)
            continue
        if name == "ask":
            at.session_state["answer_id"] = 1  # the answer as the Ask page shows it after asking
        at = ok(at)
        walked.append(name)
        seen.add(f"{who} {name}", "\n".join(_tree_text(at._tree)))
        if name == "review":
            for switch in (None, "review_flagged", "review_mine", "review_disputes"):
                if switch:
                    at = ok(at.toggle(key=switch).set_value(True))
                header = " ".join(str(m.value) for m in at.markdown if "in the queue" in str(m.value))
                found = re.search(r"Claim \d+ of (\d+)", header)
                total = int(found[1]) if found else 1
                for i in range(total + 1):  # every claim and the queue's end (Next goes round all of them)
                    seen.add(f"{who} review {switch} item {i}", "\n".join(_tree_text(at._tree)))
                    if header:
                        at = ok(at.button(key="rv_next").click())
                if switch:
                    at = ok(at.toggle(key=switch).set_value(False))
        if name == "record":
            reviewers = list(at.selectbox(key="record_reviewer").options)
            documents = list(at.selectbox(key="record_document").options)
            for r in range(len(reviewers)):
                for d in range(len(documents)):
                    at = ok(at.selectbox(key="record_reviewer").select_index(r))
                    at = ok(at.selectbox(key="record_document").select_index(d))
                    seen.add(f"{who} record {r}/{d}", "\n".join(_tree_text(at._tree)))
    return walked


def _hidden(seen: Seen, tokens: tuple[str, ...]) -> list[str]:
    bad = []
    for where, t in seen.texts:
        low = t.lower()
        bad += [f"{where}: {tok!r} ...{t[max(0, low.find(tok) - 80):low.find(tok) + 80]}..." for tok in tokens
                if tok in low]
    return bad


def test_no_page_shows_a_reviewer_another_verdict_before_their_own(blind_store, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Local mode (ada, the sidebar's reviewer name) and team mode (rey, a signed-in reviewer; ada, an
    adjudicator): no page gives a hidden verdict, note, count or state away."""
    from app_helpers import app, copy_store

    work = copy_store(blind_store, tmp_path / "store.db")
    local = Seen()
    walked = _walk_pages(app(monkeypatch, work), local, "local ada")
    assert {"ask", "graph", "ingest", "record", "review"} <= set(walked), walked
    assert not _hidden(local, (BLIND_HIDDEN, *HIDDEN_STATES)), "\n".join(_hidden(local, (BLIND_HIDDEN,))[:10])
    assert _hidden(local, (BLIND_DISPUTE,))  # she may adjudicate the dispute: the crawl saw verdicts it may show

    policy = tmp_path / "access.toml"
    policy.write_text(TEAM_POLICY, encoding="utf-8")
    for email, tokens, shown in (("rey@example.com", (BLIND_HIDDEN, BLIND_DISPUTE, *HIDDEN_STATES, "disputed ·"),
                                  False),
                                 ("ada@example.com", (BLIND_HIDDEN, *HIDDEN_STATES), True)):
        at = app(monkeypatch, work)
        from dashboard import resources

        resources.workspace.clear()  # made once per process: this run is in team mode
        monkeypatch.setenv("GRAPHRAG_MODE", "team")
        monkeypatch.setenv("GRAPHRAG_ACCESS_POLICY", str(policy))
        monkeypatch.delenv("GRAPHRAG_INGEST_ROOTS")
        at.secrets = {"auth": TEAM_AUTH}
        at.user = {"is_logged_in": True, "sub": f"sub-{email}", "email": email, "email_verified": True, "groups": [],
                   "iss": "http://127.0.0.1:1"}
        seen = Seen()
        walked = _walk_pages(at, seen, email)
        assert {"record", "review"} <= set(walked), walked
        assert not _hidden(seen, tokens), "\n".join(_hidden(seen, tokens)[:10])
        assert bool(_hidden(seen, (BLIND_DISPUTE,))) == shown


# Commands that show nothing of the verification record, or only to its administrator: the audit
# log, the checker's refit (its counts), removals and the store copy (the command line runs with
# the store's own access; a team's record is read through the dashboard, where these are an admin's).
NO_VERDICTS_SHOWN = {"ask", "entity", "ingest", "eval", "bench", "delete", "checker list", "checker fit",
                     "checker rollback", "audit export", "store migrate", "store setup", "store info", "store passages",
                     "review policy",
                     "pack key", "pack verify"}  # a key; a pack's digests and signature checked, no content


def test_no_command_shows_a_reviewer_another_verdict_before_their_own(blind_store, tmp_path: Path, capsys) -> None:
    from app_helpers import copy_store

    work = copy_store(blind_store, tmp_path / "store.db")
    s = ["--store", str(work)]
    me = ["--reviewer", "ada"]
    commands: list[list[str]] = []
    for action in ("list", "disputes"):
        commands += [["review", action, *s], ["review", action, *s, "--json"], ["review", action, *s, *me],
                     ["review", action, *s, *me, "--json"], ["review", action, *s, *me, "--answer", "1", "--json"]]
    for who in ([], ["--me", "ada"]):
        commands += [["export", "--format", "csv", *s, *who], ["export", "--format", "json", *s, *who]]
        for flt in ([], ["--reviewer", "Qzbana"], ["--reviewer", "Qzbana", "--document", "policy"],
                    ["--document", "policy"], ["--question", "exports"]):
            commands += [["record", "stats", *s, *who, *flt], ["record", "stats", *s, *who, *flt, "--json"]]
        commands += [["record", "estimate", *s], ["record", "estimate", *s, "--json"]]
        commands += [["record", "carried", *s, *who], ["record", "carried", *s, *who, "--json"]]
        commands += [["record", "changes", *s, *who], ["record", "changes", *s, *who, "--json"],
                     ["record", "changes", *s, *who, "--export", "json"]]
    # Refused: claim 1 is no dispute (the refusal must not say its state); then, last, her adjudication of
    # the dispute, which makes it the team's outcome.
    commands += [["review", "mark", "--answer", "1", "--claim", "1", "--verdict", "supported", *me, *s,
                  "--adjudicate"],
                 ["review", "mark", "--answer", "1", "--claim", "3", "--verdict", "supported", *me, *s, "--json",
                  "--note", "settled", "--adjudicate"]]
    everything = _commands()
    crawled = {" ".join(argv[:2]) if " ".join(argv[:2]) in everything else argv[0] for argv in commands}
    # a new command fails this until it is crawled here or said to show no verdicts
    unclassified = {c for c in everything - crawled if c not in NO_VERDICTS_SHOWN
                    and c.split()[0] not in NO_VERDICTS_SHOWN}
    assert not unclassified, unclassified
    seen = Seen()
    codes = []
    for argv in commands:
        codes.append(main(argv))
        out = capsys.readouterr()
        seen.add(f"graphrag {' '.join(argv)} stdout", out.out)
        seen.add(f"graphrag {' '.join(argv)} stderr", out.err)
    assert codes[-2:] == [2, 0]  # the refusal (bad input), then her adjudication of the dispute
    hidden = _hidden(seen, (BLIND_HIDDEN, "in review", "of 3 verdicts"))
    assert not hidden, "\n".join(hidden[:10])
    assert _hidden(seen, (BLIND_DISPUTE,))  # the dispute she may settle was shown: the search is live
    # Settled, the dispute is the team's outcome and shows to anyone; claims 0 and 1 still to nobody.
    capsys.readouterr()
    assert main(["export", "--format", "json", *s]) == 0
    assert {r["reviewer"] for r in json.loads(capsys.readouterr().out)} == {"Qzdcat", "Qzddan", "Qzdeve", "ada"}
