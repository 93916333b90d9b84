"""Leiden against Louvain on the edges themes' communities are found on: time, memory, modularity, stability.

``python -m lab.compare_partitions STORE [--access public ...]`` loads the store's graph (the saved one when it is
current), builds the weighted edge list ``communities`` builds for that access (``weighted_edges``), and runs the
product's ``partition`` on it in a fresh process per method: Leiden (graspologic-native) and NetworkX's Louvain
(graspologic-native set aside, as where it is not installed). Each prints one JSON line: seconds for the first run
and a second one, the process's peak resident memory and its growth over the partition, the communities and the
largest one's size, the modularity of the partition, and whether the second run gave the same partition.
A benchmark, not a timed test; the machine's other work moves every time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lab.bench_scale import reset_peak, vm_hwm_mb

METHODS = ("leiden", "louvain")


def modularity(a: np.ndarray, b: np.ndarray, w: np.ndarray, part: np.ndarray) -> float:
    """Newman's modularity (resolution 1) of ``part`` over the undirected edges ``a``--``b`` weighted ``w``."""
    m, k = float(w.sum()), int(part.max()) + 1
    inside = part[a] == part[b]
    within = np.bincount(part[a[inside]], weights=w[inside], minlength=k)
    degree = np.bincount(part[a], weights=w, minlength=k) + np.bincount(part[b], weights=w, minlength=k)
    return float((within / m - (degree / (2 * m)) ** 2).sum())


def edges_of(store_path: Path, access: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The weighted edges ``communities`` partitions for ``access`` on the store's graph, and its entity count."""
    from graphrag.answer.communities import weighted_edges
    from graphrag.answer.retrieval import build_graph, saved
    from graphrag.store import Store

    with Store(store_path) as store:
        found = saved.read(store)
        graph = found[0] if found is not None and found[1] else build_graph(store)
        visible = graph.visibility(frozenset(access), False, frozenset())[0]
        a, b, w = weighted_edges(graph, visible)
        return a, b, w, len(graph.keys)


def run_one(method: str, edges: Path) -> dict[str, Any]:
    """One method on the saved edges, in this process (the parent starts a fresh one per method)."""
    if method == "louvain":
        sys.modules["graspologic_native"] = None  # type: ignore[assignment]  # as if not installed
    from graphrag.answer.partition import partition

    saved_edges = np.load(edges)
    a, b, w, n = saved_edges["a"], saved_edges["b"], saved_edges["w"], int(saved_edges["n"])
    reset_peak()
    before = vm_hwm_mb()
    t0 = time.perf_counter()
    part, used = partition(a, b, w, n)
    seconds = time.perf_counter() - t0
    peak = vm_hwm_mb()
    t0 = time.perf_counter()
    again, _ = partition(a, b, w, n)
    touched = part >= 0
    return {"method": used, "edges": len(a), "entities": n, "seconds": round(seconds, 2),
            "seconds_again": round(time.perf_counter() - t0, 2), "peak_rss_mb": round(peak, 1),
            "growth_mb": round(peak - before, 1), "communities": int(part.max()) + 1,
            "largest": int(np.bincount(part[touched]).max()), "modularity": round(modularity(a, b, w, part.clip(0)), 4),
            "same_again": bool(np.array_equal(part, again))}


def compare(store_path: Path, access: Sequence[str]) -> int:
    """Print the edge list's size, then one JSON line per method."""
    t0 = time.perf_counter()
    a, b, w, n = edges_of(store_path, access)
    print(json.dumps({"store": str(store_path), "access": list(access), "entities": n, "edges": len(a),
                      "edges_s": round(time.perf_counter() - t0, 2)}), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        edges = Path(tmp) / "edges.npz"
        np.savez(edges, a=a, b=b, w=w, n=n)
        del a, b, w
        for method in METHODS:
            load = os.getloadavg()[0]
            out = subprocess.run([sys.executable, "-m", "lab.compare_partitions", "--run", method, str(edges)],
                                 capture_output=True, text=True, check=True)
            row = json.loads(out.stdout)
            print(json.dumps({**row, "load_average": [round(load, 2), round(os.getloadavg()[0], 2)]}), flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: compare on a store, or (``--run``, what ``compare`` starts) one method on saved edges."""
    p = argparse.ArgumentParser(prog="python -m lab.compare_partitions", description=__doc__.splitlines()[0])
    p.add_argument("store", type=Path, nargs="?", help="a store (e.g. one `graphrag bench million --store` kept)")
    p.add_argument("--access", nargs="+", default=["public"], help="the labels whose view is partitioned")
    p.add_argument("--run", nargs=2, metavar=("METHOD", "EDGES"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.run:
        if args.run[0] not in METHODS:
            p.error(f"--run takes one of {', '.join(METHODS)}")
        print(json.dumps(run_one(args.run[0], Path(args.run[1]))))
        return 0
    if args.store is None or not args.store.is_file():
        p.error("name a store file")
    return compare(args.store, args.access)


if __name__ == "__main__":
    sys.exit(main())
