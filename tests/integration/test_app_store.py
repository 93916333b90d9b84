"""What the dashboard shows when its PostgreSQL store cannot be reached: a message naming the
store (never its password) and what to do, not a traceback."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from app_helpers import app, closed_port

pytestmark = [pytest.mark.slow]


def _errors(at) -> str:
    assert not at.exception, [e.value for e in at.exception]
    return " ".join(str(e.value) for e in at.error)


def test_a_server_that_is_down_at_start_is_a_clear_message(monkeypatch) -> None:
    monkeypatch.setenv("GRAPHRAG_STORE_RETRY_S", "0.3")
    at = app(monkeypatch, f"postgresql+psycopg://ana:s3cret@127.0.0.1:{closed_port()}/graphrag")
    shown = _errors(at.run())
    assert "Cannot open the store" in shown and "unreachable" in shown and "s3cret" not in shown


def test_a_server_that_stops_while_the_dashboard_runs_is_a_clear_message(monkeypatch, pg_server) -> None:
    monkeypatch.setenv("GRAPHRAG_STORE_RETRY_S", "0.5")
    url = pg_server.new_database()
    at = app(monkeypatch, url)
    at.run()
    assert _errors(at) == ""
    pg_server.stop()
    try:
        at.switch_page("views/review.py")
        shown = _errors(at.run())
        assert "unreachable" in shown and "reload the page" in shown
    finally:
        pg_server.start()
    at.switch_page("views/review.py")
    assert _errors(at.run()) == ""  # back: the same process reconnects by itself


def test_the_store_can_come_from_streamlit_secrets(monkeypatch, tmp_path) -> None:
    """GRAPHRAG_STORE in .streamlit/secrets.toml (the place for a URL with a password) when the
    environment does not set it; the sidebar names the store it opened."""
    from streamlit.testing.v1 import AppTest

    from app_helpers import APP, closed_port

    monkeypatch.delenv("GRAPHRAG_STORE", raising=False)
    monkeypatch.setenv("GRAPHRAG_SAMPLE", "0")
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{closed_port()}")
    target = tmp_path / "from-secrets.db"
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.secrets["GRAPHRAG_STORE"] = f"sqlite:///{target}"  # four slashes in all: an absolute path
    at.run()
    assert _errors(at) == ""
    assert target.is_file()
    assert any(f"SQLite file: {target}" in str(c.value).replace("\\", "") for c in at.sidebar.caption)


def test_a_secret_in_the_store_url_is_shown_nowhere(monkeypatch, pg_server) -> None:
    """?password= and sslpassword= (and user:password@) in GRAPHRAG_STORE: every signed-in user sees the sidebar's
    store line and the Backends panel, so neither may carry them."""
    url = pg_server.new_database().replace("//postgres@", "//postgres:Pw-in-userinfo@")
    at = app(monkeypatch, f"{url}?password=Pw-in-query&sslpassword=Pw-in-ssl")
    at.run()
    assert _errors(at) == ""
    # every element of the page and the sidebar (the Backends panel too), Markdown's escapes taken out
    shown = " ".join(str(getattr(node, "proto", "")) for node in at._tree).replace("\\", "")
    assert "postgres:***@" in shown and "password=***" in shown
    assert "Pw-in" not in shown


def test_a_secret_in_the_url_of_a_store_that_is_down_is_not_in_the_message(monkeypatch) -> None:
    monkeypatch.setenv("GRAPHRAG_STORE_RETRY_S", "0.3")
    down = app(monkeypatch, f"postgresql+psycopg://ana@127.0.0.1:{closed_port()}/graphrag?password=Pw-in-query")
    shown = _errors(down.run()).replace("\\", "")  # Markdown's escapes taken out
    assert "Cannot open the store" in shown and "ana@" in shown and "Pw-in" not in shown


@pytest.mark.model
def test_a_database_restart_under_a_verdict_a_review_and_a_question_is_never_a_traceback(monkeypatch, pg_server,
                                                                                        tmp_path) -> None:
    """PostgreSQL restarts while the dashboard reads inside a snapshot (what decides whether the viewer may see an
    answer): for a verdict in flight, a Review page run and a question. Each is read again on a new connection and
    goes through, once; a server that stays down is a plain message, and the same process works again after."""
    from app_helpers import build_store, write_corpus
    from db_faults import before_statement, in_snapshot
    from graphrag.store import Store

    monkeypatch.setenv("GRAPHRAG_STORE_RETRY_S", "2")  # a restart is waited for here; only a stop outlasts it
    url = pg_server.new_database()
    build_store(url, write_corpus(tmp_path / "corpus"))
    at = app(monkeypatch, url)
    at.run()
    at.text_area(key="_w_question").set_value("What do exports use?")
    at.button(key="FormSubmitter:ask_form-Ask").click().run()
    assert _errors(at) == "" and at.subheader[0].value.startswith("Answer #")
    at.button(key="to_review").click().run()
    assert _errors(at) == ""

    with before_statement(in_snapshot, pg_server.restart) as hit:
        at.button(key="rv_supported").click().run()
    assert hit, "the server restarted inside the verdict's snapshot"
    assert _errors(at) == "" and any(re.search("Recorded “(answers|backed)”", str(s.value)) for s in at.success)
    with Store(url) as s:
        assert [v.verdict.value for v in s.verdicts()] == ["supported"]  # stored once
        # another dashboard saves an answer: the Review page's next run must read the claims again (it keeps its
        # reads while the store's change stamp stays, so an unchanged store is not read again)
        first = s.answer(1)
        assert first is not None
        s.save_answer(replace(first, id=None))

    with before_statement(in_snapshot, pg_server.restart) as hit:
        at.switch_page("views/review.py")
        at.run()
    assert hit and _errors(at) == "" and any("in the queue" in str(m.value) for m in at.markdown)

    with before_statement(in_snapshot, pg_server.restart) as hit:
        at.switch_page("views/ask.py")
        at.run()
        at.text_area(key="_w_question").set_value("How long do snapshot exports remain available?")
        at.button(key="FormSubmitter:ask_form-Ask").click().run()
    assert hit and _errors(at) == "" and any("Question: How long do snapshot exports remain available?"
                                             in str(h.proto.body) for h in at.get("html"))

    with before_statement(in_snapshot, pg_server.stop) as hit:  # down for longer than the store waits
        try:
            at.switch_page("views/review.py")
            shown = _errors(at.run())
        finally:
            pg_server.start()
    assert hit and "unreachable" in shown and "reload the page" in shown
    at.switch_page("views/review.py")
    assert _errors(at.run()) == ""


@pytest.mark.postgresql
@pytest.mark.parametrize("server", ["pgvector_server", "pg_server"])
def test_the_sidebar_says_where_a_team_stores_vectors_are_searched(monkeypatch, request, server: str) -> None:
    """With pgvector the database searches; without it, the sidebar says the search stays in each process and how to
    enable pgvector."""
    at = app(monkeypatch, request.getfixturevalue(server).new_database())
    at.run()
    assert _errors(at) == ""
    shown = " ".join(str(c.value) for c in at.sidebar.caption).replace("\\", "").replace("\u2060", "")
    if server == "pgvector_server":
        assert "Vector search by the database (pgvector 0.8" in shown, shown
    else:
        assert "this PostgreSQL server has no pgvector" in shown and "graphrag store setup" in shown, shown


@pytest.mark.postgresql
def test_the_sidebar_says_when_the_database_searches_by_an_exact_scan(monkeypatch, pgvector_server) -> None:
    """A running dashboard notices that the HNSW index is gone (read again at most every few seconds: here at
    every run) and says its search is an exact scan, with how to build the index."""
    import psycopg

    from graphrag.store import core

    monkeypatch.setattr(core, "VECTOR_STATUS_S", 0.0)
    url = pgvector_server.new_database()
    at = app(monkeypatch, url)
    at.run()
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as c:
        c.execute("DROP INDEX sentences_embedding")
    at.run()
    assert _errors(at) == ""
    shown = " ".join(str(c.value) for c in at.sidebar.caption).replace("\\", "").replace("\u2060", "")
    assert "exact scan" in shown and "HNSW index is missing" in shown and "graphrag store setup" in shown, shown
