"""Random small graphs full of ties, and random walk arguments over them, for comparing the walk with its oracle
(walk_oracle.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphrag.answer.retrieval.edges import Edges
from graphrag.answer.retrieval.graph import KnowledgeGraph
from graphrag.answer.retrieval.records import DocVersion
from graphrag.language.encoding import DIM

Relation = tuple[int, str, str, str, int, int]


@dataclass
class Random:
    """A random graph's parts: keys, documents, sentence rows, mentions and relations."""

    keys: list[str]
    docs: list[DocVersion]
    sentence_doc: np.ndarray
    sentence_idx: np.ndarray
    mentions: list[tuple[int, int]]  # entity, row
    relations: list[Relation]

    def graph(self, edges: Edges | list[Relation] | None = None) -> KnowledgeGraph:
        return KnowledgeGraph(self.keys, self.keys, np.zeros((len(self.keys), DIM), dtype=np.float32), self.docs,
                              np.array([e for e, _ in self.mentions], dtype=np.int64),
                              np.array([r for _, r in self.mentions], dtype=np.int64), self.sentence_doc,
                              self.sentence_idx, np.zeros((len(self.sentence_doc), DIM), dtype=np.float32),
                              self.relations if edges is None else edges)


def random_graph(rng: np.random.Generator, n_keys: int = 16, n_rows: int = 30, n_rels: int = 45) -> Random:
    # zero-padded keys compare like their numbers; shuffled so key order is not index order
    keys = [f"e{i:02d}" for i in rng.permutation(n_keys).tolist()]
    docs = [DocVersion(f"d{d}", 1 + d % 2, frozenset({"public"}), False, f"D{d}", None) for d in range(4)]
    sentence_doc = rng.integers(len(docs), size=n_rows)
    sentence_idx = np.zeros(n_rows, dtype=np.int64)
    for d in range(len(docs)):  # rows of a document in random order, indices 0..k-1
        at = np.flatnonzero(sentence_doc == d)
        sentence_idx[at] = rng.permutation(len(at))
    mentions = []
    for row in range(n_rows):
        for e in rng.integers(n_keys, size=int(rng.integers(0, 5))).tolist():  # may repeat an entity
            mentions.append((e, row))
    relations = []
    for rel_id in rng.choice(np.arange(1, 10 * n_rels), size=n_rels, replace=False).tolist():
        src = int(rng.integers(n_keys))
        dst = src if rng.random() < 0.05 else int(rng.integers(n_keys))  # a few self-loops
        if relations and rng.random() < 0.15:  # a parallel relation
            _, s_key, d_key, _, _, _ = relations[int(rng.integers(len(relations)))]
            src, dst = keys.index(s_key), keys.index(d_key)
        row = int(rng.integers(n_rows))
        relations.append((rel_id, keys[src], keys[dst], f"t{int(rng.integers(3))}", int(sentence_doc[row]), row))
    return Random(keys, docs, sentence_doc, sentence_idx, mentions, relations)


def random_asks(rng: np.random.Generator, g: Random, n: int) -> list[dict[str, object]]:
    """Walk arguments: seeds, hops 1-3, both directions, co-mentions on and off, tied weights, hidden docs."""
    asks = []
    for i in range(n):
        seeds = [g.keys[k] for k in rng.integers(len(g.keys), size=int(rng.integers(1, 4))).tolist()]
        weighted = i % 4 != 3
        asks.append({
            "seeds": seeds + (["not-a-key"] if i % 7 == 0 else []),
            "hops": 1 + i % 3,
            "direction": ("both", "out")[(i // 3) % 2],
            "visible_docs": rng.random(len(g.docs)) > 0.25,
            "seed_scores": {s: float(rng.choice([0.5, 1.0])) for s in seeds} if i % 2 else None,
            "row_weight": rng.choice(np.array([0.0, 0.05, 0.5, 0.5, 1.0], dtype=np.float32),
                                     size=len(g.sentence_doc)) if weighted else None,
            "node_weight": rng.choice(np.array([0.0, 0.5, 1.0, 1.0], dtype=np.float32),
                                      size=len(g.keys)) if i % 3 else None,
            "comention": i % 5 != 4,
            "rows_per_entity": int(rng.choice([1, 2, 12])),
            "max_nodes": int(rng.choice([3, 400])),
        })
    return asks
