"""``graphrag bench load --browser``: N reviewers at once in headless Chromium, on one or two dashboards.

Each setting (an engine, a number of dashboard processes on one store, N browser sessions) gets a fresh copy of one
store holding the sample corpus and answers to the sample questions. The dashboards start on it (graphrag.serve),
one Chromium opens N fresh contexts (sessions), dealt round-robin over the dashboards, and each dashboard is warmed
(the models and the graph loaded by one ask, not measured). Then two phases:

- verdicts: every session, as reviewer ``load-<i>`` on the Review page, judges claims with the keyboard (S, S, P,
  U, ...) and undoes every eighth verdict with Z; a round trip runs from the key until the next claim is drawn and
  the page's run is over;
- asks: every session asks sample questions on the Ask page; a round trip runs from the click until the answer is
  drawn and the run is over.

For each phase: p50/p95 of the round trips, throughput (actions per minute over the phase), and the dashboards' CPU
time (user + system of each process and its children, psutil) divided by the actions: the server's cost per
action, which stays honest when other work shares the machine, where round trips do not. Then the record check
(lab.load_record): every verdict and undo a page confirmed is in the store once, with one agreeing audit row.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphrag.model import VERDICT_WORDS
from lab.bench_review_browser import QUESTIONS, build_store
from lab.browser_session import SETTLED_JS, cannot_run, loadavg, pct
from lab.load_record import Confirmed, RecordCheck, check_record

if TYPE_CHECKING:
    from playwright.async_api import Page

KEYS = "sspu"
UNDO_EVERY = 8  # every eighth action is Z, the undo of the verdict just given
_STEP_TIMEOUT_MS = 180_000
_HEADER_JS = ("() => { const p = [...document.querySelectorAll('p')].find(e => /^(Claim \\d+ of \\d+|End of the "
              "queue)/.test(e.innerText.trim())); return p ? p.innerText.trim() : null; }")
# The banner of the verdict just given, and the notice of an undo, as the Review page writes them.
_RECORDED_JS = ("() => { const e = [...document.querySelectorAll('p')].map(p => p.innerText.trim())"
                ".find(t => t.startsWith('Recorded \u201c')); return e === undefined ? null : e; }")
# Toasts vanish after a few seconds, which on a loaded machine can be before the script looks: every toast the page
# shows is noted as it appears, and an undo is confirmed by a notice noted after its key was pressed.
_NOTE_TOASTS_JS = """() => { if (window.__toasts) return; window.__toasts = [];
  new MutationObserver(() => document.querySelectorAll('[data-testid="stToast"]').forEach(e => {
    if (!e.__noted && e.textContent.trim()) { e.__noted = true; window.__toasts.push(e.textContent); } }))
  .observe(document.body, {childList: true, subtree: true}); }"""
_UNDONE_JS = "n => (window.__toasts || []).slice(n).find(t => / undone/.test(t)) || null"
_ANSWER_JS = ("() => { const h = [...document.querySelectorAll('h3')].map(e => e.innerText.trim())"
              ".find(t => t.startsWith('Answer #')); return h === undefined ? null : h; }")
# A banner names the verdict in its kind's words ("backed", "does not answer"; graphrag.model.VERDICT_WORDS).
_LABELS = {word: label.value for words in VERDICT_WORDS.values() for label, word in words.items()}


@dataclass(frozen=True)
class Setting:
    """One measured configuration."""

    engine: str  # "sqlite" or "postgresql"
    dashboards: int
    sessions: int

    @property
    def name(self) -> str:
        """How the figures name it."""
        return f"{self.engine} x{self.dashboards} dashboard(s), {self.sessions} session(s)"


@dataclass
class Phase:
    """Round trips (ms) of one phase, its wall seconds and the dashboards' CPU seconds over it."""

    trips: list[float] = field(default_factory=list)
    seconds: float = 0.0
    cpu_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    load: str = ""

    def figures(self, what: str) -> dict[str, Any]:
        """The phase's figures, keyed by ``what`` ("verdict" or "ask")."""
        n = len(self.trips)
        return {f"{what}s": n, f"{what}_p50_ms": round(statistics.median(self.trips)) if n else None,
                f"{what}_p95_ms": round(pct(self.trips, 95)) if n else None,
                f"{what}s_per_min": round(n / self.seconds * 60, 1) if n and self.seconds else None,
                f"cpu_ms_per_{what}": round(self.cpu_s / n * 1000) if n else None,
                f"{what}_errors": self.errors[:3], f"loadavg_during_{what}s": self.load}


