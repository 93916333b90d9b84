"""Starting the dashboard as a process (graphrag.serve): a failure to start is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag import serve


def test_a_dashboard_that_cannot_start_is_an_error_with_its_log(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(serve, "APP", tmp_path / "no_such_app.py")
    with (tmp_path / "server.log").open("w") as log, pytest.raises(serve.DashboardDidNotStart) as err:
        with serve.dashboard(log, {"GRAPHRAG_SAMPLE": "0"}, timeout_s=60):
            pytest.fail("a dashboard without its script must not serve")
    assert "no_such_app.py" in str(err.value)  # streamlit's own words about the missing file
