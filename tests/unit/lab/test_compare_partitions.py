"""``python -m lab.compare_partitions``: each method run on saved edges in its own process reports the method it
really used, a modularity that agrees with NetworkX's, and the same partition on a second run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from lab.compare_partitions import modularity

pytestmark = pytest.mark.unit


def two_triangles_and_a_bridge() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.array([0, 0, 1, 3, 3, 4, 2])
    b = np.array([1, 2, 2, 4, 5, 5, 3])
    w = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 0.5])
    return a, b, w


def test_modularity_agrees_with_networkx() -> None:
    a, b, w = two_triangles_and_a_bridge()
    g: nx.Graph[int] = nx.Graph()
    g.add_weighted_edges_from(zip(a.tolist(), b.tolist(), w.tolist()))
    for part in (np.array([0, 0, 0, 1, 1, 1]), np.array([0, 1, 0, 1, 0, 1]), np.zeros(6, dtype=np.int64)):
        groups = [set(np.flatnonzero(part == c).tolist()) for c in np.unique(part)]
        assert modularity(a, b, w, part) == pytest.approx(nx.community.modularity(g, groups, weight="weight"))


@pytest.mark.parametrize("method", ["leiden", "louvain"])
def test_each_method_runs_as_named_and_finds_the_two_triangles(method: str, tmp_path: Path) -> None:
    a, b, w = two_triangles_and_a_bridge()
    edges = tmp_path / "edges.npz"
    np.savez(edges, a=a, b=b, w=w, n=8)  # two entities no edge touches
    out = subprocess.run([sys.executable, "-m", "lab.compare_partitions", "--run", method, str(edges)],
                         capture_output=True, text=True, check=True, timeout=120)
    row = json.loads(out.stdout)
    assert row["method"] == method
    assert (row["communities"], row["largest"], row["same_again"]) == (2, 3, True)
    assert row["modularity"] == pytest.approx(modularity(a, b, w, np.array([0, 0, 0, 1, 1, 1])), abs=1e-4)
