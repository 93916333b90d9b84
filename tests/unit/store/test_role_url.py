"""The URL ``graphrag store setup`` prints for the dashboard (``roles.role_url``): it can only connect as the
application role, whatever the owner's URL said of who connects."""

from __future__ import annotations

import pytest
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.engine import make_url

from graphrag.store.roles import role_url

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("owner", [
    "postgresql+psycopg://owner:pw@db.lan:5433/graph",
    "postgresql+psycopg://db.lan:5433/graph?user=owner",
    "postgresql+psycopg://app@db.lan:5433/graph?user=owner",
    "postgresql+psycopg://db.lan:5433/graph?user=owner&user=root&USER=owner&%20user=owner",
    "postgresql+psycopg://db.lan:5433/graph?password=pw&sslpassword=pw&passfile=/home/owner/.pgpass&user=owner",
])
def test_the_application_url_names_only_the_application_role(owner: str) -> None:
    url = role_url(make_url(owner), "graph_app")
    _, params = PGDialect_psycopg().create_connect_args(url)  # what psycopg would be handed
    assert params["user"] == "graph_app" and (params["host"], params["port"], params["dbname"]) == ("db.lan", 5433, "graph")
    assert not {"password", "sslpassword", "passfile"} & set(params) and "owner" not in str(params)


def test_the_owners_other_options_are_kept() -> None:
    url = role_url(make_url("postgresql+psycopg://owner@db/graph?sslmode=verify-full&options=-csearch_path%3Dg"), "app")
    assert url.render_as_string(hide_password=False) == \
        "postgresql+psycopg://app@db/graph?options=-csearch_path%3Dg&sslmode=verify-full"
