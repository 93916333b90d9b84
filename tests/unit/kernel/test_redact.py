"""Every form a secret takes in a store URL is hidden wherever a URL is shown: the one redaction function, the
store's display form, the settings panel, and the message of a command whose store cannot be opened."""

from __future__ import annotations

import pytest

from graphrag.cli import main
from graphrag.config import Config, redact
from graphrag.store import parse_store

pytestmark = pytest.mark.unit

BASE = "postgresql+psycopg://ana@127.0.0.1:{port}/graphrag"
SECRET_FORMS = {
    "userinfo": "postgresql+psycopg://ana:Tok3n-x@db:5432/graphrag",
    "userinfo with / and @": "postgresql+psycopg://ana:To/k@3n-x@db/graphrag",
    "query password": "postgresql+psycopg://ana@db/graphrag?password=Tok3n-x",
    "query among others": "postgresql+psycopg://ana@db/graphrag?sslmode=require&sslpassword=Tok3n-x&connect_timeout=3",
    "passfile": "postgresql+psycopg://ana@db/graphrag?passfile=/home/ana/Tok3n-x",
    "upper-case key": "postgresql+psycopg://ana@db/graphrag?PASSWORD=Tok3n-x",
    "libpq string in a message": "connection to host=db user=ana password='Tok3n x' failed",
    "inside a sentence": "cannot open the store postgresql+psycopg://ana:Tok3n-x@db/g: refused",
}


@pytest.mark.parametrize("form", SECRET_FORMS)
def test_every_secret_form_is_redacted_and_the_rest_kept(form: str) -> None:
    shown = redact(SECRET_FORMS[form])
    assert "Tok3n" not in shown and "***" in shown
    assert "ana" in shown  # the user and the host still tell stores apart


def test_text_without_secrets_is_unchanged() -> None:
    for text in ("data/graphrag.db", "sqlite:///data/g.db", "postgresql+psycopg://ana@db:5432/g?sslmode=require",
                 "http://127.0.0.1:11434", "the key of monkey business"):
        assert redact(text) == text


@pytest.mark.parametrize("form", [f for f in SECRET_FORMS if f.startswith(("userinfo", "query", "passfile", "upper"))])
def test_the_store_and_the_settings_show_no_secret(form: str) -> None:
    url = SECRET_FORMS[form]
    assert "Tok3n" not in parse_store(url).display and "Tok3n" not in parse_store(url).key
    shown = " ".join(" ".join(row) for row in Config.from_env({"GRAPHRAG_STORE": url}).describe())
    assert "Tok3n" not in shown and "db" in shown


def test_a_command_whose_store_is_down_names_it_without_the_secret(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GRAPHRAG_STORE_RETRY_S", "0.1")
    url = BASE.format(port=9) + "?password=Tok3n-x&sslpassword=Tok3n-y"
    assert main(["record", "stats", "--store", url]) == 1
    assert main(["record", "stats", "--store", url, "--json"]) == 1
    err = capsys.readouterr().err
    assert "ana@127.0.0.1:9/graphrag" in err and "Tok3n" not in err
