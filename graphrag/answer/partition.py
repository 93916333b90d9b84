"""A modularity partition of a weighted undirected graph given as an edge list, with a fixed seed.

Leiden (graspologic-native: MIT, a Rust extension reading the graph's CSR arrays in place) when that package is
installed; NetworkX's Louvain (pure Python, many minutes at a million relations) when it is not. Both maximise
modularity at the same resolution, and each gives the same partition for the same edges, run after run and
process after process (a fixed seed), so the same store gives the same themes.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType

import networkx as nx
import numpy as np

log = logging.getLogger(__name__)

SEED = 7  # the random order of both methods
RESOLUTION = 1.0  # modularity resolution (both methods' default): below 1, fewer and larger communities
# Leiden's passes over the whole graph, each from the last one's partition (leidenalg's default too): on the 31
# articles a second pass lifts modularity from 0.814-0.818 to 0.819-0.820 over twelve seeds; +60% time at 1M.
ITERATIONS = 2
LEIDEN = "leiden"
LOUVAIN = "louvain"


def _leiden_module() -> ModuleType | None:
    """graspologic_native, or None when it is not installed (or was set aside)."""
    try:
        return importlib.import_module("graspologic_native")
    except ImportError:
        return None


def partition(a: np.ndarray, b: np.ndarray, w: np.ndarray, n: int) -> tuple[np.ndarray, str]:
    """Each of the ``n`` nodes' community (0, 1, ...; -1 for a node no edge touches) for the edges ``a[i]`` --
    ``b[i]`` of positive weight ``w[i]`` (each pair once), and the method's name."""
    leiden = _leiden_module()
    if leiden is None:
        log.info("graspologic-native is not installed: communities by NetworkX's Louvain (slow on a large store)")
        return _louvain(a, b, w, n), LOUVAIN
    return _leiden(leiden, a, b, w, n), LEIDEN


def _leiden(leiden: ModuleType, a: np.ndarray, b: np.ndarray, w: np.ndarray, n: int) -> np.ndarray:
    # Only the nodes an edge touches take part: an untouched one would come back as a community of its own.
    nodes, at = np.unique(np.concatenate([a, b]), return_inverse=True)
    indptr, indices, data = _symmetric_csr(at[:len(a)], at[len(a):], w, len(nodes))
    _, found = leiden.leiden_csr(indptr, indices, data, len(nodes), resolution=RESOLUTION, seed=SEED,
                                 iterations=ITERATIONS)
    members = np.fromiter(found.keys(), dtype=np.int64, count=len(found))
    labels = np.fromiter(found.values(), dtype=np.int64, count=len(found))
    out = np.full(n, -1, dtype=np.int64)
    out[nodes[members]] = _dense(labels)
    return out


def _symmetric_csr(src: np.ndarray, dst: np.ndarray, w: np.ndarray, n: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, weights) of the symmetric adjacency of the ``n`` nodes, each edge in both rows, in the
    types ``leiden_csr`` reads without a copy."""
    rows, cols = np.concatenate([src, dst]), np.concatenate([dst, src])
    order = np.lexsort((cols, rows))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols[order].astype(np.int32), np.concatenate([w, w]).astype(np.float64)[order]


def _louvain(a: np.ndarray, b: np.ndarray, w: np.ndarray, n: int) -> np.ndarray:
    g: nx.Graph[int] = nx.Graph()
    g.add_weighted_edges_from(zip(a.tolist(), b.tolist(), w.tolist()))
    out = np.full(n, -1, dtype=np.int64)
    for i, group in enumerate(nx.community.louvain_communities(g, weight="weight", resolution=RESOLUTION, seed=SEED)):
        out[list(group)] = i
    return out


def _dense(labels: np.ndarray) -> np.ndarray:
    """The labels renumbered 0, 1, ... (their order kept), whatever numbers the method gave."""
    _, dense = np.unique(labels, return_inverse=True)
    return dense.astype(np.int64)
