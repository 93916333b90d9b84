"""The partition behind themes: Leiden (graspologic-native) with a fixed seed, NetworkX's Louvain when that package
is missing; on a graph with planted groups both find the groups, and Leiden's partition is the same in a new
process."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from graphrag.answer.partition import LEIDEN, LOUVAIN, partition

pytestmark = pytest.mark.unit

GROUPS, SIZE = 12, 15


def planted(seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, w, group of each node): dense weighted edges inside each of ``GROUPS`` groups, a few light ones
    between them; node ids shuffled so a group is not a run of numbers; two nodes at the end touch no edge."""
    rng = np.random.default_rng(seed)
    group = rng.permutation(np.repeat(np.arange(GROUPS), SIZE))
    n = len(group)
    i, j = np.triu_indices(n, 1)
    same = group[i] == group[j]
    keep = np.where(same, rng.random(len(i)) < 0.6, rng.random(len(i)) < 0.01)
    a, b = i[keep].astype(np.int64), j[keep].astype(np.int64)
    w = np.where(same[keep], 1.0 + rng.random(len(a)), 0.2)
    return a, b, w, np.r_[group, -1, -1]


def modularity(a: np.ndarray, b: np.ndarray, w: np.ndarray, part: np.ndarray) -> float:
    m, k = w.sum(), part.max() + 1
    inside = part[a] == part[b]
    within = np.bincount(part[a[inside]], weights=w[inside], minlength=k)
    degree = np.bincount(part[a], weights=w, minlength=k) + np.bincount(part[b], weights=w, minlength=k)
    return float((within / m - (degree / (2 * m)) ** 2).sum())


def same_grouping(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two labellings put the same nodes together (whatever numbers they use)."""
    pairs = set(zip(x.tolist(), y.tolist()))
    return len(pairs) == len(set(x.tolist())) == len(set(y.tolist()))


def test_leiden_finds_the_planted_groups_at_least_as_well_as_louvain(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, w, group = planted()
    found, method = partition(a, b, w, len(group))
    assert method == LEIDEN
    assert same_grouping(found[:-2], group[:-2])
    assert found[-2:].tolist() == [-1, -1]  # no edge touches them: in no community
    assert sorted(set(found[:-2].tolist())) == list(range(GROUPS))  # numbered 0, 1, ... as detect() expects
    monkeypatch.setitem(sys.modules, "graspologic_native", None)  # as if the package were not installed
    fallback, method = partition(a, b, w, len(group))
    assert method == LOUVAIN
    assert same_grouping(fallback[:-2], group[:-2]) and fallback[-2:].tolist() == [-1, -1]
    assert modularity(a, b, w, found[:-2]) >= modularity(a, b, w, fallback[:-2]) - 1e-9


def test_the_same_edges_give_the_same_communities_in_a_new_process() -> None:
    # Overlapping groups: a partition with real choices to make, where an unseeded method would wander.
    a, b, w, group = planted(seed=5)
    noise = np.random.default_rng(8)
    extra = noise.integers(0, len(group) - 2, size=(400, 2))
    extra = extra[extra[:, 0] < extra[:, 1]]
    a, b = np.r_[a, extra[:, 0]], np.r_[b, extra[:, 1]]
    codes, first = np.unique(a * len(group) + b, return_index=True)  # each pair once, as the product gives them
    a, b, w = codes // len(group), codes % len(group), np.r_[w, np.ones(len(extra))][first]
    script = ("import json, sys, numpy as np\n"
              "from graphrag.answer.partition import partition\n"
              "a, b, w, n = json.loads(sys.stdin.read())\n"
              "print(json.dumps(partition(np.array(a), np.array(b), np.array(w), n)[0].tolist()))\n")
    payload = json.dumps([a.tolist(), b.tolist(), w.tolist(), len(group)])
    runs = [json.loads(subprocess.run([sys.executable, "-c", script], input=payload, capture_output=True, text=True,
                                      check=True, timeout=120).stdout) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0] == partition(a, b, w, len(group))[0].tolist()