def parse_recorded(banner: str) -> tuple[int, int, str] | None:
    """(answer id, claim index, verdict value) of a "Recorded “backed” for claim 3 of answer #2." banner."""
    import re

    m = re.match(r"Recorded \u201c(.+?)\u201d for claim (\d+) of answer #(\d+)", banner)
    if m is None or m.group(1).lower() not in _LABELS:
        return None
    return int(m.group(3)), int(m.group(2)) - 1, _LABELS[m.group(1).lower()]


def parse_undone(notice: str) -> tuple[int, int] | None:
    """(answer id, claim index) of a "Verdict on claim 3 of answer #2 undone: …" notice."""
    import re

    m = re.search(r"Verdict on claim (\d+) of answer #(\d+) undone", notice)
    return (int(m.group(2)), int(m.group(1)) - 1) if m else None


def _dashboard_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) of the dashboard processes and their children, so far."""
    import psutil  # type: ignore[import-untyped]  # no stubs pinned; three calls

    total = 0.0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            for p in [root, *root.children(recursive=True)]:
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.NoSuchProcess:
            continue
    return total


async def _settle(page: Page, before_js: str, before: object) -> None:
    await page.wait_for_function(f"prev => ({before_js})() !== prev && ({SETTLED_JS})()", arg=before,
                                 timeout=_STEP_TIMEOUT_MS)


async def _review(page: Page, reviewer: str, verdicts: int, trips: list[float], confirmed: list[Confirmed],
                  errors: list[str]) -> None:
    """Judge up to ``verdicts`` claims (and undo every UNDO_EVERY-th), noting each confirmed action."""
    last_was_verdict = False
    for i in range(verdicts):
        before = await page.evaluate(_HEADER_JS)
        if str(before or "").startswith("End of the queue"):
            return
        undo = last_was_verdict and i % UNDO_EVERY == UNDO_EVERY - 1
        await page.evaluate("() => document.activeElement && document.activeElement.blur()")
        toasts_before = await page.evaluate("() => (window.__toasts || []).length")
        t0 = time.perf_counter()
        await page.keyboard.press("z" if undo else KEYS[i % len(KEYS)])
        try:
            await _settle(page, _HEADER_JS, before)
        except Exception as exc:  # noqa: BLE001 - a step that never came back is counted, the run goes on
            what = "Z (undo)" if undo else KEYS[i % len(KEYS)].upper()
            errors.append(f"{reviewer}, action {i + 1} ({what}): the next claim was not drawn: "
                          f"{type(exc).__name__}: {str(exc)[:160]}")
            return
        trips.append((time.perf_counter() - t0) * 1000)
        if undo:
            try:  # the notice is a toast, drawn a moment after the run
                await page.wait_for_function(_UNDONE_JS, arg=toasts_before, timeout=15_000)
            except Exception:  # noqa: BLE001 - not confirmed: the record check then finds its row unconfirmed
                pass
            got_undo = parse_undone(str(await page.evaluate(_UNDONE_JS, toasts_before) or ""))
            if got_undo:
                confirmed.append(Confirmed(reviewer, got_undo[0], got_undo[1], None))
            last_was_verdict = False
        else:
            got = parse_recorded(str(await page.evaluate(_RECORDED_JS) or ""))
            if got:
                confirmed.append(Confirmed(reviewer, *got))
            last_was_verdict = got is not None


async def _ask(page: Page, questions: list[str], start: int, asks: int, trips: list[float] | None,
               errors: list[str]) -> None:
    """Ask ``asks`` of ``questions`` from ``start`` on the Ask page (``trips`` None: not timed, a warm-up)."""
    for i in range(asks):
        await page.get_by_label("Question", exact=True).fill(questions[(start + i) % len(questions)])
        await page.wait_for_function(SETTLED_JS, timeout=_STEP_TIMEOUT_MS)
        before = await page.evaluate(_ANSWER_JS)
        t0 = time.perf_counter()
        await page.get_by_role("button", name="Ask", exact=True).click()
        try:
            await _settle(page, _ANSWER_JS, before)
        except Exception as exc:  # noqa: BLE001 - counted, the run goes on
            errors.append(f"ask: {type(exc).__name__}: {str(exc)[:200]}")
            return
        if trips is not None:
            trips.append((time.perf_counter() - t0) * 1000)


async def _drive(urls: list[str], sessions: int, verdicts: int, asks: int, pids: list[int],
                 questions: list[str]) -> tuple[Phase, Phase, list[Confirmed], list[str]]:
    from playwright.async_api import async_playwright

    from lab.browser import BROWSER_ARGS, CHROMIUM

    review, ask = Phase(), Phase()
    confirmed: list[Confirmed] = []
    reviewers = [f"load-{i + 1}" for i in range(sessions)]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM) if CHROMIUM.exists() else None,
                                           headless=True, args=list(BROWSER_ARGS))
        pages = []
        for _ in range(sessions):  # a fresh context each: its own cookies, its own Streamlit session
            page = await (await browser.new_context(viewport={"width": 1440, "height": 900})).new_page()
            page.set_default_timeout(_STEP_TIMEOUT_MS)
            pages.append(page)
        home = [pages[i % sessions] for i in range(len(urls))]
        for page, url in zip(home, urls, strict=True):  # warm-up: each dashboard loads its models and graph
            await page.goto(url)
            await page.wait_for_function(SETTLED_JS, timeout=300_000)
            await _ask(page, questions, 0, 1, None, ask.errors)

        async def open_review(i: int) -> None:
            page = pages[i]
            await page.goto(f"{urls[i % len(urls)]}/review?reviewer={reviewers[i]}")
            await page.wait_for_function(f"() => ({_HEADER_JS})() !== null && ({SETTLED_JS})()", timeout=300_000)
            await page.wait_for_timeout(500)
            await page.wait_for_function(SETTLED_JS)  # the first run may go twice (the name put in the address)

        async def activate(page: Page) -> None:
            # headless Chromium gives a fresh page's key presses to no one until the page is clicked; one page at a
            # time, on a settled page (a click during a run can land on an element being replaced, and then 3 of 8
            # sessions' first keys went nowhere)
            await page.wait_for_function(SETTLED_JS)
            await page.get_by_text("Review policy:", exact=False).first.click()
            await page.evaluate(_NOTE_TOASTS_JS)
            await page.wait_for_timeout(250)
            await page.wait_for_function(SETTLED_JS)

        async def phase(p: Phase, runs: list[Any]) -> None:
            p.load = loadavg()
            cpu0, t0 = _dashboard_cpu(pids), time.perf_counter()
            await asyncio.gather(*runs)
            p.seconds, p.cpu_s = time.perf_counter() - t0, _dashboard_cpu(pids) - cpu0
            p.load += f" -> {loadavg()}"

        if verdicts:
            await asyncio.gather(*(open_review(i) for i in range(sessions)))
            for page in pages:
                await activate(page)
            await phase(review, [_review(pages[i], reviewers[i], verdicts, review.trips, confirmed, review.errors)
                                 for i in range(sessions)])
        if asks:
            async def open_ask(i: int) -> None:
                await pages[i].goto(urls[i % len(urls)])
                await pages[i].wait_for_function(SETTLED_JS, timeout=300_000)

            await asyncio.gather(*(open_ask(i) for i in range(sessions)))
            await phase(ask, [_ask(pages[i], questions, 1 + 3 * i, asks, ask.trips, ask.errors)
                              for i in range(sessions)])
        await browser.close()
    return review, ask, confirmed, reviewers


@contextmanager
def _dashboards(store: str, count: int, workdir: Path) -> Iterator[tuple[list[str], list[int]]]:
    """``count`` dashboard processes in local mode on ``store``: their URLs and process ids."""
    from graphrag.serve import DashboardProcess

    env = {"GRAPHRAG_STORE": store, "GRAPHRAG_SAMPLE": "0", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "OLLAMA_HOST": "127.0.0.1:9", "GRAPHRAG_MODE": "local"}
    with ExitStack() as stack:
        procs = []
        for i in range(count):
            log = stack.enter_context((workdir / f"dashboard-{i + 1}.log").open("w"))
            proc = DashboardProcess(log, env, timeout_s=180)
            stack.callback(proc.stop)
            proc.start()
            procs.append(proc)
        yield [p.url for p in procs], [p.proc.pid for p in procs if p.proc is not None]


def measure(setting: Setting, store: str, workdir: Path, *, verdicts: int, asks: int) -> dict[str, Any]:
    """Run one setting on ``store`` (a fresh copy, the setting's own); its figures and the record check."""
    from graphrag.store import Store

    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))]
    with _dashboards(store, setting.dashboards, workdir) as (urls, pids):
        review, ask, confirmed, reviewers = asyncio.run(
            _drive(urls, setting.sessions, verdicts, asks, pids, questions))
    with Store(store) as s:
        check: RecordCheck = check_record(confirmed, s.verdicts(), s.audit(), reviewers)
    return {"setting": setting.name, "engine": setting.engine, "dashboards": setting.dashboards,
            "sessions": setting.sessions, **review.figures("verdict"), **ask.figures("ask"),
            "record_ok": check.ok, "verdicts_confirmed": check.verdicts_confirmed,
            "undos_confirmed": check.undos_confirmed, "verdict_rows": check.verdict_rows,
            "correction_rows": check.correction_rows, "record_problems": check.problems[:5]}


