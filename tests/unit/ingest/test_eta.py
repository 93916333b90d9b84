"""The ingest ETA over a synthetic run: documents finish in windows (1, 2, 4, 8, ... as the
pipeline batches them) and the page polls the ETA every half second in between."""

from __future__ import annotations

import itertools

import pytest

import graphrag.ingest.jobs as jobs

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def now(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The jobs' clock, made synthetic: a test moves it by hand."""
    t = [0.0]
    monkeypatch.setattr(jobs.time, "perf_counter", lambda: t[0])
    return t


def polled_etas(now: list[float], durations: list[float], startup: float = 20.0,
                poll: float = 0.5) -> list[tuple[float, float]]:
    """(time, ETA) as a page polling every ``poll`` seconds sees them, after the first window: documents
    take ``durations`` seconds each, finish in windows of 1, 2, 4, ..., and the first pays ``startup`` too."""
    now[0] = 0.0
    clock = jobs.EtaClock()
    total = len(durations)
    ends, t, done, size = [], startup, 0, 1
    while done < total:
        window = durations[done:done + size]
        t += sum(window)
        done += len(window)
        ends.append((t, done))
        size *= 2
    seen: list[tuple[float, float]] = []
    done = 0
    while now[0] < ends[-1][0]:
        now[0] += poll
        for end, d in ends:
            if end <= now[0]:
                done = max(done, d)
        clock.update(done)
        eta = clock.eta(done, total)
        if done and done < total and eta is not None:
            seen.append((now[0], eta))
    return seen


def test_the_eta_does_not_grow_while_documents_take_the_same_time(now: list[float]) -> None:
    seen = polled_etas(now, [1.0] * 60)
    # from the second window on (the first also paid for loading the models), never upwards
    after_startup = [e for t, e in seen if t > 21.0]
    assert after_startup and all(b <= a + 1e-9 for a, b in itertools.pairwise(after_startup)), after_startup


def test_the_eta_counts_down_between_windows(now: list[float]) -> None:
    seen = polled_etas(now, [1.0] * 60)
    # the last window (29 documents, 29 s) is polled many times: the ETA falls as the clock runs
    last = [e for t, e in seen if t > 20 + 31]
    assert len(last) > 20 and last[0] - last[-1] > 10


def test_uneven_documents_move_the_eta_by_little(now: list[float]) -> None:
    durations = [0.6, 1.4] * 40  # documents alternate short and long: the smoothed rate stays near 1 s
    seen = [e for t, e in polled_etas(now, durations) if t > 23.0]
    rises = [b - a for a, b in itertools.pairwise(seen) if b > a]
    assert max(rises, default=0.0) <= 1.5, rises  # about one document's time at most, never a runaway


def test_the_eta_is_near_the_truth(now: list[float]) -> None:
    seen = polled_etas(now, [1.0] * 60)
    t, eta = next((t, e) for t, e in seen if t >= 40.0)
    assert eta == pytest.approx(80.0 - t, abs=2.0)  # startup 20 s, then 60 documents of 1 s


@pytest.mark.parametrize(("after_first", "seconds", "shown"), [
    (1, 1.0, False),  # one document in a second: not yet a rate
    (2, 0.5, True),  # two documents measured
    (1, 6.0, True),  # one slow document, over 5 s of work measured
])
def test_no_eta_until_there_is_a_rate(now: list[float], after_first: int, seconds: float, shown: bool) -> None:
    now[0] = 0.0
    clock = jobs.EtaClock()
    now[0] = 20.0  # the first document, after loading the models
    clock.update(1)
    assert clock.eta(1, 100) is None and jobs.format_eta(clock.eta(1, 100)) == "estimating…"
    now[0] += seconds
    clock.update(1 + after_first)
    eta = clock.eta(1 + after_first, 100)
    assert (eta is not None) == shown
    if eta is not None:  # the measured rate, not the start-up: 20 s for one document would say 33 min
        assert eta == pytest.approx(seconds / after_first * (99 - after_first))