def settings(sessions: list[int], dashboards: list[int], engines: list[str]) -> list[Setting]:
    """SQLite gets one dashboard (a second process on one SQLite file is not a deployment the docs offer);
    PostgreSQL each number of dashboards with each number of sessions (at least one session per dashboard)."""
    out = []
    for engine in engines:
        for d in [1] if engine == "sqlite" else dashboards:
            out += [Setting(engine, d, n) for n in sessions if n >= d]
    return out


def _line(f: dict[str, Any]) -> str:
    return (f"{f['setting']}: verdict p50 {f['verdict_p50_ms']} ms p95 {f['verdict_p95_ms']} ms, "
            f"{f['verdicts_per_min']}/min, CPU {f['cpu_ms_per_verdict']} ms/verdict "
            f"(load {f['loadavg_during_verdicts']}); ask p50 {f['ask_p50_ms']} ms p95 {f['ask_p95_ms']} ms, "
            f"{f['asks_per_min']}/min, CPU {f['cpu_ms_per_ask']} ms/ask (load {f['loadavg_during_asks']}); "
            f"record {'ok' if f['record_ok'] else 'NOT OK'} ({f['verdicts_confirmed']} verdicts and "
            f"{f['undos_confirmed']} undos confirmed; {f['verdict_rows']} + {f['correction_rows']} rows)")


def bench_load_browser(*, sessions: list[int], dashboards: list[int], engines: list[str], verdicts: int = 20,
                       asks: int = 4, claims: int = 40, as_json: bool = False) -> int:
    """Build the store once, then measure each setting on a copy of it; print a line (or JSON) per setting.
    Exit 1 when a record check fails or an action never came back."""
    if why := cannot_run(min(sessions), "--reviewers"):
        print(why, file=sys.stderr)
        return 2
    if "postgresql" in engines:
        from lab.pg_server import missing_reason

        if why := missing_reason():
            print(why, file=sys.stderr)
            return 2
    from graphrag.serve import DashboardDidNotStart
    from lab.pg_server import PgServer

    results = []
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        base = work / "base.db"
        made = build_store(base, claims)
        pg_base = None
        if "postgresql" in engines:
            server = PgServer(durable=True).start()
            stack.callback(server.close)
            pg_base = server.new_database("load_base")
            build_store(pg_base, claims)
        print(f"store: the sample corpus and {made['answers']} answers holding {made['claims']} claims; "
              f"{os.cpu_count()} cores, load average {loadavg()} (other work on this machine shares them)",
              file=sys.stderr)
        for k, setting in enumerate(settings(sessions, dashboards, engines)):
            if setting.engine == "sqlite":
                store = str(work / f"s{k}.db")
                shutil.copy(base, store)
            else:
                assert pg_base is not None
                store = server.new_database("load", template=pg_base)
            folder = work / f"setting-{k}"
            folder.mkdir()
            try:
                f = measure(setting, store, folder, verdicts=verdicts, asks=asks)
            except DashboardDidNotStart as exc:
                print(str(exc), file=sys.stderr)
                return 1
            results.append(f)
            print(json.dumps(f) if as_json else _line(f), flush=True)
    bad = [f for f in results if not f["record_ok"] or f["verdict_errors"] or f["ask_errors"]]
    return 1 if bad else 0

